import type { WorkflowInstanceStatus, WorkflowNodeStatus } from "../graphql/graphql";

export const runStatuses: readonly WorkflowInstanceStatus[] = [
  "WAITING",
  "RUNNING",
  "PAUSED",
  "SUCCEEDED",
  "FAILED",
  "STOPPED",
  "CANCELED",
];

/** Mantine colours, so a run's status reads as an instance's does. */
export const runStatusColors: Record<WorkflowInstanceStatus, string> = {
  WAITING: "gray",
  RUNNING: "blue",
  PAUSED: "yellow",
  SUCCEEDED: "teal",
  FAILED: "red",
  STOPPED: "orange",
  CANCELED: "dark",
};

/**
 * How the run view shows a node: its status, but PAUSED for a node that is
 * waiting in a paused run (it will not start until the run is resumed).
 */
export type NodeShownStatus = WorkflowNodeStatus | "PAUSED";

export function shownNodeStatus(node: WorkflowNodeStatus, run: WorkflowInstanceStatus): NodeShownStatus {
  return node === "WAITING" && run === "PAUSED" ? "PAUSED" : node;
}

/** Each node state's colour on the canvas (Mantine palette names). */
export const nodeStatusColors: Record<NodeShownStatus, string> = {
  WAITING: "gray",
  RUNNING: "blue",
  SUCCEEDED: "teal",
  FAILED: "red",
  SKIPPED: "gray",
  STOPPED: "orange",
  AWAITING_APPROVAL: "violet",
  PAUSED: "yellow",
};

/** Whether a run may still change by itself. */
export function isRunActive(status: WorkflowInstanceStatus): boolean {
  return status === "WAITING" || status === "RUNNING" || status === "PAUSED";
}

export function isRunStatus(value: string): value is WorkflowInstanceStatus {
  return (runStatuses as readonly string[]).includes(value);
}
