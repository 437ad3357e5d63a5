import { useState, type SubmitEvent } from "react";
import { Alert, Button, Group, Modal, Select, Stack, TextInput } from "@mantine/core";
import { useMutation } from "urql";
import { errorMessage, fieldErrors } from "../api/errors";
import { appRoles } from "../apps/useAppRole";
import { useApps } from "../apps/useApps";
import { SecretOnce } from "../components/SecretOnce";
import { useOpenings } from "../components/useOpenings";
import type { AppRole, CreateApiTokenMutation as CreateResult } from "../graphql/graphql";
import { CreateApiTokenMutation } from "./operations";
import { t } from "../i18n";

type Created = CreateResult["createApiToken"];

interface CreateTokenDialogProps {
  opened: boolean;
  onClose: () => void;
}

/** The form, then the new token's secret, shown this once. */
export function CreateTokenDialog({ opened, onClose }: CreateTokenDialogProps) {
  const openings = useOpenings(opened);
  // Kept with the opening it belongs to: a new opening starts at the form.
  const [kept, setKept] = useState<{ opening: number; created: Created } | null>(null);
  const created = kept?.opening === openings ? kept.created : null;
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      // Forget the secret once the dialog is gone, not during its fade.
      onExitTransitionEnd={() => setKept(null)}
      title={created ? t("tokens.CreateTokenDialog.newApiToken") : t("tokens.CreateTokenDialog.createApiToken")}
      size="lg"
      // While the secret shows, only Done or the close button dismisses it.
      closeOnClickOutside={!created}
      closeOnEscape={!created}
    >
      {created ? (
        <SecretOnce secret={created.secret} copyLabel={t("tokens.CreateTokenDialog.copyToken")} onDone={onClose} data-testid="token-secret">{t("tokens.CreateTokenDialog.token")}{" "}<strong>{created.token.name}</strong>{" "}{t("tokens.CreateTokenDialog.wasCreatedServicesSend")}{" "}<code>{t("tokens.CreateTokenDialog.authorizationBearerToken")}</code>:
        </SecretOnce>
      ) : (
        <CreateTokenForm
          key={openings}
          onCreated={(c) => setKept({ opening: openings, created: c })}
          onCancel={onClose}
        />
      )}
    </Modal>
  );
}

const fields = ["name", "app", "role"] as const;

function CreateTokenForm({ onCreated, onCancel }: { onCreated: (c: Created) => void; onCancel: () => void }) {
  const [{ fetching, error }, create] = useMutation(CreateApiTokenMutation);
  const [{ data: apps }] = useApps();
  const [name, setName] = useState("");
  const [app, setApp] = useState<string | null>(null);
  const [role, setRole] = useState<AppRole | null>(null);
  const [sentName, setSentName] = useState<string | null>(null);

  const errors = fieldErrors(error);
  const general = error && !fields.some((f) => f in errors) ? errorMessage(error) : undefined;

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    setSentName(name);
    const result = await create({ name: name.trim(), app, role });
    if (result.data) onCreated(result.data.createApiToken);
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack>
        {general && (
          <Alert color="red" title={t("tokens.CreateTokenDialog.couldNotCreateThe")} role="alert">
            {general}
          </Alert>
        )}
        <TextInput
          label={t("tokens.CreateTokenDialog.name")}
          description={t("tokens.CreateTokenDialog.whatTheTokenIs")}
          required
          data-autofocus
          maxLength={128}
          autoComplete="off"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={sentName === name ? errors["name"] : undefined}
        />
        <Select
          label={t("tokens.CreateTokenDialog.app")}
          description={t("tokens.CreateTokenDialog.limitTheTokenTo")}
          placeholder={t("tokens.CreateTokenDialog.everyApp")}
          data={apps?.apps.map((a) => a.name) ?? []}
          value={app}
          onChange={setApp}
          clearable
          searchable
          nothingFoundMessage={t("tokens.CreateTokenDialog.noSuchApp")}
          error={errors["app"]}
          comboboxProps={{ withinPortal: true }}
        />
        <Select
          label={t("tokens.CreateTokenDialog.role")}
          description={t("tokens.CreateTokenDialog.theMostTheToken")}
          placeholder={t("tokens.CreateTokenDialog.yourOwnRole")}
          data={appRoles.map((r) => ({ value: r.value, label: `${r.label}: ${r.description.toLowerCase()}` }))}
          value={role}
          onChange={(value) => setRole(value as AppRole | null)}
          clearable
          error={errors["role"]}
          comboboxProps={{ withinPortal: true }}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>{t("tokens.CreateTokenDialog.cancel")}</Button>
          <Button type="submit" loading={fetching}>{t("tokens.CreateTokenDialog.createToken")}</Button>
        </Group>
      </Stack>
    </form>
  );
}
