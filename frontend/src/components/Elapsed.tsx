import { durationBetween, formatDuration } from "./format";
import { useNow } from "./useNow";

interface ElapsedProps {
  /** RFC 3339 start; null: not started (a dash). */
  start: string | null;
  /** RFC 3339 end; null while it runs. */
  end: string | null;
}

/**
 * How long something took; while it runs (started, no end yet), how long
 * it has been running, kept current by itself, so a running row's age
 * never freezes on a screen with no other reason to redraw.
 */
export function Elapsed({ start, end }: ElapsedProps) {
  const now = useNow(start !== null && end === null ? 1_000 : null);
  const ms = durationBetween(start, end, now);
  return <>{ms === null ? "—" : formatDuration(ms)}</>;
}
