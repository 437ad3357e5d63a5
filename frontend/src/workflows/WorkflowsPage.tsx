import { useState } from "react";
import { Anchor, Button, Group, Menu, Stack, Table, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import { useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { useCanEdit } from "../apps/useAppRole";
import { ConnectionPager, useCursorPages } from "../components/CursorPager";
import { ListSearchField, NoneFound, useListSearch } from "../components/ListSearch";
import { QueryView } from "../components/QueryView";
import { ZonedTime } from "../components/ZonedTime";
import { cronZone } from "../jobs/JobsTable";
import type { WorkflowRowFragment } from "../graphql/graphql";
import { EnabledBadge, LastRunCell, NameCell, NextFireCell, ScheduledHead, ScheduleCell } from "../jobs/ScheduledCells";
import { DeleteWorkflowDialog, ImportWorkflowDialog, WorkflowEnabledSwitch, useExportWorkflow } from "./dialogs";
import { WorkflowsQuery } from "./operations";
import { RunStatusBadge } from "./RunStatusBadge";
import { RunWorkflowDialog } from "./RunWorkflowDialog";
import { t } from "../i18n";

const pageSize = 25;
const context = { additionalTypenames: ["Workflow"] };

/** /apps/:app/workflows: the app's workflows. */
export function WorkflowsPage() {
  const app = useAppName();
  const canEdit = useCanEdit();
  const { search, typed, onType } = useListSearch();
  const pages = useCursorPages();
  const [running, setRunning] = useState<WorkflowRowFragment | null>(null);
  const [deleting, setDeleting] = useState<WorkflowRowFragment | null>(null);
  const [importing, setImporting] = useState(false);
  const exportWorkflow = useExportWorkflow();

  const [result, reexecute] = useQuery({
    query: WorkflowsQuery,
    variables: { app, first: pageSize, after: pages.after, search: search || null },
    context,
  });

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t("workflows.WorkflowsPage.workflows")}</Title>
        <Group gap="xs">
          <Button variant="default" component={Link} to={appPath(app, "workflow-instances")}>{t("workflows.WorkflowsPage.allRuns")}</Button>
          {canEdit && (
            <>
              <Button variant="default" onClick={() => setImporting(true)}>{t("workflows.WorkflowsPage.import")}</Button>
              <Button component={Link} to={appPath(app, "workflows", "new")}>{t("workflows.WorkflowsPage.newWorkflow")}</Button>
            </>
          )}
        </Group>
      </Group>
      <ListSearchField label={t("workflows.WorkflowsPage.searchWorkflows")} placeholder={t("workflows.WorkflowsPage.partOfAWorkflow")} typed={typed} onType={onType} />
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("workflows.WorkflowsPage.loadingWorkflows")}
        isEmpty={(data) => data.workflows.edges.length === 0}
        empty={
          <NoneFound app={app} kind="workflow" search={search} createPath={canEdit ? appPath(app, "workflows", "new") : null} />
        }
      >
        {(data) => (
          <Stack>
            <Text size="sm" c="dimmed">
              {t("workflows.WorkflowsPage.workflows", { count: data.workflows.totalCount })}
            </Text>
            <WorkflowsTable
              app={app}
              workflows={data.workflows.edges.map((e) => e.node)}
              canEdit={canEdit}
              onRun={setRunning}
              onDelete={setDeleting}
              onExport={(w) => void exportWorkflow(w)}
            />
            <ConnectionPager
              pages={pages}
              pageInfo={data.workflows.pageInfo}
              pageCount={Math.ceil(data.workflows.totalCount / pageSize)}
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
        <ScheduledHead />
        <Table.Tbody>
          {workflows.map((w) => (
            <Table.Tr key={w.id}>
              <NameCell
                name={w.name}
                to={appPath(app, "workflows", w.id)}
                description={w.description}
                detail={`version ${w.version}`}
                maw={260}
              />
              <Table.Td>{canEdit ? <WorkflowEnabledSwitch workflow={w} /> : <EnabledBadge enabled={w.enabled} />}</Table.Td>
              <ScheduleCell type={w.scheduleType} expression={w.scheduleExpression} timeZone={w.timeZone} />
              <NextFireCell at={w.nextTriggerTime} timeZone={cronZone(w)} />
              <LastRunCell>
                {w.lastRun && (
                  <Stack gap={2} align="flex-start">
                    <Anchor
                      component={Link}
                      to={appPath(app, "workflow-instances", w.lastRun.id)}
                      aria-label={t("workflows.WorkflowsPage.run", { id: w.lastRun.id, status: w.lastRun.status })}
                    >
                      <RunStatusBadge status={w.lastRun.status} size="sm" />
                    </Anchor>
                    <ZonedTime value={w.lastRun.triggerTime} timeZone={cronZone(w)} />
                  </Stack>
                )}
              </LastRunCell>
              <Table.Td>
                <Group gap="xs" wrap="nowrap" justify="flex-end">
                  {canEdit && (
                    <Button size="xs" variant="light" onClick={() => onRun(w)} aria-label={t("workflows.WorkflowsPage.run3", { name: w.name })}>{t("workflows.WorkflowsPage.run2")}</Button>
                  )}
                  <Button
                    size="xs"
                    variant="default"
                    component={Link}
                    to={appPath(app, "workflows", w.id) + "?tab=runs"}
                    aria-label={t("workflows.WorkflowsPage.runsOf", { name: w.name })}
                  >{t("workflows.WorkflowsPage.runs")}</Button>
                  <Menu position="bottom-end" withinPortal>
                    <Menu.Target>
                      <Button size="xs" variant="subtle" aria-label={t("workflows.WorkflowsPage.moreFor", { name: w.name })}>{t("workflows.WorkflowsPage.more")}</Button>
                    </Menu.Target>
                    <Menu.Dropdown>
                      <Menu.Item onClick={() => onExport(w)}>{t("workflows.WorkflowsPage.exportJson")}</Menu.Item>
                      {canEdit && (
                        <>
                          <Menu.Item component={Link} to={appPath(app, "workflows", "new") + `?from=${w.id}`}>{t("workflows.WorkflowsPage.duplicate")}</Menu.Item>
                          <Menu.Item color="red" onClick={() => onDelete(w)}>{t("workflows.WorkflowsPage.delete")}</Menu.Item>
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
