import type { AppStatsQuery } from "../graphql/graphql";
import { locale, t } from "../i18n";

export type OutcomeBucket = AppStatsQuery["appStats"]["outcomes"][number];

/** The outcomes the chart stacks, bottom up, with their colours. */
export const outcomeSeries = [
  { name: "succeeded", label: t("dashboard.outcomes.succeeded"), color: "teal.6" },
  { name: "failed", label: t("dashboard.outcomes.failed"), color: "red.6" },
  { name: "stopped", label: t("dashboard.outcomes.stopped"), color: "orange.5" },
  { name: "canceled", label: t("dashboard.outcomes.canceled"), color: "gray.5" },
] as const;

export interface HourRow {
  /** The hour's start, as an RFC 3339 instant. */
  start: string;
  /** The hour as the chart's axis shows it. */
  hour: string;
  succeeded: number;
  failed: number;
  stopped: number;
  canceled: number;
}

const hourMs = 3_600_000;

/**
 * One row per hour of the window, oldest first, ending with the current
 * hour: the API leaves out hours with no outcome, which a time axis needs.
 */
export function hourRows(buckets: OutcomeBucket[], hours: number, now = Date.now(), label = hourLabel(hours)): HourRow[] {
  const byHour = new Map<number, OutcomeBucket>();
  for (const b of buckets) byHour.set(Math.floor(Date.parse(b.start) / hourMs), b);
  const last = Math.floor(now / hourMs);
  const rows: HourRow[] = [];
  for (let h = last - hours + 1; h <= last; h++) {
    const b = byHour.get(h);
    const start = new Date(h * hourMs);
    rows.push({
      start: start.toISOString(),
      hour: label(start),
      succeeded: b?.succeeded ?? 0,
      failed: b?.failed ?? 0,
      stopped: b?.stopped ?? 0,
      canceled: b?.canceled ?? 0,
    });
  }
  return rows;
}

/** "14:00" within a day; "Mon 14:00" over several. */
export function hourLabel(hours: number): (date: Date) => string {
  const format = new Intl.DateTimeFormat(locale(), {
    ...(hours > 24 ? { weekday: "short" } : {}),
    hour: "2-digit",
    minute: "2-digit",
    hour12: false,
  });
  return (date) => format.format(date);
}

/** The outcomes of all buckets, added up. */
export function totals(buckets: OutcomeBucket[]) {
  return buckets.reduce(
    (total, b) => ({
      succeeded: total.succeeded + b.succeeded,
      failed: total.failed + b.failed,
      stopped: total.stopped + b.stopped,
      canceled: total.canceled + b.canceled,
    }),
    { succeeded: 0, failed: 0, stopped: 0, canceled: 0 },
  );
}
