import {
  Fieldset,
  Grid,
  NumberInput,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Textarea,
} from "@mantine/core";
import type { MisfirePolicy, OverlapPolicy, ScheduleType } from "../graphql/graphql";
import { misfirePolicies, scheduleTypes, selectData } from "../jobs/labels";
import { SchedulePreview } from "../jobs/SchedulePreview";
import { TimeZoneSelect } from "../jobs/TimeZoneSelect";
import { useSchedulePreview } from "../jobs/useSchedulePreview";
import type { WorkflowSettings } from "./graph";

/** Workflows run on a cron, at a fixed rate, or only when run. */
const workflowScheduleTypes = scheduleTypes.filter((t) => t.value === "CRON" || t.value === "FIXED_RATE" || t.value === "API");

const overlapPolicies: { value: OverlapPolicy; label: string }[] = [
  { value: "CANCEL", label: "Cancel the run over the limit" },
  { value: "QUEUE", label: "Queue it until an earlier run ends" },
];

interface SettingsFieldsProps {
  settings: WorkflowSettings;
  onChange: (patch: Partial<WorkflowSettings>) => void;
  /** The server's objections, by field (name, scheduleExpression, …). */
  errors: Record<string, string>;
  readOnly: boolean;
}

/** The workflow's own fields: name, schedule (with the next fires previewed, as for jobs), limits. */
export function SettingsFields({ settings, onChange, errors, readOnly }: SettingsFieldsProps) {
  const { scheduleType, scheduleExpression, timeZone } = settings;
  const preview = useSchedulePreview(scheduleType, scheduleType === "API" ? "" : scheduleExpression, timeZone || "UTC");
  const num = (v: number | string, fallback: number) => (typeof v === "number" ? v : fallback);
  return (
    <Stack>
      <Fieldset legend="Workflow" disabled={readOnly}>
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <TextInput
            label="Name"
            required
            value={settings.name}
            error={errors["name"]}
            onChange={(e) => onChange({ name: e.currentTarget.value })}
          />
          <Switch
            mt="xl"
            label="Enabled (runs on its schedule)"
            checked={settings.enabled}
            onChange={(e) => onChange({ enabled: e.currentTarget.checked })}
          />
        </SimpleGrid>
        <Textarea
          mt="sm"
          label="Description"
          autosize
          minRows={1}
          value={settings.description}
          error={errors["description"]}
          onChange={(e) => onChange({ description: e.currentTarget.value })}
        />
      </Fieldset>
      <Fieldset legend="Schedule" disabled={readOnly}>
        <Grid gutter="md">
          <Grid.Col span={{ base: 12, md: 7 }}>
            <Stack gap="sm">
              <Select
                label="Schedule type"
                data={selectData(workflowScheduleTypes)}
                allowDeselect={false}
                value={scheduleType}
                error={errors["scheduleType"]}
                onChange={(v) => v && onChange({ scheduleType: v as ScheduleType })}
              />
              {scheduleType !== "API" && (
                <TextInput
                  label={scheduleType === "CRON" ? "Cron expression" : "Interval"}
                  description={
                    scheduleType === "CRON"
                      ? "Quartz syntax with seconds: second minute hour day-of-month month day-of-week [year]."
                      : "A duration such as 30s, 5m or 1h30m (at least 1s)."
                  }
                  placeholder={scheduleType === "CRON" ? "0 0/5 * * * ?" : "30s"}
                  required
                  styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
                  autoComplete="off"
                  spellCheck={false}
                  value={scheduleExpression}
                  error={errors["scheduleExpression"] ?? preview.expressionError}
                  onChange={(e) => onChange({ scheduleExpression: e.currentTarget.value })}
                />
              )}
              <TimeZoneSelect
                label="Time zone"
                description="The zone the cron expression is read in."
                value={timeZone}
                error={errors["timeZone"] ?? preview.timeZoneError}
                onChange={(v) => v && onChange({ timeZone: v })}
              />
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <NumberInput
                  label="Max runs at once"
                  description="Top-level runs RUNNING or PAUSED at once."
                  min={1}
                  max={10000}
                  allowNegative={false}
                  value={settings.maxInstances}
                  error={errors["maxInstances"]}
                  onChange={(v) => onChange({ maxInstances: num(v, 1) })}
                />
                <Select
                  label="Over the limit"
                  data={overlapPolicies}
                  allowDeselect={false}
                  value={settings.overlapPolicy}
                  error={errors["overlapPolicy"]}
                  onChange={(v) => v && onChange({ overlapPolicy: v as OverlapPolicy })}
                />
                <Select
                  label="Misfire policy"
                  data={selectData(misfirePolicies)}
                  allowDeselect={false}
                  value={settings.misfirePolicy}
                  error={errors["misfirePolicy"]}
                  onChange={(v) => v && onChange({ misfirePolicy: v as MisfirePolicy })}
                />
                <Switch
                  mt="xl"
                  label="Fail fast (end at the first failed node)"
                  checked={settings.failFast}
                  onChange={(e) => onChange({ failFast: e.currentTarget.checked })}
                />
              </SimpleGrid>
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 5 }}>
            {scheduleType === "API" ? (
              <Paper withBorder p="sm" radius="md">
                <Text size="sm" c="dimmed">
                  This workflow runs only when it is run: Run, or runWorkflow in the API.
                </Text>
              </Paper>
            ) : (
              <SchedulePreview preview={preview} timeZone={timeZone || "UTC"} />
            )}
          </Grid.Col>
        </Grid>
      </Fieldset>
    </Stack>
  );
}
