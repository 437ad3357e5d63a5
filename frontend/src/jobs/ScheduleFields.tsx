import { Fieldset, Grid, Paper, Select, SimpleGrid, Stack, Text, TextInput } from "@mantine/core";
import { DateTimePicker } from "@mantine/dates";
import type { ScheduleType } from "../graphql/graphql";
import { CronPresets } from "./cronHelp";
import { useReadOnly } from "./readOnly";
import { mono, useWatch, type JobFormApi } from "./formApi";
import { hasExpression, scheduleTypes, selectData } from "./labels";
import { SchedulePreview } from "./SchedulePreview";
import { TimeZoneSelect } from "./TimeZoneSelect";
import { useSchedulePreview } from "./useSchedulePreview";
import { WindowFields } from "./WindowFields";
import { t } from "../i18n";

const expressionHelp: Partial<Record<ScheduleType, { label: string; placeholder: string; description: string }>> = {
  CRON: {
    label: t("jobs.ScheduleFields.cronExpression"),
    placeholder: "0 0/5 * * * ?",
    description: t("jobs.ScheduleFields.quartzSyntaxWithSeconds"),
  },
  FIXED_RATE: {
    label: t("jobs.ScheduleFields.interval"),
    placeholder: "30s",
    description: t("jobs.ScheduleFields.aDurationSuchAs"),
  },
  FIXED_DELAY: {
    label: t("jobs.ScheduleFields.delay"),
    placeholder: "30s",
    description: t("jobs.ScheduleFields.theTimeFromOne"),
  },
};

/** Schedule type, expression, time zone and lifecycle, with the next fires previewed live. */
export function ScheduleFields({ form, app }: { form: JobFormApi; app: string }) {
  const type = useWatch(form, "scheduleType", (v) => v.scheduleType);
  const expression = useWatch(form, "scheduleExpression", (v) => v.scheduleExpression);
  const timeZone = useWatch(form, "timeZone", (v) => v.timeZone) || "UTC";
  const window = useWatch(form, "window", (v) => v.window);
  const calendar = useWatch(form, "calendar", (v) => v.calendar);
  const preview = useSchedulePreview(type, expression, timeZone, {
    window: window.enabled ? { start: window.start, end: window.end, days: window.days } : null,
    app,
    calendar: calendar || null,
  });
  const help = expressionHelp[type];
  const readOnly = useReadOnly();

  return (
    <Fieldset legend={t("jobs.ScheduleFields.schedule")}>
      <Grid gutter="md">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Stack gap="sm">
            <Select
              label={t("jobs.ScheduleFields.scheduleType")}
              data={selectData(scheduleTypes)}
              allowDeselect={false}
              description={scheduleTypes.find((c) => c.value === type)?.description}
              key={form.key("scheduleType")}
              {...form.getInputProps("scheduleType")}
            />
            {help && (
              <TextInput
                label={help.label}
                description={help.description}
                placeholder={help.placeholder}
                required
                styles={mono}
                autoComplete="off"
                spellCheck={false}
                key={form.key("scheduleExpression")}
                {...form.getInputProps("scheduleExpression")}
                error={form.errors["scheduleExpression"] ?? preview.expressionError}
              />
            )}
            {type === "CRON" && (
              <CronPresets disabled={readOnly} onPick={(e) => form.setFieldValue("scheduleExpression", e)} />
            )}
            <TimeZoneSelect
              label={t("jobs.ScheduleFields.timeZone")}
              description={t("jobs.ScheduleFields.theZoneTheCron")}
              key={form.key("timeZone")}
              {...form.getInputProps("timeZone")}
              error={form.errors["timeZone"] ?? preview.timeZoneError}
            />
            <WindowFields form={form} app={app} type={type} />
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <DateTimePicker
                label={t("jobs.ScheduleFields.lifecycleStart", { timeZone: timeZone })}
                description={t("jobs.ScheduleFields.blankFromNow")}
                placeholder={t("jobs.ScheduleFields.noStart")}
                clearable
                withSeconds
                valueFormat="YYYY-MM-DD HH:mm:ss"
                key={form.key("lifecycle.start")}
                {...form.getInputProps("lifecycle.start")}
              />
              <DateTimePicker
                label={t("jobs.ScheduleFields.lifecycleEnd", { timeZone: timeZone })}
                description={t("jobs.ScheduleFields.blankNoEnd")}
                placeholder={t("jobs.ScheduleFields.noEnd")}
                clearable
                withSeconds
                valueFormat="YYYY-MM-DD HH:mm:ss"
                key={form.key("lifecycle.end")}
                {...form.getInputProps("lifecycle.end")}
              />
            </SimpleGrid>
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          {hasExpression(type) ? (
            <SchedulePreview preview={preview} timeZone={timeZone} cron={type === "CRON" ? expression : undefined} />
          ) : (
            <Paper withBorder p="sm" radius="md">
              <Text size="sm" c="dimmed">
                {type === "API"
                  ? t("jobs.ScheduleFields.thisJobFiresOnly")
                  : t("jobs.ScheduleFields.thisJobRunsOnly")}
              </Text>
            </Paper>
          )}
        </Grid.Col>
      </Grid>
    </Fieldset>
  );
}
