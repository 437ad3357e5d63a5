import type { RunReportQuery } from "../graphql/graphql";

export type ReportDay = RunReportQuery["runReport"]["days"][number];
export type ReportRow = RunReportQuery["runReport"]["rows"][number];

/** The longest range the server reports on, in days. */
export const maxDays = 92;

/** A day as the API and the URL write it: YYYY-MM-DD. */
export type DateString = string;

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** A local date as YYYY-MM-DD. */
export function dateString(date: Date): DateString {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Whether the text is a real calendar day written YYYY-MM-DD. */
export function isDateString(text: string | null | undefined): text is DateString {
  if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  return dateString(localMidnight(text)) === text;
}

/** Midnight of a day in the viewer's zone. */
export function localMidnight(day: DateString, plusDays = 0): Date {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(y, m - 1, d + plusDays);
}

/** The days from `days - 1` days ago to today, in the viewer's zone. */
export function lastDays(days: number, now = new Date()): { from: DateString; to: DateString } {
  const today = dateString(now);
  return { from: dateString(localMidnight(today, 1 - days)), to: today };
}

/**
 * The instants the API is asked for: from the first day's midnight to the
 * midnight after the last day (exclusive), in the viewer's zone.
 */
export function rangeInstants(from: DateString, to: DateString): { from: string; to: string } {
  return { from: localMidnight(from).toISOString(), to: localMidnight(to, 1).toISOString() };
}

/** The viewer's IANA time zone, which the report's days are cut in. */
export function viewerTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** One job's runs over the whole range. */
export interface JobTotal {
  job: ReportRow["job"];
  runs: number;
  succeeded: number;
  failed: number;
  stopped: number;
  canceled: number;
  /** The longest run of the range, in ms; null when none started. */
  durationMaxMs: number | null;
  /** The highest daily p95 of the range, in ms. */
  durationP95Ms: number | null;
}

function maxOf(a: number | null, b: number | null | undefined): number | null {
  if (b == null) return a;
  return a == null ? b : Math.max(a, b);
}

/** The report's rows added up per job, most runs first (then by name). */
export function jobTotals(rows: readonly ReportRow[]): JobTotal[] {
  const byJob = new Map<string, JobTotal>();
  for (const r of rows) {
    const total = byJob.get(r.job.id) ?? {
      job: r.job,
      runs: 0,
      succeeded: 0,
      failed: 0,
      stopped: 0,
      canceled: 0,
      durationMaxMs: null,
      durationP95Ms: null,
    };
    total.runs += r.runs;
    total.succeeded += r.succeeded;
    total.failed += r.failed;
    total.stopped += r.stopped;
    total.canceled += r.canceled;
    total.durationMaxMs = maxOf(total.durationMaxMs, r.durationMaxMs);
    total.durationP95Ms = maxOf(total.durationP95Ms, r.durationP95Ms);
    byJob.set(r.job.id, total);
  }
  return [...byJob.values()].sort((a, b) => b.runs - a.runs || a.job.name.localeCompare(b.job.name));
}

/** The days' counts added up. */
export function dayTotals(days: readonly ReportDay[]) {
  return days.reduce(
    (sum, d) => ({
      runs: sum.runs + d.runs,
      succeeded: sum.succeeded + d.succeeded,
      failed: sum.failed + d.failed,
      stopped: sum.stopped + d.stopped,
      canceled: sum.canceled + d.canceled,
    }),
    { runs: 0, succeeded: 0, failed: 0, stopped: 0, canceled: 0 },
  );
}

/** Succeeded out of succeeded and failed, as a whole percentage; null with neither. */
export function successRate(succeeded: number, failed: number): number | null {
  const decided = succeeded + failed;
  return decided === 0 ? null : Math.round((succeeded / decided) * 100);
}
