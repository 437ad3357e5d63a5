import { useMemo, useState } from "react";
import { Anchor, Badge, Button, Group, Modal, Stack, Table, Tabs, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { ReactFlowProvider } from "@xyflow/react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { useMutation, useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { useCanEdit } from "../apps/useAppRole";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ManagedBadge, managedNote } from "../components/ManagedBadge";
import { QueryView } from "../components/QueryView";
import { Timestamp } from "../components/Timestamp";
import type { WorkflowFieldsFragment } from "../graphql/graphql";
import { DeleteWorkflowDialog, useExportWorkflow } from "./dialogs";
import { definitionGraph, defaultSettings, graphOf, settingsOf, toInput, type Graph } from "./graph";
import { autoLayout } from "./layout";
import {
  CreateWorkflowMutation,
  RestoreWorkflowVersionMutation,
  UpdateWorkflowMutation,
  WorkflowQuery,
  WorkflowVersionsQuery,
} from "./operations";
import { RunDag } from "./RunDag";
import { RunWorkflowDialog } from "./RunWorkflowDialog";
import { WorkflowAlarms } from "./WorkflowAlarms";
import { WorkflowEditor } from "./WorkflowEditor";
import { WorkflowGrid } from "./WorkflowGrid";
import { WorkflowRuns } from "./WorkflowRuns";
import { t } from "../i18n";

const context = { additionalTypenames: ["Workflow"] };

/** /apps/:app/workflows/new (?from=<id> duplicates a workflow). */
export function NewWorkflowPage() {
  const app = useAppName();
  const [params] = useSearchParams();
  const from = params.get("from");
  const [source] = useQuery({ query: WorkflowQuery, variables: { id: from ?? "" }, pause: !from });
  const [, create] = useMutation(CreateWorkflowMutation);
  const navigate = useNavigate();
  const canEdit = useCanEdit();

  if (from && !source.data && !source.error) return <Text c="dimmed">{t("workflows.WorkflowPage.loadingTheWorkflowTo")}</Text>;
  const copied = source.data?.workflow;
  const initialGraph: Graph = copied ? graphOf(copied) : { nodes: [], edges: [] };
  const initialSettings = copied ? { ...settingsOf(copied), name: t("workflows.WorkflowPage.copyOf", { name: copied.name }).slice(0, 128) } : defaultSettings;
  return (
    <Stack>
      <Anchor component={Link} to={appPath(app, "workflows")} size="sm">{t("workflows.WorkflowPage.workflows")}</Anchor>
      <Title order={2}>{copied ? t("workflows.WorkflowPage.newWorkflowFrom", { name: copied.name }) : t("workflows.WorkflowPage.newWorkflow")}</Title>
      <WorkflowEditor
        key={from ?? "new"}
        app={app}
        workflowId={null}
        initialGraph={initialGraph}
        initialSettings={initialSettings}
        readOnly={!canEdit}
        saveLabel={t("workflows.WorkflowPage.createWorkflow")}
        onSave={async (settings, graph) => {
          const result = await create({ input: toInput(app, settings, graph) }, context);
          if (result.data) {
            notifications.show({ color: "teal", message: t("workflows.WorkflowPage.createdWorkflow", { name: result.data.createWorkflow.name }) });
            void navigate(appPath(app, "workflows", result.data.createWorkflow.id));
          }
          return { error: result.error };
        }}
      />
    </Stack>
  );
}

/** /apps/:app/workflows/:workflowId: the editor, the runs, the versions and the alarms (?tab=). */
export function WorkflowPage() {
  const app = useAppName();
  const { workflowId = "" } = useParams();
  const [result, reexecute] = useQuery({ query: WorkflowQuery, variables: { id: workflowId } });
  return (
    <Stack>
      <Anchor component={Link} to={appPath(app, "workflows")} size="sm">{t("workflows.WorkflowPage.workflows")}</Anchor>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("workflows.WorkflowPage.loadingTheWorkflow")}
        isEmpty={(data) => !data.workflow}
        empty={<>{t("workflows.WorkflowPage.thereIsNoWorkflow", { workflowId: workflowId })}</>}
      >
        {(data) => data.workflow && <WorkflowView app={app} workflow={data.workflow} />}
      </QueryView>
    </Stack>
  );
}

function WorkflowView({ app, workflow }: { app: string; workflow: WorkflowFieldsFragment }) {
  const canEdit = useCanEdit();
  const [params, setParams] = useSearchParams();
  const tab = params.get("tab") ?? "definition";
  const [running, setRunning] = useState(false);
  const [deleting, setDeleting] = useState(false);
  // Raised each time the grid sees the runs change, so the runs list follows it.
  const [runChanges, setRunChanges] = useState(0);
  const [, update] = useMutation(UpdateWorkflowMutation);
  const navigate = useNavigate();
  const exportWorkflow = useExportWorkflow();
  // The editor starts afresh from each saved version (a save, a restore).
  const editorKey = `${workflow.id}@${workflow.version}`;

  return (
    <Stack>
      <Group justify="space-between" align="flex-start">
        <Stack gap={2}>
          <Group gap="sm">
            <Title order={2}>{workflow.name}</Title>
            <Badge variant="light">{t("workflows.WorkflowPage.version", { version: workflow.version })}</Badge>
            <Badge variant="outline" color={workflow.enabled ? "teal" : "gray"}>
              {workflow.enabled ? t("workflows.WorkflowPage.enabled") : t("workflows.WorkflowPage.disabled")}
            </Badge>
          </Group>
          <ManagedBadge managedBy={workflow.managedBy} managedSource={workflow.managedSource} />
          {workflow.description && (
            <Text size="sm" c="dimmed">
              {workflow.description}
            </Text>
          )}
          {canEdit && workflow.managedBy && (
            <Text size="sm" c="yellow.8">
              {managedNote(workflow)}
            </Text>
          )}
        </Stack>
        <Group gap="xs">
          <Button variant="default" onClick={() => void exportWorkflow(workflow)}>{t("workflows.WorkflowPage.exportJson")}</Button>
          {canEdit && (
            <>
              <Button variant="default" component={Link} to={appPath(app, "workflows", "new") + `?from=${workflow.id}`}>{t("workflows.WorkflowPage.duplicate")}</Button>
              <Button variant="subtle" color="red" onClick={() => setDeleting(true)}>{t("workflows.WorkflowPage.delete")}</Button>
              <Button onClick={() => setRunning(true)}>{t("workflows.WorkflowPage.run")}</Button>
            </>
          )}
        </Group>
      </Group>
      <Tabs
        value={tab}
        onChange={(type) =>
          setParams((p) => {
            p.set("tab", type ?? "definition");
            p.delete("status");
            p.delete("cursor");
            return p;
          })
        }
        keepMounted={false}
      >
        <Tabs.List>
          <Tabs.Tab value="definition">{t("workflows.WorkflowPage.definition")}</Tabs.Tab>
          <Tabs.Tab value="runs">{t("workflows.WorkflowPage.runs")}</Tabs.Tab>
          <Tabs.Tab value="versions">{t("workflows.WorkflowPage.versions")}</Tabs.Tab>
          <Tabs.Tab value="alarms">{t("workflows.WorkflowPage.alarms")}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="definition" pt="md">
          <WorkflowEditor
            key={editorKey}
            app={app}
            workflowId={workflow.id}
            initialGraph={graphOf(workflow)}
            initialSettings={settingsOf(workflow)}
            readOnly={!canEdit}
            saveLabel={t("workflows.WorkflowPage.saveWorkflow")}
            onSave={async (settings, graph) => {
              const res = await update(
                { id: workflow.id, input: toInput(app, settings, graph), expectedVersion: workflow.version },
                context,
              );
              if (res.data) {
                notifications.show({ color: "teal", message: t("workflows.WorkflowPage.savedVersion", { version: res.data.updateWorkflow.version }) });
              }
              return { error: res.error };
            }}
          />
        </Tabs.Panel>
        <Tabs.Panel value="runs" pt="md">
          <Stack gap="lg">
            <WorkflowGrid app={app} workflow={workflow} onChange={() => setRunChanges((n) => n + 1)} />
            <WorkflowRuns app={app} workflowId={workflow.id} changes={runChanges} />
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="versions" pt="md">
          <Versions workflowId={workflow.id} canEdit={canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="alarms" pt="md">
          <WorkflowAlarms app={app} workflow={workflow} canEdit={canEdit} />
        </Tabs.Panel>
      </Tabs>
      {canEdit && (
        <>
          <RunWorkflowDialog key={`run-${running}`} app={app} workflow={running ? workflow : null} onClose={() => setRunning(false)} />
          <DeleteWorkflowDialog
            workflow={deleting ? workflow : null}
            onClose={() => setDeleting(false)}
            onDeleted={() => void navigate(appPath(app, "workflows"))}
          />
        </>
      )}
    </Stack>
  );
}

/** The saved versions, newest first: view one, restore it. */
function Versions({ workflowId, canEdit }: { workflowId: string; canEdit: boolean }) {
  const [result, reexecute] = useQuery({
    query: WorkflowVersionsQuery,
    variables: { id: workflowId },
    requestPolicy: "cache-and-network",
  });
  const [viewing, setViewing] = useState<number | null>(null);
  const [restoring, setRestoring] = useState<number | null>(null);
  const [restoreState, restore] = useMutation(RestoreWorkflowVersionMutation);

  async function confirmRestore() {
    if (restoring === null) return;
    const res = await restore({ id: workflowId, version: restoring }, context);
    if (res.data) {
      notifications.show({
        color: "teal",
        message: t("workflows.WorkflowPage.restoredVersionAsVersion", { restoring: restoring, version: res.data.restoreWorkflowVersion.version }),
      });
      setRestoring(null);
    }
  }

  return (
    <QueryView
      result={result}
      onRetry={() => reexecute({ requestPolicy: "network-only" })}
      loading={t("workflows.WorkflowPage.loadingVersions")}
      isEmpty={(data) => !data.workflow}
      empty={<>{t("workflows.WorkflowPage.theWorkflowIsGone")}</>}
    >
      {(data) => {
        const w = data.workflow;
        if (!w) return null;
        const shown = w.versions.find((v) => v.version === viewing);
        return (
          <>
            <Table striped aria-label={t("workflows.WorkflowPage.versions")}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t("workflows.WorkflowPage.version2")}</Table.Th>
                  <Table.Th>{t("workflows.WorkflowPage.savedBy")}</Table.Th>
                  <Table.Th>{t("workflows.WorkflowPage.saved")}</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {w.versions.map((v) => (
                  <Table.Tr key={v.version}>
                    <Table.Td>
                      {v.version}
                      {v.version === w.version && (
                        <Badge ml="xs" size="xs" variant="light">{t("workflows.WorkflowPage.current")}</Badge>
                      )}
                    </Table.Td>
                    <Table.Td>{v.createdBy}</Table.Td>
                    <Table.Td>
                      <Timestamp value={v.createdAt} compact />
                    </Table.Td>
                    <Table.Td>
                      <Group gap="xs" justify="flex-end">
                        <Button size="xs" variant="default" onClick={() => setViewing(v.version)}>{t("workflows.WorkflowPage.view")}</Button>
                        {canEdit && v.version !== w.version && (
                          <Button size="xs" variant="light" onClick={() => setRestoring(v.version)}>{t("workflows.WorkflowPage.restoreVersion", { version: v.version })}</Button>
                        )}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            <Modal opened={shown !== undefined} onClose={() => setViewing(null)} title={t("workflows.WorkflowPage.version3", { value: viewing ?? "" })} size="xl">
              {shown && <VersionView definition={shown.definition} />}
            </Modal>
            <ConfirmDialog
              opened={restoring !== null}
              title={t("workflows.WorkflowPage.restoreVersion2")}
              confirmLabel={t("workflows.WorkflowPage.restoreVersion3", { value: restoring ?? "" })}
              busy={restoreState.fetching}
              error={restoreState.error}
              onConfirm={() => void confirmRestore()}
              onClose={() => setRestoring(null)}
            >{t("workflows.WorkflowPage.saveVersionSDefinition", { restoring: restoring ?? "" })}</ConfirmDialog>
          </>
        );
      }}
    </QueryView>
  );
}

/** A saved version's DAG, read-only, with its definition's JSON. */
function VersionView({ definition }: { definition: unknown }) {
  const graph = useMemo(() => definitionGraph(definition), [definition]);
  const positions = useMemo(() => autoLayout(graph.nodes, graph.edges), [graph]);
  return (
    <Stack>
      <div style={{ height: 360, border: "1px solid var(--mantine-color-default-border)", borderRadius: 8 }}>
        <ReactFlowProvider>
          <RunDag
            nodes={graph.nodes.map((n) => ({
              key: n.key,
              type: n.type,
              title: n.name || n.key,
              detail: n.expression,
              position: positions.get(n.key) ?? n.position,
            }))}
            edges={graph.edges}
          />
        </ReactFlowProvider>
      </div>
      <details>
        <summary>{t("workflows.WorkflowPage.definitionJson")}</summary>
        <pre style={{ fontSize: 12, maxHeight: 300, overflow: "auto" }}>{JSON.stringify(definition, null, 2)}</pre>
      </details>
    </Stack>
  );
}
