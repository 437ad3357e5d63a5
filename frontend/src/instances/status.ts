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
