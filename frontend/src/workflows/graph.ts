import type {
  OverlapPolicy,
  MisfirePolicy,
  ScheduleType,
  TriggerRule,
  WorkflowFieldsFragment,
  WorkflowInput,
  WorkflowNodeType,
} from "../graphql/graphql";
import { t } from "../i18n";

/** One node as the editor holds it: every field a string or number the form edits. */
export interface EditorNode {
  key: string;
  type: WorkflowNodeType;
  name: string;
  jobId: string | null;
  workflowId: string | null;
  expression: string;
  /** JOB only; "" keeps the job's own. */
  params: string;
  enabled: boolean;
  skipWhenFailed: boolean;
  triggerRule: TriggerRule;
  parallelism: number | null;
  timeoutMs: number | null;
  retries: number | null;
  /** JOB and FOREACH: a pool of the app in place of the job's; "" keeps the job's. */
  pool: string;
  poolSlots: number | null;
  position: { x: number; y: number };
}

/** What people call a node: the name typed for it, else its key. */
export function nodeTitle(nodes: readonly Pick<EditorNode, "key" | "name">[], key: string): string {
  return nodes.find((n) => n.key === key)?.name.trim() || key;
}

export interface EditorEdge {
  from: string;
  to: string;
  /** Edges out of a DECISION: the value that takes it; "" on other edges. */
  label: string;
}

export interface Graph {
  nodes: EditorNode[];
  edges: EditorEdge[];
}

/** The workflow's own fields (all but its graph). */
export interface WorkflowSettings {
  name: string;
  description: string;
  enabled: boolean;
  scheduleType: ScheduleType;
  scheduleExpression: string;
  timeZone: string;
  maxInstances: number;
  overlapPolicy: OverlapPolicy;
  misfirePolicy: MisfirePolicy;
  failFast: boolean;
}

export const defaultSettings: WorkflowSettings = {
  name: "",
  description: "",
  enabled: true,
  scheduleType: "API",
  scheduleExpression: "",
  timeZone: "UTC",
  maxInstances: 1,
  overlapPolicy: "CANCEL",
  misfirePolicy: "FIRE_ONCE",
  failFast: false,
};

export const nodeTypes: readonly { value: WorkflowNodeType; label: string; description: string }[] = [
  { value: "JOB", label: t("workflows.graph.job"), description: t("workflows.graph.runsAJobOf") },
  { value: "DECISION", label: t("workflows.graph.decision"), description: t("workflows.graph.takesTheOutEdges") },
  { value: "NESTED", label: t("workflows.graph.nestedWorkflow"), description: t("workflows.graph.runsAnotherWorkflowOf") },
  { value: "FOREACH", label: t("workflows.graph.forEach"), description: t("workflows.graph.runsAJobOnce") },
  { value: "APPROVAL", label: t("workflows.graph.approval"), description: t("workflows.graph.waitsUntilAPerson") },
];

export const triggerRules: readonly { value: TriggerRule; label: string }[] = [
  { value: "ALL_SUCCEEDED", label: t("workflows.graph.allUpstreamSucceeded") },
  { value: "ALL_DONE", label: t("workflows.graph.allUpstreamEndedHowever") },
  { value: "ONE_SUCCEEDED", label: t("workflows.graph.atLeastOneUpstream") },
  { value: "ONE_FAILED", label: t("workflows.graph.atLeastOneUpstream2") },
  { value: "NONE_FAILED", label: t("workflows.graph.allUpstreamEndedNone") },
];

/** A new node of a type at a position, with a key no node of the graph has. */
export function newNode(graph: Graph, type: WorkflowNodeType, position: { x: number; y: number }): EditorNode {
  const base = type.toLowerCase();
  let n = 1;
  while (graph.nodes.some((x) => x.key === `${base}_${n}`)) n++;
  return {
    key: `${base}_${n}`,
    type,
    name: "",
    jobId: null,
    workflowId: null,
    expression: "",
    params: "",
    enabled: true,
    skipWhenFailed: false,
    triggerRule: "ALL_SUCCEEDED",
    parallelism: type === "FOREACH" ? 1 : null,
    timeoutMs: null,
    retries: null,
    pool: "",
    poolSlots: null,
    position,
  };
}

/** Whether an edge from→to would close a cycle (to already reaches from). */
export function wouldCycle(graph: Graph, from: string, to: string): boolean {
  if (from === to) return true;
  const seen = new Set<string>();
  const stack = [to];
  while (stack.length > 0) {
    const k = stack.pop();
    if (k === undefined) break;
    if (k === from) return true;
    if (seen.has(k)) continue;
    seen.add(k);
    for (const e of graph.edges) if (e.from === k) stack.push(e.to);
  }
  return false;
}

/** The label a new edge out of a DECISION gets: "true", then "false", then none (to be typed). */
export function nextDecisionLabel(graph: Graph, from: string): string {
  const used = new Set(graph.edges.filter((e) => e.from === from).map((e) => e.label));
  return ["true", "false"].find((l) => !used.has(l)) ?? "";
}

/** The graph of a workflow as the server holds it. */
export function graphOf(w: Pick<WorkflowFieldsFragment, "nodes" | "edges">): Graph {
  return {
    nodes: w.nodes.map((n, i) => ({
      key: n.key,
      type: n.type,
      name: n.name,
      jobId: n.jobId ?? null,
      workflowId: n.workflowId ?? null,
      expression: n.expression ?? "",
      params: n.params ?? "",
      enabled: n.enabled,
      skipWhenFailed: n.skipWhenFailed,
      triggerRule: n.triggerRule,
      parallelism: n.parallelism ?? null,
      timeoutMs: n.timeoutMs ?? null,
      retries: n.retries ?? null,
      pool: n.pool ?? "",
      poolSlots: n.poolSlots ?? null,
      // A workflow made through the API may have no positions: a row, for auto-layout to fix.
      position: n.position ? { x: n.position.x, y: n.position.y } : { x: i * 220, y: 0 },
    })),
    edges: w.edges.map((e) => ({ from: e.from, to: e.to, label: e.label ?? "" })),
  };
}

export function settingsOf(w: WorkflowFieldsFragment): WorkflowSettings {
  return {
    name: w.name,
    description: w.description,
    enabled: w.enabled,
    scheduleType: w.scheduleType,
    scheduleExpression: w.scheduleExpression,
    timeZone: w.timeZone,
    maxInstances: w.maxInstances,
    overlapPolicy: w.overlapPolicy,
    misfirePolicy: w.misfirePolicy,
    failFast: w.failFast,
  };
}

/** Strings of a version's definition (WorkflowInput's shape, from versions[].definition), read defensively. */
export function definitionGraph(definition: unknown): Graph {
  const d = (definition ?? {}) as { nodes?: unknown[]; edges?: unknown[] };
  const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : null);
  const num = (v: unknown) => (typeof v === "number" ? v : null);
  const nodes = (d.nodes ?? []).map((raw, i): EditorNode => {
    const n = raw as Record<string, unknown>;
    const pos = n["position"] as { x?: number; y?: number } | undefined;
    return {
      key: str(n["key"]) ?? `node_${i}`,
      type: (n["type"] as WorkflowNodeType | undefined) ?? "JOB",
      name: str(n["name"]) ?? "",
      jobId: str(n["jobId"]),
      workflowId: str(n["workflowId"]),
      expression: str(n["expression"]) ?? "",
      params: str(n["params"]) ?? "",
      enabled: n["enabled"] !== false,
      skipWhenFailed: n["skipWhenFailed"] === true,
      triggerRule: (n["triggerRule"] as TriggerRule | undefined) ?? "ALL_SUCCEEDED",
      parallelism: num(n["parallelism"]),
      timeoutMs: num(n["timeoutMs"]),
      retries: num(n["retries"]),
      pool: str(n["pool"]) ?? "",
      poolSlots: num(n["poolSlots"]),
      position: pos && typeof pos.x === "number" && typeof pos.y === "number" ? { x: pos.x, y: pos.y } : { x: i * 220, y: 0 },
    };
  });
  const edges = (d.edges ?? []).map((raw): EditorEdge => {
    const e = raw as Record<string, unknown>;
    return { from: str(e["from"]) ?? "", to: str(e["to"]) ?? "", label: str(e["label"]) ?? "" };
  });
  return { nodes, edges };
}

/** The save's input: only the fields each node type takes (the server refuses the others). */
export function toInput(app: string, settings: WorkflowSettings, graph: Graph): WorkflowInput {
  const decisions = new Set(graph.nodes.filter((n) => n.type === "DECISION").map((n) => n.key));
  return {
    app,
    name: settings.name.trim(),
    description: settings.description,
    enabled: settings.enabled,
    scheduleType: settings.scheduleType,
    scheduleExpression: settings.scheduleType === "API" ? "" : settings.scheduleExpression.trim(),
    timeZone: settings.timeZone || "UTC",
    maxInstances: settings.maxInstances,
    overlapPolicy: settings.overlapPolicy,
    misfirePolicy: settings.misfirePolicy,
    failFast: settings.failFast,
    nodes: graph.nodes.map((n) => {
      const runsJob = n.type === "JOB" || n.type === "FOREACH";
      return {
        key: n.key,
        type: n.type,
        name: n.name,
        jobId: runsJob ? n.jobId : null,
        workflowId: n.type === "NESTED" ? n.workflowId : null,
        expression: n.type === "DECISION" || n.type === "FOREACH" ? n.expression : null,
        params: n.type === "JOB" && n.params !== "" ? n.params : null,
        enabled: n.enabled,
        skipWhenFailed: n.skipWhenFailed,
        triggerRule: n.triggerRule,
        parallelism: n.type === "FOREACH" ? n.parallelism : null,
        timeoutMs: runsJob || n.type === "APPROVAL" ? n.timeoutMs : null,
        retries: runsJob ? n.retries : null,
        pool: runsJob && n.pool !== "" ? n.pool : null,
        poolSlots: runsJob && n.pool !== "" ? n.poolSlots : null,
        position: { x: Math.round(n.position.x), y: Math.round(n.position.y) },
      };
    }),
    edges: graph.edges.map((e) => ({ from: e.from, to: e.to, label: decisions.has(e.from) ? e.label : null })),
  };
}

/** Where a problem is: a node (by key), an edge (by its ends), or the workflow's own fields. */
export type ProblemTarget = { node: string } | { edge: { from: string; to: string } } | { field: string };

export interface Problem {
  target: ProblemTarget;
  message: string;
}

/**
 * A server BAD_INPUT's field (`nodes[2].expression`, `edges[1].label`, `name`)
 * mapped onto what the editor shows: the graph is the one that was saved,
 * so its indices are the input's.
 */
export function problemAt(graph: Graph, field: string, message: string): Problem {
  const node = /^nodes\[(\d+)\]/.exec(field);
  if (node) {
    const n = graph.nodes[Number(node[1])];
    if (n) return { target: { node: n.key }, message: `${field.slice(node[0].length + 1) || "node"}: ${message}` };
  }
  const edge = /^edges\[(\d+)\]/.exec(field);
  if (edge) {
    const e = graph.edges[Number(edge[1])];
    if (e) return { target: { edge: { from: e.from, to: e.to } }, message };
  }
  return { target: { field }, message };
}

/**
 * What the editor can tell is wrong before saving, shown on the canvas:
 * what the server would refuse, node by node.
 */
export function localProblems(graph: Graph): Problem[] {
  const out: Problem[] = [];
  const byKey = new Map(graph.nodes.map((n) => [n.key, n]));
  for (const n of graph.nodes) {
    const at = { node: n.key };
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(n.key)) out.push({ target: at, message: "key: 1 to 64 letters, digits, '_' or '-'" });
    if ((n.type === "JOB" || n.type === "FOREACH") && !n.jobId) out.push({ target: at, message: t("workflows.graph.chooseTheJobIt") });
    if (n.type === "NESTED" && !n.workflowId) out.push({ target: at, message: t("workflows.graph.chooseTheWorkflowIt") });
    if ((n.type === "DECISION" || n.type === "FOREACH") && n.expression.trim() === "") {
      out.push({ target: at, message: n.type === "DECISION" ? t("workflows.graph.needsAnExpression") : t("workflows.graph.needsAnExpressionYielding") });
    }
  }
  const seen = new Set<string>();
  for (const e of graph.edges) {
    const at = { edge: { from: e.from, to: e.to } };
    if (byKey.get(e.from)?.type === "DECISION" && e.label.trim() === "") {
      out.push({ target: at, message: t("workflows.graph.needsTheValueThat") });
    }
    const id = `${e.from}\u0000${e.label}`;
    if (byKey.get(e.from)?.type === "DECISION" && e.label !== "") {
      if (seen.has(id)) out.push({ target: at, message: t("workflows.graph.anotherEdgeOutOf", { from: e.from, label: e.label }) });
      seen.add(id);
    }
  }
  return out;
}

export function edgeId(e: { from: string; to: string }): string {
  return `${e.from}->${e.to}`;
}

export function isAt(p: Problem, t: { node: string } | { edge: { from: string; to: string } }): boolean {
  if ("node" in t) return "node" in p.target && p.target.node === t.node;
  return "edge" in p.target && p.target.edge.from === t.edge.from && p.target.edge.to === t.edge.to;
}
