import { useState, type ChangeEvent, type SubmitEvent } from "react";
import { Alert, Button, Group, Modal, PasswordInput, Stack } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation } from "urql";
import { errorMessage, fieldErrors } from "../api/errors";
import { useOpenings } from "../components/useOpenings";
import { ChangePasswordMutation } from "./operations";

interface ChangePasswordDialogProps {
  opened: boolean;
  onClose: () => void;
}

/** Changes the caller's password (changePassword), from the user menu. */
export function ChangePasswordDialog({ opened, onClose }: ChangePasswordDialogProps) {
  const openings = useOpenings(opened);
  return (
    <Modal opened={opened} onClose={onClose} title="Change password">
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
        title: "Password changed",
        message: "Your other sessions were logged out; this one goes on.",
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
          <Alert color="red" title="Could not change the password" role="alert">
            {general}
          </Alert>
        )}
        <PasswordInput
          label="Current password"
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
          label="New password"
          description="At least 8 characters."
          required
          autoComplete="new-password"
          value={values.newPassword}
          onChange={set("newPassword")}
          error={fieldError("newPassword")}
          aria-invalid={Boolean(fieldError("newPassword"))}
        />
        <PasswordInput
          label="Repeat the new password"
          required
          autoComplete="new-password"
          value={values.repeat}
          onChange={set("repeat")}
          error={mismatch ? "does not match the new password" : undefined}
          aria-invalid={mismatch}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={fetching}>
            Change password
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
