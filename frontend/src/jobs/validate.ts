// The job form's own checks: the server's (server/api/jobs, server/schedule,
// graph/jobinput.go) that need no server, with its wording, so every field
// in error shows at once before anything is sent. The server still checks
// everything (a cron expression's syntax, a zone's name, a unique name);
// its BAD_INPUT errors show at their fields too.
import { validateAlarm } from "./alarmForm";
import { hasExpression } from "./labels";
import { backoffShown, fromWallTime, type JobFormValues, type NumberValue } from "./jobForm";

/** Limits of a job definition, as server/api/jobs has them. */
export const limits = {
  nameChars: 128,
  descriptionBytes: 2000,
  paramsBytes: 64 << 10,
  scriptBytes: 64 << 10,
  goProcessorBytes: 255,
  retries: 100,
  concurrency: 10_000,
  cpuCores: 1 << 16,
  maxQueued: 1000,
  priority: 1000,
  retryDelayMs: 86_400_000,
  retryBackoff: 10,
} as const;

/** The form's errors by field path; empty when there are none. */
export type FormErrors = Record<string, string>;

const encoder = new TextEncoder();
const bytes = (s: string) => encoder.encode(s).length;

/** A number field's value: null when blank (the API's default applies), NaN when not a whole number. */
function whole(v: NumberValue): number | null {
  if (typeof v === "number") return Number.isInteger(v) ? v : Number.NaN;
  const s = v.trim();
  if (s === "") return null;
  const n = Number(s);
  return Number.isInteger(n) ? n : Number.NaN;
}

/** A decimal field's value: null when blank, NaN when not a number. */
function decimal(v: NumberValue): number | null {
  if (typeof v === "number") return v;
  const s = v.trim();
  if (s === "") return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : Number.NaN;
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && u.host !== "";
  } catch {
    return false;
  }
}

/** Every error the values have that the server would report, by form field. */
export function validateJob(v: JobFormValues): FormErrors {
  const errors: FormErrors = {};
  const set = (field: string, reason: string) => {
    errors[field] ??= reason;
  };

  const name = v.name.trim();
  if (name === "") set("name", "must not be empty");
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- code points, as the server counts runes
  else if ([...name].length > limits.nameChars) set("name", `must be at most ${limits.nameChars} characters`);
  if (bytes(v.description) > limits.descriptionBytes) {
    set("description", `must be at most ${limits.descriptionBytes} characters`);
  }
  if (bytes(v.params) > limits.paramsBytes) set("params", `must be at most ${limits.paramsBytes} bytes`);

  if (hasExpression(v.scheduleType) && v.scheduleExpression.trim() === "") {
    set(
      "scheduleExpression",
      v.scheduleType === "CRON"
        ? 'a CRON job needs a Quartz cron expression with seconds, e.g. "0 0/5 * * * ?"'
        : `a ${v.scheduleType} job needs an interval such as 30s, 5m or 1h30m`,
    );
  }
  const start = fromWallTime(v.lifecycle.start, v.timeZone || "UTC");
  const end = fromWallTime(v.lifecycle.end, v.timeZone || "UTC");
  if (start && end && Date.parse(end) <= Date.parse(start)) set("lifecycle.end", "the end must be after the start");

  switch (v.processorType) {
    case "GO": {
      const p = v.goProcessor.trim();
      if (p === "" || bytes(p) > limits.goProcessorBytes || /[ \t\n]/.test(p)) {
        set(
          "goProcessor",
          'a GO job names the processor its workers registered, e.g. "sync-orders" (no spaces, at most 255 characters)',
        );
      }
      break;
    }
    case "SHELL":
    case "PYTHON":
      if (v.script.trim() === "") set("script", `a ${v.processorType} job needs the script to run`);
      else if (bytes(v.script) > limits.scriptBytes) {
        set("script", `the script is ${bytes(v.script)} bytes; at most ${limits.scriptBytes}`);
      }
      break;
    case "HTTP": {
      const url = v.http.url.trim();
      if (!isHttpUrl(url)) set("http.url", url === "" ? "the request needs an http(s) URL" : `url "${url}" is not an http(s) URL`);
      const expect = whole(v.http.expectStatus);
      if (expect !== null && (Number.isNaN(expect) || expect < 100 || expect > 599)) {
        set("http.expectStatus", `expectStatus ${String(v.http.expectStatus)} is not an HTTP status`);
      }
      const timeout = whole(v.http.timeoutMs);
      if (timeout !== null && (Number.isNaN(timeout) || timeout < 0)) set("http.timeoutMs", "timeoutMs must not be negative");
      break;
    }
  }
  if ((v.executionMode === "MAP" || v.executionMode === "MAP_REDUCE") && v.processorType !== "GO") {
    set(
      "executionMode",
      `${v.executionMode} needs a GO processor, which can call map(); ${v.processorType} scripts cannot`,
    );
  }

  const ranges: [field: string, value: NumberValue, lo: number, hi: number, hint: string][] = [
    ["maxInstances", v.maxInstances, 1, limits.concurrency, "instances of the job that may run at once"],
    ["taskConcurrency", v.taskConcurrency, 1, limits.concurrency, "tasks of one instance one worker runs at once"],
    ["instanceRetries", v.instanceRetries, 0, limits.retries, "times a failed instance is retried"],
    ["taskRetries", v.taskRetries, 0, limits.retries, "times a failed task is retried"],
    ["workerFilter.maxWorkers", v.workerFilter.maxWorkers, 0, limits.concurrency, "workers one instance may use (0: all)"],
    ["workerFilter.minCpuCores", v.workerFilter.minCpuCores, 0, limits.cpuCores, "CPU cores a worker needs"],
    ["priority", v.priority, -limits.priority, limits.priority, "higher goes first when workers are short of slots"],
    ["retryDelayMs", v.retryDelayMs, 0, limits.retryDelayMs, "milliseconds before the first retry; 0: the default"],
  ];
  // Fields shown only when they apply are checked only then.
  if (v.overlapPolicy === "QUEUE") {
    ranges.push(["maxQueued", v.maxQueued, 1, limits.maxQueued, "fires of a QUEUE job that wait for a running instance to end"]);
  }
  if (backoffShown(v)) {
    ranges.push(["retryDelayMaxMs", v.retryDelayMaxMs, 0, limits.retryDelayMs, "the longest a retry waits; 0: no cap of the job's own"]);
  }
  for (const [field, value, lo, hi, hint] of ranges) {
    const n = whole(value);
    if (n === null) continue;
    if (Number.isNaN(n)) set(field, "must be a whole number");
    else if (n < lo || n > hi) set(field, `${n} is out of range ${lo} to ${hi} (${hint})`);
  }
  const notNegative: [field: string, value: NumberValue, reason: (n: number) => string][] = [
    ["timeoutMs", v.timeoutMs, (n) => `${n} is negative; use 0 for no timeout`],
    ["workerFilter.minMemoryMB", v.workerFilter.minMemoryMB, () => "must not be negative"],
    ["workerFilter.minDiskMB", v.workerFilter.minDiskMB, () => "must not be negative"],
  ];
  for (const [field, value, reason] of notNegative) {
    const n = whole(value);
    if (n === null) continue;
    if (Number.isNaN(n)) set(field, "must be a whole number");
    else if (n < 0) set(field, reason(n));
  }

  const backoff = backoffShown(v) ? decimal(v.retryBackoff) : null;
  if (backoff !== null && (Number.isNaN(backoff) || backoff < 1 || backoff > limits.retryBackoff)) {
    set(
      "retryBackoff",
      `${String(v.retryBackoff)} is out of range 1 to ${limits.retryBackoff} (the factor each retry's delay grows by; 1: constant)`,
    );
  }
  const delay = whole(v.retryDelayMs);
  const cap = whole(v.retryDelayMaxMs);
  if (delay !== null && cap !== null && cap > 0 && cap < delay) {
    set("retryDelayMaxMs", `${cap} is below retryDelayMs ${delay}; the cap must be at least the first delay (0: no cap)`);
  }

  if (v.workerFilter.designated.some((d) => d.trim() === "")) set("workerFilter.designated", "must not contain empty names");
  if (v.workerFilter.tags.some((tag) => tag.trim() === "")) set("workerFilter.tags", "must not contain empty tags");
  validateAlarm(v.alarm, set);
  return errors;
}
