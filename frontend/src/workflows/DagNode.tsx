import { Badge, Group, Text } from "@mantine/core";
import { Handle, Position, type Node, type NodeProps } from "@xyflow/react";
import type { WorkflowNodeType } from "../graphql/graphql";
import { nodeHeight, nodeWidth } from "./layout";
import { nodeStatusColors, type NodeShownStatus } from "./status";

export interface DagNodeData extends Record<string, unknown> {
  nodeKey: string;
  nodeType: WorkflowNodeType;
  /** The node's name, or its key if it has none. */
  title: string;
  /** What it runs or decides, in a line (a job's name, an expression). */
  detail: string;
  /** In a run: its state, which colours it. */
  status?: NodeShownStatus;
  /** In the editor: what is wrong with it (the server's or the editor's). */
  problems?: string[];
  disabled?: boolean;
  /** Whether edges can be drawn from and to it. */
  connectable: boolean;
}

export type DagFlowNode = Node<DagNodeData, "dag">;

const typeColors: Record<WorkflowNodeType, string> = {
  JOB: "blue",
  DECISION: "grape",
  NESTED: "cyan",
  FOREACH: "indigo",
  APPROVAL: "yellow",
};

/**
 * A workflow node on the canvas: its type, title and detail; in a run,
 * coloured by its state (also carried as data-status, for tools and tests);
 * in the editor, outlined red with its problems when something is wrong.
 */
export function DagNode({ data, selected }: NodeProps<DagFlowNode>) {
  const color = data.status ? nodeStatusColors[data.status] : "gray";
  const problems = data.problems ?? [];
  const border = problems.length > 0 ? "var(--mantine-color-red-6)" : selected ? "var(--mantine-color-blue-6)" : `var(--mantine-color-${color}-${data.status ? 6 : 4})`;
  const background = data.status
    ? data.status === "SKIPPED" || data.status === "WAITING" || data.status === "PAUSED"
      ? "var(--mantine-color-body)"
      : `var(--mantine-color-${color}-light)`
    : "var(--mantine-color-body)";
  return (
    <div
      data-testid={`dag-node-${data.nodeKey}`}
      data-node-key={data.nodeKey}
      data-status={data.status}
      data-problems={problems.length > 0 ? "true" : undefined}
      title={problems.join("\n") || undefined}
      style={{
        width: nodeWidth,
        minHeight: nodeHeight,
        boxSizing: "border-box",
        padding: "6px 10px",
        borderRadius: 8,
        border: `2px ${data.status === "SKIPPED" || data.disabled ? "dashed" : "solid"} ${border}`,
        background,
        opacity: data.status === "SKIPPED" ? 0.75 : 1,
        boxShadow: selected ? "0 0 0 3px var(--mantine-color-blue-light)" : undefined,
      }}
    >
      <Handle type="target" position={Position.Left} isConnectable={data.connectable} style={{ width: 10, height: 10 }} />
      <Group justify="space-between" gap={4} wrap="nowrap">
        <Badge size="xs" variant="light" color={typeColors[data.nodeType]}>
          {data.nodeType}
        </Badge>
        {data.status && (
          <Badge size="xs" variant={data.status === "WAITING" ? "outline" : "filled"} color={color}>
            {data.status.replace("_", " ")}
          </Badge>
        )}
      </Group>
      <Text size="sm" fw={600} truncate="end" mt={2}>
        {data.title}
      </Text>
      {data.detail && (
        <Text size="xs" c="dimmed" truncate="end" ff={data.nodeType === "DECISION" ? "monospace" : undefined}>
          {data.detail}
        </Text>
      )}
      {problems.length > 0 && (
        <Text size="xs" c="red" lineClamp={2} role="note">
          {problems[0]}
        </Text>
      )}
      <Handle type="source" position={Position.Right} isConnectable={data.connectable} style={{ width: 10, height: 10 }} />
    </div>
  );
}

export const dagNodeTypes = { dag: DagNode };
