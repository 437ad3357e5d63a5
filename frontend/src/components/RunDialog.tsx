import { useState, type ReactNode, type SubmitEvent } from "react";
import { Alert, Anchor, Button, Group, Modal, NumberInput, Stack, Text } from "@mantine/core";
import { Link } from "react-router";
import type { CombinedError } from "urql";
import { errorMessage, fieldErrors } from "../api/errors";
import { Truncated } from "./Truncated";
import { t } from "../i18n";
import { statusLabel } from "./statusLabel";

/** What a run started: an instance of a job, a run of a workflow. */
export interface Started {
  id: string;
  status: string;
  /** Its page. */
  to: string;
}

interface RunDialogProps {
  opened: boolean;
  /** What is run, e.g. "job"; the title reads "Run <name>". */
  kind: string;
  name: string | undefined;
  onClose: () => void;
  /** What the run started, once it did; null until then. */
  started: Started | null;
  /** How the started thing is named, e.g. "Instance" (its link: "Open instance #5"). */
  startedNoun: string;
  /** The last attempt's error. */
  error: CombinedError | undefined;
  /** The input field the dialog's own field is sent as (its BAD_INPUT shows there). */
  field: string;
  fetching: boolean;
  /** Runs it, with the delay asked for (whole ms, null for none). */
  onSubmit: (delayMs: number | null) => void | Promise<void>;
  /** The dialog's own field (parameters, context), given the server's error for it. */
  children: (fieldError: string | undefined) => ReactNode;
}

/**
 * The dialog that runs a job or a workflow now: the caller's field, a
 * delay, Run; then what started, linked. The caller sends the mutation.
 */
export function RunDialog(props: RunDialogProps) {
  const { opened, kind, name, onClose, started, startedNoun, error, field, fetching, onSubmit, children } = props;
  const [delaySec, setDelaySec] = useState<number | string>("");
  const errors = fieldErrors(error);
  const general = error && !(field in errors) && !("delayMs" in errors) ? errorMessage(error) : undefined;

  function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const delayMs = typeof delaySec === "number" && delaySec > 0 ? Math.round(delaySec * 1000) : null;
    void onSubmit(delayMs);
  }

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={<Truncated text={`Run ${name ?? kind}`} />}
      size="lg"
      styles={{ title: { minWidth: 0 } }}
    >
      {started ? (
        <Stack>
          <Alert color="teal" title={t("components.RunDialog.started")} role="status">
            <Text size="sm">
              {startedNoun}{" "}
              <Anchor component={Link} to={started.to} fw={600}>
                #{started.id}
              </Anchor>{" "}{t("components.RunDialog.is", { status: statusLabel(started.status).toLowerCase() })}</Text>
          </Alert>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>{t("components.RunDialog.close")}</Button>
            <Button component={Link} to={started.to}>{t("components.RunDialog.open", { toLowerCase: startedNoun.toLowerCase(), id: started.id })}</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            {general && (
              <Alert color="red" title={t("components.RunDialog.couldNotRunThe", { kind: kind })} role="alert">
                <Text size="sm" style={{ whiteSpace: "pre-line" }}>
                  {general}
                </Text>
              </Alert>
            )}
            {children(errors[field])}
            <NumberInput
              label={t("components.RunDialog.delaySeconds")}
              description={t("components.RunDialog.optionalStartThisLong")}
              min={0}
              allowNegative={false}
              maw={200}
              value={delaySec}
              onChange={setDelaySec}
              error={errors["delayMs"]}
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>{t("components.RunDialog.cancel")}</Button>
              <Button type="submit" loading={fetching}>{t("components.RunDialog.run")}</Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

/** The monospace font of a field holding JSON or parameters. */
export const monoInput = { input: { fontFamily: "var(--mantine-font-family-monospace)" } };

/**
 * A random idempotency key for one opening of a run dialog, so pressing Run
 * again after a timeout or a lost answer returns what the first press
 * started (crypto.getRandomValues, which unlike randomUUID works on a
 * console served over plain http).
 */
export function newRunKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return "console-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
