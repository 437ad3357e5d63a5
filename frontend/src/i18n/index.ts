// The console's strings in English and Chinese (i18next). The language is
// read once, when the console loads: from the choice stored in
// localStorage, else the browser's languages. Switching it stores the
// choice and reloads the page, so every string (module constants such as
// the enum labels too) is in one language at a time.
import i18next from "i18next";
import { initReactI18next } from "react-i18next";
import en from "./locales/en.json";
import zhCN from "./locales/zh-CN.json";

/** The languages the console speaks, by BCP 47 tag. */
export const languages = [
  { value: "en", label: "English" },
  { value: "zh-CN", label: "简体中文" },
] as const;

export type Language = (typeof languages)[number]["value"];

/** Where the chosen language is kept. */
export const languageStorageKey = "jobwheel.language";

/** The supported language closest to a BCP 47 tag, or null. */
export function matchLanguage(tag: string): Language | null {
  const lower = tag.toLowerCase();
  if (lower === "en" || lower.startsWith("en-")) return "en";
  if (lower === "zh" || lower.startsWith("zh-")) return "zh-CN";
  return null;
}

/** The stored choice, else the first of the browser's languages the console speaks, else English. */
export function initialLanguage(storage: Pick<Storage, "getItem"> | null, browser: readonly string[]): Language {
  const stored = storage?.getItem(languageStorageKey);
  const picked = stored ? matchLanguage(stored) : null;
  if (picked) return picked;
  for (const tag of browser) {
    const match = matchLanguage(tag);
    if (match) return match;
  }
  return "en";
}

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function browserLanguages(): readonly string[] {
  return navigator.languages.length > 0 ? navigator.languages : [navigator.language];
}

export const resources = {
  en: { translation: en },
  "zh-CN": { translation: zhCN },
} as const;

const startLanguage = initialLanguage(storage(), browserLanguages());
// Screen readers and the browser's own hyphenation and fonts follow it.
document.documentElement.lang = startLanguage;

// Synchronous: the resources are bundled, and modules that build labels
// when they load call t as soon as they are imported.
void i18next.use(initReactI18next).init({
  resources,
  lng: startLanguage,
  fallbackLng: "en",
  initAsync: false,
  // React escapes what it renders.
  interpolation: { escapeValue: false },
  returnNull: false,
});

export const i18n = i18next;

/** The current language's string for a key. */
export const t = i18next.t.bind(i18next);

/** The current language, as Intl formats want it. */
export function locale(): Language {
  return matchLanguage(i18next.language) ?? "en";
}

/** Keeps a language for the next visits and shows the console in it. */
export function switchLanguage(language: Language, reload: () => void = () => window.location.reload()) {
  storage()?.setItem(languageStorageKey, language);
  if (language !== i18next.language) reload();
}
