import { Anchor, ScrollArea, Stack, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import { useQuery } from "urql";
import { useLiveStatus } from "../api/live";
import { useLiveSubscription } from "../api/useLiveSubscription";
import { appPath } from "../apps/currentApp";
import { QueryView } from "../components/QueryView";
import { statusLabel } from "../components/statusLabel";
import { usePolling } from "../components/usePolling";
import { useThrottled } from "../components/useThrottled";
import type { WorkflowFieldsFragment } from "../graphql/graphql";
import { t } from "../i18n";
import { WorkflowGridInstanceChangedSubscription, WorkflowGridQuery, WorkflowGridRunChangedSubscription } from "./operations";
import { StateLegend, stateMarks, stateStyle } from "./StateLegend";
import { isRunActive, runStatusColors } from "./status";
import { gridCell, gridColumns, gridRows, type GridRun } from "./timeline";

/** How many of the newest runs the grid shows. */
export const gridRunCount = 25;
/**
 * How many unfinished runs it follows one by one (the newest): each is a
 * subscription the server re-reads every few seconds. Beyond them, a run's
 * changes still show through its nodes' instances (instanceUpdated).
 */
export const watchedRunCount = 10;
const context = { additionalTypenames: ["WorkflowInstance"] };
const cellSize = 22;

/**
 * The workflow's newest runs (columns, oldest on the left) × its nodes
 * (rows, in topological order), each cell the node's state in that run:
 * Airflow's grid. A cell opens the run with that node chosen. It stays
 * current by itself: each unfinished run is watched (workflowInstanceUpdated)
 * and so is the app's instances (a new run's first node), each change
 * re-reading the grid; while the websocket is down it polls.
 */
export function WorkflowGrid({
  app,
  workflow,
  onChange,
}: {
  app: string;
  workflow: Pick<WorkflowFieldsFragment, "id" | "nodes" | "edges">;
  /** Called each time the grid re-reads its runs because they changed (e.g. so a runs list beside it does too). */
  onChange?: () => void;
}) {
  const [result, reexecute] = useQuery({
    query: WorkflowGridQuery,
    variables: { app, workflowId: workflow.id, first: gridRunCount },
    context,
    requestPolicy: "cache-and-network",
  });
  const refresh = useThrottled(() => {
    reexecute({ requestPolicy: "network-only" });
    onChange?.();
  }, 1_000);
  const runs = result.data?.workflowInstances.edges.map((e) => e.node) ?? [];
  const watched = runs
    .filter((r) => isRunActive(r.status))
    .map((r) => r.id)
    .sort((a, b) => Number(b) - Number(a))
    .slice(0, watchedRunCount);

  const live = useLiveStatus();
  const instances = useLiveSubscription({
    query: WorkflowGridInstanceChangedSubscription,
    variables: () => ({ app }),
    key: app,
    onData: (data) => {
      if (data.instanceUpdated.triggerType === "WORKFLOW") refresh();
    },
    // A (re)subscription missed what changed before it: read afresh.
    onStart: (again) => {
      if (again) refresh();
    },
    resubscribeOnComplete: () => true,
  });
  usePolling(refresh, 5_000, live === "down" || instances.error !== null);

  return (
    <Stack gap="xs">
      <Title order={3} size="h5">{t("workflows.WorkflowGrid.title")}</Title>
      {watched.map((id) => (
        <RunWatch key={id} runId={id} onChange={refresh} />
      ))}
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("workflows.WorkflowGrid.loading")}
        isEmpty={(data) => data.workflowInstances.edges.length === 0}
        empty={<>{t("workflows.WorkflowGrid.noRuns")}</>}
      >
        {() => <Grid app={app} workflow={workflow} runs={runs} />}
      </QueryView>
    </Stack>
  );
}

/** Watches one unfinished run: each state it sends (the first may already be newer than the grid's) calls onChange. */
function RunWatch({ runId, onChange }: { runId: string; onChange: () => void }) {
  useLiveSubscription({
    query: WorkflowGridRunChangedSubscription,
    variables: () => ({ id: runId }),
    key: runId,
    onData: () => onChange(),
  });
  return null;
}

/** The grid itself, from runs already read (its own component, for tests from fixtures). */
export function Grid({ app, workflow, runs }: { app: string; workflow: Pick<WorkflowFieldsFragment, "nodes" | "edges">; runs: readonly GridRun[] }) {
  const rows = gridRows(workflow, runs);
  const columns = gridColumns(runs);
  return (
    <Stack gap="xs">
      <ScrollArea type="auto" offsetScrollbars>
        <table
          aria-label={t("workflows.WorkflowGrid.tableLabel")}
          data-testid="workflow-grid"
          style={{ borderCollapse: "separate", borderSpacing: 3 }}
        >
          <thead>
            <tr>
              <th scope="col" style={{ textAlign: "left", paddingRight: 12 }}>
                <Text size="xs" c="dimmed">{t("workflows.WorkflowGrid.nodeVsRun")}</Text>
              </th>
              {columns.map((r) => (
                <th key={r.id} scope="col" style={{ verticalAlign: "bottom", padding: 0 }}>
                  <RunHeader app={app} run={r} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key}>
                <th scope="row" style={{ textAlign: "left", paddingRight: 12, whiteSpace: "nowrap", fontWeight: "normal" }}>
                  <Text size="sm" span>
                    {row.name || row.key}
                  </Text>
                  {row.name && row.name !== row.key && (
                    <Text size="xs" c="dimmed" span ml={6} ff="monospace">
                      {row.key}
                    </Text>
                  )}
                </th>
                {columns.map((r) => (
                  <td key={r.id} style={{ padding: 0 }}>
                    <Cell app={app} run={r} nodeKey={row.key} nodeName={row.name || row.key} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollArea>
      <StateLegend />
      <Text size="xs" c="dimmed">{t("workflows.WorkflowGrid.legendNote")}</Text>
    </Stack>
  );
}

/** A run's column header: its number, coloured by its state, opening it. */
function RunHeader({ app, run }: { app: string; run: GridRun }) {
  const label = t("workflows.WorkflowGrid.runHeader", { id: run.id, status: statusLabel(run.status) });
  const color = runStatusColors[run.status];
  return (
    <Anchor
      component={Link}
      to={appPath(app, "workflow-instances", run.id)}
      aria-label={label}
      title={run.parentNodeKey ? `${label}\n${t("workflows.WorkflowGrid.nested", { parentNodeKey: run.parentNodeKey })}` : label}
      data-testid={`grid-run-${run.id}`}
      data-status={run.status}
      style={{
        display: "block",
        width: cellSize,
        writingMode: "vertical-rl",
        transform: "rotate(180deg)",
        fontSize: 11,
        lineHeight: `${cellSize}px`,
        paddingTop: 4,
        borderBottom: `3px solid var(--mantine-color-${color}-6)`,
        fontStyle: run.parentNodeKey ? "italic" : undefined,
      }}
    >
      {`#${run.id}`}
    </Anchor>
  );
}

/** A node's state in a run: a square in its colour and mark, opening the run at that node. */
function Cell({ app, run, nodeKey, nodeName }: { app: string; run: GridRun; nodeKey: string; nodeName: string }) {
  const cell = gridCell(run, nodeKey);
  if (!cell) {
    return (
      <span
        title={t("workflows.WorkflowGrid.notInVersion", { node: nodeName, id: run.id, version: run.version })}
        aria-label={t("workflows.WorkflowGrid.notInVersion", { node: nodeName, id: run.id, version: run.version })}
        role="img"
        data-testid={`grid-cell-${run.id}-${nodeKey}`}
        style={{ display: "block", width: cellSize, height: cellSize }}
      />
    );
  }
  const state = statusLabel(cell.status);
  const label = cell.reason
    ? t("workflows.WorkflowGrid.cellWithReason", { node: nodeName, id: run.id, status: state, reason: cell.reason })
    : t("workflows.WorkflowGrid.cell", { node: nodeName, id: run.id, status: state });
  return (
    <Link
      to={`${appPath(app, "workflow-instances", run.id)}?node=${encodeURIComponent(nodeKey)}`}
      aria-label={label}
      title={label}
      data-testid={`grid-cell-${run.id}-${nodeKey}`}
      data-status={cell.status}
      style={{
        ...stateStyle(cell.status),
        display: "flex",
        alignItems: "center",
        justifyContent: "center",
        width: cellSize,
        height: cellSize,
        borderRadius: 4,
        boxSizing: "border-box",
        fontSize: 12,
        textDecoration: "none",
      }}
    >
      {stateMarks[cell.status]}
    </Link>
  );
}
