import type { InstanceStatus } from "../graphql/graphql";

export const instanceStatuses: readonly InstanceStatus[] = [
  "WAITING",
  "DISPATCHED",
  "RUNNING",
  "SUCCEEDED",
  "FAILED",
  "STOPPED",
  "CANCELED",
];

/** Mantine colours, so a status reads the same everywhere. */
export const statusColors: Record<InstanceStatus, string> = {
  WAITING: "gray",
  DISPATCHED: "cyan",
  RUNNING: "blue",
  SUCCEEDED: "teal",
  FAILED: "red",
  STOPPED: "orange",
  CANCELED: "dark",
};

/** Whether an instance may still change by itself (and so is worth watching). */
export function isUnfinished(status: InstanceStatus): boolean {
  return status === "WAITING" || status === "DISPATCHED" || status === "RUNNING";
}

/** Whether retryInstance accepts it. */
export function isRetryable(status: InstanceStatus): boolean {
  return status === "FAILED" || status === "STOPPED" || status === "CANCELED";
}

export function isInstanceStatus(value: string): value is InstanceStatus {
  return (instanceStatuses as readonly string[]).includes(value);
}

/** How far along its attempt a status is: an attempt only moves forward. */
const progress: Record<InstanceStatus, number> = {
  WAITING: 0,
  DISPATCHED: 1,
  RUNNING: 2,
  SUCCEEDED: 3,
  FAILED: 3,
  STOPPED: 3,
  CANCELED: 3,
};

interface Where {
  status: InstanceStatus;
  /** Unknown: the same attempt as the other. */
  attempt?: number;
}

/**
 * Whether `a` is a later state of an instance than `b`: a later attempt, or
 * further along the same one. A screen shows a pushed state over what it
 * read only when it is later, so a read that raced the change (answered
 * before it committed) cannot take the screen back.
 */
export function isLaterState(a: Where, b: Where): boolean {
  if (a.attempt !== undefined && b.attempt !== undefined && a.attempt !== b.attempt) return a.attempt > b.attempt;
  return progress[a.status] > progress[b.status];
}
