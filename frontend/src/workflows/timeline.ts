import type { WorkflowGridRunFragment, WorkflowNodeType, WorkflowRunFieldsFragment } from "../graphql/graphql";
import { shownNodeStatus, type NodeShownStatus } from "./status";

/**
 * The keys in topological order: a node after every node it depends on,
 * and otherwise in the order given (Kahn's algorithm, taking the earliest
 * ready node each time), so parallel branches keep their definition order.
 * Edges naming unknown keys are ignored; a cycle's nodes (never saved, but
 * an old version is read as it is) follow at the end in the order given.
 */
export function topologicalOrder(keys: readonly string[], edges: readonly { from: string; to: string }[]): string[] {
  const known = new Set(keys);
  const indegree = new Map(keys.map((k) => [k, 0]));
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (!known.has(e.from) || !known.has(e.to)) continue;
    indegree.set(e.to, (indegree.get(e.to) ?? 0) + 1);
    next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  }
  const position = new Map(keys.map((k, i) => [k, i]));
  const ready = keys.filter((k) => indegree.get(k) === 0);
  const out: string[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
    const k = ready.shift() as string;
    out.push(k);
    for (const to of next.get(k) ?? []) {
      const d = (indegree.get(to) ?? 0) - 1;
      indegree.set(to, d);
      if (d === 0) ready.push(to);
    }
  }
  const placed = new Set(out);
  return [...out, ...keys.filter((k) => !placed.has(k))];
}

export type GridRun = WorkflowGridRunFragment;

/** A row of the grid: a node, named as the current version names it (or the newest run that had it). */
export interface GridRow {
  key: string;
  name: string;
}

/** One cell: the node's state in one run, or null if that run's version has no such node. */
export type GridCell = { status: NodeShownStatus; reason: string } | null;

/**
 * The grid's rows: the current version's nodes in topological order, then
 * nodes only older runs had (in the order the newest of them has them).
 */
export function gridRows(
  workflow: { nodes: readonly { key: string; name: string }[]; edges: readonly { from: string; to: string }[] },
  runs: readonly GridRun[],
): GridRow[] {
  const names = new Map(workflow.nodes.map((n) => [n.key, n.name]));
  const rows = topologicalOrder(
    workflow.nodes.map((n) => n.key),
    workflow.edges,
  ).map((key) => ({ key, name: names.get(key) ?? "" }));
  const seen = new Set(rows.map((r) => r.key));
  // Newest run first, so a node renamed since shows its latest name.
  for (const run of [...runs].sort(newestFirst)) {
    for (const n of run.nodes) {
      if (seen.has(n.key)) continue;
      seen.add(n.key);
      rows.push({ key: n.key, name: n.name });
    }
  }
  return rows;
}

function newestFirst(a: GridRun, b: GridRun): number {
  return Number(b.id) - Number(a.id);
}

/** The grid's columns: the runs, oldest on the left and newest on the right (as Airflow draws them). */
export function gridColumns(runs: readonly GridRun[]): GridRun[] {
  return [...runs].sort((a, b) => Number(a.id) - Number(b.id));
}

/** The cell of a node in a run. */
export function gridCell(run: GridRun, key: string): GridCell {
  const n = run.nodes.find((x) => x.key === key);
  return n ? { status: shownNodeStatus(n.status, run.status), reason: n.reason } : null;
}

type RunNode = WorkflowRunFieldsFragment["nodes"][number];

/** A node's bar on the Gantt chart, in ms since the epoch. */
export interface GanttBar {
  key: string;
  name: string;
  type: WorkflowNodeType;
  status: NodeShownStatus;
  /** When the node started. */
  start: number;
  /**
   * Where its waiting ends and its running begins: when the first of its
   * job instances started on a worker (before that it was being handed to
   * one); an APPROVAL waits all along (its end); other nodes run from the start.
   */
  runFrom: number;
  /** When it ended, or now while it goes on. */
  end: number;
  /** Whether it is still going (its bar grows). */
  open: boolean;
}

/** A Gantt row: a node, with its bar if it has started. */
export interface GanttRow {
  key: string;
  name: string;
  status: NodeShownStatus;
  bar: GanttBar | null;
}

export interface Gantt {
  rows: GanttRow[];
  /** The chart's span: from the run's start to its end (or now), never empty. */
  from: number;
  to: number;
}

const ms = (t: string | null | undefined): number | null => (t ? Date.parse(t) : null);

/** A node's bar: null if it has not started (or never did: skipped before it could). */
export function ganttBar(node: RunNode, run: Pick<WorkflowRunFieldsFragment, "status">, now: number): GanttBar | null {
  const start = ms(node.startedTime);
  if (start === null) return null;
  const finished = ms(node.finishedTime);
  const end = Math.max(start, finished ?? now);
  let runFrom = start;
  if (node.type === "APPROVAL") {
    runFrom = end;
  } else if (node.instances.length > 0) {
    const starts = node.instances.map((i) => ms(i.startedTime)).filter((t): t is number => t !== null);
    // No instance started yet: still waiting for a worker (or all of it, if it ended so).
    runFrom = starts.length > 0 ? Math.min(...starts) : end;
  }
  runFrom = Math.min(Math.max(runFrom, start), end);
  return {
    key: node.key,
    name: node.name,
    type: node.type,
    status: shownNodeStatus(node.status, run.status),
    start,
    runFrom,
    end,
    open: finished === null,
  };
}

/** The run's Gantt chart: its nodes in topological order, each bar from its start to its end (or now). */
export function gantt(run: Pick<WorkflowRunFieldsFragment, "status" | "startedTime" | "finishedTime" | "nodes" | "edges">, now: number): Gantt {
  const byKey = new Map(run.nodes.map((n) => [n.key, n]));
  const rows = topologicalOrder(
    run.nodes.map((n) => n.key),
    run.edges,
  ).map((key): GanttRow => {
    const n = byKey.get(key) as RunNode;
    return { key, name: n.name, status: shownNodeStatus(n.status, run.status), bar: ganttBar(n, run, now) };
  });
  const bars = rows.flatMap((r) => (r.bar ? [r.bar] : []));
  const runStart = ms(run.startedTime);
  const from = Math.min(...(runStart !== null ? [runStart] : []), ...bars.map((b) => b.start));
  const runEnd = ms(run.finishedTime);
  const to = Math.max(runEnd ?? now, ...bars.map((b) => b.end));
  if (!Number.isFinite(from)) return { rows, from: now, to: now + 1000 };
  return { rows, from, to: Math.max(to, from + 1000) };
}
