import { Anchor, Badge, Button, Code, Group, Stack, Table, Text, VisuallyHidden } from "@mantine/core";
import { Link } from "react-router";
import { appPath } from "../apps/currentApp";
import { Timestamp } from "../components/Timestamp";
import { TruncatedLink } from "../components/Truncated";
import type { JobRowFragment } from "../graphql/graphql";
import { StatusBadge } from "../instances/StatusBadge";
import { EnabledSwitch } from "./EnabledSwitch";
import { executionModes, hasExpression, labelOf, processorTypes, scheduleTypes } from "./labels";

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
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Name</Table.Th>
            <Table.Th scope="col">Enabled</Table.Th>
            <Table.Th scope="col">Schedule</Table.Th>
            <Table.Th scope="col">Next fire</Table.Th>
            <Table.Th scope="col">Last run</Table.Th>
            <Table.Th scope="col">
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {jobs.map((job) => (
            <Table.Tr key={job.id}>
              <Table.Th scope="row" fw={400}>
                {/* Bounded, so a 128-character name is cut rather than widening the table. */}
                <Stack gap={2} maw={240}>
                  <TruncatedLink text={job.name} to={appPath(app, "jobs", job.id)} fw={600} />
                  {job.description && (
                    <Text size="xs" c="dimmed" lineClamp={2}>
                      {job.description}
                    </Text>
                  )}
                  <Text size="xs" c="dimmed">
                    {labelOf(processorTypes, job.processorType)} · {labelOf(executionModes, job.executionMode)}
                  </Text>
                </Stack>
              </Table.Th>
              <Table.Td>
                {canEdit ? (
                  <EnabledSwitch job={job} />
                ) : (
                  <Badge variant="outline" color={job.enabled ? "teal" : "gray"}>
                    {job.enabled ? "Enabled" : "Disabled"}
                  </Badge>
                )}
              </Table.Td>
              <Table.Td>
                <Stack gap={4} align="flex-start">
                  <Badge variant="light">{labelOf(scheduleTypes, job.scheduleType)}</Badge>
                  {hasExpression(job.scheduleType) && (
                    <Group gap={6} wrap="nowrap">
                      {/* The trailing "?" of a cron expression stays on its line. */}
                      <Code style={{ whiteSpace: "nowrap" }}>{job.scheduleExpression}</Code>
                      {job.scheduleType === "CRON" && (
                        <Text size="xs" c="dimmed">
                          {job.timeZone}
                        </Text>
                      )}
                    </Group>
                  )}
                </Stack>
              </Table.Td>
              <Table.Td>
                {job.nextTriggerTime ? (
                  <Timestamp value={job.nextTriggerTime} compact />
                ) : (
                  <Text size="sm" c="dimmed">
                    —
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <LastRun app={app} run={job.lastRun ?? null} />
              </Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap" justify="flex-end">
                  {canEdit && job.scheduleType !== "WORKFLOW" && (
                    <Button size="xs" variant="light" onClick={() => onRun(job)} aria-label={`Run ${job.name} now`}>
                      Run now
                    </Button>
                  )}
                  <Button
                    size="xs"
                    variant="default"
                    component={Link}
                    to={appPath(app, "instances") + `?job=${job.id}`}
                    aria-label={`Instances of ${job.name}`}
                  >
                    Instances
                  </Button>
                  {canEdit && (
                    <>
                      <Button
                        size="xs"
                        variant="default"
                        component={Link}
                        to={appPath(app, "jobs", job.id, "edit")}
                        aria-label={`Edit ${job.name}`}
                      >
                        Edit
                      </Button>
                      <Button
                        size="xs"
                        variant="subtle"
                        color="red"
                        onClick={() => onDelete(job)}
                        aria-label={`Delete ${job.name}`}
                      >
                        Delete
                      </Button>
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
function LastRun({ app, run }: { app: string; run: JobRowFragment["lastRun"] }) {
  if (!run) {
    return (
      <Text size="sm" c="dimmed">
        never
      </Text>
    );
  }
  return (
    <Stack gap={2} align="flex-start">
      <Anchor component={Link} to={appPath(app, "instances", run.id)} aria-label={`Instance #${run.id}: ${run.status}`}>
        <StatusBadge status={run.status} size="sm" />
      </Anchor>
      {run.actualTriggerTime && <Timestamp value={run.actualTriggerTime} compact />}
    </Stack>
  );
}
