import { useState, type SubmitEvent } from "react";
import { Alert, Button, Group, Stack, Text, TextInput, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation } from "urql";
import { errorMessage, fieldErrors } from "../api/errors";
import { SetAppRetentionMutation } from "./operations";
import { t } from "../i18n";

/**
 * How many days the app keeps its finished instances, tasks and log lines
 * (setAppRetention); empty: the server's retention. Editable by an OWNER.
 */
export function Retention({ app, days, editable }: { app: string; days: number | null | undefined; editable: boolean }) {
  const [{ fetching, error }, save] = useMutation(SetAppRetentionMutation);
  const [value, setValue] = useState(days == null ? "" : String(days));
  const [sent, setSent] = useState<string | null>(null);

  const errors = fieldErrors(error);
  const daysError = sent === value ? errors["days"] : undefined;
  const general = error && !("days" in errors) ? errorMessage(error) : undefined;

  async function submit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const text = value.trim();
    setSent(value);
    const result = await save({ app, days: text === "" ? null : Number(text) });
    if (result.data) {
      const kept = result.data.setAppRetention.retentionDays;
      notifications.show({
        color: "teal",
        message: kept == null ? t("settings.Retention.savedDefault", { app }) : t("settings.Retention.saved", { app, days: kept }),
      });
      setSent(null);
    }
  }

  return (
    <Stack gap="xs" component="section" aria-labelledby="retention-title">
      <Title order={3} size="h4" id="retention-title">{t("settings.Retention.retention")}</Title>
      <Text size="sm" c="dimmed">{t("settings.Retention.howLong")}</Text>
      {!editable && (
        <Text size="sm">
          {days == null ? t("settings.Retention.serverDefault") : t("settings.Retention.keptFor", { days })}
        </Text>
      )}
      {editable && (
        <form onSubmit={(e) => void submit(e)} noValidate>
          {general && (
            <Alert color="red" role="alert" title={t("settings.Retention.couldNotSave")} mb="sm">
              {general}
            </Alert>
          )}
          <Group align="flex-start" gap="sm">
            <TextInput
              label={t("settings.Retention.days")}
              description={t("settings.Retention.emptyForDefault")}
              inputMode="numeric"
              autoComplete="off"
              w={260}
              value={value}
              onChange={(e) => setValue(e.currentTarget.value)}
              error={daysError}
            />
            <Button type="submit" loading={fetching} mt={46}>{t("settings.Retention.save")}</Button>
          </Group>
        </form>
      )}
    </Stack>
  );
}
