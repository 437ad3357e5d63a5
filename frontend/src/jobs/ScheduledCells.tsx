import type { ReactNode } from "react";
import { Badge, Code, Group, Stack, Table, Text, VisuallyHidden, type StackProps } from "@mantine/core";
import { ZonedTime } from "../components/ZonedTime";
import { TruncatedLink } from "../components/Truncated";
import type { ScheduleType } from "../graphql/graphql";
import { hasExpression, labelOf, scheduleTypes } from "./labels";
import { t } from "../i18n";

// The cells the jobs and the workflows tables share: both list scheduled
// things by name, whether they are enabled, their schedule, next fire and
// last run.

/** The column heads of a jobs or workflows table (`select`: a first column's head, to select rows). */
export function ScheduledHead({ select }: { select?: ReactNode } = {}) {
  return (
    <Table.Thead>
      <Table.Tr>
        {select !== undefined && (
          <Table.Th scope="col" w={32} pr={0}>
            {select}
          </Table.Th>
        )}
        <Table.Th scope="col">{t("jobs.ScheduledCells.name")}</Table.Th>
        <Table.Th scope="col">{t("jobs.ScheduledCells.enabled")}</Table.Th>
        <Table.Th scope="col">{t("jobs.ScheduledCells.schedule")}</Table.Th>
        <Table.Th scope="col">{t("jobs.ScheduledCells.nextFire")}</Table.Th>
        <Table.Th scope="col">{t("jobs.ScheduledCells.lastRun")}</Table.Th>
        <Table.Th scope="col">
          <VisuallyHidden>{t("jobs.ScheduledCells.actions")}</VisuallyHidden>
        </Table.Th>
      </Table.Tr>
    </Table.Thead>
  );
}

/** The row's head: its name linking to it, its description and a detail line. */
export function NameCell({ name, to, description, detail, maw }: {
  name: string;
  to: string;
  description: string;
  detail: ReactNode;
  /** Bounded, so a 128-character name is cut rather than widening the table. */
  maw: StackProps["maw"];
}) {
  return (
    <Table.Th scope="row" fw={400}>
      <Stack gap={2} maw={maw}>
        <TruncatedLink text={name} to={to} fw={600} />
        {description && (
          <Text size="xs" c="dimmed" lineClamp={2}>
            {description}
          </Text>
        )}
        <Text size="xs" c="dimmed">
          {detail}
        </Text>
      </Stack>
    </Table.Th>
  );
}

/** Whether it is enabled, for a reader who may not change it. */
export function EnabledBadge({ enabled }: { enabled: boolean }) {
  return (
    <Badge variant="outline" color={enabled ? "teal" : "gray"}>
      {enabled ? t("jobs.ScheduledCells.enabled") : t("jobs.ScheduledCells.disabled")}
    </Badge>
  );
}

/** The schedule type, and its expression (with the zone of a cron expression). */
export function ScheduleCell({ type, expression, timeZone }: { type: ScheduleType; expression: string; timeZone: string }) {
  return (
    <Table.Td>
      <Stack gap={4} align="flex-start">
        <Badge variant="light">{labelOf(scheduleTypes, type)}</Badge>
        {hasExpression(type) && (
          <Group gap={6} style={{ rowGap: 2 }}>
            {/* The trailing "?" of a cron expression stays on its line; the zone goes below it when the column is narrow. */}
            <Code style={{ whiteSpace: "nowrap" }}>{expression}</Code>
            {type === "CRON" && (
              <Text size="xs" c="dimmed">
                {timeZone}
              </Text>
            )}
          </Group>
        )}
      </Stack>
    </Table.Td>
  );
}

/** The next fire (also in the job's zone when it is not the viewer's), or a dash for none. */
export function NextFireCell({ at, timeZone }: { at: string | null | undefined; timeZone?: string | undefined }) {
  return (
    <Table.Td>
      {at ? (
        <ZonedTime value={at} timeZone={timeZone} />
      ) : (
        <Text size="sm" c="dimmed">
          —
        </Text>
      )}
    </Table.Td>
  );
}

/** The last run's cell: "never" until there is one. */
export function LastRunCell({ children }: { children: ReactNode | null }) {
  return (
    <Table.Td>
      {children ?? (
        <Text size="sm" c="dimmed">{t("jobs.ScheduledCells.never")}</Text>
      )}
    </Table.Td>
  );
}
