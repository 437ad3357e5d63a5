import { useCallback, useMemo, useState, type Dispatch, type DragEvent } from "react";
import {
  Background,
  Controls,
  MarkerType,
  ReactFlow,
  useReactFlow,
  type Connection,
  type Edge,
  type EdgeChange,
  type NodeChange,
} from "@xyflow/react";
import { dagNodeTypes, type DagFlowNode } from "./DagNode";
import type { EditorAction, EditorState } from "./editorState";
import { edgeId, isAt, type EditorNode, type Problem } from "./graph";
import { fitOptions } from "./layout";
import { t } from "../i18n";

/** The drag-and-drop type a palette entry carries. */
export const paletteMime = "application/x-jobwheel-node-type";

interface EditorCanvasProps {
  state: EditorState;
  dispatch: Dispatch<EditorAction>;
  problems: Problem[];
  /** Names of the jobs and workflows nodes refer to, by id. */
  jobNames: Map<string, string>;
  workflowNames: Map<string, string>;
  readOnly: boolean;
}

function detailOf(n: EditorNode, jobNames: Map<string, string>, workflowNames: Map<string, string>): string {
  switch (n.type) {
    case "JOB":
      return n.jobId ? (jobNames.get(n.jobId) ?? t("workflows.EditorCanvas.job", { jobId: n.jobId })) : t("workflows.EditorCanvas.noJobChosen");
    case "FOREACH":
      return `${n.jobId ? (jobNames.get(n.jobId) ?? `job ${n.jobId}`) : "no job"} × ${n.expression || "?"}`;
    case "NESTED":
      return n.workflowId ? (workflowNames.get(n.workflowId) ?? t("workflows.EditorCanvas.workflow", { workflowId: n.workflowId })) : t("workflows.EditorCanvas.noWorkflowChosen");
    case "DECISION":
      return n.expression || t("workflows.EditorCanvas.noExpression");
    case "APPROVAL":
      return n.timeoutMs ? t("workflows.EditorCanvas.timesOutAfterS", { round: Math.round(n.timeoutMs / 1000) }) : t("workflows.EditorCanvas.waitsForADecision");
  }
}

/**
 * The editor's React Flow canvas. The graph lives in the editor's reducer
 * (so every change can be undone); React Flow only reports what the user
 * did. Node sizes React Flow measures are kept here, since a node object
 * made afresh without them would be drawn unmeasured.
 */
export function EditorCanvas({ state, dispatch, problems, jobNames, workflowNames, readOnly }: EditorCanvasProps) {
  const flow = useReactFlow();
  const [measured, setMeasured] = useState<Map<string, { width: number; height: number }>>(new Map());
  const { graph, selection } = state;

  const nodes = useMemo(
    (): DagFlowNode[] =>
      graph.nodes.map((n) => ({
        id: n.key,
        type: "dag",
        position: n.position,
        selected: selection !== null && "node" in selection && selection.node === n.key,
        measured: measured.get(n.key),
        ariaLabel: `${n.type} node ${n.name || n.key}`,
        data: {
          nodeKey: n.key,
          nodeType: n.type,
          title: n.name || n.key,
          detail: detailOf(n, jobNames, workflowNames),
          problems: problems.filter((p) => isAt(p, { node: n.key })).map((p) => p.message),
          disabled: !n.enabled,
          connectable: !readOnly,
        },
      })),
    [graph.nodes, selection, measured, problems, jobNames, workflowNames, readOnly],
  );

  const edges = useMemo(
    (): Edge[] =>
      graph.edges.map((e) => {
        const wrong = problems.filter((p) => isAt(p, { edge: e }));
        const selected = selection !== null && "edge" in selection && selection.edge.from === e.from && selection.edge.to === e.to;
        const label = [e.label, wrong[0]?.message].filter(Boolean).join(" — ");
        return {
          id: edgeId(e),
          source: e.from,
          target: e.to,
          selected,
          label: label || undefined,
          ariaLabel: `Edge ${e.from} to ${e.to}${e.label ? ` (${e.label})` : ""}`,
          markerEnd: { type: MarkerType.ArrowClosed },
          style: wrong.length > 0 ? { stroke: "var(--mantine-color-red-6)", strokeWidth: 2.5 } : { strokeWidth: 1.5 },
          labelStyle: wrong.length > 0 ? { fill: "var(--mantine-color-red-7)", fontWeight: 600 } : { fontWeight: 600 },
          labelBgPadding: [4, 2] as [number, number],
          interactionWidth: 16,
          data: { problem: wrong.length > 0 },
          className: wrong.length > 0 ? "edge-problem" : undefined,
        };
      }),
    [graph.edges, selection, problems],
  );

  const onNodesChange = useCallback(
    (changes: NodeChange<DagFlowNode>[]) => {
      let sized: [string, { width: number; height: number }][] = [];
      for (const c of changes) {
        if (c.type === "dimensions" && c.dimensions) sized = [...sized, [c.id, c.dimensions]];
        else if (c.type === "position" && c.position && !readOnly) dispatch({ type: "move", key: c.id, position: c.position });
        else if (c.type === "select" && c.selected) dispatch({ type: "select", selection: { node: c.id } });
      }
      if (sized.length > 0) setMeasured((m) => new Map([...m, ...sized]));
    },
    [dispatch, readOnly],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      for (const c of changes) {
        if (c.type === "select" && c.selected) {
          const e = graph.edges.find((x) => edgeId(x) === c.id);
          if (e) dispatch({ type: "select", selection: { edge: { from: e.from, to: e.to } } });
        }
      }
    },
    [dispatch, graph.edges],
  );

  const onConnect = useCallback(
    (c: Connection) => {
      if (c.source && c.target) dispatch({ type: "connect", from: c.source, to: c.target });
    },
    [dispatch],
  );

  function onDrop(event: DragEvent) {
    const type = event.dataTransfer.getData(paletteMime);
    if (!type || readOnly) return;
    event.preventDefault();
    const position = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });
    dispatch({ type: "add", nodeType: type as EditorNode["type"], position });
  }

  return (
    <ReactFlow
      nodes={nodes}
      edges={edges}
      nodeTypes={dagNodeTypes}
      onNodesChange={onNodesChange}
      onEdgesChange={onEdgesChange}
      onConnect={onConnect}
      onNodeDragStart={() => dispatch({ type: "dragStart" })}
      onDelete={({ nodes: n, edges: e }) =>
        dispatch({
          type: "remove",
          nodes: n.map((x) => x.id),
          edges: e.map((x) => ({ from: x.source, to: x.target })),
        })
      }
      onPaneClick={() => dispatch({ type: "select", selection: null })}
      onDragOver={(e) => {
        e.preventDefault();
        e.dataTransfer.dropEffect = "move";
      }}
      onDrop={onDrop}
      nodesDraggable={!readOnly}
      nodesConnectable={!readOnly}
      elementsSelectable
      deleteKeyCode={readOnly ? null : ["Delete", "Backspace"]}
      multiSelectionKeyCode={null}
      fitView
      fitViewOptions={fitOptions}
      minZoom={0.2}
      proOptions={{ hideAttribution: true }}
    >
      <Background gap={16} />
      <Controls showInteractive={false} />
    </ReactFlow>
  );
}
