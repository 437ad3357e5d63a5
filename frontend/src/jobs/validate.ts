// The job form's own checks: the server's (server/api/jobs, server/schedule,
// graph/jobinput.go) that need no server, with its wording, so every field
// in error shows at once before anything is sent. The server still checks
// everything (a cron expression's syntax, a zone's name, a unique name);
// its BAD_INPUT errors show at their fields too.
import { validateAlarm } from "./alarmForm";
import { hasExpression } from "./labels";
import { backoffShown, fromWallTime, type JobFormValues, type NumberValue } from "./jobForm";
import { t } from "../i18n";

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
  if (name === "") set("name", t("jobs.validate.mustNotBeEmpty"));
  // eslint-disable-next-line @typescript-eslint/no-misused-spread -- code points, as the server counts runes
  else if ([...name].length > limits.nameChars) set("name", t("jobs.validate.mustBeAtMost", { nameChars: limits.nameChars }));
  if (bytes(v.description) > limits.descriptionBytes) {
    set("description", t("jobs.validate.mustBeAtMost2", { descriptionBytes: limits.descriptionBytes }));
  }
  if (bytes(v.params) > limits.paramsBytes) set("params", t("jobs.validate.mustBeAtMost3", { paramsBytes: limits.paramsBytes }));

  if (hasExpression(v.scheduleType) && v.scheduleExpression.trim() === "") {
    set(
      "scheduleExpression",
      v.scheduleType === "CRON"
        ? t("jobs.validate.aCronJobNeeds")
        : t("jobs.validate.aJobNeedsAn", { scheduleType: v.scheduleType }),
    );
  }
  const start = fromWallTime(v.lifecycle.start, v.timeZone || "UTC");
  const end = fromWallTime(v.lifecycle.end, v.timeZone || "UTC");
  if (start && end && Date.parse(end) <= Date.parse(start)) set("lifecycle.end", t("jobs.validate.theEndMustBe"));

  switch (v.processorType) {
    case "GO": {
      const p = v.goProcessor.trim();
      if (p === "" || bytes(p) > limits.goProcessorBytes || /[ \t\n]/.test(p)) {
        set(
          "goProcessor",
          t("jobs.validate.aGoJobNames"),
        );
      }
      break;
    }
    case "SHELL":
    case "PYTHON":
      if (v.script.trim() === "") set("script", t("jobs.validate.aJobNeedsThe", { processorType: v.processorType }));
      else if (bytes(v.script) > limits.scriptBytes) {
        set("script", t("jobs.validate.theScriptIsBytes", { bytes: bytes(v.script), scriptBytes: limits.scriptBytes }));
      }
      break;
    case "HTTP": {
      const url = v.http.url.trim();
      if (!isHttpUrl(url)) set("http.url", url === "" ? t("jobs.validate.theRequestNeedsAn") : t("jobs.validate.urlIsNotAn", { url: url }));
      const expect = whole(v.http.expectStatus);
      if (expect !== null && (Number.isNaN(expect) || expect < 100 || expect > 599)) {
        set("http.expectStatus", t("jobs.validate.expectstatusIsNotAn", { String: String(v.http.expectStatus) }));
      }
      const timeout = whole(v.http.timeoutMs);
      if (timeout !== null && (Number.isNaN(timeout) || timeout < 0)) set("http.timeoutMs", t("jobs.validate.timeoutmsMustNotBe"));
      break;
    }
  }
  if ((v.executionMode === "MAP" || v.executionMode === "MAP_REDUCE") && v.processorType !== "GO") {
    set(
      "executionMode",
      t("jobs.validate.needsAGoProcessor", { executionMode: v.executionMode, processorType: v.processorType }),
    );
  }

  const ranges: [field: string, value: NumberValue, lo: number, hi: number, hint: string][] = [
    ["maxInstances", v.maxInstances, 1, limits.concurrency, t("jobs.validate.instancesOfTheJob")],
    ["taskConcurrency", v.taskConcurrency, 1, limits.concurrency, t("jobs.validate.tasksOfOneInstance")],
    ["instanceRetries", v.instanceRetries, 0, limits.retries, t("jobs.validate.timesAFailedInstance")],
    ["taskRetries", v.taskRetries, 0, limits.retries, t("jobs.validate.timesAFailedTask")],
    ["workerFilter.maxWorkers", v.workerFilter.maxWorkers, 0, limits.concurrency, t("jobs.validate.workersOneInstanceMay")],
    ["workerFilter.minCpuCores", v.workerFilter.minCpuCores, 0, limits.cpuCores, t("jobs.validate.cpuCoresAWorker")],
    ["priority", v.priority, -limits.priority, limits.priority, t("jobs.validate.higherGoesFirstWhen")],
    ["retryDelayMs", v.retryDelayMs, 0, limits.retryDelayMs, t("jobs.validate.millisecondsBeforeTheFirst")],
  ];
  // Fields shown only when they apply are checked only then.
  if (v.overlapPolicy === "QUEUE") {
    ranges.push(["maxQueued", v.maxQueued, 1, limits.maxQueued, t("jobs.validate.firesOfAQueue")]);
  }
  if (backoffShown(v)) {
    ranges.push(["retryDelayMaxMs", v.retryDelayMaxMs, 0, limits.retryDelayMs, t("jobs.validate.theLongestARetry")]);
  }
  for (const [field, value, lo, hi, hint] of ranges) {
    const n = whole(value);
    if (n === null) continue;
    if (Number.isNaN(n)) set(field, t("jobs.validate.mustBeAWhole"));
    else if (n < lo || n > hi) set(field, t("jobs.validate.isOutOfRange", { n: n, lo: lo, hi: hi, hint: hint }));
  }
  const notNegative: [field: string, value: NumberValue, reason: (n: number) => string][] = [
    ["timeoutMs", v.timeoutMs, (n) => t("jobs.validate.isNegativeUse0", { n: n })],
    ["workerFilter.minMemoryMB", v.workerFilter.minMemoryMB, () => t("jobs.validate.mustNotBeNegative")],
    ["workerFilter.minDiskMB", v.workerFilter.minDiskMB, () => t("jobs.validate.mustNotBeNegative")],
  ];
  for (const [field, value, reason] of notNegative) {
    const n = whole(value);
    if (n === null) continue;
    if (Number.isNaN(n)) set(field, t("jobs.validate.mustBeAWhole"));
    else if (n < 0) set(field, reason(n));
  }

  const backoff = backoffShown(v) ? decimal(v.retryBackoff) : null;
  if (backoff !== null && (Number.isNaN(backoff) || backoff < 1 || backoff > limits.retryBackoff)) {
    set(
      "retryBackoff",
      t("jobs.validate.isOutOfRange2", { String: String(v.retryBackoff), retryBackoff: limits.retryBackoff }),
    );
  }
  const delay = whole(v.retryDelayMs);
  const cap = whole(v.retryDelayMaxMs);
  if (delay !== null && cap !== null && cap > 0 && cap < delay) {
    set("retryDelayMaxMs", t("jobs.validate.isBelowRetrydelaymsThe", { cap: cap, delay: delay }));
  }

  if (v.workerFilter.designated.some((d) => d.trim() === "")) set("workerFilter.designated", t("jobs.validate.mustNotContainEmpty"));
  if (v.workerFilter.tags.some((tag) => tag.trim() === "")) set("workerFilter.tags", t("jobs.validate.mustNotContainEmpty2"));
  validateAlarm(v.alarm, set);
  return errors;
}
