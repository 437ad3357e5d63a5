import type { LogLine } from "./useInstanceLogs";

/**
 * Log lines as a .log file's text: one line each, time, level, worker,
 * text; a retried instance's attempts each begin with a "--- attempt N ---" line.
 */
export function logText(lines: LogLine[]): string {
  const separated = lines.some((l) => l.attempt > 1);
  return lines
    .map((l, i) => {
      const text = `${l.time} ${l.level.padEnd(5)} [${l.worker ?? "server"}] ${l.text}\n`;
      const starts = separated && l.attempt > 0 && l.attempt !== lines[i - 1]?.attempt;
      return starts ? `--- attempt ${String(l.attempt)} ---\n${text}` : text;
    })
    .join("");
}

/** Has the browser save the lines as a file. */
export function downloadLog(fileName: string, lines: LogLine[]): void {
  const url = URL.createObjectURL(new Blob([logText(lines)], { type: "text/plain;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  a.click();
  // Give the download a moment to start before the URL goes.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
