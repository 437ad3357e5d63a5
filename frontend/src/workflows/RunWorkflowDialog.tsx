import { useState, type SubmitEvent } from "react";
import { Alert, Anchor, Button, Group, Modal, NumberInput, Stack, Text, Textarea } from "@mantine/core";
import { Link } from "react-router";
import { useMutation } from "urql";
import { errorMessage, fieldErrors } from "../api/errors";
import { appPath } from "../apps/currentApp";
import { Truncated } from "../components/Truncated";
import type { RunWorkflowMutation as RunResult } from "../graphql/graphql";
import { RunWorkflowMutation } from "./operations";

type Started = RunResult["runWorkflow"];

/** Reads the context field: a JSON object, or nothing; otherwise why not. */
export function parseContext(text: string): { value: Record<string, unknown> | null } | { error: string } {
  if (text.trim() === "") return { value: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { error: `Not valid JSON: ${(e as Error).message}` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { error: "Must be a JSON object, e.g. {\"region\": \"eu\"}." };
  }
  return { value: parsed as Record<string, unknown> };
}

interface RunWorkflowDialogProps {
  app: string;
  workflow: { id: string; name: string } | null;
  onClose: () => void;
}

/** Runs a workflow (runWorkflow) with an initial context and an optional delay; links to the new run. */
export function RunWorkflowDialog({ app, workflow, onClose }: RunWorkflowDialogProps) {
  const [{ fetching, error }, run] = useMutation(RunWorkflowMutation);
  const [text, setText] = useState("");
  const [delaySec, setDelaySec] = useState<number | string>("");
  const [started, setStarted] = useState<Started | null>(null);
  const parsed = parseContext(text);
  const contextError = "error" in parsed ? parsed.error : undefined;
  const [touched, setTouched] = useState(false);
  const errors = fieldErrors(error);
  const general = error && !("context" in errors) && !("delayMs" in errors) ? errorMessage(error) : undefined;

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    setTouched(true);
    if (!workflow || "error" in parsed) return;
    const delayMs = typeof delaySec === "number" && delaySec > 0 ? Math.round(delaySec * 1000) : null;
    const result = await run({ id: workflow.id, context: parsed.value, delayMs }, { additionalTypenames: ["WorkflowInstance"] });
    if (result.data) setStarted(result.data.runWorkflow);
  }

  return (
    <Modal
      opened={workflow !== null}
      onClose={onClose}
      title={<Truncated text={`Run ${workflow?.name ?? "workflow"}`} />}
      size="lg"
      styles={{ title: { minWidth: 0 } }}
    >
      {started ? (
        <Stack>
          <Alert color="teal" title="Started" role="status">
            <Text size="sm">
              Run{" "}
              <Anchor component={Link} to={appPath(app, "workflow-instances", started.id)} fw={600}>
                #{started.id}
              </Anchor>{" "}
              is {started.status.toLowerCase()}.
            </Text>
          </Alert>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Close
            </Button>
            <Button component={Link} to={appPath(app, "workflow-instances", started.id)}>
              Open run #{started.id}
            </Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={(e) => void submit(e)} noValidate>
          <Stack>
            {general && (
              <Alert color="red" title="Could not run the workflow" role="alert">
                <Text size="sm" style={{ whiteSpace: "pre-line" }}>
                  {general}
                </Text>
              </Alert>
            )}
            <Textarea
              label="Context"
              description="Optional: the run's initial context, a JSON object its nodes read (and append to)."
              placeholder='{"region": "eu"}'
              autosize
              minRows={4}
              maxRows={14}
              styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
              data-autofocus
              value={text}
              onChange={(e) => setText(e.currentTarget.value)}
              onBlur={() => setTouched(true)}
              error={(touched ? contextError : undefined) ?? errors["context"]}
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
