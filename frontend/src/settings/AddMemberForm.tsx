import { useState, type SubmitEvent } from "react";
import { Alert, Button, Group, Select, TextInput, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation } from "urql";
import { errorMessage, fieldErrors } from "../api/errors";
import { appRoles } from "../apps/useAppRole";
import type { AppRole } from "../graphql/graphql";
import { SetAppRoleMutation } from "./operations";
import { t } from "../i18n";

/** Gives a user a role on the app (setAppRole), by username. */
export function AddMemberForm({ app }: { app: string }) {
  const [{ fetching, error }, setRole] = useMutation(SetAppRoleMutation);
  const [username, setUsername] = useState("");
  const [role, setRoleValue] = useState<AppRole>("VIEWER");
  // What was last sent: a field's error shows until that field changes.
  const [sent, setSent] = useState<{ username: string; role: AppRole } | null>(null);

  const errors = fieldErrors(error);
  const usernameError = sent?.username === username ? errors["username"] : undefined;
  const roleError = sent?.role === role ? errors["role"] : undefined;
  const general = error && !("username" in errors) && !("role" in errors) ? errorMessage(error) : undefined;

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const name = username.trim();
    setSent({ username, role });
    const result = await setRole({ app, username: name, role });
    if (result.data) {
      notifications.show({ color: "teal", message: t("settings.AddMemberForm.isOfApp", { name: name, role: role, app: app }) });
      setUsername("");
      setSent(null);
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-labelledby="add-member-title">
      <Title order={4} size="h5" id="add-member-title" mt="sm" mb="xs">{t("settings.AddMemberForm.addAMember")}</Title>
      {general && (
        <Alert color="red" role="alert" title={t("settings.AddMemberForm.couldNotAddThe")} mb="sm">
          {general}
        </Alert>
      )}
      <Group align="flex-start" gap="sm">
        <TextInput
          label={t("settings.AddMemberForm.username")}
          description={t("settings.AddMemberForm.anExistingUserS")}
          required
          autoComplete="off"
          spellCheck={false}
          w={260}
          value={username}
          onChange={(e) => setUsername(e.currentTarget.value)}
          error={usernameError}
        />
        <Select
          label={t("settings.AddMemberForm.role")}
          description={appRoles.find((r) => r.value === role)?.description}
          data={appRoles.map((r) => ({ value: r.value, label: r.label }))}
          value={role}
          onChange={(value) => {
            if (value) setRoleValue(value as AppRole);
          }}
          allowDeselect={false}
          w={320}
          error={roleError}
          comboboxProps={{ withinPortal: true }}
        />
        {/* Aligned with the inputs, below their label and description. */}
        <Button type="submit" loading={fetching} mt={46} disabled={username.trim() === ""}>{t("settings.AddMemberForm.addMember")}</Button>
      </Group>
    </form>
  );
}
