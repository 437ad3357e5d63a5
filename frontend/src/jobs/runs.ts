import { durationBetween } from "../components/format";
import type { InstanceRowFragment } from "../graphql/graphql";
import { t } from "../i18n";

/** The outcomes a run's bar can have, with their colours (as the status badges'). */
export const runSeries = [
  { name: "succeeded", label: t("jobs.runs.succeeded"), color: "teal.6" },
  { name: "failed", label: t("jobs.runs.failed"), color: "red.6" },
  { name: "stopped", label: t("jobs.runs.stopped"), color: "orange.5" },
] as const;

/** One run as the chart draws it: its duration in ms under its outcome, 0 under the others. */
export interface RunRow {
  run: string;
  succeeded: number;
  failed: number;
  stopped: number;
}

/** Finished runs that ran (a start and an end), oldest first, as chart rows. */
export function runRows(runs: InstanceRowFragment[]): RunRow[] {
  const rows: RunRow[] = [];
  for (const r of [...runs].reverse()) {
    const ms = durationBetween(r.startedTime, r.finishedTime);
    if (ms === null || r.finishedTime === null) continue;
    const row: RunRow = { run: `#${r.id}`, succeeded: 0, failed: 0, stopped: 0 };
    if (r.status === "SUCCEEDED") row.succeeded = ms;
    else if (r.status === "FAILED") row.failed = ms;
    else if (r.status === "STOPPED") row.stopped = ms;
    else continue;
    rows.push(row);
  }
  return rows;
}

/**
 * The share of finished runs that succeeded, of those that succeeded or
 * failed (a stopped run was ended by a person, a canceled one never ran),
 * in whole percent; null when none did.
 */
export function successRate(stats: { succeeded: number; failed: number }): number | null {
  const decided = stats.succeeded + stats.failed;
  return decided === 0 ? null : Math.round((stats.succeeded / decided) * 100);
}
