import { Anchor, Button, Group, Stack, Table } from "@mantine/core";
import { Link } from "react-router";
import { appPath } from "../apps/currentApp";
import { Timestamp } from "../components/Timestamp";
import type { JobRowFragment } from "../graphql/graphql";
import { StatusBadge } from "../instances/StatusBadge";
import { EnabledSwitch } from "./EnabledSwitch";
import { executionModes, labelOf, processorTypes } from "./labels";
import { EnabledBadge, LastRunCell, NameCell, NextFireCell, ScheduledHead, ScheduleCell } from "./ScheduledCells";
import { t } from "../i18n";

interface JobsTableProps {
  app: string;
  jobs: JobRowFragment[];
  /** Whether to offer changing and running the jobs (not for a VIEWER). */
  canEdit: boolean;
  onRun: (job: JobRowFragment) => void;
  onDelete: (job: JobRowFragment) => void;
}

export function JobsTable({ app, jobs, canEdit, onRun, onDelete }: JobsTableProps) {
  return (
    <Table.ScrollContainer minWidth={980}>
      <Table striped highlightOnHover verticalSpacing="sm">
        <ScheduledHead />
        <Table.Tbody>
          {jobs.map((job) => (
            <Table.Tr key={job.id}>
              <NameCell
                name={job.name}
                to={appPath(app, "jobs", job.id)}
                description={job.description}
                detail={`${labelOf(processorTypes, job.processorType)} · ${labelOf(executionModes, job.executionMode)}`}
                maw={240}
              />
              <Table.Td>{canEdit ? <EnabledSwitch job={job} /> : <EnabledBadge enabled={job.enabled} />}</Table.Td>
              <ScheduleCell type={job.scheduleType} expression={job.scheduleExpression} timeZone={job.timeZone} />
              <NextFireCell at={job.nextTriggerTime} />
              <LastRunCell>{job.lastRun && <LastRun app={app} run={job.lastRun} />}</LastRunCell>
              <Table.Td>
                <Group gap="xs" wrap="nowrap" justify="flex-end">
                  {canEdit && job.scheduleType !== "WORKFLOW" && (
                    <Button size="xs" variant="light" onClick={() => onRun(job)} aria-label={t("jobs.JobsTable.runNow2", { name: job.name })}>{t("jobs.JobsTable.runNow")}</Button>
                  )}
                  <Button
                    size="xs"
                    variant="default"
                    component={Link}
                    to={appPath(app, "instances") + `?job=${job.id}`}
                    aria-label={t("jobs.JobsTable.instancesOf", { name: job.name })}
                  >{t("jobs.JobsTable.instances")}</Button>
                  {canEdit && (
                    <>
                      <Button
                        size="xs"
                        variant="default"
                        component={Link}
                        to={appPath(app, "jobs", job.id, "edit")}
                        aria-label={t("jobs.JobsTable.edit2", { name: job.name })}
                      >{t("jobs.JobsTable.edit")}</Button>
                      <Button
                        size="xs"
                        variant="subtle"
                        color="red"
                        onClick={() => onDelete(job)}
                        aria-label={t("jobs.JobsTable.delete2", { name: job.name })}
                      >{t("jobs.JobsTable.delete")}</Button>
                    </>
                  )}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** The job's newest fired instance: its status, linking to it, and when it fired. */
function LastRun({ app, run }: { app: string; run: NonNullable<JobRowFragment["lastRun"]> }) {
  return (
    <Stack gap={2} align="flex-start">
      <Anchor component={Link} to={appPath(app, "instances", run.id)} aria-label={t("jobs.JobsTable.instance", { id: run.id, status: run.status })}>
        <StatusBadge status={run.status} size="sm" />
      </Anchor>
      {run.actualTriggerTime && <Timestamp value={run.actualTriggerTime} compact />}
    </Stack>
  );
}
