import { changedValues, lineDiff } from "./lineDiff";
import { newJobValues, serverFieldPath, toJobInput } from "./jobForm";

describe("lineDiff", () => {
  it("keeps common lines and marks the rest", () => {
    expect(lineDiff("a\nb\nc", "a\nx\nc\nd")).toEqual([
      { kind: "same", text: "a" },
      { kind: "removed", text: "b" },
      { kind: "added", text: "x" },
      { kind: "same", text: "c" },
      { kind: "added", text: "d" },
    ]);
    expect(lineDiff("", "new")).toEqual([{ kind: "added", text: "new" }]);
  });

  it("gives each changed value of two definitions, before and after, down to what changed in an object or list", () => {
    expect(
      changedValues(
        { name: "a", processor: "x", timeoutMs: 0, alarm: { rules: [{ kind: "FAILURE", threshold: 1 }] }, tags: ["a"] },
        { name: "a", processor: "y", timeoutMs: 5, alarm: { rules: [{ kind: "FAILURE", threshold: 3 }] }, tags: ["a", "b"], pool: "gpu" },
      ),
    ).toEqual([
      { field: "alarm.rules[0].threshold", before: 1, after: 3 },
      { field: "pool", before: undefined, after: "gpu" },
      { field: "processor", before: "x", after: "y" },
      { field: "tags", before: ["a"], after: ["a", "b"] },
      { field: "timeoutMs", before: 0, after: 5 },
    ]);
  });
});

describe("window and calendar in the job form", () => {
  it("sends a FIXED_RATE job's window and calendar, and neither for API jobs", () => {
    const v = {
      ...newJobValues(),
      scheduleType: "FIXED_RATE" as const,
      scheduleExpression: "30s",
      window: { enabled: true, start: "09:00", end: "17:30", days: ["MONDAY" as const] },
      calendar: "holidays",
    };
    const input = toJobInput("orders", v);
    expect(input.scheduleWindow).toEqual({ start: "09:00", end: "17:30", days: ["MONDAY"] });
    expect(input.calendar).toBe("holidays");
    const api = toJobInput("orders", { ...v, scheduleType: "API" });
    expect(api.scheduleWindow).toBeNull();
    expect(api.calendar).toBeNull();
    expect(serverFieldPath("scheduleWindow.end", "", v)).toBe("window.end");
    expect(serverFieldPath("calendar", "", v)).toBe("calendar");
  });
});
