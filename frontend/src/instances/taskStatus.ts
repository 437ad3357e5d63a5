import type { InstanceFieldsFragment, TaskStatus } from "../graphql/graphql";

type Counts = InstanceFieldsFragment["tasks"];

/**
 * The tasks table's filters: the summary's buckets, each the task states
 * it counts, so a filter's count is the summary's and needs no counting
 * of its own.
 */
export const taskFilters = [
  { key: "all", label: "All", statuses: null, count: (c: Counts) => c.total },
  { key: "waiting", label: "Waiting", statuses: ["WAITING"], count: (c: Counts) => c.waiting },
  { key: "running", label: "Running", statuses: ["DISPATCHED", "RUNNING"], count: (c: Counts) => c.running },
  { key: "succeeded", label: "Succeeded", statuses: ["SUCCEEDED"], count: (c: Counts) => c.succeeded },
  { key: "failed", label: "Failed", statuses: ["FAILED"], count: (c: Counts) => c.failed },
  { key: "stopped", label: "Stopped", statuses: ["STOPPED", "CANCELED"], count: (c: Counts) => c.stopped },
] as const satisfies readonly {
  key: string;
  label: string;
  statuses: readonly TaskStatus[] | null;
  count: (c: Counts) => number;
}[];

export type TaskFilter = (typeof taskFilters)[number];

/** The filter a URL value names; All for anything else. */
export function taskFilterOf(key: string | null): TaskFilter {
  return taskFilters.find((f) => f.key === key) ?? taskFilters[0];
}
