import { useState } from "react";
import { Alert, Button, Group, Stack } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, type CombinedError } from "urql";
import { errorMessage, reasonOf } from "../api/errors";
import type { WorkflowFieldsFragment } from "../graphql/graphql";
import { AlarmFields } from "../jobs/AlarmFields";
import { AlarmHistorySection, AlarmSummary, TestAlarm, alarmHistoryPageSize } from "../jobs/AlarmSections";
import {
  alarmFieldPath,
  alarmValues,
  toAlarmInput,
  validateAlarm,
  workflowAlarmRuleTypes,
  workflowRuleLabels,
  type AlarmValues,
} from "../jobs/alarmForm";
import { graphOf, settingsOf, toInput } from "./graph";
import { UpdateWorkflowMutation, WorkflowAlarmHistoryQuery } from "./operations";
import { t } from "../i18n";

const context = { additionalTypenames: ["Workflow"] };

interface AlarmFormValues {
  alarm: AlarmValues;
}

/**
 * A workflow's Alarms tab: its rules (no START_LATE: that is for jobs) and
 * channels, editable by editors, a test alarm, and the alarm history. A
 * VIEWER sees the settings in words and the history.
 */
export function WorkflowAlarms({ app, workflow, canEdit }: { app: string; workflow: WorkflowFieldsFragment; canEdit: boolean }) {
  const [pages, setPages] = useState(1);
  const [result, reexecute] = useQuery({
    query: WorkflowAlarmHistoryQuery,
    variables: { id: workflow.id, first: alarmHistoryPageSize * pages },
    requestPolicy: "cache-and-network",
  });
  const refresh = () => reexecute({ requestPolicy: "network-only" });
  // Bumped by Reset: the form starts again from the saved alarm.
  const [resets, setResets] = useState(0);

  return (
    <Stack>
      {canEdit ? (
        // Starts afresh from each saved version.
        <AlarmForm
          key={`${workflow.id}@${workflow.version}#${resets}`}
          app={app}
          workflow={workflow}
          onReset={() => setResets((n) => n + 1)}
        />
      ) : (
        <AlarmSummary alarm={workflow.alarm} labels={workflowRuleLabels} />
      )}
      {canEdit && (
        <TestAlarm subject={{ workflowId: workflow.id }} disabled={workflow.alarm.channels.length === 0} onSent={refresh} />
      )}
      <AlarmHistorySection
        app={app}
        result={result}
        onRetry={refresh}
        history={(d) => d.workflow?.alarmHistory}
        subject="workflow"
        pages={pages}
        onMore={() => setPages((p) => p + 1)}
      />
    </Stack>
  );
}

/**
 * The errors of a failed save by the form field to show each at, and the
 * messages no field owns.
 */
function placeErrors(error: CombinedError, values: AlarmFormValues) {
  const byField: Record<string, string> = {};
  const elsewhere: string[] = [];
  for (const e of error.graphQLErrors) {
    const field = e.extensions["field"];
    if (e.extensions["code"] === "BAD_INPUT" && typeof field === "string") {
      const path = alarmFieldPath(field, values.alarm);
      if (path) {
        byField[path] = reasonOf(e.message, field);
        continue;
      }
    }
    elsewhere.push(e.message);
  }
  if (elsewhere.length === 0 && Object.keys(byField).length === 0) elsewhere.push(errorMessage(error));
  return { byField, elsewhere };
}

/**
 * The rules and channels as a form. Saving sends the workflow's current
 * definition with the new alarm (updateWorkflow: a new version), at the
 * version shown, so a save made meanwhile is not overwritten.
 */
function AlarmForm({ app, workflow, onReset }: { app: string; workflow: WorkflowFieldsFragment; onReset: () => void }) {
  const form = useForm<AlarmFormValues>({
    mode: "uncontrolled",
    initialValues: { alarm: alarmValues(workflow.alarm, workflowAlarmRuleTypes) },
    validate: (values) => {
      const errors: Record<string, string> = {};
      validateAlarm(values.alarm, (path, message) => {
        errors[path] ??= message;
      });
      return errors;
    },
    validateInputOnBlur: true,
  });
  const [, update] = useMutation(UpdateWorkflowMutation);
  const [saving, setSaving] = useState(false);
  const [general, setGeneral] = useState<string | null>(null);

  async function save(values: AlarmFormValues) {
    setGeneral(null);
    setSaving(true);
    const input = { ...toInput(app, settingsOf(workflow), graphOf(workflow)), alarm: toAlarmInput(values.alarm) };
    const res = await update({ id: workflow.id, input, expectedVersion: workflow.version }, context);
    setSaving(false);
    if (res.data) {
      notifications.show({ color: "teal", message: t("workflows.WorkflowAlarms.savedTheAlarmAs", { version: res.data.updateWorkflow.version }) });
      return;
    }
    if (!res.error) return;
    const { byField, elsewhere } = placeErrors(res.error, values);
    form.setErrors(byField);
    setGeneral(elsewhere.length > 0 ? elsewhere.join("\n") : null);
  }

  return (
    <form onSubmit={form.onSubmit((values) => void save(values))} noValidate aria-label={t("workflows.WorkflowAlarms.workflowAlarm")}>
      <Stack gap="sm">
        {general && (
          <Alert color="red" title={t("workflows.WorkflowAlarms.couldNotSaveThe")} role="alert" style={{ whiteSpace: "pre-wrap" }}>
            {general}
          </Alert>
        )}
        <AlarmFields form={form} labels={workflowRuleLabels} />
        <Group>
          <Button type="submit" loading={saving}>{t("workflows.WorkflowAlarms.saveAlarm")}</Button>
          <Button variant="default" onClick={onReset} disabled={saving}>{t("workflows.WorkflowAlarms.reset")}</Button>
        </Group>
      </Stack>
    </form>
  );
}
