import { Alert, Group, Loader, Paper, Table, Text, Title } from "@mantine/core";
import { errorMessage } from "../api/errors";
import { CronDescription } from "./cronHelp";
import type { SchedulePreview as Preview } from "./useSchedulePreview";
import { t } from "../i18n";

/**
 * An instant in a zone as "Sun 2026-11-22 01:20:00"; null if this browser
 * does not know the zone.
 */
export function inZone(instant: string, timeZone: string): string | null {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat("en-US", {
      timeZone,
      weekday: "short",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    }).formatToParts(new Date(instant));
  } catch {
    return null;
  }
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("weekday")} ${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")}:${part("second")}`;
}

interface SchedulePreviewProps {
  preview: Preview;
  timeZone: string;
  /** A CRON schedule's expression, described in words above its fires as it is typed. */
  cron?: string;
}

/**
 * The next fire times, in the job's time zone and in UTC, as the expression
 * is typed; a cron expression also in words.
 */
export function SchedulePreview({ preview, timeZone, cron }: SchedulePreviewProps) {
  const { times, error, pending } = preview;
  const showZone = timeZone !== "UTC";
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby="schedule-preview-title">
      <Group justify="space-between" mb="xs">
        <Title order={4} size="h6" id="schedule-preview-title">{t("jobs.SchedulePreview.nextFires")}</Title>
        {pending && <Loader size="xs" aria-label={t("jobs.SchedulePreview.updatingThePreview")} />}
      </Group>
      {cron !== undefined && !preview.expressionError && <CronDescription expression={cron} />}
      {error ? (
        <Alert color="red" role="alert" p="xs">
          <Text size="sm">{errorMessage(error)}</Text>
        </Alert>
      ) : times === null ? (
        <Text size="sm" c="dimmed">
          {preview.expressionError || preview.timeZoneError
            ? t("jobs.SchedulePreview.fixTheScheduleTo")
            : t("jobs.SchedulePreview.typeAnExpressionTo")}
        </Text>
      ) : times.length === 0 ? (
        <Text size="sm" c="dimmed">{t("jobs.SchedulePreview.thisScheduleNeverFires")}</Text>
      ) : (
        <Table withRowBorders={false} verticalSpacing={2} horizontalSpacing="xs" fz="xs" style={{ opacity: pending ? 0.6 : 1, whiteSpace: "nowrap" }}>
          <Table.Thead>
            <Table.Tr>
              {showZone && <Table.Th scope="col">{timeZone}</Table.Th>}
              <Table.Th scope="col">{t("jobs.SchedulePreview.utc")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody data-testid="schedule-preview">
            {times.map((time) => (
              <Table.Tr key={time}>
                {showZone && <Table.Td ff="monospace">{inZone(time, timeZone) ?? "—"}</Table.Td>}
                <Table.Td ff="monospace">
                  <time dateTime={time}>{inZone(time, "UTC")}</time>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
