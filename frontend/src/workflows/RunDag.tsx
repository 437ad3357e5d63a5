import { useMemo, useState } from "react";
import { Background, Controls, MarkerType, ReactFlow, type Edge, type NodeChange } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import type { WorkflowNodeType } from "../graphql/graphql";
import { dagNodeTypes, type DagFlowNode } from "./DagNode";
import { edgeId } from "./graph";
import { fitOptions } from "./layout";
import type { NodeShownStatus } from "./status";

export interface RunDagNode {
  key: string;
  type: WorkflowNodeType;
  title: string;
  detail: string;
  status?: NodeShownStatus;
  position: { x: number; y: number };
}

interface RunDagProps {
  nodes: RunDagNode[];
  edges: { from: string; to: string; label?: string | null }[];
  selected?: string | null;
  onSelect?: (key: string | null) => void;
  /** Edges into nodes skipped because their branch was not taken are drawn faint. */
  faint?: (edge: { from: string; to: string }) => boolean;
}

/** A DAG drawn read-only: a run's nodes in their states, or a saved version. */
export function RunDag({ nodes, edges, selected = null, onSelect, faint }: RunDagProps) {
  const [measured, setMeasured] = useState<Map<string, { width: number; height: number }>>(new Map());
  const flowNodes = useMemo(
    (): DagFlowNode[] =>
      nodes.map((n) => ({
        id: n.key,
        type: "dag",
        position: n.position,
        selected: n.key === selected,
        measured: measured.get(n.key),
        draggable: false,
        connectable: false,
        ariaLabel: `${n.title}${n.status ? `: ${n.status}` : ""}`,
        data: { nodeKey: n.key, nodeType: n.type, title: n.title, detail: n.detail, status: n.status, connectable: false },
      })),
    [nodes, selected, measured],
  );
  const flowEdges = useMemo(
    (): Edge[] =>
      edges.map((e) => {
        const dim = faint?.(e) ?? false;
        return {
          id: edgeId(e),
          source: e.from,
          target: e.to,
          label: e.label || undefined,
          markerEnd: { type: MarkerType.ArrowClosed },
          style: { strokeWidth: 1.5, opacity: dim ? 0.35 : 1, strokeDasharray: dim ? "4 4" : undefined },
          labelStyle: { fontWeight: 600 },
          selectable: false,
        };
      }),
    [edges, faint],
  );
  function onNodesChange(changes: NodeChange<DagFlowNode>[]) {
    const sized = changes.flatMap((c) => (c.type === "dimensions" && c.dimensions ? [[c.id, c.dimensions] as const] : []));
    if (sized.length > 0) setMeasured((m) => new Map([...m, ...sized]));
  }
  return (
    <ReactFlow
      nodes={flowNodes}
      edges={flowEdges}
      nodeTypes={dagNodeTypes}
      onNodesChange={onNodesChange}
      onNodeClick={(_, n) => onSelect?.(n.id)}
      onPaneClick={() => onSelect?.(null)}
      nodesDraggable={false}
      nodesConnectable={false}
      elementsSelectable={onSelect !== undefined}
      deleteKeyCode={null}
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
