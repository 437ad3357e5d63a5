import { changedFields, lineDiff } from "./lineDiff";
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

  it("names the changed fields of two definitions", () => {
    expect(changedFields({ name: "a", processor: "x", timeoutMs: 0 }, { name: "a", processor: "y", timeoutMs: 5 })).toEqual([
      "processor",
      "timeoutMs",
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
