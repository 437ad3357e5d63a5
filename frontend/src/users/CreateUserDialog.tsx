import { useState, type SubmitEvent } from "react";
import { Alert, Button, Checkbox, Group, Modal, PasswordInput, Stack, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation } from "urql";
import { errorMessage, fieldErrors } from "../api/errors";
import { useOpenings } from "../components/useOpenings";
import { CreateUserMutation } from "./operations";
import { t } from "../i18n";

interface CreateUserDialogProps {
  opened: boolean;
  onClose: () => void;
}

/** The fields as the server names them in BAD_INPUT errors. */
const fields = ["username", "password", "admin"] as const;

interface Values {
  username: string;
  password: string;
  admin: boolean;
}

const empty: Values = { username: "", password: "", admin: false };

/** Creates a user (createUser); the server's errors show at their fields. */
export function CreateUserDialog({ opened, onClose }: CreateUserDialogProps) {
  const openings = useOpenings(opened);
  return (
    <Modal opened={opened} onClose={onClose} title={t("users.CreateUserDialog.createUser")}>
      {/* Keyed by opening, so each starts empty. */}
      <CreateUserForm key={openings} onDone={onClose} />
    </Modal>
  );
}

function CreateUserForm({ onDone }: { onDone: () => void }) {
  const [{ fetching, error }, createUser] = useMutation(CreateUserMutation);
  const [values, setValues] = useState(empty);
  const [sent, setSent] = useState<Values | null>(null);

  const errors = fieldErrors(error);
  const fieldError = (field: "username" | "password") =>
    sent && values[field] === sent[field] ? errors[field] : undefined;
  const general = error && !fields.some((f) => f in errors) ? errorMessage(error) : undefined;

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    setSent(values);
    const result = await createUser({ username: values.username.trim(), password: values.password, admin: values.admin });
    if (result.data) {
      const { username, admin } = result.data.createUser;
      notifications.show({ color: "teal", message: (admin ? t("users.CreateUserDialog.createdAdmin", { username }) : t("users.CreateUserDialog.createdUser", { username })) });
      onDone();
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack>
        {general && (
          <Alert color="red" title={t("users.CreateUserDialog.couldNotCreateThe")} role="alert">
            {general}
          </Alert>
        )}
        <TextInput
          label={t("users.CreateUserDialog.username")}
          description={t("users.CreateUserDialog.lettersDigitsAndAt")}
          required
          data-autofocus
          autoComplete="off"
          spellCheck={false}
          maxLength={64}
          value={values.username}
          onChange={(e) => setValues({ ...values, username: e.currentTarget.value })}
          error={fieldError("username")}
        />
        <PasswordInput
          label={t("users.CreateUserDialog.password")}
          description={t("users.CreateUserDialog.atLeast8Characters")}
          required
          autoComplete="new-password"
          value={values.password}
          onChange={(e) => setValues({ ...values, password: e.currentTarget.value })}
          error={fieldError("password")}
          // PasswordInput marks its inner input only with data-invalid.
          aria-invalid={Boolean(fieldError("password"))}
        />
        <Checkbox
          label={t("users.CreateUserDialog.administrator")}
          description={t("users.CreateUserDialog.mayDoAnythingOn")}
          checked={values.admin}
          onChange={(e) => setValues({ ...values, admin: e.currentTarget.checked })}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>{t("users.CreateUserDialog.cancel")}</Button>
          <Button type="submit" loading={fetching}>{t("users.CreateUserDialog.createUser")}</Button>
        </Group>
      </Stack>
    </form>
  );
}
