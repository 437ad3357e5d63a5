import { useDebouncedValue } from "@mantine/hooks";
import type { CombinedError } from "urql";
import { useQuery } from "urql";
import { fieldErrors } from "../api/errors";
import type { ScheduleType, ScheduleWindowInput } from "../graphql/graphql";
import { hasExpression } from "./labels";
import { PreviewScheduleQuery } from "./operations";

/** How long typing must pause before the schedule is previewed. */
export const previewDebounceMs = 400;

/** How many fire times the preview shows. */
export const previewCount = 5;

export interface SchedulePreview {
  /** The next fire times (RFC 3339), once known for the current input. */
  times: string[] | null;
  /** The server's objection to the expression, or to the time zone. */
  expressionError: string | null;
  timeZoneError: string | null;
  /** Any other failure (e.g. the server could not be reached). */
  error: CombinedError | null;
  /** The input changed and its preview is not in yet. */
  pending: boolean;
  /** Whether this schedule type fires from an expression at all. */
  applies: boolean;
}

/** What restricts a schedule's fires besides its expression: a daily window, an app's calendar. */
export interface PreviewLimits {
  window?: ScheduleWindowInput | null;
  app?: string;
  calendar?: string | null;
}

/**
 * The next fire times of a schedule as the server computes them
 * (previewSchedule), asked for once typing pauses: exactly the times the
 * trigger loop will use.
 */
export function useSchedulePreview(
  type: ScheduleType,
  expression: string,
  timeZone: string,
  limits: PreviewLimits = {},
): SchedulePreview {
  const window = type === "FIXED_RATE" ? (limits.window ?? null) : null;
  const calendar = (type === "CRON" || type === "FIXED_RATE") && limits.calendar ? limits.calendar : null;
  const key = JSON.stringify([type, expression.trim(), timeZone, window, calendar]);
  const [settled] = useDebouncedValue(key, previewDebounceMs);
  const [sType, sExpression, sZone, sWindow, sCalendar] = JSON.parse(settled) as [
    ScheduleType,
    string,
    string,
    ScheduleWindowInput | null,
    string | null,
  ];
  const applies = hasExpression(type);
  const active = hasExpression(sType) && sExpression !== "";

  const [{ data, error, fetching }] = useQuery({
    query: PreviewScheduleQuery,
    variables: {
      type: sType,
      expression: sExpression,
      timeZone: sZone || null,
      count: previewCount,
      window: sWindow,
      app: sCalendar ? (limits.app ?? null) : null,
      calendar: sCalendar,
    },
    pause: !active,
    // Fire times move on with the clock; a cached answer goes stale.
    requestPolicy: "network-only",
  });

  if (!active || !applies) {
    return { times: null, expressionError: null, timeZoneError: null, error: null, pending: false, applies };
  }
  const byField = fieldErrors(error);
  const expressionError = byField["expression"] ?? byField["window.start"] ?? byField["window.end"] ?? null;
  const timeZoneError = byField["timeZone"] ?? null;
  return {
    times: error ? null : (data?.previewSchedule ?? null),
    expressionError,
    timeZoneError,
    error: error && !expressionError && !timeZoneError ? error : null,
    pending: settled !== key || fetching,
    applies,
  };
}
