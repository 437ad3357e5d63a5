import { useState, type SubmitEvent } from "react";
import { Alert, Anchor, Button, Group, Modal, NumberInput, Stack, Text, Textarea } from "@mantine/core";
import { Link } from "react-router";
import { useMutation } from "urql";
import { errorMessage, fieldErrors } from "../api/errors";
import { appPath } from "../apps/currentApp";
import { Truncated } from "../components/Truncated";
import type { JobRowFragment, RunJobMutation as RunJobResult } from "../graphql/graphql";
import { RunJobMutation } from "./operations";

type Started = RunJobResult["runJob"];

interface RunJobDialogProps {
  app: string;
  /** The job to run; null when closed. */
  job: Pick<JobRowFragment, "id" | "name"> | null;
  onClose: () => void;
}

/**
 * A random key for one opening of the dialog (crypto.getRandomValues, which
 * unlike randomUUID works on a console served over plain http).
 */
function newRunKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return "console-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Runs a job now (runJob), with optional parameters and delay; links to the new instance.
 * Every submit of one opening carries the same idempotency key, so pressing Run again after
 * a timeout or a lost answer returns the instance already started instead of a second run.
 */
export function RunJobDialog({ app, job, onClose }: RunJobDialogProps) {
  const [{ fetching, error }, runJob] = useMutation(RunJobMutation);
  const [idempotencyKey] = useState(newRunKey);
  const [params, setParams] = useState("");
  const [delaySec, setDelaySec] = useState<number | string>("");
  const [started, setStarted] = useState<Started | null>(null);

  const errors = fieldErrors(error);
  const general = error && !("params" in errors) && !("delayMs" in errors) ? errorMessage(error) : undefined;

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!job) return;
    const delayMs = typeof delaySec === "number" && delaySec > 0 ? Math.round(delaySec * 1000) : null;
    const result = await runJob({ id: job.id, params: params || null, delayMs, idempotencyKey });
    if (result.data) setStarted(result.data.runJob);
  }

  return (
    <Modal
      opened={job !== null}
      onClose={onClose}
      title={<Truncated text={`Run ${job?.name ?? "job"}`} />}
      size="lg"
      styles={{ title: { minWidth: 0 } }}
    >
      {started ? (
        <Stack>
          <Alert color="teal" title="Started" role="status">
            <Text size="sm">
              Instance{" "}
              <Anchor component={Link} to={appPath(app, "instances", started.id)} fw={600}>
                #{started.id}
              </Anchor>{" "}
              is {started.status.toLowerCase()}.
            </Text>
          </Alert>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Close
            </Button>
            <Button component={Link} to={appPath(app, "instances", started.id)}>
              Open instance #{started.id}
            </Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={(e) => void submit(e)} noValidate>
          <Stack>
            {general && (
              <Alert color="red" title="Could not run the job" role="alert">
                <Text size="sm" style={{ whiteSpace: "pre-line" }}>
                  {general}
                </Text>
              </Alert>
            )}
            <Textarea
              label="Parameters"
              description="Optional: this run's parameters, which the processor receives besides the job's own."
              autosize
              minRows={3}
              maxRows={12}
              styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
              data-autofocus
              value={params}
              onChange={(e) => setParams(e.currentTarget.value)}
              error={errors["params"]}
            />
            <NumberInput
              label="Delay (seconds)"
              description="Optional: start this long from now."
              min={0}
              allowNegative={false}
              maw={200}
              value={delaySec}
              onChange={setDelaySec}
              error={errors["delayMs"]}
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={fetching}>
                Run
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
