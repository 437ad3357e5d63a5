import { Checkbox, Chip, Group, Select, SimpleGrid, Stack, Text, TextInput } from "@mantine/core";
import { useQuery } from "urql";
import type { ScheduleType, Weekday } from "../graphql/graphql";
import { mono, useWatch, type JobFormApi } from "./formApi";
import { CalendarsQuery } from "./operations";
import { t } from "../i18n";

export const weekdays: readonly { value: Weekday; label: string }[] = [
  { value: "MONDAY", label: t("jobs.WindowFields.mon") },
  { value: "TUESDAY", label: t("jobs.WindowFields.tue") },
  { value: "WEDNESDAY", label: t("jobs.WindowFields.wed") },
  { value: "THURSDAY", label: t("jobs.WindowFields.thu") },
  { value: "FRIDAY", label: t("jobs.WindowFields.fri") },
  { value: "SATURDAY", label: t("jobs.WindowFields.sat") },
  { value: "SUNDAY", label: t("jobs.WindowFields.sun") },
];

const calendarsContext = { additionalTypenames: ["Calendar"] };

/**
 * A FIXED_RATE job's daily window (times of day and weekdays in the job's
 * zone), and for CRON and FIXED_RATE the app's calendar of excluded dates.
 */
export function WindowFields({ form, app, type }: { form: JobFormApi; app: string; type: ScheduleType }) {
  const windowOn = useWatch(form, "window.enabled", (v) => v.window.enabled);
  const days = useWatch(form, "window.days", (v) => v.window.days);
  const [{ data }] = useQuery({
    query: CalendarsQuery,
    variables: { app },
    pause: type !== "CRON" && type !== "FIXED_RATE",
    // A calendar created on the Calendars screen shows here even when the app had none.
    context: calendarsContext,
  });
  const calendars = data?.calendars ?? [];

  return (
    <Stack gap="xs">
      {type === "FIXED_RATE" && (
        <>
          <Checkbox
            label={t("jobs.WindowFields.onlyInsideADaily")}
            description={t("jobs.WindowFields.fireFromTheStart")}
            key={form.key("window.enabled")}
            {...form.getInputProps("window.enabled", { type: "checkbox" })}
          />
          {windowOn && (
            <>
              <SimpleGrid cols={2}>
                <TextInput
                  label={t("jobs.WindowFields.from")}
                  placeholder="09:00"
                  styles={mono}
                  key={form.key("window.start")}
                  {...form.getInputProps("window.start")}
                />
                <TextInput
                  label={t("jobs.WindowFields.untilIncluded")}
                  placeholder="17:30"
                  styles={mono}
                  key={form.key("window.end")}
                  {...form.getInputProps("window.end")}
                />
              </SimpleGrid>
              <Chip.Group
                multiple
                value={days}
                onChange={(v) => form.setFieldValue("window.days", v as Weekday[])}
              >
                <Group gap={4} aria-label={t("jobs.WindowFields.weekdays")}>
                  {weekdays.map((d) => (
                    <Chip key={d.value} value={d.value} size="xs">
                      {d.label}
                    </Chip>
                  ))}
                </Group>
              </Chip.Group>
              {form.errors["window.days"] && (
                <Text size="xs" c="red">
                  {form.errors["window.days"]}
                </Text>
              )}
              <Text size="xs" c="dimmed">{t("jobs.WindowFields.noDayChosenEvery")}</Text>
            </>
          )}
        </>
      )}
      {(type === "CRON" || type === "FIXED_RATE") && (
        <Select
          label={t("jobs.WindowFields.calendarOfExcludedDates")}
          description={t("jobs.WindowFields.noFiresOnIts")}
          placeholder={t("jobs.WindowFields.none")}
          clearable
          data={calendars.map((c) => ({ value: c.name, label: t("jobs.WindowFields.calendarDates", { name: c.name, count: c.dates.length }) }))}
          key={form.key("calendar")}
          {...form.getInputProps("calendar")}
          onChange={(v) => form.setFieldValue("calendar", v ?? "")}
        />
      )}
    </Stack>
  );
}
