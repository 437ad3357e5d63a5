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
      title={created ? "New API token" : "Create API token"}
      size="lg"
      // While the secret shows, only Done or the close button dismisses it.
      closeOnClickOutside={!created}
      closeOnEscape={!created}
    >
      {created ? (
        <SecretOnce secret={created.secret} copyLabel="Copy token" onDone={onClose} data-testid="token-secret">
          Token <strong>{created.token.name}</strong> was created. Services send it as{" "}
          <code>Authorization: Bearer &lt;token&gt;</code>:
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
          <Alert color="red" title="Could not create the token" role="alert">
            {general}
          </Alert>
        )}
        <TextInput
          label="Name"
          description="What the token is for, e.g. “deploy pipeline”."
          required
          data-autofocus
          maxLength={128}
          autoComplete="off"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={sentName === name ? errors["name"] : undefined}
        />
        <Select
          label="App"
          description="Limit the token to one app; empty: every app you may use."
          placeholder="Every app"
          data={apps?.apps.map((a) => a.name) ?? []}
          value={app}
          onChange={setApp}
          clearable
          searchable
          nothingFoundMessage="No such app"
          error={errors["app"]}
          comboboxProps={{ withinPortal: true }}
        />
        <Select
          label="Role"
          description="The most the token may do; empty: whatever your own role allows. Never more than yours."
          placeholder="Your own role"
          data={appRoles.map((r) => ({ value: r.value, label: `${r.label}: ${r.description.toLowerCase()}` }))}
          value={role}
          onChange={(value) => setRole(value as AppRole | null)}
          clearable
          error={errors["role"]}
          comboboxProps={{ withinPortal: true }}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={fetching}>
            Create token
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
