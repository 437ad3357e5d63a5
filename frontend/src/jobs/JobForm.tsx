import { useEffect, useRef, useState } from "react";
import { Alert, Button, Group, Stack, Text } from "@mantine/core";
import { useForm } from "@mantine/form";
import type { CombinedError } from "urql";
import { errorMessage, reasonOf } from "../api/errors";
import type { JobInput } from "../graphql/graphql";
import { AlarmFields } from "./AlarmFields";
import { BasicsFields } from "./BasicsFields";
import { ExecutionFields } from "./ExecutionFields";
import { serverFieldPath, toJobInput, type JobFormValues } from "./jobForm";
import { LimitsFields } from "./LimitsFields";
import { MisfireFields } from "./MisfireFields";
import { OverlapFields } from "./OverlapFields";
import classes from "./JobForm.module.css";
import { ReadOnlyContext } from "./readOnly";
import { ScheduleFields } from "./ScheduleFields";
import { validateJob } from "./validate";
import { WorkerFilterFields } from "./WorkerFilterFields";
import { t } from "../i18n";

interface JobFormProps {
  app: string;
  initialValues: JobFormValues;
  submitLabel: string;
  /** Saves the job; resolves to the error if it failed. */
  onSave: (input: JobInput) => Promise<{ error?: CombinedError }>;
  onCancel: () => void;
  /** Show the job without letting it be changed (a VIEWER's view): no save, fields disabled. */
  readOnly?: boolean;
}

/**
 * The errors of a failed save by the form field to show each at, and the
 * messages no field owns.
 */
function placeErrors(error: CombinedError, values: JobFormValues) {
  const byField: Record<string, string> = {};
  const elsewhere: string[] = [];
  for (const e of error.graphQLErrors) {
    const field = e.extensions["field"];
    if (e.extensions["code"] === "BAD_INPUT" && typeof field === "string") {
      const reason = reasonOf(e.message, field);
      const path = serverFieldPath(field, reason, values);
      if (path) {
        byField[path] = reason;
        continue;
      }
    }
    elsewhere.push(e.message);
  }
  if (elsewhere.length === 0 && Object.keys(byField).length === 0) elsewhere.push(errorMessage(error));
  return { byField, elsewhere };
}

/**
 * Every field of a job (JobInput), in groups. The schedule's next fires are
 * previewed as it is typed; every field in error shows at once, from the
 * form's own checks (validateJob) or the server's BAD_INPUT errors at the
 * fields they name, and focus moves to the first.
 */
export function JobForm({ app, initialValues, submitLabel, onSave, onCancel, readOnly = false }: JobFormProps) {
  // The server's checks that need no server run on submit, all at once,
  // and on leaving a field; a number out of range stays as typed, in error.
  const form = useForm<JobFormValues>({
    mode: "uncontrolled",
    initialValues,
    validate: validateJob,
    validateInputOnBlur: true,
  });
  const [general, setGeneral] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  // Bumped after a failed save, to move focus to the first field in error.
  const [failedSaves, setFailedSaves] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);

  useEffect(() => {
    if (failedSaves === 0) return;
    const target =
      formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]') ??
      formRef.current?.querySelector<HTMLElement>('[role="alert"]');
    target?.focus();
    target?.scrollIntoView({ block: "center" });
  }, [failedSaves]);

  async function save(values: JobFormValues) {
    setGeneral(null);
    setSaving(true);
    const { error } = await onSave(toJobInput(app, values));
    setSaving(false);
    if (!error) return;
    const { byField, elsewhere } = placeErrors(error, values);
    form.setErrors(byField);
    setGeneral(elsewhere.length > 0 ? elsewhere.join("\n") : null);
    setFailedSaves((n) => n + 1);
  }

  const groups = (
    <>
      <BasicsFields form={form} />
      <ScheduleFields form={form} app={app} />
      <ExecutionFields form={form} />
      <LimitsFields form={form} />
      <OverlapFields form={form} app={app} />
      <WorkerFilterFields form={form} />
      <MisfireFields form={form} />
      <AlarmFields form={form} />
    </>
  );

  if (readOnly) {
    return (
      <ReadOnlyContext value={true}>
        {/* A disabled fieldset disables every native control in it. */}
        <fieldset disabled className={classes.readOnly} aria-label={t("jobs.JobForm.jobReadOnly")}>
          <Stack gap="lg">{groups}</Stack>
        </fieldset>
      </ReadOnlyContext>
    );
  }

  return (
    <form
      ref={formRef}
      onSubmit={form.onSubmit(
        (values) => void save(values),
        () => setFailedSaves((n) => n + 1),
      )}
      noValidate
    >
      <Stack gap="lg">
        {general && (
          <Alert color="red" title={t("jobs.JobForm.couldNotSaveThe")} role="alert" tabIndex={-1}>
            <Text size="sm" style={{ whiteSpace: "pre-line" }}>
              {general}
            </Text>
          </Alert>
        )}
        {groups}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>{t("jobs.JobForm.cancel")}</Button>
          <Button type="submit" loading={saving}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
