import dagre from "@dagrejs/dagre";

/** The size the canvas draws a node at, for layout. */
export const nodeWidth = 200;
export const nodeHeight = 72;

/** The node title's font size (Mantine "sm") at zoom 1, in px. */
export const nodeTitlePx = 14;

/**
 * How "Fit view" frames a DAG: never zoomed out so far that a node's title
 * is smaller than 11 px (14 px × 0.8). A large DAG then does not fit
 * whole: it is panned, or zoomed out on purpose with the controls, rather
 * than shown as ~8 px text nobody can read.
 */
export const fitOptions = { padding: 0.2, maxZoom: 1.2, minZoom: 0.8 } as const;

/**
 * Positions for a DAG, left to right by dependency (dagre), as the
 * top-left corners React Flow places nodes at.
 */
export function autoLayout(
  nodes: readonly { key: string }[],
  edges: readonly { from: string; to: string }[],
): Map<string, { x: number; y: number }> {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", nodesep: 40, ranksep: 80, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.key, { width: nodeWidth, height: nodeHeight });
  for (const e of edges) if (g.hasNode(e.from) && g.hasNode(e.to)) g.setEdge(e.from, e.to);
  dagre.layout(g);
  const out = new Map<string, { x: number; y: number }>();
  for (const n of nodes) {
    const p = g.node(n.key) as { x: number; y: number };
    out.set(n.key, { x: Math.round(p.x - nodeWidth / 2), y: Math.round(p.y - nodeHeight / 2) });
  }
  return out;
}
