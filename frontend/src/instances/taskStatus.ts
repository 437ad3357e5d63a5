import type { InstanceFieldsFragment, TaskStatus } from "../graphql/graphql";
import { t } from "../i18n";

type Counts = InstanceFieldsFragment["tasks"];

/**
 * The tasks table's filters: the summary's buckets, each the task states
 * it counts, so a filter's count is the summary's and needs no counting
 * of its own.
 */
export const taskFilters = [
  { key: "all", label: t("instances.taskStatus.all"), statuses: null, count: (c: Counts) => c.total },
  { key: "waiting", label: t("instances.taskStatus.waiting"), statuses: ["WAITING"], count: (c: Counts) => c.waiting },
  { key: "running", label: t("instances.taskStatus.running"), statuses: ["DISPATCHED", "RUNNING"], count: (c: Counts) => c.running },
  { key: "succeeded", label: t("instances.taskStatus.succeeded"), statuses: ["SUCCEEDED"], count: (c: Counts) => c.succeeded },
  { key: "failed", label: t("instances.taskStatus.failed"), statuses: ["FAILED"], count: (c: Counts) => c.failed },
  { key: "stopped", label: t("instances.taskStatus.stopped"), statuses: ["STOPPED", "CANCELED"], count: (c: Counts) => c.stopped },
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
