/** A date as the API takes it: YYYY-MM-DD. */
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether text is a real calendar date written YYYY-MM-DD. */
export function isDate(text: string): boolean {
  const m = datePattern.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/**
 * Reads the dates field: dates separated by new lines, commas or spaces,
 * sorted and each once (as the server keeps them); what is not a date is
 * listed in `bad`, in the order typed.
 */
export function parseDates(text: string): { dates: string[]; bad: string[] } {
  const words = text.split(/[\s,;]+/).filter((w) => w !== "");
  const bad = words.filter((w) => !isDate(w));
  const dates = [...new Set(words.filter(isDate))].sort();
  return { dates, bad };
}

/** The dates field's text for a list of dates: one a line. */
export function formatDates(dates: readonly string[]): string {
  return dates.join("\n");
}

/** Today in this browser's zone, YYYY-MM-DD. */
export function today(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** The first `count` of sorted dates on or after `from` (YYYY-MM-DD compare as text). */
export function upcoming(dates: readonly string[], from: string, count: number): string[] {
  return dates.filter((d) => d >= from).slice(0, count);
}
