import type { JobFieldsFragment } from "../graphql/graphql";
import { reasonOf } from "../api/errors";
import { jobValues, newJobValues, parseHttp, serializeHttp, serverFieldPath, toJobInput } from "./jobForm";

const job: JobFieldsFragment = {
  id: "3",
  name: "ping",
  description: "",
  enabled: false,
  scheduleType: "CRON",
  scheduleExpression: "0 0 9 * * ?",
  timeZone: "Europe/Berlin",
  lifecycle: { start: "2026-12-31T23:00:00.000Z", end: null },
  scheduleWindow: null,
  calendar: null,
  managedBy: null,
  managedSource: null,
  version: 1,
  executionMode: "STANDALONE",
  processorType: "HTTP",
  processor: '{"method":"PUT","url":"https://x.example/a","headers":{"A":"1"},"expectStatus":204}',
  params: "p",
  maxInstances: 2,
  taskConcurrency: 5,
  timeoutMs: 0,
  instanceRetries: 1,
  taskRetries: 0,
  overlapPolicy: "QUEUE",
  maxQueued: 3,
  priority: 7,
  retryDelayMs: 2000,
  retryBackoff: 2,
  retryDelayMaxMs: 60000,
  pool: null,
  poolSlots: 1,
  workerFilter: { designated: [], tags: ["gpu"], minCpuCores: 0, minMemoryMB: 0, minDiskMB: 0, maxWorkers: 0 },
  dispatchStrategy: "RANDOM",
  misfirePolicy: "SKIP",
  alarm: {
    rules: [
      { type: "FAILURE", threshold: 0, silenceSec: 60 },
      { type: "CONSECUTIVE_FAILURES", threshold: 3, silenceSec: 0 },
    ],
    channels: [{ type: "EMAIL", target: "ops@example.com" }],
  },
  nextTriggerTime: null,
  updatedAt: "2026-11-21T00:00:00Z",
};

describe("job form values", () => {
  it("turn a job into the same JobInput it came from", () => {
    const input = toJobInput("orders", jobValues(job));
    expect(input).toMatchObject({
      app: "orders",
      name: "ping",
      enabled: false,
      scheduleType: "CRON",
      scheduleExpression: "0 0 9 * * ?",
      timeZone: "Europe/Berlin",
      // Lifecycle times are edited as wall time in the job's zone and sent as instants.
      lifecycle: { start: "2026-12-31T23:00:00.000Z", end: null },
      maxInstances: 2,
      overlapPolicy: "QUEUE",
      maxQueued: 3,
      priority: 7,
      retryDelayMs: 2000,
      retryBackoff: 2,
      retryDelayMaxMs: 60000,
      workerFilter: { tags: ["gpu"], maxWorkers: 0 },
      dispatchStrategy: "RANDOM",
      misfirePolicy: "SKIP",
      alarm: {
        rules: [
          { type: "FAILURE", threshold: null, silenceSec: 60 },
          { type: "CONSECUTIVE_FAILURES", threshold: 3, silenceSec: 0 },
        ],
        channels: [{ type: "EMAIL", target: "ops@example.com" }],
      },
    });
    expect(jobValues(job).lifecycle.start).toBe("2027-01-01 00:00:00");
    expect(JSON.parse(input.processor)).toEqual(JSON.parse(job.processor));
  });

  it("put a server error on an alarm rule or channel at its row", () => {
    const v = jobValues(job);
    // Sent rules are the rows switched on: FAILURE (row 0), CONSECUTIVE_FAILURES (row 1).
    expect(serverFieldPath("alarm.rules[1].threshold", "", v)).toBe("alarm.rules.1.threshold");
    expect(serverFieldPath("alarm.channels[0].target", "", v)).toBe("alarm.channels.0.target");
    expect(serverFieldPath("alarm.rules", "", v)).toBe("alarm.channels");
  });

  it("send an empty number as null, so the API's default applies, and no expression for API jobs", () => {
    const values = { ...newJobValues(), scheduleType: "API" as const, scheduleExpression: "0 * * * * ?", maxInstances: "" };
    const input = toJobInput("orders", values);
    expect(input.maxInstances).toBeNull();
    expect(input.scheduleExpression).toBe("");
  });

  it("read and write an HTTP request, leaving out what is empty", () => {
    const h = parseHttp('{"url":"https://x.example"}');
    expect(h).toEqual({ method: "GET", url: "https://x.example", headers: [], body: "", expectStatus: "", timeoutMs: "" });
    expect(JSON.parse(serializeHttp(h))).toEqual({ method: "GET", url: "https://x.example" });
    expect(parseHttp("not json").url).toBe("");
    expect(
      JSON.parse(
        serializeHttp({ ...h, headers: [{ name: " X-A ", value: "1" }, { name: "", value: "ignored" }], timeoutMs: 500 }),
      ),
    ).toEqual({ method: "GET", url: "https://x.example", headers: { "X-A": "1" }, timeoutMs: 500 });
  });

  it("place a server error at the field it names", () => {
    const v = newJobValues();
    expect(serverFieldPath("workerFilter.maxWorkers", "", v)).toBe("workerFilter.maxWorkers");
    expect(serverFieldPath("scheduleExpression", "", v)).toBe("scheduleExpression");
    expect(serverFieldPath("lifecycle", "end must be after start", v)).toBe("lifecycle.end");
    expect(serverFieldPath("processor", "a SHELL job needs the script to run", v)).toBe("script");
    expect(serverFieldPath("processor", "x", { ...v, processorType: "GO" })).toBe("goProcessor");
    const http = { ...v, processorType: "HTTP" as const };
    expect(serverFieldPath("processor", "method \"X\" is not an HTTP method", http)).toBe("http.method");
    expect(serverFieldPath("processor", "expectStatus 7 is not an HTTP status", http)).toBe("http.expectStatus");
    expect(serverFieldPath("processor", "an HTTP job's processor is JSON", http)).toBe("http.url");
    expect(serverFieldPath("app", "a job cannot move to another app", v)).toBeNull();
    expect(reasonOf("timeZone: \"X\" is not an IANA time zone", "timeZone")).toBe('"X" is not an IANA time zone');
  });
});
