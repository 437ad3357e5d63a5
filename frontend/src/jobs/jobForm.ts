// The job form's values, and their conversion from a job and to the
// JobInput the API takes. The form's field paths are JobInput's wherever
// the two agree, so a BAD_INPUT error's extensions.field names the field
// to show it at (serverFieldPath says where the rest go).
import dayjs from "dayjs";
import timezone from "dayjs/plugin/timezone";
import utc from "dayjs/plugin/utc";
import type {
  DispatchStrategy,
  ExecutionMode,
  JobFieldsFragment,
  JobInput,
  JobOverlapPolicy,
  MisfirePolicy,
  ProcessorType,
  ScheduleType,
  Weekday,
} from "../graphql/graphql";
import { alarmFieldPath, alarmValues, toAlarmInput, type AlarmValues } from "./alarmForm";
import { hasExpression } from "./labels";

dayjs.extend(utc);
dayjs.extend(timezone);

/** A number input's value: a number, or "" while empty. */
export type NumberValue = number | string;

export interface HttpHeader {
  name: string;
  value: string;
}

/** An HTTP processor's request, as its own fields. */
export interface HttpValues {
  method: string;
  url: string;
  headers: HttpHeader[];
  body: string;
  expectStatus: NumberValue;
  timeoutMs: NumberValue;
}

export interface JobFormValues {
  name: string;
  description: string;
  enabled: boolean;
  scheduleType: ScheduleType;
  scheduleExpression: string;
  timeZone: string;
  /** FIXED_RATE: fire only inside a daily window ("HH:MM" times, weekdays; none chosen: every day). */
  window: { enabled: boolean; start: string; end: string; days: Weekday[] };
  /** The name of the app's calendar whose dates the job skips; "" for none. */
  calendar: string;
  /** Wall-clock times ("YYYY-MM-DD HH:mm:ss") in the job's time zone. */
  lifecycle: { start: string | null; end: string | null };
  executionMode: ExecutionMode;
  processorType: ProcessorType;
  /** The SHELL or PYTHON script. */
  script: string;
  /** The GO processor's registered name. */
  goProcessor: string;
  http: HttpValues;
  params: string;
  maxInstances: NumberValue;
  taskConcurrency: NumberValue;
  timeoutMs: NumberValue;
  instanceRetries: NumberValue;
  taskRetries: NumberValue;
  /** What a fire over maxInstances does; maxQueued bounds the fires QUEUE holds. */
  overlapPolicy: JobOverlapPolicy;
  maxQueued: NumberValue;
  /** Higher goes first when workers are short of slots. */
  priority: NumberValue;
  /** The retry back-off: the n-th retry waits retryDelayMs × retryBackoff^(n-1), at most retryDelayMaxMs. */
  retryDelayMs: NumberValue;
  retryBackoff: NumberValue;
  retryDelayMaxMs: NumberValue;
  /** The app's pool the instances take poolSlots of while they run; "" for none. */
  pool: string;
  poolSlots: NumberValue;
  workerFilter: {
    designated: string[];
    tags: string[];
    minCpuCores: NumberValue;
    minMemoryMB: NumberValue;
    minDiskMB: NumberValue;
    maxWorkers: NumberValue;
  };
  dispatchStrategy: DispatchStrategy;
  misfirePolicy: MisfirePolicy;
  alarm: AlarmValues;
}

export const httpMethods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;

const emptyHttp: HttpValues = { method: "GET", url: "", headers: [], body: "", expectStatus: "", timeoutMs: "" };

/** The browser's time zone, where it names one. */
function localZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** A new job's values: JobInput's defaults. */
export function newJobValues(): JobFormValues {
  return {
    name: "",
    description: "",
    enabled: true,
    scheduleType: "CRON",
    scheduleExpression: "",
    timeZone: localZone(),
    window: { enabled: false, start: "09:00", end: "17:00", days: [] },
    calendar: "",
    lifecycle: { start: null, end: null },
    executionMode: "STANDALONE",
    processorType: "SHELL",
    script: "",
    goProcessor: "",
    http: emptyHttp,
    params: "",
    maxInstances: 1,
    taskConcurrency: 5,
    timeoutMs: 0,
    instanceRetries: 0,
    taskRetries: 0,
    overlapPolicy: "CANCEL",
    maxQueued: 10,
    priority: 0,
    retryDelayMs: 0,
    retryBackoff: 1,
    retryDelayMaxMs: 0,
    pool: "",
    poolSlots: 1,
    workerFilter: { designated: [], tags: [], minCpuCores: 0, minMemoryMB: 0, minDiskMB: 0, maxWorkers: 0 },
    dispatchStrategy: "HEALTH_FIRST",
    misfirePolicy: "FIRE_ONCE",
    alarm: alarmValues(),
  };
}

/** An instant as wall-clock time in a zone, as the date pickers hold it. */
export function toWallTime(instant: string | null, zone: string): string | null {
  if (!instant) return null;
  try {
    return dayjs(instant).tz(zone).format("YYYY-MM-DD HH:mm:ss");
  } catch {
    return dayjs(instant).utc().format("YYYY-MM-DD HH:mm:ss");
  }
}

/** Wall-clock time in a zone as an RFC 3339 instant. */
export function fromWallTime(wall: string | null, zone: string): string | null {
  if (!wall) return null;
  try {
    return dayjs.tz(wall, zone).toISOString();
  } catch {
    return dayjs.utc(wall).toISOString();
  }
}

/** An HTTP processor's JSON as fields; unreadable JSON gives empty fields. */
export function parseHttp(json: string): HttpValues {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return emptyHttp;
  }
  if (typeof parsed !== "object" || parsed === null) return emptyHttp;
  const o = parsed as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const num = (v: unknown): NumberValue => (typeof v === "number" && v > 0 ? v : "");
  const headers =
    typeof o["headers"] === "object" && o["headers"] !== null
      ? Object.entries(o["headers"] as Record<string, unknown>).map(([name, value]) => ({ name, value: str(value) }))
      : [];
  return {
    method: str(o["method"]) || "GET",
    url: str(o["url"]),
    headers,
    body: str(o["body"]),
    expectStatus: num(o["expectStatus"]),
    timeoutMs: num(o["timeoutMs"]),
  };
}

/**
 * The HTTP processor's JSON as the API expects it:
 * {method, url, headers?, body?, expectStatus?, timeoutMs?}, leaving out
 * what is empty (the server's defaults apply).
 */
export function serializeHttp(h: HttpValues): string {
  const out: Record<string, unknown> = { method: h.method, url: h.url.trim() };
  const headers = h.headers.filter((x) => x.name.trim() !== "");
  if (headers.length > 0) out["headers"] = Object.fromEntries(headers.map((x) => [x.name.trim(), x.value]));
  if (h.body !== "") out["body"] = h.body;
  const expect = toNumber(h.expectStatus);
  if (expect) out["expectStatus"] = expect;
  const timeout = toNumber(h.timeoutMs);
  if (timeout) out["timeoutMs"] = timeout;
  return JSON.stringify(out);
}

/** A job's values, for editing it. */
export function jobValues(job: JobFieldsFragment): JobFormValues {
  const base = newJobValues();
  const processor = job.processor;
  return {
    name: job.name,
    description: job.description,
    enabled: job.enabled,
    scheduleType: job.scheduleType,
    scheduleExpression: job.scheduleExpression,
    timeZone: job.timeZone || "UTC",
    window: job.scheduleWindow
      ? { enabled: true, start: job.scheduleWindow.start, end: job.scheduleWindow.end, days: [...job.scheduleWindow.days] }
      : base.window,
    calendar: job.calendar?.name ?? "",
    lifecycle: {
      start: toWallTime(job.lifecycle.start, job.timeZone || "UTC"),
      end: toWallTime(job.lifecycle.end, job.timeZone || "UTC"),
    },
    executionMode: job.executionMode,
    processorType: job.processorType,
    script: job.processorType === "SHELL" || job.processorType === "PYTHON" ? processor : base.script,
    goProcessor: job.processorType === "GO" ? processor : base.goProcessor,
    http: job.processorType === "HTTP" ? parseHttp(processor) : base.http,
    params: job.params,
    maxInstances: job.maxInstances,
    taskConcurrency: job.taskConcurrency,
    timeoutMs: job.timeoutMs,
    instanceRetries: job.instanceRetries,
    taskRetries: job.taskRetries,
    overlapPolicy: job.overlapPolicy,
    maxQueued: job.maxQueued,
    priority: job.priority,
    retryDelayMs: job.retryDelayMs,
    retryBackoff: job.retryBackoff,
    retryDelayMaxMs: job.retryDelayMaxMs,
    pool: job.pool?.name ?? "",
    poolSlots: job.poolSlots,
    workerFilter: { ...job.workerFilter },
    dispatchStrategy: job.dispatchStrategy,
    misfirePolicy: job.misfirePolicy,
    alarm: alarmValues(job.alarm),
  };
}

/** Whether the retry back-off's growth and cap apply (and show): a retry delay is set. */
export function backoffShown(v: JobFormValues): boolean {
  const d = toNumber(v.retryDelayMs);
  return d !== null && d > 0;
}

/** A number input's value as a number; null when empty (the API's default applies). */
function toNumber(v: NumberValue): number | null {
  if (typeof v === "number") return v;
  if (v.trim() === "") return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** The processor field for the chosen processor type. */
export function processorOf(v: JobFormValues): string {
  switch (v.processorType) {
    case "GO":
      return v.goProcessor.trim();
    case "HTTP":
      return serializeHttp(v.http);
    default:
      return v.script;
  }
}

/** The JobInput the values define. */
export function toJobInput(app: string, v: JobFormValues): JobInput {
  return {
    app,
    name: v.name.trim(),
    description: v.description,
    enabled: v.enabled,
    scheduleType: v.scheduleType,
    scheduleExpression: hasExpression(v.scheduleType) ? v.scheduleExpression.trim() : "",
    timeZone: v.timeZone,
    scheduleWindow:
      v.scheduleType === "FIXED_RATE" && v.window.enabled
        ? { start: v.window.start.trim(), end: v.window.end.trim(), days: v.window.days }
        : null,
    calendar: (v.scheduleType === "CRON" || v.scheduleType === "FIXED_RATE") && v.calendar ? v.calendar : null,
    lifecycle: {
      start: fromWallTime(v.lifecycle.start, v.timeZone),
      end: fromWallTime(v.lifecycle.end, v.timeZone),
    },
    executionMode: v.executionMode,
    processorType: v.processorType,
    processor: processorOf(v),
    params: v.params,
    maxInstances: toNumber(v.maxInstances),
    taskConcurrency: toNumber(v.taskConcurrency),
    timeoutMs: toNumber(v.timeoutMs),
    instanceRetries: toNumber(v.instanceRetries),
    taskRetries: toNumber(v.taskRetries),
    overlapPolicy: v.overlapPolicy,
    maxQueued: toNumber(v.maxQueued),
    priority: toNumber(v.priority),
    retryDelayMs: toNumber(v.retryDelayMs),
    retryBackoff: toNumber(v.retryBackoff),
    retryDelayMaxMs: toNumber(v.retryDelayMaxMs),
    pool: v.pool || null,
    poolSlots: v.pool ? toNumber(v.poolSlots) : null,
    workerFilter: {
      designated: v.workerFilter.designated,
      tags: v.workerFilter.tags,
      minCpuCores: toNumber(v.workerFilter.minCpuCores),
      minMemoryMB: toNumber(v.workerFilter.minMemoryMB),
      minDiskMB: toNumber(v.workerFilter.minDiskMB),
      maxWorkers: toNumber(v.workerFilter.maxWorkers),
    },
    dispatchStrategy: v.dispatchStrategy,
    misfirePolicy: v.misfirePolicy,
    alarm: toAlarmInput(v.alarm),
  };
}

/** The form's fields that share their path with JobInput's. */
const samePath = new Set([
  "name",
  "description",
  "enabled",
  "scheduleType",
  "scheduleExpression",
  "timeZone",
  "executionMode",
  "processorType",
  "params",
  "maxInstances",
  "taskConcurrency",
  "timeoutMs",
  "instanceRetries",
  "taskRetries",
  "overlapPolicy",
  "maxQueued",
  "priority",
  "retryDelayMs",
  "retryBackoff",
  "retryDelayMaxMs",
  "pool",
  "poolSlots",
  "workerFilter.designated",
  "workerFilter.tags",
  "workerFilter.minCpuCores",
  "workerFilter.minMemoryMB",
  "workerFilter.minDiskMB",
  "workerFilter.maxWorkers",
  "dispatchStrategy",
  "misfirePolicy",
  "lifecycle.start",
  "lifecycle.end",
]);

/**
 * The form field at which to show a BAD_INPUT error naming the JobInput
 * field `field`, or null for an error no field of the form owns.
 */
export function serverFieldPath(field: string, message: string, v: JobFormValues): string | null {
  // Fields shown only when they apply: an error at a hidden one goes above the form.
  if (field === "maxQueued" && v.overlapPolicy !== "QUEUE") return null;
  if ((field === "retryBackoff" || field === "retryDelayMaxMs") && !backoffShown(v)) return null;
  if (samePath.has(field)) return field;
  if (field.startsWith("alarm.")) return alarmFieldPath(field, v.alarm);
  if (field === "scheduleWindow.start" || field === "scheduleWindow") return "window.start";
  if (field === "scheduleWindow.end") return "window.end";
  if (field === "scheduleWindow.days") return "window.days";
  if (field === "calendar") return "calendar";
  if (field === "lifecycle") return "lifecycle.end";
  if (field === "processor") {
    switch (v.processorType) {
      case "GO":
        return "goProcessor";
      case "HTTP": {
        // The server names the part of the request that is wrong first.
        const part = /^(url|method|expectStatus|timeoutMs)\b/.exec(message)?.[1];
        return `http.${part ?? "url"}`;
      }
      default:
        return "script";
    }
  }
  return null;
}
