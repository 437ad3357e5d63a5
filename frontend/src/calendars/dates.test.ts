import { formatDates, isDate, parseDates, today, upcoming } from "./dates";

describe("calendar dates", () => {
  it("knows a real date from one that only looks like it", () => {
    expect(isDate("2026-12-25")).toBe(true);
    expect(isDate("2028-02-29")).toBe(true);
    expect(isDate("2026-02-29")).toBe(false);
    expect(isDate("2026-13-01")).toBe(false);
    expect(isDate("25.12.2026")).toBe(false);
    expect(isDate("2026-1-5")).toBe(false);
  });

  it("reads dates in any order and separator, sorted and each once, and lists what is not a date", () => {
    expect(parseDates("2026-12-26, 2026-12-25\n2026-12-25  2027-01-01;x 2026-02-30")).toEqual({
      dates: ["2026-12-25", "2026-12-26", "2027-01-01"],
      bad: ["x", "2026-02-30"],
    });
    expect(parseDates("  \n ")).toEqual({ dates: [], bad: [] });
  });

  it("writes one date a line and finds the next ones from a day", () => {
    expect(formatDates(["2026-12-25", "2026-12-26"])).toBe("2026-12-25\n2026-12-26");
    expect(upcoming(["2026-01-01", "2026-12-25", "2026-12-26", "2027-01-01"], "2026-12-25", 2)).toEqual([
      "2026-12-25",
      "2026-12-26",
    ]);
    expect(today(new Date(2026, 0, 5, 23, 59))).toBe("2026-01-05");
  });
});
