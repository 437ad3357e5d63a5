import { i18n } from "../i18n";
import { cronPresets, describeCron } from "./cronHelp";

describe("describeCron", () => {
  afterEach(async () => {
    await i18n.changeLanguage("en");
  });

  it("says a Quartz expression in words, day of week 1 being Sunday as Quartz counts", () => {
    expect(describeCron("0 0/5 * * * ?")).toBe("Every 5 minutes");
    expect(describeCron("0 0 9 ? * 2-6")).toBe("At 09:00, Monday through Friday");
    expect(describeCron("0 15 10 ? * 6L")).toBe("At 10:15, on the last Friday of the month");
  });

  it("says nothing for what it cannot read", () => {
    expect(describeCron("")).toBeNull();
    expect(describeCron("bogus")).toBeNull();
    expect(describeCron("0 0 25 * * ?")).toBeNull();
  });

  it("speaks Chinese when the console does", async () => {
    await i18n.changeLanguage("zh-CN");
    expect(describeCron("0 0/5 * * * ?")).toBe("每隔 5 分钟");
    expect(describeCron("0 0 9 ? * MON-FRI")).toBe("在09:00, 星期一至星期五");
  });

  it("offers presets that each read as they are named", () => {
    expect(cronPresets.map((p) => [p.label, describeCron(p.expression)])).toEqual([
      ["Every minute", "Every minute"],
      ["Every 5 minutes", "Every 5 minutes"],
      ["Hourly, on the hour", "Every hour"],
      ["Daily at midnight", "At 00:00"],
      ["Weekdays at 09:00", "At 09:00, Monday through Friday"],
      ["Mondays at 09:00", "At 09:00, only on Monday"],
      ["Monthly, on the 1st at midnight", "At 00:00, on day 1 of the month"],
    ]);
  });
});
