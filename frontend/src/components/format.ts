/** A duration as people read it: "850 ms", "4.2 s", "3 m 07 s", "2 h 05 m". */
import { t } from "../i18n";

export function formatDuration(ms: number): string {
  if (ms < 0) ms = 0;
  if (ms < 1000) return t("components.format.ms", { round: Math.round(ms) });
  const seconds = ms / 1000;
  if (seconds < 60) return t("components.format.s", { toFixed: seconds.toFixed(1) });
  const total = Math.floor(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return t("components.format.hM", { h: h, padStart: String(m).padStart(2, "0") });
  return t("components.format.mS", { m: m, padStart: String(s).padStart(2, "0") });
}

/** The time between two RFC 3339 instants; to `now` when the end is not yet. */
export function durationBetween(start: string | null, end: string | null, now = Date.now()): number | null {
  if (!start) return null;
  const from = Date.parse(start);
  const to = end ? Date.parse(end) : now;
  return to - from;
}

/** Megabytes as "512 MB", "3.4 GB", "1.2 TB". */
export function formatMegabytes(mb: number): string {
  if (mb < 1024) return t("components.format.mb", { mb: mb });
  const gb = mb / 1024;
  if (gb < 1024) return t("components.format.gb", { toFixed: gb.toFixed(1) });
  return t("components.format.tb", { toFixed: (gb / 1024).toFixed(1) });
}

/** A size in bytes as "512 bytes", "4.0 KiB", "1.5 MiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return t("components.format.bytes", { count: n });
  const kib = n / 1024;
  if (kib < 1024) return t("components.format.kib", { toFixed: kib.toFixed(1) });
  return t("components.format.mib", { toFixed: (kib / 1024).toFixed(1) });
}
