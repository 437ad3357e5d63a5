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
import { CronPresets } from "../jobs/cronHelp";
import { SchedulePreview } from "../jobs/SchedulePreview";
import { TimeZoneSelect } from "../jobs/TimeZoneSelect";
import { useSchedulePreview } from "../jobs/useSchedulePreview";
import type { WorkflowSettings } from "./graph";
import { t } from "../i18n";

/** Workflows run on a cron, at a fixed rate, or only when run. */
const workflowScheduleTypes = scheduleTypes.filter((type) => type.value === "CRON" || type.value === "FIXED_RATE" || type.value === "API");

const overlapPolicies: { value: OverlapPolicy; label: string }[] = [
  { value: "CANCEL", label: t("workflows.SettingsFields.cancelTheRunOver") },
  { value: "QUEUE", label: t("workflows.SettingsFields.queueItUntilAn") },
];

interface SettingsFieldsProps {
  settings: WorkflowSettings;
  onChange: (patch: Partial<WorkflowSettings>) => void;
  /** The server's objections, by field (name, scheduleExpression, …). */
  errors: Record<string, string>;
  readOnly: boolean;
}

/** The workflow's own fields: name, schedule (with the next fires previewed, as for jobs), limits. */
/** Expressions, not prose: the same in every language. */
const expressionExamples = { cron: "0 0/5 * * * ?", interval: "30s" };

export function SettingsFields({ settings, onChange, errors, readOnly }: SettingsFieldsProps) {
  const { scheduleType, scheduleExpression, timeZone } = settings;
  const preview = useSchedulePreview(scheduleType, scheduleType === "API" ? "" : scheduleExpression, timeZone || "UTC");
  const num = (v: number | string, fallback: number) => (typeof v === "number" ? v : fallback);
  return (
    <Stack>
      <Fieldset legend={t("workflows.SettingsFields.workflow")} disabled={readOnly}>
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <TextInput
            label={t("workflows.SettingsFields.name")}
            required
            value={settings.name}
            error={errors["name"]}
            onChange={(e) => onChange({ name: e.currentTarget.value })}
          />
          <Switch
            mt="xl"
            label={t("workflows.SettingsFields.enabledRunsOnIts")}
            checked={settings.enabled}
            onChange={(e) => onChange({ enabled: e.currentTarget.checked })}
          />
        </SimpleGrid>
        <Textarea
          mt="sm"
          label={t("workflows.SettingsFields.description")}
          autosize
          minRows={1}
          value={settings.description}
          error={errors["description"]}
          onChange={(e) => onChange({ description: e.currentTarget.value })}
        />
      </Fieldset>
      <Fieldset legend={t("workflows.SettingsFields.schedule")} disabled={readOnly}>
        <Grid gutter="md">
          <Grid.Col span={{ base: 12, md: 7 }}>
            <Stack gap="sm">
              <Select
                label={t("workflows.SettingsFields.scheduleType")}
                data={selectData(workflowScheduleTypes)}
                allowDeselect={false}
                value={scheduleType}
                error={errors["scheduleType"]}
                onChange={(v) => v && onChange({ scheduleType: v as ScheduleType })}
              />
              {scheduleType !== "API" && (
                <TextInput
                  label={scheduleType === "CRON" ? t("workflows.SettingsFields.cronExpression") : t("workflows.SettingsFields.interval")}
                  description={
                    scheduleType === "CRON"
                      ? t("workflows.SettingsFields.quartzSyntaxWithSeconds")
                      : t("workflows.SettingsFields.aDurationSuchAs")
                  }
                  placeholder={scheduleType === "CRON" ? expressionExamples.cron : expressionExamples.interval}
                  required
                  styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
                  autoComplete="off"
                  spellCheck={false}
                  value={scheduleExpression}
                  error={errors["scheduleExpression"] ?? preview.expressionError}
                  onChange={(e) => onChange({ scheduleExpression: e.currentTarget.value })}
                />
              )}
              {scheduleType === "CRON" && (
                <CronPresets disabled={readOnly} onPick={(e) => onChange({ scheduleExpression: e })} />
              )}
              <TimeZoneSelect
                label={t("workflows.SettingsFields.timeZone")}
                description={t("workflows.SettingsFields.theZoneTheCron")}
                value={timeZone}
                error={errors["timeZone"] ?? preview.timeZoneError}
                onChange={(v) => v && onChange({ timeZone: v })}
              />
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <NumberInput
                  label={t("workflows.SettingsFields.maxRunsAtOnce")}
                  description={t("workflows.SettingsFields.topLevelRunsRunning")}
                  min={1}
                  max={10000}
                  allowNegative={false}
                  value={settings.maxInstances}
                  error={errors["maxInstances"]}
                  onChange={(v) => onChange({ maxInstances: num(v, 1) })}
                />
                <Select
                  label={t("workflows.SettingsFields.overTheLimit")}
                  data={overlapPolicies}
                  allowDeselect={false}
                  value={settings.overlapPolicy}
                  error={errors["overlapPolicy"]}
                  onChange={(v) => v && onChange({ overlapPolicy: v as OverlapPolicy })}
                />
                <Select
                  label={t("workflows.SettingsFields.misfirePolicy")}
                  data={selectData(misfirePolicies)}
                  allowDeselect={false}
                  value={settings.misfirePolicy}
                  error={errors["misfirePolicy"]}
                  onChange={(v) => v && onChange({ misfirePolicy: v as MisfirePolicy })}
                />
                <Switch
                  mt="xl"
                  label={t("workflows.SettingsFields.failFastEndAt")}
                  checked={settings.failFast}
                  onChange={(e) => onChange({ failFast: e.currentTarget.checked })}
                />
              </SimpleGrid>
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 5 }}>
            {scheduleType === "API" ? (
              <Paper withBorder p="sm" radius="md">
                <Text size="sm" c="dimmed">{t("workflows.SettingsFields.thisWorkflowRunsOnly")}</Text>
              </Paper>
            ) : (
              <SchedulePreview
                preview={preview}
                timeZone={timeZone || "UTC"}
                cron={scheduleType === "CRON" ? scheduleExpression : undefined}
              />
            )}
          </Grid.Col>
        </Grid>
      </Fieldset>
    </Stack>
  );
}
