import { ActionIcon, Anchor, Button, Checkbox, Group, Menu, Stack, Table } from "@mantine/core";
import { Link } from "react-router";
import { appPath } from "../apps/currentApp";
import { ZonedTime } from "../components/ZonedTime";
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
  /** The ids chosen for a bulk action (editors only). */
  selected?: ReadonlySet<string>;
  onSelect?: (ids: string[]) => void;
}

export function JobsTable({ app, jobs, canEdit, onRun, onDelete, selected, onSelect }: JobsTableProps) {
  const selecting = canEdit && selected !== undefined && onSelect !== undefined;
  const all = jobs.length > 0 && jobs.every((j) => selected?.has(j.id));
  const some = jobs.some((j) => selected?.has(j.id));
  const toggle = (id: string, on: boolean) => {
    if (!selected || !onSelect) return;
    onSelect(on ? [...selected, id] : [...selected].filter((s) => s !== id));
  };
  return (
    <Table.ScrollContainer minWidth={720}>
      <Table striped highlightOnHover verticalSpacing="sm">
        <ScheduledHead
          select={
            selecting ? (
              <Checkbox
                size="xs"
                checked={all}
                indeterminate={some && !all}
                onChange={(e) => onSelect(e.currentTarget.checked ? jobs.map((j) => j.id) : [])}
                aria-label={t("jobs.JobsTable.selectAll")}
              />
            ) : undefined
          }
        />
        <Table.Tbody>
          {jobs.map((job) => (
            <Table.Tr key={job.id}>
              {selecting && (
                <Table.Td w={32} pr={0}>
                  <Checkbox
                    size="xs"
                    checked={selected.has(job.id)}
                    onChange={(e) => toggle(job.id, e.currentTarget.checked)}
                    aria-label={t("jobs.JobsTable.select", { name: job.name })}
                  />
                </Table.Td>
              )}
              <NameCell
                name={job.name}
                to={appPath(app, "jobs", job.id)}
                description={job.description}
                detail={`${labelOf(processorTypes, job.processorType)} · ${labelOf(executionModes, job.executionMode)}`}
                maw={{ base: 170, lg: 240 }}
              />
              <Table.Td>{canEdit ? <EnabledSwitch job={job} /> : <EnabledBadge enabled={job.enabled} />}</Table.Td>
              <ScheduleCell type={job.scheduleType} expression={job.scheduleExpression} timeZone={job.timeZone} />
              {/* Only a cron expression is read in the job's zone; other schedules have no clock of their own. */}
              <NextFireCell at={job.nextTriggerTime} timeZone={cronZone(job)} />
              <LastRunCell>{job.lastRun && <LastRun app={app} run={job.lastRun} timeZone={cronZone(job)} />}</LastRunCell>
              <Table.Td>
                <Group gap={4} wrap="nowrap" justify="flex-end">
                  {canEdit && job.scheduleType !== "WORKFLOW" && (
                    <Button size="xs" variant="light" onClick={() => onRun(job)} aria-label={t("jobs.JobsTable.runNow2", { name: job.name })}>{t("jobs.JobsTable.runNow")}</Button>
                  )}
                  {canEdit ? (
                    <RowMenu app={app} job={job} onDelete={onDelete} />
                  ) : (
                    <Button
                      size="xs"
                      variant="default"
                      component={Link}
                      to={appPath(app, "instances") + `?job=${job.id}`}
                      aria-label={t("jobs.JobsTable.instancesOf", { name: job.name })}
                    >{t("jobs.JobsTable.instances")}</Button>
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
function LastRun({ app, run, timeZone }: { app: string; run: NonNullable<JobRowFragment["lastRun"]>; timeZone: string | undefined }) {
  return (
    <Stack gap={2} align="flex-start">
      <Anchor component={Link} to={appPath(app, "instances", run.id)} aria-label={t("jobs.JobsTable.instance", { id: run.id, status: run.status })}>
        <StatusBadge status={run.status} size="sm" />
      </Anchor>
      {run.actualTriggerTime && <ZonedTime value={run.actualTriggerTime} timeZone={timeZone} />}
    </Stack>
  );
}

/** The zone a job's times are also shown in: its own, for a cron schedule. */
export function cronZone(job: Pick<JobRowFragment, "scheduleType" | "timeZone">): string | undefined {
  return job.scheduleType === "CRON" ? job.timeZone : undefined;
}

/** A job's other actions, in a menu so the row stays narrow: its instances, edit, delete. */
function RowMenu({ app, job, onDelete }: { app: string; job: JobRowFragment; onDelete: (job: JobRowFragment) => void }) {
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="default" size={30} aria-label={t("jobs.JobsTable.moreActions", { name: job.name })}>
          {moreGlyph}
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item component={Link} to={appPath(app, "instances") + `?job=${job.id}`}>{t("jobs.JobsTable.instances")}</Menu.Item>
        <Menu.Item component={Link} to={appPath(app, "jobs", job.id, "edit")}>{t("jobs.JobsTable.edit")}</Menu.Item>
        <Menu.Divider />
        <Menu.Item color="red" onClick={() => onDelete(job)}>{t("jobs.JobsTable.delete")}</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

/** The menu's sign: three dots, not a word. */
const moreGlyph = "⋯";
