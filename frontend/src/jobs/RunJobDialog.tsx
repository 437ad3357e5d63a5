import { useState } from "react";
import { Textarea } from "@mantine/core";
import { useMutation } from "urql";
import { appPath } from "../apps/currentApp";
import { monoInput, newRunKey, RunDialog } from "../components/RunDialog";
import { useLiveSubscription } from "../api/useLiveSubscription";
import type { InstanceStatus, JobRowFragment, RunJobMutation as RunJobResult } from "../graphql/graphql";
import { InstanceChangesSubscription } from "../instances/operations";
import { isLaterState } from "../instances/status";
import { RunJobMutation } from "./operations";
import { t } from "../i18n";

type Started = RunJobResult["runJob"];

interface RunJobDialogProps {
  app: string;
  /** The job to run; null when closed. */
  job: Pick<JobRowFragment, "id" | "name"> | null;
  onClose: () => void;
}

/**
 * Runs a job now (runJob), with optional parameters and delay; links to the new instance,
 * whose status follows instanceUpdated live.
 * Every submit of one opening carries the same idempotency key, so pressing Run again after
 * a timeout or a lost answer returns the instance already started instead of a second run.
 */
export function RunJobDialog({ app, job, onClose }: RunJobDialogProps) {
  const [{ fetching, error }, runJob] = useMutation(RunJobMutation);
  const [idempotencyKey] = useState(newRunKey);
  const [params, setParams] = useState("");
  const [started, setStarted] = useState<Started | null>(null);
  // The job's instances as the server pushes their changes, subscribed while
  // the dialog is open (before Run, so no change is missed): the started
  // instance's status follows, as its row behind the dialog does.
  const [pushed, setPushed] = useState<Record<string, InstanceStatus>>({});
  useLiveSubscription({
    query: InstanceChangesSubscription,
    variables: () => ({ app, jobId: job?.id ?? null }),
    key: `${app}\n${job?.id ?? ""}`,
    enabled: job !== null,
    onData: ({ instanceUpdated: { id, status } }) => setPushed((held) => ({ ...held, [id]: status })),
    resubscribeOnComplete: () => true,
  });
  const now = started ? pushed[started.id] : undefined;
  const shown = started && now && isLaterState({ status: now }, started) ? { ...started, status: now } : started;

  async function submit(delayMs: number | null) {
    if (!job) return;
    const result = await runJob({ id: job.id, params: params || null, delayMs, idempotencyKey });
    if (result.data) setStarted(result.data.runJob);
  }

  return (
    <RunDialog
      opened={job !== null}
      kind="job"
      name={job?.name}
      onClose={onClose}
      started={shown && { ...shown, to: appPath(app, "instances", shown.id) }}
      startedNoun={t("jobs.RunJobDialog.instance")}
      error={error}
      field="params"
      fetching={fetching}
      onSubmit={submit}
    >
      {(fieldError) => (
        <Textarea
          label={t("jobs.RunJobDialog.parameters")}
          description={t("jobs.RunJobDialog.optionalThisRunS")}
          autosize
          minRows={3}
          maxRows={12}
          styles={monoInput}
          data-autofocus
          value={params}
          onChange={(e) => setParams(e.currentTarget.value)}
          error={fieldError}
        />
      )}
    </RunDialog>
  );
}
