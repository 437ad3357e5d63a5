import { useMemo, useState } from "react";
import { Anchor, Badge, Card, Code, Group, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { ReactFlowProvider } from "@xyflow/react";
import { Link, useParams, useSearchParams } from "react-router";
import { useQuery } from "urql";
import { useLiveSubscription } from "../api/useLiveSubscription";
import { appPath, useAppName } from "../apps/currentApp";
import { useCanEdit } from "../apps/useAppRole";
import { QueryView } from "../components/QueryView";
import { Timestamp } from "../components/Timestamp";
import type { WorkflowRunFieldsFragment } from "../graphql/graphql";
import { autoLayout } from "./layout";
import { NodeRunPanel } from "./NodeRunPanel";
import { WorkflowRunQuery, WorkflowRunUpdatedSubscription } from "./operations";
import { RunActions } from "./RunActions";
import { RunDag, type RunDagNode } from "./RunDag";
import { RunGantt } from "./RunGantt";
import { RunStatusBadge } from "./RunStatusBadge";
import { shownNodeStatus } from "./status";
import { t } from "../i18n";

type Run = WorkflowRunFieldsFragment;

/** /apps/:app/workflow-instances/:runId: one run, live. */
export function WorkflowRunPage() {
  const app = useAppName();
  const { runId = "" } = useParams();
  return <RunView key={runId} app={app} runId={runId} />;
}

function RunView({ app, runId }: { app: string; runId: string }) {
  const [result, reexecute] = useQuery({ query: WorkflowRunQuery, variables: { id: runId }, requestPolicy: "network-only" });
  // The newest state the server pushed (a new stream starts with the run as
  // it is, so a broken one needs no re-read).
  const [latest, setLatest] = useState<Run | null>(null);
  const stream = useLiveSubscription({
    query: WorkflowRunUpdatedSubscription,
    variables: () => ({ id: runId }),
    key: runId,
    enabled: !!result.data?.workflowInstance,
    onData: (data) => setLatest(data.workflowInstanceUpdated),
  });
  // An action's answer is shown only while the stream is down: while it is
  // up, it has pushed the change already or will, and the answer may arrive
  // after newer pushes (a retried node that ended at once) and undo them.
  const onAction = (run: Run) => {
    if (stream.error || stream.completed) setLatest(run);
  };
  return (
    <Stack>
      <Anchor component={Link} to={appPath(app, "workflow-instances")} size="sm">{t("workflows.WorkflowRunPage.workflowRuns")}</Anchor>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("workflows.WorkflowRunPage.loadingTheRun")}
        isEmpty={(data) => !data.workflowInstance}
        empty={<>{t("workflows.WorkflowRunPage.thereIsNoWorkflow", { runId: runId })}</>}
      >
        {(data) => {
          const run = latest ?? data.workflowInstance;
          return run && <RunDetails app={app} run={run} onRun={onAction} />;
        }}
      </QueryView>
    </Stack>
  );
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text component="div" size="sm">
        {children}
      </Text>
    </div>
  );
}

/** What a node shows under its title on the run's canvas. */
function nodeDetail(n: Run["nodes"][number]): string {
  if (n.type === "FOREACH" && n.items > 0) return t("workflows.WorkflowRunPage.elements", { items: n.items });
  if (n.reason) return n.reason.replaceAll("_", " ").toLowerCase();
  if (n.type === "DECISION" && n.result) return `→ ${n.result}`;
  return n.name ? n.key : "";
}

function RunDetails({ app, run, onRun }: { app: string; run: Run; onRun: (run: Run) => void }) {
  const canEdit = useCanEdit();
  // ?node=<key> (the workflow's grid links a cell so) opens with that node chosen.
  const [params] = useSearchParams();
  const [selected, setSelected] = useState<string | null>(() => params.get("node"));
  // The run's own version is drawn laid out, the same way every time.
  const shape = JSON.stringify([run.nodes.map((n) => n.key), run.edges.map((e) => [e.from, e.to])]);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- the layout depends on the shape only, not on each state change
  const positions = useMemo(() => autoLayout(run.nodes, run.edges), [shape]);
  const nodes = run.nodes.map(
    (n): RunDagNode => ({
      key: n.key,
      type: n.type,
      title: n.name || n.key,
      detail: nodeDetail(n),
      status: shownNodeStatus(n.status, run.status),
      position: positions.get(n.key) ?? { x: 0, y: 0 },
    }),
  );
  const byKey = new Map(run.nodes.map((n) => [n.key, n]));
  const node = selected ? byKey.get(selected) : undefined;

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Group gap="sm">
            <Title order={2}>{t("workflows.WorkflowRunPage.run", { id: run.id })}</Title>
            <RunStatusBadge status={run.status} size="lg" />
          </Group>
          <Group gap={6}>
            <Text size="sm" c="dimmed">{t("workflows.WorkflowRunPage.ofWorkflow")}</Text>
            <Anchor component={Link} to={appPath(app, "workflows", run.workflow.id)} size="sm">
              {run.workflow.name}
            </Anchor>
            <Badge size="xs" variant="light">{t("workflows.WorkflowRunPage.version", { version: run.version })}</Badge>
            <Anchor component={Link} to={appPath(app, "workflows", run.workflow.id) + "?tab=runs"} size="sm">{t("workflows.WorkflowRunPage.itsRuns")}</Anchor>
          </Group>
          {run.parent && (
            <Text size="sm">{t("workflows.WorkflowRunPage.nestedRunOfNode", { parentNodeKey: run.parentNodeKey ?? "" })}{" "}<Anchor component={Link} to={appPath(app, "workflow-instances", run.parent.id)}>{t("workflows.WorkflowRunPage.run2", { id: run.parent.id })}</Anchor>{" "}
              ({run.parent.workflow.name})
            </Text>
          )}
        </Stack>
        {canEdit && <RunActions run={run} onRun={onRun} />}
      </Group>

      <SimpleGrid cols={{ base: 2, md: 5 }}>
        <Field label={t("workflows.WorkflowRunPage.trigger")}>{run.triggerType}</Field>
        <Field label={t("workflows.WorkflowRunPage.due")}>
          <Timestamp value={run.triggerTime} compact />
        </Field>
        <Field label={t("workflows.WorkflowRunPage.started")}>{run.startedTime ? <Timestamp value={run.startedTime} compact /> : "—"}</Field>
        <Field label={t("workflows.WorkflowRunPage.finished")}>{run.finishedTime ? <Timestamp value={run.finishedTime} compact /> : "—"}</Field>
        <Field label={t("workflows.WorkflowRunPage.outcome")}>{run.result || run.reason || "—"}</Field>
      </SimpleGrid>

      {/* Full width, so the whole DAG stays in view; the chosen node's panel goes below. */}
      <div>
        <Paper withBorder radius="md" h={420} style={{ overflow: "hidden" }} data-testid="run-dag">
          <ReactFlowProvider>
            <RunDag
              nodes={nodes}
              edges={run.edges}
              selected={selected}
              onSelect={setSelected}
              faint={(e) => byKey.get(e.to)?.status === "SKIPPED" && byKey.get(e.to)?.reason === "BRANCH_NOT_TAKEN"}
            />
          </ReactFlowProvider>
        </Paper>
        <Text size="xs" c="dimmed" mt={4}>{t("workflows.WorkflowRunPage.clickANodeTo")}</Text>
      </div>
      <Paper withBorder radius="md" p="sm">
        <RunGantt run={run} selected={selected} onSelect={setSelected} />
      </Paper>
      {node && (
        <NodeRunPanel key={node.key} app={app} run={run} node={node} canEdit={canEdit} onRun={onRun} onClose={() => setSelected(null)} />
      )}

      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Card withBorder>
          <Title order={3} size="h6" mb={4}>{t("workflows.WorkflowRunPage.initialContext")}</Title>
          <Code block>{JSON.stringify(run.initialContext, null, 2)}</Code>
        </Card>
        <Card withBorder>
          <Title order={3} size="h6" mb={4}>{t("workflows.WorkflowRunPage.contextNow")}</Title>
          <Code block data-testid="run-context">
            {JSON.stringify(run.context, null, 2)}
          </Code>
        </Card>
      </SimpleGrid>
    </Stack>
  );
}
