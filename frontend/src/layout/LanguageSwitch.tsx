import { SegmentedControl } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { languages, matchLanguage, switchLanguage, type Language } from "../i18n";

/**
 * English or Chinese, for the whole console: the choice is kept in this
 * browser (localStorage) and the page reloads in it.
 */
export function LanguageSwitch({ reload }: { reload?: () => void }) {
  const { t, i18n } = useTranslation();
  const current = matchLanguage(i18n.language) ?? "en";
  return (
    <SegmentedControl
      size="xs"
      aria-label={t("layout.LanguageSwitch.language")}
      data={languages.map(({ value, label }) => ({ value, label }))}
      value={current}
      onChange={(value) => switchLanguage(value as Language, reload)}
    />
  );
}
