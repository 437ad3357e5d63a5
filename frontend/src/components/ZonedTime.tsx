import { Stack, Text } from "@mantine/core";
import { Timestamp } from "./Timestamp";
import { locale, t } from "../i18n";

/** The viewer's IANA time zone. */
export function viewerZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** Whether two IANA names put the clock at the same time at that instant (aliases, UTC and Etc/UTC). */
function sameOffset(a: string, b: string, date: Date): boolean {
  if (a === b) return true;
  try {
    const f = (timeZone: string) =>
      new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", hourCycle: "h23" }).format(date);
    return f(a) === f(b);
  } catch {
    return false;
  }
}

/** The day of an instant in a zone, as YYYY-MM-DD (comparable). */
function dayIn(date: Date, timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(date);
}

/**
 * The instant as the clock reads in `timeZone`: the time alone on that
 * zone's today, with the date on another day; null for a zone the browser
 * does not know.
 */
export function clockIn(value: string, timeZone: string, now = new Date()): string | null {
  const date = new Date(value);
  try {
    const today = dayIn(date, timeZone) === dayIn(now, timeZone);
    return new Intl.DateTimeFormat(locale(), {
      timeZone,
      ...(today ? {} : { month: "short", day: "numeric" }),
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    }).format(date);
  } catch {
    return null;
  }
}

/**
 * A time in a list (next fire, last run): in the viewer's zone, with the
 * date when it is not today; and when the job's zone is not the viewer's,
 * also as the clock reads there, with the zone named ("18:00:00
 * Asia/Shanghai"), so a job scheduled in another zone reads as it was set.
 */
export function ZonedTime({ value, timeZone }: { value: string; timeZone?: string | null | undefined }) {
  const other = timeZone && !sameOffset(timeZone, viewerZone(), new Date(value)) ? clockIn(value, timeZone) : null;
  if (!other || !timeZone) return <Timestamp value={value} compact />;
  return (
    <Stack gap={0} align="flex-start">
      <Timestamp value={value} compact />
      <Text size="xs" c="dimmed" data-testid="zoned-time">
        {t("components.ZonedTime.inZone", { time: other, zone: timeZone })}
      </Text>
    </Stack>
  );
}
