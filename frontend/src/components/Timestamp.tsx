import { locale } from "../i18n";
import { useState } from "react";
import { Text } from "@mantine/core";
import { useNow } from "./useNow";

const absolute = new Intl.DateTimeFormat(locale(), { dateStyle: "medium", timeStyle: "medium" });
const timeOnly = new Intl.DateTimeFormat(locale(), { hour: "2-digit", minute: "2-digit", second: "2-digit" });
const dateAndTime = new Intl.DateTimeFormat(locale(), {
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});
const relative = new Intl.RelativeTimeFormat(locale(), { numeric: "auto", style: "narrow" });

type Unit = [Intl.RelativeTimeFormatUnit, seconds: number];
const second: Unit = ["second", 1];
const units: Unit[] = [["day", 86_400], ["hour", 3_600], ["minute", 60], second];

function fromNow(date: Date, now: number): string {
  const seconds = Math.round((date.getTime() - now) / 1000);
  const [unit, size] = units.find(([, size]) => Math.abs(seconds) >= size) ?? second;
  return relative.format(Math.trunc(seconds / size), unit);
}

/** Today's times as the time alone; other days' with the date. */
function compact(date: Date): string {
  const today = new Date();
  const sameDay =
    date.getFullYear() === today.getFullYear() &&
    date.getMonth() === today.getMonth() &&
    date.getDate() === today.getDate();
  return sameDay ? timeOnly.format(date) : dateAndTime.format(date);
}

interface TimestampProps {
  /** An RFC 3339 time from the API. */
  value: string;
  /** Show "12s ago" rather than the date, for times that matter by their age. */
  relative?: boolean;
  /** Show the time alone for today, for dense tables. */
  compact?: boolean;
}

/**
 * How often a relative time is redrawn: every second while it counts
 * seconds, then every 15 s (minutes and hours change slowly).
 */
function tickMs(date: Date, now: number): number {
  return Math.abs(now - date.getTime()) < 60_000 ? 1_000 : 15_000;
}

/**
 * A time in the reader's locale and zone; the exact instant is in its
 * tooltip. A relative time ("8s ago") keeps itself current, so an age
 * never freezes on a screen that has no other reason to redraw.
 */
export function Timestamp({ value, relative: asRelative = false, compact: asCompact = false }: TimestampProps) {
  const date = new Date(value);
  const [tick, setTick] = useState(1_000);
  const now = useNow(asRelative ? tick : null);
  const nextTick = tickMs(date, now);
  if (asRelative && nextTick !== tick) setTick(nextTick);
  const text = asRelative ? fromNow(date, now) : asCompact ? compact(date) : absolute.format(date);
  return (
    <Text component="time" dateTime={value} title={date.toISOString()} size="sm" style={{ whiteSpace: "nowrap" }}>
      {text}
    </Text>
  );
}
