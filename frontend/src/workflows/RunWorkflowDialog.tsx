import { useState } from "react";
import { Textarea } from "@mantine/core";
import { useMutation } from "urql";
import { appPath } from "../apps/currentApp";
import { monoInput, newRunKey, RunDialog } from "../components/RunDialog";
import type { RunWorkflowMutation as RunResult } from "../graphql/graphql";
import { RunWorkflowMutation } from "./operations";
import { t } from "../i18n";

type Started = RunResult["runWorkflow"];

/** Reads the context field: a JSON object, or nothing; otherwise why not. */
/** JSON, not prose: the same in every language. */
const contextExample = '{"region": "eu"}';

export function parseContext(text: string): { value: Record<string, unknown> | null } | { error: string } {
  if (text.trim() === "") return { value: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { error: t("workflows.RunWorkflowDialog.notValidJson", { message: (e as Error).message }) };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { error: t("workflows.RunWorkflowDialog.mustBeAJson") };
  }
  return { value: parsed as Record<string, unknown> };
}

interface RunWorkflowDialogProps {
  app: string;
  workflow: { id: string; name: string } | null;
  onClose: () => void;
}

/**
 * Runs a workflow (runWorkflow) with an initial context and an optional delay; links to the new run.
 * Every submit of one opening carries the same idempotency key, so pressing Run again after a
 * timeout or a lost answer returns the run already recorded instead of starting a second one.
 */
export function RunWorkflowDialog({ app, workflow, onClose }: RunWorkflowDialogProps) {
  const [{ fetching, error }, run] = useMutation(RunWorkflowMutation);
  const [idempotencyKey] = useState(newRunKey);
  const [text, setText] = useState("");
  const [started, setStarted] = useState<Started | null>(null);
  const parsed = parseContext(text);
  const contextError = "error" in parsed ? parsed.error : undefined;
  const [touched, setTouched] = useState(false);

  async function submit(delayMs: number | null) {
    setTouched(true);
    if (!workflow || "error" in parsed) return;
    const result = await run({ id: workflow.id, context: parsed.value, delayMs, idempotencyKey }, { additionalTypenames: ["WorkflowInstance"] });
    if (result.data) setStarted(result.data.runWorkflow);
  }

  return (
    <RunDialog
      opened={workflow !== null}
      kind="workflow"
      name={workflow?.name}
      onClose={onClose}
      started={started && { ...started, to: appPath(app, "workflow-instances", started.id) }}
      startedNoun={t("workflows.RunWorkflowDialog.run")}
      error={error}
      field="context"
      fetching={fetching}
      onSubmit={submit}
    >
      {(fieldError) => (
        <Textarea
          label={t("workflows.RunWorkflowDialog.context")}
          description={t("workflows.RunWorkflowDialog.optionalTheRunS")}
          placeholder={contextExample}
          autosize
          minRows={4}
          maxRows={14}
          styles={monoInput}
          data-autofocus
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
          onBlur={() => setTouched(true)}
          error={(touched ? contextError : undefined) ?? fieldError}
        />
      )}
    </RunDialog>
  );
}
