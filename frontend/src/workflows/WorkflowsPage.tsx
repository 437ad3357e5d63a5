import { useState } from "react";
import {
  Anchor,
  Badge,
  Button,
  Code,
  Group,
  Menu,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from "@mantine/core";
import { useDebouncedCallback } from "@mantine/hooks";
import { Link, useSearchParams } from "react-router";
import { useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { useCanEdit } from "../apps/useAppRole";
import { CursorPager, useCursorPages, withoutCursor } from "../components/CursorPager";
import { QueryView } from "../components/QueryView";
import { Timestamp } from "../components/Timestamp";
import { TruncatedLink } from "../components/Truncated";
import type { WorkflowRowFragment } from "../graphql/graphql";
import { labelOf, scheduleTypes } from "../jobs/labels";
import { DeleteWorkflowDialog, ImportWorkflowDialog, WorkflowEnabledSwitch, useExportWorkflow } from "./dialogs";
import { WorkflowsQuery } from "./operations";
import { RunStatusBadge } from "./RunStatusBadge";
import { RunWorkflowDialog } from "./RunWorkflowDialog";

const pageSize = 25;
const context = { additionalTypenames: ["Workflow"] };

/** /apps/:app/workflows: the app's workflows. */
export function WorkflowsPage() {
  const app = useAppName();
  const canEdit = useCanEdit();
  const [params, setParams] = useSearchParams();
  const search = params.get("q") ?? "";
  const [typed, setTyped] = useState(search);
  const pages = useCursorPages();
  const [running, setRunning] = useState<WorkflowRowFragment | null>(null);
  const [deleting, setDeleting] = useState<WorkflowRowFragment | null>(null);
  const [importing, setImporting] = useState(false);
  const exportWorkflow = useExportWorkflow();

  const applySearch = useDebouncedCallback((value: string) => {
    setParams(
      (p) => {
        withoutCursor(p);
        if (value.trim()) p.set("q", value.trim());
        else p.delete("q");
        return p;
      },
      { replace: true },
    );
  }, 300);

  const [result, reexecute] = useQuery({
    query: WorkflowsQuery,
    variables: { app, first: pageSize, after: pages.after, search: search || null },
    context,
  });

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Workflows</Title>
        <Group gap="xs">
          <Button variant="default" component={Link} to={appPath(app, "workflow-instances")}>
            All runs
          </Button>
          {canEdit && (
            <>
              <Button variant="default" onClick={() => setImporting(true)}>
                Import
              </Button>
              <Button component={Link} to={appPath(app, "workflows", "new")}>
                New workflow
              </Button>
            </>
          )}
        </Group>
      </Group>
      <TextInput
        label="Search workflows"
        placeholder="Part of a workflow's name"
        type="search"
        maw={360}
        value={typed}
        onChange={(e) => {
          setTyped(e.currentTarget.value);
          applySearch(e.currentTarget.value);
        }}
      />
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading="Loading workflows"
        isEmpty={(data) => data.workflows.edges.length === 0}
        empty={
          search ? (
            <>No workflow’s name contains “{search}”.</>
          ) : (
            <>
              App {app} has no workflows yet.
              {canEdit && (
                <>
                  {" "}
                  <Text component={Link} to={appPath(app, "workflows", "new")} c="blue" inherit>
                    Create one
                  </Text>
                  .
                </>
              )}
            </>
          )
        }
      >
        {(data) => (
          <Stack>
            <Text size="sm" c="dimmed">
              {data.workflows.totalCount} {data.workflows.totalCount === 1 ? "workflow" : "workflows"}
            </Text>
            <WorkflowsTable
              app={app}
              workflows={data.workflows.edges.map((e) => e.node)}
              canEdit={canEdit}
              onRun={setRunning}
              onDelete={setDeleting}
              onExport={(w) => void exportWorkflow(w)}
            />
            <CursorPager
              page={pages.page}
              pageCount={Math.ceil(data.workflows.totalCount / pageSize)}
              hasNextPage={data.workflows.pageInfo.hasNextPage}
              onPrevious={pages.previous}
              onNext={() => {
                const cursor = data.workflows.pageInfo.endCursor;
                if (cursor) pages.next(cursor);
              }}
            />
          </Stack>
        )}
      </QueryView>
      {canEdit && (
        <>
          <RunWorkflowDialog key={`run-${running?.id ?? ""}`} app={app} workflow={running} onClose={() => setRunning(null)} />
          <DeleteWorkflowDialog key={`delete-${deleting?.id ?? ""}`} workflow={deleting} onClose={() => setDeleting(null)} />
          <ImportWorkflowDialog key={`import-${importing}`} app={app} opened={importing} onClose={() => setImporting(false)} />
        </>
      )}
    </Stack>
  );
}

interface WorkflowsTableProps {
  app: string;
  workflows: WorkflowRowFragment[];
  canEdit: boolean;
  onRun: (w: WorkflowRowFragment) => void;
  onDelete: (w: WorkflowRowFragment) => void;
  onExport: (w: WorkflowRowFragment) => void;
}

function WorkflowsTable({ app, workflows, canEdit, onRun, onDelete, onExport }: WorkflowsTableProps) {
  return (
    <Table.ScrollContainer minWidth={900}>
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
          {workflows.map((w) => (
            <Table.Tr key={w.id}>
              <Table.Th scope="row" fw={400}>
                <Stack gap={2} maw={260}>
                  <TruncatedLink text={w.name} to={appPath(app, "workflows", w.id)} fw={600} />
                  {w.description && (
                    <Text size="xs" c="dimmed" lineClamp={2}>
                      {w.description}
                    </Text>
                  )}
                  <Text size="xs" c="dimmed">
                    version {w.version}
                  </Text>
                </Stack>
              </Table.Th>
              <Table.Td>
                {canEdit ? (
                  <WorkflowEnabledSwitch workflow={w} />
                ) : (
                  <Badge variant="outline" color={w.enabled ? "teal" : "gray"}>
                    {w.enabled ? "Enabled" : "Disabled"}
                  </Badge>
                )}
              </Table.Td>
              <Table.Td>
                <Stack gap={4} align="flex-start">
                  <Badge variant="light">{labelOf(scheduleTypes, w.scheduleType)}</Badge>
                  {w.scheduleType !== "API" && (
                    <Group gap={6} wrap="nowrap">
                      <Code style={{ whiteSpace: "nowrap" }}>{w.scheduleExpression}</Code>
                      {w.scheduleType === "CRON" && (
                        <Text size="xs" c="dimmed">
                          {w.timeZone}
                        </Text>
                      )}
                    </Group>
                  )}
                </Stack>
              </Table.Td>
              <Table.Td>
                {w.nextTriggerTime ? (
                  <Timestamp value={w.nextTriggerTime} compact />
                ) : (
                  <Text size="sm" c="dimmed">
                    —
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                {w.lastRun ? (
                  <Stack gap={2} align="flex-start">
                    <Anchor
                      component={Link}
                      to={appPath(app, "workflow-instances", w.lastRun.id)}
                      aria-label={`Run #${w.lastRun.id}: ${w.lastRun.status}`}
                    >
                      <RunStatusBadge status={w.lastRun.status} size="sm" />
                    </Anchor>
                    <Timestamp value={w.lastRun.triggerTime} compact />
                  </Stack>
                ) : (
                  <Text size="sm" c="dimmed">
                    never
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Group gap="xs" wrap="nowrap" justify="flex-end">
                  {canEdit && (
                    <Button size="xs" variant="light" onClick={() => onRun(w)} aria-label={`Run ${w.name}`}>
                      Run
                    </Button>
                  )}
                  <Button
                    size="xs"
                    variant="default"
                    component={Link}
                    to={appPath(app, "workflows", w.id) + "?tab=runs"}
                    aria-label={`Runs of ${w.name}`}
                  >
                    Runs
                  </Button>
                  <Menu position="bottom-end" withinPortal>
                    <Menu.Target>
                      <Button size="xs" variant="subtle" aria-label={`More for ${w.name}`}>
                        More
                      </Button>
                    </Menu.Target>
                    <Menu.Dropdown>
                      <Menu.Item onClick={() => onExport(w)}>Export JSON</Menu.Item>
                      {canEdit && (
                        <>
                          <Menu.Item component={Link} to={appPath(app, "workflows", "new") + `?from=${w.id}`}>
                            Duplicate
                          </Menu.Item>
                          <Menu.Item color="red" onClick={() => onDelete(w)}>
                            Delete
                          </Menu.Item>
                        </>
                      )}
                    </Menu.Dropdown>
                  </Menu>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
