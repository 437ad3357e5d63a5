import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { renderWithMantine } from "../test/render";
import { LanguageSwitch } from "../layout/LanguageSwitch";
import { i18n, initialLanguage, languageStorageKey, resources } from ".";

const storageWith = (value: string | null) => ({ getItem: () => value });

describe("the console's language", () => {
  it("follows the browser's languages when nothing was chosen", () => {
    expect(initialLanguage(storageWith(null), ["zh-CN", "en-US"])).toBe("zh-CN");
    expect(initialLanguage(storageWith(null), ["zh-TW"])).toBe("zh-CN");
    expect(initialLanguage(storageWith(null), ["fr-FR", "en-GB"])).toBe("en");
    expect(initialLanguage(storageWith(null), ["de-DE"])).toBe("en");
  });

  it("is the one chosen before, whatever the browser says", () => {
    expect(initialLanguage(storageWith("zh-CN"), ["en-US"])).toBe("zh-CN");
    expect(initialLanguage(storageWith("en"), ["zh-CN"])).toBe("en");
  });

  it("is switched from the top bar, remembered, and the page reloaded in it", async () => {
    localStorage.removeItem(languageStorageKey);
    const reload = vi.fn();
    renderWithMantine(<LanguageSwitch reload={reload} />);
    await userEvent.click(screen.getByText("简体中文"));
    expect(localStorage.getItem(languageStorageKey)).toBe("zh-CN");
    expect(reload).toHaveBeenCalledOnce();
    localStorage.removeItem(languageStorageKey);
  });

  it("shows Chinese text, with numbers and plurals in Chinese", async () => {
    const zh = i18n.cloneInstance({ lng: "zh-CN", resources, initAsync: false });
    await zh.changeLanguage("zh-CN");
    expect(zh.t("app.screens.jobs")).toBe("任务");
    expect(zh.t("instances.InstancesPage.count", { count: 12345 })).toBe("12,345 个实例");
    expect(i18n.t("instances.InstancesPage.count", { count: 1 })).toBe("1 instance");
    expect(i18n.t("instances.InstancesPage.count", { count: 2 })).toBe("2 instances");
  });
});
