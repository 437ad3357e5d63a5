import { Button, Menu, Text } from "@mantine/core";
import cronstrue from "cronstrue";
import "cronstrue/locales/zh_CN";
import { locale, t } from "../i18n";

/** cronstrue's name for each console language. */
const cronLocales = { en: "en", "zh-CN": "zh_CN" } as const;

/**
 * A Quartz cron expression (seconds first, day of week 1 = Sunday) in words,
 * in the console's language; null when it cannot be read.
 */
export function describeCron(expression: string): string | null {
  const trimmed = expression.trim();
  if (trimmed === "") return null;
  try {
    return cronstrue.toString(trimmed, {
      locale: cronLocales[locale()],
      use24HourTimeFormat: true,
      dayOfWeekStartIndexZero: false,
      throwExceptionOnParseError: true,
    });
  } catch {
    return null;
  }
}

/** Common schedules as Quartz expressions (what is typed: the same in every language). */
export const cronPresets: readonly { expression: string; label: string }[] = [
  { expression: "0 * * * * ?", label: t("jobs.cronHelp.everyMinute") },
  { expression: "0 0/5 * * * ?", label: t("jobs.cronHelp.every5Minutes") },
  { expression: "0 0 * * * ?", label: t("jobs.cronHelp.hourly") },
  { expression: "0 0 0 * * ?", label: t("jobs.cronHelp.dailyAtMidnight") },
  { expression: "0 0 9 ? * MON-FRI", label: t("jobs.cronHelp.weekdaysAt9") },
  { expression: "0 0 9 ? * MON", label: t("jobs.cronHelp.mondaysAt9") },
  { expression: "0 0 0 1 * ?", label: t("jobs.cronHelp.monthlyOnThe1st") },
];

/** The expression in words, shown as it is typed; nothing when it cannot be read. */
export function CronDescription({ expression }: { expression: string }) {
  const words = describeCron(expression);
  if (!words) return null;
  return (
    <Text size="sm" fw={500} mb="xs" data-testid="cron-description">
      {words}
    </Text>
  );
}

/** A menu of common schedules; picking one puts its expression in the field. */
export function CronPresets({ onPick, disabled }: { onPick: (expression: string) => void; disabled?: boolean }) {
  return (
    <Menu position="bottom-start" withinPortal>
      <Menu.Target>
        <Button variant="light" size="compact-xs" disabled={disabled} style={{ alignSelf: "flex-start" }}>
          {t("jobs.cronHelp.commonSchedules")}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {cronPresets.map((p) => (
          <Menu.Item
            key={p.expression}
            onClick={() => onPick(p.expression)}
            rightSection={
              <Text span size="xs" c="dimmed" ff="monospace" ml="md">
                {p.expression}
              </Text>
            }
          >
            {p.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
