import { Fieldset, Grid, Paper, Select, SimpleGrid, Stack, Text, TextInput } from "@mantine/core";
import { DateTimePicker } from "@mantine/dates";
import type { ScheduleType } from "../graphql/graphql";
import { mono, useWatch, type JobFormApi } from "./formApi";
import { hasExpression, scheduleTypes, selectData } from "./labels";
import { SchedulePreview } from "./SchedulePreview";
import { TimeZoneSelect } from "./TimeZoneSelect";
import { useSchedulePreview } from "./useSchedulePreview";
import { WindowFields } from "./WindowFields";

const expressionHelp: Partial<Record<ScheduleType, { label: string; placeholder: string; description: string }>> = {
  CRON: {
    label: "Cron expression",
    placeholder: "0 0/5 * * * ?",
    description: "Quartz syntax with seconds: second minute hour day-of-month month day-of-week [year].",
  },
  FIXED_RATE: {
    label: "Interval",
    placeholder: "30s",
    description: "A duration such as 30s, 5m or 1h30m (at least 1s).",
  },
  FIXED_DELAY: {
    label: "Delay",
    placeholder: "30s",
    description: "The time from one run's end to the next start, e.g. 30s or 5m.",
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

  return (
    <Fieldset legend="Schedule">
      <Grid gutter="md">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Stack gap="sm">
            <Select
              label="Schedule type"
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
            <TimeZoneSelect
              label="Time zone"
              description="The zone the cron expression and the lifecycle are read in."
              key={form.key("timeZone")}
              {...form.getInputProps("timeZone")}
              error={form.errors["timeZone"] ?? preview.timeZoneError}
            />
            <WindowFields form={form} app={app} type={type} />
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <DateTimePicker
                label={`Lifecycle start (${timeZone})`}
                description="Blank: from now."
                placeholder="No start"
                clearable
                withSeconds
                valueFormat="YYYY-MM-DD HH:mm:ss"
                key={form.key("lifecycle.start")}
                {...form.getInputProps("lifecycle.start")}
              />
              <DateTimePicker
                label={`Lifecycle end (${timeZone})`}
                description="Blank: no end."
                placeholder="No end"
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
            <SchedulePreview preview={preview} timeZone={timeZone} />
          ) : (
            <Paper withBorder p="sm" radius="md">
              <Text size="sm" c="dimmed">
                {type === "API"
                  ? "This job fires only when it is run: Run now, or runJob in the API."
                  : "This job runs only as a node of a workflow."}
              </Text>
            </Paper>
          )}
        </Grid.Col>
      </Grid>
    </Fieldset>
  );
}
