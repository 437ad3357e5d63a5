import { newJobValues, type JobFormValues } from "./jobForm";
import { validateJob } from "./validate";

function values(change: (v: JobFormValues) => void): JobFormValues {
  const v = newJobValues();
  v.name = "nightly";
  v.scheduleExpression = "0 0 2 * * ?";
  v.script = "echo hi";
  change(v);
  return v;
}

describe("validateJob", () => {
  it("finds nothing wrong with a complete job", () => {
    expect(validateJob(values(() => undefined))).toEqual({});
  });

  it("reports every field the server would refuse, at once, in the server's words", () => {
    const errors = validateJob(
      values((v) => {
        v.name = "x".repeat(129);
        v.scheduleType = "FIXED_RATE";
        v.scheduleExpression = " ";
        v.executionMode = "MAP";
        v.script = "";
        v.maxInstances = 0;
        v.taskConcurrency = 10_001;
        v.timeoutMs = -5;
        v.instanceRetries = 1.5;
        v.taskRetries = "";
        v.workerFilter.minMemoryMB = -1;
        v.workerFilter.maxWorkers = 20_000;
        v.alarm.rules[0] = { type: "FAILURE", on: true, threshold: "", silenceSec: -3 };
        v.alarm.rules[1] = { type: "CONSECUTIVE_FAILURES", on: true, threshold: 1, silenceSec: 0 };
        v.alarm.channels = [
          { type: "SLACK", target: "ftp://hooks" },
          { type: "EMAIL", target: "ops" },
        ];
        v.lifecycle = { start: "2026-03-02 00:00:00", end: "2026-03-01 00:00:00" };
      }),
    );
    expect(errors).toEqual({
      name: "must be at most 128 characters",
      scheduleExpression: "a FIXED_RATE job needs an interval such as 30s, 5m or 1h30m",
      "lifecycle.end": "the end must be after the start",
      script: "a SHELL job needs the script to run",
      executionMode: "MAP needs a GO processor, which can call map(); SHELL scripts cannot",
      maxInstances: "0 is out of range 1 to 10000 (instances of the job that may run at once)",
      taskConcurrency: "10001 is out of range 1 to 10000 (tasks of one instance one worker runs at once)",
      instanceRetries: "must be a whole number",
      "workerFilter.maxWorkers": "20000 is out of range 0 to 10000 (workers one instance may use (0: all))",
      timeoutMs: "-5 is negative; use 0 for no timeout",
      "workerFilter.minMemoryMB": "must not be negative",
      "alarm.rules.0.silenceSec": "must not be negative",
      "alarm.rules.1.threshold": "must be a whole number, at least 2",
      "alarm.channels.0.target": '"ftp://hooks" is not an http(s) URL',
      "alarm.channels.1.target": '"ops" is not an email address',
    });
  });

  it("checks the overlap and retry back-off fields as the server does", () => {
    const errors = validateJob(
      values((v) => {
        v.overlapPolicy = "QUEUE";
        v.maxQueued = 0;
        v.priority = 1001;
        v.retryDelayMs = 5000;
        v.retryBackoff = 0.5;
        v.retryDelayMaxMs = 1000;
      }),
    );
    expect(errors).toEqual({
      maxQueued: "0 is out of range 1 to 1000 (fires of a QUEUE job that wait for a running instance to end)",
      priority: "1001 is out of range -1000 to 1000 (higher goes first when workers are short of slots)",
      retryBackoff: "0.5 is out of range 1 to 10 (the factor each retry's delay grows by; 1: constant)",
      retryDelayMaxMs: "1000 is below retryDelayMs 5000; the cap must be at least the first delay (0: no cap)",
    });
    expect(validateJob(values((v) => ((v.retryDelayMs = 2000), (v.retryBackoff = 2.5))))).toEqual({});
  });

  it("checks the processor of each type", () => {
    expect(validateJob(values((v) => ((v.processorType = "GO"), (v.goProcessor = "sync orders"))))).toHaveProperty(
      "goProcessor",
    );
    const http = validateJob(
      values((v) => {
        v.processorType = "HTTP";
        v.http = { ...v.http, url: "ftp://x", expectStatus: 700, timeoutMs: -1 };
      }),
    );
    expect(http).toEqual({
      "http.url": 'url "ftp://x" is not an http(s) URL',
      "http.expectStatus": "expectStatus 700 is not an HTTP status",
      "http.timeoutMs": "timeoutMs must not be negative",
    });
    expect(validateJob(values((v) => (v.name = "é".repeat(128))))).toEqual({});
  });
});
