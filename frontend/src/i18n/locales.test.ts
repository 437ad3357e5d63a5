// Every string the console shows comes from the locale files: a key the
// source uses must be in both, and the two must have the same keys, with
// the same placeholders (a translation that drops {{name}} loses the name).
import en from "./locales/en.json";
import zhCN from "./locales/zh-CN.json";

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(tree)) {
    if (typeof v === "string") out.set(prefix + k, v);
    else for (const [kk, vv] of flatten(v, `${prefix}${k}.`)) out.set(kk, vv);
  }
  return out;
}

// i18next's plural forms: English has _one and _other, Chinese _other only.
const pluralSuffix = /_(zero|one|two|few|many|other)$/;
const baseKeys = (m: Map<string, string>) => new Set([...m.keys()].map((k) => k.replace(pluralSuffix, "")));
const placeholders = (s: string) =>
  [...s.matchAll(/\{\{\s*(\w+)[^}]*\}\}/g)]
    .map((m) => m[1])
    .sort()
    .join(",");

// The console's own source (not tests, not generated code), as text.
const sources = Object.entries(
  import.meta.glob<string>(["../**/*.{ts,tsx}", "!../**/*.test.{ts,tsx}", "!../graphql/**"], {
    query: "?raw",
    import: "default",
    eager: true,
  }),
);

const enKeys = flatten(en);
const zhKeys = flatten(zhCN);

describe("the locale files", () => {
  it("have a translation in both languages for every key the source uses", () => {
    const used = new Set<string>();
    for (const [, text] of sources) {
      for (const m of text.matchAll(/\bt\(\s*"([^"]+)"/g)) used.add(m[1] ?? "");
    }
    expect(used.size).toBeGreaterThan(1000);
    const enBase = baseKeys(enKeys);
    const zhBase = baseKeys(zhKeys);
    expect([...used].filter((k) => !enBase.has(k))).toEqual([]);
    expect([...used].filter((k) => !zhBase.has(k))).toEqual([]);
  });

  it("have the same keys in English and Chinese", () => {
    const enBase = baseKeys(enKeys);
    const zhBase = baseKeys(zhKeys);
    expect([...enBase].filter((k) => !zhBase.has(k))).toEqual([]);
    expect([...zhBase].filter((k) => !enBase.has(k))).toEqual([]);
  });

  it("keep every placeholder in the translation", () => {
    const mismatched = [...zhKeys].filter(([k, zh]) => {
      const english = enKeys.get(k) ?? enKeys.get(k.replace(pluralSuffix, "_other")) ?? "";
      return placeholders(english) !== placeholders(zh);
    });
    expect(mismatched).toEqual([]);
  });

  it("translate what people read: no Chinese string left in English", () => {
    // Codes, units and names may stay as they are; prose may not.
    const untranslated = [...zhKeys].filter(([k, zh]) => {
      const english = enKeys.get(k) ?? enKeys.get(k.replace(pluralSuffix, "_other"));
      return english === zh && /[a-z]{3,} [a-z]{3,}/.test(zh);
    });
    expect(untranslated.map(([k]) => k)).toEqual([]);
  });
});
