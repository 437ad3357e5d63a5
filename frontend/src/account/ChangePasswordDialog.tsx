import { useState, type ChangeEvent, type SubmitEvent } from "react";
import { Alert, Button, Group, Modal, PasswordInput, Stack } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation } from "urql";
import { errorMessage, fieldErrors } from "../api/errors";
import { useOpenings } from "../components/useOpenings";
import { ChangePasswordMutation } from "./operations";
import { t } from "../i18n";

interface ChangePasswordDialogProps {
  opened: boolean;
  onClose: () => void;
}

/** Changes the caller's password (changePassword), from the user menu. */
export function ChangePasswordDialog({ opened, onClose }: ChangePasswordDialogProps) {
  const openings = useOpenings(opened);
  return (
    <Modal opened={opened} onClose={onClose} title={t("account.ChangePasswordDialog.changePassword")}>
      <ChangePasswordForm key={openings} onDone={onClose} />
    </Modal>
  );
}

interface Values {
  oldPassword: string;
  newPassword: string;
  repeat: string;
}

const empty: Values = { oldPassword: "", newPassword: "", repeat: "" };

function ChangePasswordForm({ onDone }: { onDone: () => void }) {
  const [{ fetching, error }, change] = useMutation(ChangePasswordMutation);
  const [values, setValues] = useState(empty);
  const [sent, setSent] = useState<Values | null>(null);
  const [mismatch, setMismatch] = useState(false);

  const errors = fieldErrors(error);
  const fieldError = (field: "oldPassword" | "newPassword") =>
    sent && values[field] === sent[field] ? errors[field] : undefined;
  const general =
    error && !("oldPassword" in errors) && !("newPassword" in errors) ? errorMessage(error) : undefined;

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (values.newPassword !== values.repeat) {
      setMismatch(true);
      return;
    }
    setSent(values);
    const result = await change({ oldPassword: values.oldPassword, newPassword: values.newPassword });
    if (result.data?.changePassword) {
      notifications.show({
        color: "teal",
        title: t("account.ChangePasswordDialog.passwordChanged"),
        message: t("account.ChangePasswordDialog.yourOtherSessionsWere"),
      });
      onDone();
    }
  }

  const set = (field: keyof Values) => (e: ChangeEvent<HTMLInputElement>) => {
    setValues({ ...values, [field]: e.currentTarget.value });
    if (field !== "oldPassword") setMismatch(false);
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack>
        {general && (
          <Alert color="red" title={t("account.ChangePasswordDialog.couldNotChangeThe")} role="alert">
            {general}
          </Alert>
        )}
        <PasswordInput
          label={t("account.ChangePasswordDialog.currentPassword")}
          required
          data-autofocus
          autoComplete="current-password"
          value={values.oldPassword}
          onChange={set("oldPassword")}
          error={fieldError("oldPassword")}
          // PasswordInput marks its inner input only with data-invalid.
          aria-invalid={Boolean(fieldError("oldPassword"))}
        />
        <PasswordInput
          label={t("account.ChangePasswordDialog.newPassword")}
          description={t("account.ChangePasswordDialog.atLeast8Characters")}
          required
          autoComplete="new-password"
          value={values.newPassword}
          onChange={set("newPassword")}
          error={fieldError("newPassword")}
          aria-invalid={Boolean(fieldError("newPassword"))}
        />
        <PasswordInput
          label={t("account.ChangePasswordDialog.repeatTheNewPassword")}
          required
          autoComplete="new-password"
          value={values.repeat}
          onChange={set("repeat")}
          error={mismatch ? t("account.ChangePasswordDialog.doesNotMatchThe") : undefined}
          aria-invalid={mismatch}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>{t("account.ChangePasswordDialog.cancel")}</Button>
          <Button type="submit" loading={fetching}>{t("account.ChangePasswordDialog.changePassword")}</Button>
        </Group>
      </Stack>
    </form>
  );
}
