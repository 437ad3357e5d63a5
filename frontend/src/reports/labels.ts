import { formatDuration } from "../components/format";
import { locale } from "../i18n";
import { localMidnight } from "./report";

const dayFormat = new Intl.DateTimeFormat(locale(), { weekday: "short", month: "short", day: "numeric" });

/** A report day (YYYY-MM-DD) as the reader says it: "Mon, Nov 23". */
export function dayLabel(date: string): string {
  return dayFormat.format(localMidnight(date));
}

/** A duration in ms, or a dash when there was none. */
export function durationLabel(ms: number | null | undefined): string {
  return ms == null ? "—" : formatDuration(ms);
}
