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
            label="Comment (optional)"
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
      label: "Pause",
      title: "Pause run",
      body: <>Pause run #{id}? No new node starts until it is resumed; nodes running now go on.</>,
      color: "yellow",
      run: () => pause({ id }),
      done: `Paused run #${id}.`,
    });
  }
  if (run.status === "PAUSED") {
    actions.push({
      label: "Resume",
      title: "Resume run",
      body: <>Resume run #{id}? Its waiting nodes start as their upstream nodes allow.</>,
      run: () => resume({ id }),
      done: `Resumed run #${id}.`,
    });
  }
  if (run.status === "FAILED" || run.status === "STOPPED") {
    actions.push({
      label: "Retry failed nodes",
      title: "Retry failed nodes",
      body: <>Run run #{id}’s failed and stopped nodes again? Succeeded nodes keep their results.</>,
      variant: "filled",
      run: () => retry({ id }),
      done: `Run #${id} runs its failed nodes again.`,
    });
  }
  if (run.status === "RUNNING" || run.status === "PAUSED" || run.status === "WAITING") {
    actions.push({
      label: "Stop",
      title: "Stop run",
      body: <>Stop run #{id}? Its running nodes are stopped, nested runs too, and it ends STOPPED.</>,
      danger: true,
      run: () => stop({ id }),
      done: `Stopped run #${id}.`,
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
        label: "Approve",
        title: "Approve",
        body: <>Approve node {key}? Its successors run as if it succeeded.</>,
        variant: "filled",
        color: "teal",
        comment: true,
        run: (comment) => approve({ id, node: key, approve: true, comment: comment || null }),
        done: `Approved ${key}.`,
      },
      {
        label: "Reject",
        title: "Reject",
        body: <>Reject node {key}? It fails with reason REJECTED.</>,
        danger: true,
        comment: true,
        run: (comment) => approve({ id, node: key, approve: false, comment: comment || null }),
        done: `Rejected ${key}.`,
      },
    );
  }
  if (node.status === "FAILED" || node.status === "STOPPED" || node.status === "SKIPPED") {
    actions.push({
      label: "Mark succeeded",
      title: "Mark node succeeded",
      body: <>Mark node {key} SUCCEEDED by hand, so its successors can run?</>,
      run: () => mark({ id, node: key }),
      done: `Marked ${key} succeeded.`,
    });
  }
  const ended = node.status !== "WAITING" && node.status !== "RUNNING" && node.status !== "AWAITING_APPROVAL";
  if (ended) {
    actions.push(
      {
        label: "Rerun node",
        title: "Rerun node",
        body: <>Run node {key} again, alone? Its successors keep their state.</>,
        variant: "default",
        run: () => rerun({ id, node: key, downstream: false }),
        done: `Node ${key} runs again.`,
      },
      {
        label: "Rerun with downstream",
        title: "Rerun with downstream",
        body: <>Run node {key} and everything after it again?</>,
        variant: "default",
        run: () => rerun({ id, node: key, downstream: true }),
        done: `Node ${key} and its downstream run again.`,
      },
    );
  }
  return <ActionButtons actions={actions} onRun={onRun} />;
}
