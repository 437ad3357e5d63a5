import type { ReactNode } from "react";
import { Alert, Button, Group, Modal, Stack, Text } from "@mantine/core";
import type { CombinedError } from "urql";
import { errorMessage } from "../api/errors";
import { t } from "../i18n";

interface ConfirmDialogProps {
  opened: boolean;
  title: string;
  /** What will happen, in a sentence or two. */
  children: ReactNode;
  /** The confirming button's label, e.g. "Delete job". */
  confirmLabel: string;
  /** Red for what cannot be undone. */
  danger?: boolean;
  busy?: boolean;
  /** Keeps the confirming button off, e.g. until a name is typed. */
  confirmDisabled?: boolean;
  /** The last attempt's error, shown in the dialog. */
  error?: CombinedError;
  onConfirm: () => void;
  onClose: () => void;
}

/** Asks before doing something that matters; shows why it failed if it did. */
export function ConfirmDialog({
  opened,
  title,
  children,
  confirmLabel,
  danger = false,
  busy = false,
  confirmDisabled = false,
  error,
  onConfirm,
  onClose,
}: ConfirmDialogProps) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered>
      <Stack>
        <Text size="sm" component="div">
          {children}
        </Text>
        {error && (
          <Alert color="red" title={t("components.ConfirmDialog.itDidNotWork")} role="alert">
            <Text size="sm" style={{ whiteSpace: "pre-line" }}>
              {errorMessage(error)}
            </Text>
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>{t("components.ConfirmDialog.cancel")}</Button>
          <Button
            color={danger ? "red" : undefined}
            loading={busy}
            disabled={confirmDisabled}
            onClick={onConfirm}
            data-autofocus
          >
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
