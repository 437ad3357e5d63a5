import type { WorkflowNodeType } from "../graphql/graphql";
import {
  newNode,
  nextDecisionLabel,
  wouldCycle,
  type EditorEdge,
  type EditorNode,
  type Graph,
} from "./graph";
import { t } from "../i18n";

/** What is selected on the canvas: one node, one edge, or nothing. */
export type Selection = { node: string } | { edge: { from: string; to: string } } | null;

/** The editor's graph with its undo and redo stacks. */
export interface EditorState {
  graph: Graph;
  /** Earlier graphs, newest last. */
  past: Graph[];
  /** Graphs undone, the next redo last. */
  future: Graph[];
  selection: Selection;
  /** Why the last change was refused (a cycle, a duplicate edge), until the next change. */
  refused: string | null;
  /**
   * The field the last change typed into (e.g. "node:job_1:expression"): more
   * typing there joins that undo step rather than making one per keystroke.
   */
  lastEdit: string | null;
}

export type EditorAction =
  | { type: "load"; graph: Graph }
  | { type: "add"; nodeType: WorkflowNodeType; position: { x: number; y: number } }
  | { type: "connect"; from: string; to: string }
  | { type: "updateNode"; key: string; patch: Partial<EditorNode>; typing?: boolean }
  | { type: "updateEdge"; from: string; to: string; patch: Partial<Pick<EditorEdge, "label">>; typing?: boolean }
  | { type: "remove"; nodes: string[]; edges: { from: string; to: string }[] }
  /** A drag in progress: moves without an undo step (dragStart made one). */
  | { type: "move"; key: string; position: { x: number; y: number } }
  | { type: "dragStart" }
  | { type: "layout"; positions: Map<string, { x: number; y: number }> }
  | { type: "select"; selection: Selection }
  | { type: "undo" }
  | { type: "redo" };

/** How many steps undo goes back. */
export const historyLimit = 100;

export function initialEditorState(graph: Graph): EditorState {
  return { graph, past: [], future: [], selection: null, refused: null, lastEdit: null };
}

/** A change that can be undone: the old graph goes on the undo stack, redo is cleared. */
function commit(
  state: EditorState,
  graph: Graph,
  selection: Selection = state.selection,
  edit: string | null = null,
): EditorState {
  // Typing on in the same field replaces the graph of its undo step.
  const joins = edit !== null && edit === state.lastEdit;
  return {
    graph,
    past: joins ? state.past : [...state.past, state.graph].slice(-historyLimit),
    future: [],
    selection,
    refused: null,
    lastEdit: edit,
  };
}

/** The field a typing change is in, so its keystrokes make one undo step. */
function editKey(kind: string, id: string, patch: object, typing: boolean | undefined): string | null {
  return typing ? `${kind}:${id}:${Object.keys(patch).sort().join(",")}` : null;
}

function selectionExists(graph: Graph, s: Selection): Selection {
  if (!s) return null;
  if ("node" in s) return graph.nodes.some((n) => n.key === s.node) ? s : null;
  return graph.edges.some((e) => e.from === s.edge.from && e.to === s.edge.to) ? s : null;
}

export function editorReducer(state: EditorState, action: EditorAction): EditorState {
  const { graph } = state;
  switch (action.type) {
    case "load":
      return initialEditorState(action.graph);
    case "add": {
      const node = newNode(graph, action.nodeType, action.position);
      return commit(state, { ...graph, nodes: [...graph.nodes, node] }, { node: node.key });
    }
    case "connect": {
      const { from, to } = action;
      if (graph.edges.some((e) => e.from === from && e.to === to)) {
        return { ...state, refused: t("workflows.editorState.isAlreadyConnectedTo", { from: from, to: to }) };
      }
      if (wouldCycle(graph, from, to)) {
        return { ...state, refused: t("workflows.editorState.anEdgeFromTo", { from: from, to: to }) };
      }
      const decision = graph.nodes.find((n) => n.key === from)?.type === "DECISION";
      const edge: EditorEdge = { from, to, label: decision ? nextDecisionLabel(graph, from) : "" };
      return commit(state, { ...graph, edges: [...graph.edges, edge] }, { edge: { from, to } });
    }
    case "updateNode": {
      const { key, patch } = action;
      const renamed = patch.key !== undefined && patch.key !== key ? patch.key : null;
      if (renamed !== null && graph.nodes.some((n) => n.key === renamed)) {
        return { ...state, refused: t("workflows.editorState.anotherNodeHasKey", { renamed: renamed }) };
      }
      const nodes = graph.nodes.map((n) => (n.key === key ? { ...n, ...patch } : n));
      // A key change carries the node's edges (and the selection) with it.
      const edges =
        renamed === null
          ? graph.edges
          : graph.edges.map((e) => ({
              ...e,
              from: e.from === key ? renamed : e.from,
              to: e.to === key ? renamed : e.to,
            }));
      const selection = renamed !== null && state.selection && "node" in state.selection && state.selection.node === key
        ? { node: renamed }
        : state.selection;
      // A node that stops being a DECISION leaves its out-edges unlabelled.
      const relabelled =
        patch.type !== undefined && patch.type !== "DECISION"
          ? edges.map((e) => (e.from === (renamed ?? key) ? { ...e, label: "" } : e))
          : edges;
      return commit(state, { nodes, edges: relabelled }, selection, editKey("node", key, patch, action.typing && renamed === null));
    }
    case "updateEdge": {
      const edges = graph.edges.map((e) => (e.from === action.from && e.to === action.to ? { ...e, ...action.patch } : e));
      return commit(state, { ...graph, edges }, state.selection, editKey("edge", `${action.from}->${action.to}`, action.patch, action.typing));
    }
    case "remove": {
      const gone = new Set(action.nodes);
      const edgeGone = (e: EditorEdge) =>
        gone.has(e.from) || gone.has(e.to) || action.edges.some((x) => x.from === e.from && x.to === e.to);
      if (gone.size === 0 && !graph.edges.some(edgeGone)) return state;
      const next = { nodes: graph.nodes.filter((n) => !gone.has(n.key)), edges: graph.edges.filter((e) => !edgeGone(e)) };
      return commit(state, next, selectionExists(next, state.selection));
    }
    case "dragStart":
      return commit(state, graph);
    case "move":
      return {
        ...state,
        graph: { ...graph, nodes: graph.nodes.map((n) => (n.key === action.key ? { ...n, position: action.position } : n)) },
      };
    case "layout":
      return commit(state, {
        ...graph,
        nodes: graph.nodes.map((n) => ({ ...n, position: action.positions.get(n.key) ?? n.position })),
      });
    case "select":
      return { ...state, selection: action.selection, lastEdit: null };
    case "undo": {
      const prev = state.past.at(-1);
      if (!prev) return state;
      return {
        graph: prev,
        past: state.past.slice(0, -1),
        future: [...state.future, graph],
        selection: selectionExists(prev, state.selection),
        refused: null,
        lastEdit: null,
      };
    }
    case "redo": {
      const next = state.future.at(-1);
      if (!next) return state;
      return {
        graph: next,
        past: [...state.past, graph],
        future: state.future.slice(0, -1),
        selection: selectionExists(next, state.selection),
        refused: null,
        lastEdit: null,
      };
    }
  }
}
