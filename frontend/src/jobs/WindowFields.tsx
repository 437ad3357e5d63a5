import { Checkbox, Chip, Group, Select, SimpleGrid, Stack, Text, TextInput } from "@mantine/core";
import { useQuery } from "urql";
import type { ScheduleType, Weekday } from "../graphql/graphql";
import { mono, useWatch, type JobFormApi } from "./formApi";
import { CalendarsQuery } from "./operations";

export const weekdays: readonly { value: Weekday; label: string }[] = [
  { value: "MONDAY", label: "Mon" },
  { value: "TUESDAY", label: "Tue" },
  { value: "WEDNESDAY", label: "Wed" },
  { value: "THURSDAY", label: "Thu" },
  { value: "FRIDAY", label: "Fri" },
  { value: "SATURDAY", label: "Sat" },
  { value: "SUNDAY", label: "Sun" },
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
            label="Only inside a daily window"
            description="Fire from the start time every interval up to the end time, on the chosen weekdays."
            key={form.key("window.enabled")}
            {...form.getInputProps("window.enabled", { type: "checkbox" })}
          />
          {windowOn && (
            <>
              <SimpleGrid cols={2}>
                <TextInput
                  label="From"
                  placeholder="09:00"
                  styles={mono}
                  key={form.key("window.start")}
                  {...form.getInputProps("window.start")}
                />
                <TextInput
                  label="Until (included)"
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
                <Group gap={4} aria-label="Weekdays">
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
              <Text size="xs" c="dimmed">
                No day chosen: every day. Wall-clock times: the hour skipped when summer time starts has no fires.
              </Text>
            </>
          )}
        </>
      )}
      {(type === "CRON" || type === "FIXED_RATE") && (
        <Select
          label="Calendar of excluded dates"
          description="No fires on its dates (holidays), in the job's time zone."
          placeholder="None"
          clearable
          data={calendars.map((c) => ({ value: c.name, label: `${c.name} (${c.dates.length} ${c.dates.length === 1 ? "date" : "dates"})` }))}
          key={form.key("calendar")}
          {...form.getInputProps("calendar")}
          onChange={(v) => form.setFieldValue("calendar", v ?? "")}
        />
      )}
    </Stack>
  );
}
