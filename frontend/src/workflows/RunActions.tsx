import { useState, type ReactNode } from "react";
import { Button, Group, Textarea } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, type CombinedError } from "urql";
import { ConfirmDialog } from "../components/ConfirmDialog";
import type { WorkflowRunFieldsFragment } from "../graphql/graphql";
import {
  ApproveWorkflowNodeMutation,
  MarkWorkflowNodeSucceededMutation,
  PauseWorkflowRunMutation,
  RerunWorkflowNodeMutation,
  ResumeWorkflowRunMutation,
  RetryWorkflowRunMutation,
  StopWorkflowRunMutation,
} from "./operations";
import { t } from "../i18n";

type Run = WorkflowRunFieldsFragment;
type Node = Run["nodes"][number];

/** One action a button offers, asked first. */
interface Action {
  label: string;
  title: string;
  body: ReactNode;
  danger?: boolean;
  color?: string;
  variant?: string;
  /** Asks for a comment in the dialog (approve/reject). */
  comment?: boolean;
  run: (comment: string) => Promise<{ error?: CombinedError; data?: object }>;
  done: string;
}

/**
 * Buttons for actions on a run or a node; each opens a confirmation, and
 * the run as the server returns it replaces the one shown.
 */
function ActionButtons({ actions, onRun }: { actions: Action[]; onRun: (run: Run) => void }) {
  const [asking, setAsking] = useState<Action | null>(null);
  const [error, setError] = useState<CombinedError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [comment, setComment] = useState("");

  async function confirm() {
    if (!asking) return;
    setBusy(true);
    const result = await asking.run(comment);
    setBusy(false);
    setError(result.error);
    // Each mutation answers with the run under its own name.
    const run = result.data ? (Object.values(result.data)[0] as Run | undefined) : undefined;
    if (!result.error && run) {
      onRun(run);
      notifications.show({ color: "teal", message: asking.done });
      setAsking(null);
    }
  }

  return (
    <Group gap="xs">
      {actions.map((a) => (
        <Button
          key={a.label}
          size="xs"
          color={a.color ?? (a.danger ? "red" : undefined)}
          variant={a.variant ?? "light"}
          onClick={() => {
            setError(undefined);
            setComment("");
            setAsking(a);
          }}
        >
          {a.label}
        </Button>
      ))}
      <ConfirmDialog
        opened={asking !== null}
        title={asking?.title ?? ""}
        confirmLabel={asking?.title ?? ""}
        danger={asking?.danger}
        busy={busy}
        error={error}
        onConfirm={() => void confirm()}
        onClose={() => setAsking(null)}
      >
        {asking?.body}
        {asking?.comment && (
          <Textarea
            mt="sm"
            label={t("workflows.RunActions.commentOptional")}
            autosize
            minRows={2}
            value={comment}
            onChange={(e) => setComment(e.currentTarget.value)}
          />
        )}
      </ConfirmDialog>
    </Group>
  );
}

/** Stop, pause/resume and retry failed nodes, as the run's status allows. */
export function RunActions({ run, onRun }: { run: Run; onRun: (run: Run) => void }) {
  const [, stop] = useMutation(StopWorkflowRunMutation);
  const [, pause] = useMutation(PauseWorkflowRunMutation);
  const [, resume] = useMutation(ResumeWorkflowRunMutation);
  const [, retry] = useMutation(RetryWorkflowRunMutation);
  const id = run.id;
  const actions: Action[] = [];
  if (run.status === "RUNNING") {
    actions.push({
      label: t("workflows.RunActions.pause"),
      title: t("workflows.RunActions.pauseRun"),
      body: <>{t("workflows.RunActions.pauseRunNoNew", { id: id })}</>,
      color: "yellow",
      run: () => pause({ id }),
      done: t("workflows.RunActions.pausedRun", { id: id }),
    });
  }
  if (run.status === "PAUSED") {
    actions.push({
      label: t("workflows.RunActions.resume"),
      title: t("workflows.RunActions.resumeRun"),
      body: <>{t("workflows.RunActions.resumeRunItsWaiting", { id: id })}</>,
      run: () => resume({ id }),
      done: t("workflows.RunActions.resumedRun", { id: id }),
    });
  }
  if (run.status === "FAILED" || run.status === "STOPPED") {
    actions.push({
      label: t("workflows.RunActions.retryFailedNodes"),
      title: t("workflows.RunActions.retryFailedNodes"),
      body: <>{t("workflows.RunActions.runRunSFailed", { id: id })}</>,
      variant: "filled",
      run: () => retry({ id }),
      done: t("workflows.RunActions.runRunsItsFailed", { id: id }),
    });
  }
  if (run.status === "RUNNING" || run.status === "PAUSED" || run.status === "WAITING") {
    actions.push({
      label: t("workflows.RunActions.stop"),
      title: t("workflows.RunActions.stopRun"),
      body: <>{t("workflows.RunActions.stopRunItsRunning", { id: id })}</>,
      danger: true,
      run: () => stop({ id }),
      done: t("workflows.RunActions.stoppedRun", { id: id }),
    });
  }
  return <ActionButtons actions={actions} onRun={onRun} />;
}

/** A node's actions: approve/reject, mark succeeded, rerun (alone or with downstream). */
export function NodeActions({ run, node, onRun }: { run: Run; node: Node; onRun: (run: Run) => void }) {
  const [, approve] = useMutation(ApproveWorkflowNodeMutation);
  const [, mark] = useMutation(MarkWorkflowNodeSucceededMutation);
  const [, rerun] = useMutation(RerunWorkflowNodeMutation);
  const id = run.id;
  const key = node.key;
  const actions: Action[] = [];
  if (node.status === "AWAITING_APPROVAL") {
    actions.push(
      {
        label: t("workflows.RunActions.approve"),
        title: t("workflows.RunActions.approve"),
        body: <>{t("workflows.RunActions.approveNodeItsSuccessors", { key: key })}</>,
        variant: "filled",
        color: "teal",
        comment: true,
        run: (comment) => approve({ id, node: key, approve: true, comment: comment || null }),
        done: `Approved ${key}.`,
      },
      {
        label: t("workflows.RunActions.reject"),
        title: t("workflows.RunActions.reject"),
        body: <>{t("workflows.RunActions.rejectNodeItFails", { key: key })}</>,
        danger: true,
        comment: true,
        run: (comment) => approve({ id, node: key, approve: false, comment: comment || null }),
        done: `Rejected ${key}.`,
      },
    );
  }
  if (node.status === "FAILED" || node.status === "STOPPED" || node.status === "SKIPPED") {
    actions.push({
      label: t("workflows.RunActions.markSucceeded"),
      title: t("workflows.RunActions.markNodeSucceeded"),
      body: <>{t("workflows.RunActions.markNodeSucceededBy", { key: key })}</>,
      run: () => mark({ id, node: key }),
      done: `Marked ${key} succeeded.`,
    });
  }
  const ended = node.status !== "WAITING" && node.status !== "RUNNING" && node.status !== "AWAITING_APPROVAL";
  if (ended) {
    actions.push(
      {
        label: t("workflows.RunActions.rerunNode"),
        title: t("workflows.RunActions.rerunNode"),
        body: <>{t("workflows.RunActions.runNodeAgainAlone", { key: key })}</>,
        variant: "default",
        run: () => rerun({ id, node: key, downstream: false }),
        done: t("workflows.RunActions.nodeRunsAgain", { key: key }),
      },
      {
        label: t("workflows.RunActions.rerunWithDownstream"),
        title: t("workflows.RunActions.rerunWithDownstream"),
        body: <>{t("workflows.RunActions.runNodeAndEverything", { key: key })}</>,
        variant: "default",
        run: () => rerun({ id, node: key, downstream: true }),
        done: t("workflows.RunActions.nodeAndItsDownstream", { key: key }),
      },
    );
  }
  return <ActionButtons actions={actions} onRun={onRun} />;
}
