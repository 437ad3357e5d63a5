import type { Dispatch } from "react";
import {
  Alert,
  Button,
  Group,
  NumberInput,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
  Textarea,
  Title,
} from "@mantine/core";
import type { TriggerRule, WorkflowNodeType } from "../graphql/graphql";
import type { EditorAction, Selection } from "./editorState";
import { isAt, nodeTypes, triggerRules, type EditorEdge, type EditorNode, type Graph, type Problem } from "./graph";

const mono = { input: { fontFamily: "var(--mantine-font-family-monospace)" } };

interface PanelProps {
  graph: Graph;
  selection: Selection;
  dispatch: Dispatch<EditorAction>;
  problems: Problem[];
  jobs: { value: string; label: string }[];
  workflows: { value: string; label: string }[];
  /** The app's pools, by name. */
  pools?: { value: string; label: string }[];
  readOnly: boolean;
}

// The pool fields' texts, in one place for the console's translation.
const poolText = {
  pool: "Pool override",
  poolHelp: "A pool whose slots the node's instances take in place of their job's; blank: the job's own.",
  slots: "Pool slots",
  slotsHelp: "Slots each instance takes (default 1).",
} as const;

/** The side panel: the selected node's or edge's options, or how to start. */
export function NodePanel(props: PanelProps) {
  const { graph, selection } = props;
  if (selection && "node" in selection) {
    const node = graph.nodes.find((n) => n.key === selection.node);
    if (node) return <NodeOptions {...props} node={node} />;
  }
  if (selection && "edge" in selection) {
    const edge = graph.edges.find((e) => e.from === selection.edge.from && e.to === selection.edge.to);
    if (edge) return <EdgeOptions {...props} edge={edge} />;
  }
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        Options
      </Title>
      <Text size="sm" c="dimmed">
        {props.readOnly
          ? "Click a node or an edge to see its options."
          : "Add nodes from the palette (click, or drag onto the canvas), then drag from a node’s right handle to another node’s left handle to connect them. Click a node or an edge to set its options; Delete removes it."}
      </Text>
    </Stack>
  );
}

function Problems({ problems }: { problems: Problem[] }) {
  if (problems.length === 0) return null;
  return (
    <Alert color="red" p="xs" role="alert">
      <Stack gap={2}>
        {problems.map((p) => (
          <Text size="sm" key={p.message}>
            {p.message}
          </Text>
        ))}
      </Stack>
    </Alert>
  );
}

function NodeOptions({ graph, dispatch, problems, jobs, workflows, pools = [], readOnly, node }: PanelProps & { node: EditorNode }) {
  const set = (patch: Partial<EditorNode>, typing = false) => dispatch({ type: "updateNode", key: node.key, patch, typing });
  const mine = problems.filter((p) => isAt(p, { node: node.key }));
  const runsJob = node.type === "JOB" || node.type === "FOREACH";
  const outEdges = graph.edges.filter((e) => e.from === node.key);
  const numberOrNull = (v: number | string) => (typeof v === "number" ? v : null);
  return (
    <Stack gap="sm" component="section" aria-label={`Node ${node.key}`}>
      <Group justify="space-between">
        <Title order={3} size="h5">
          {nodeTypes.find((t) => t.value === node.type)?.label} node
        </Title>
        {!readOnly && (
          <Button
            size="compact-xs"
            color="red"
            variant="subtle"
            onClick={() => dispatch({ type: "remove", nodes: [node.key], edges: [] })}
          >
            Delete node
          </Button>
        )}
      </Group>
      <Problems problems={mine} />
      <TextInput
        label="Key"
        description="Stable within the workflow: runs, retries and imports name the node by it."
        value={node.key}
        disabled={readOnly}
        styles={mono}
        onChange={(e) => set({ key: e.currentTarget.value })}
      />
      <TextInput
        label="Name"
        value={node.name}
        disabled={readOnly}
        onChange={(e) => set({ name: e.currentTarget.value }, true)}
      />
      <Select
        label="Type"
        data={nodeTypes.map((t) => ({ value: t.value, label: t.label }))}
        value={node.type}
        allowDeselect={false}
        disabled={readOnly}
        onChange={(v) => v && set({ type: v as WorkflowNodeType })}
      />
      {runsJob && (
        <Select
          label="Job"
          placeholder="Choose a job"
          data={jobs}
          value={node.jobId}
          searchable
          nothingFoundMessage="No such job"
          disabled={readOnly}
          onChange={(v) => set({ jobId: v })}
        />
      )}
      {node.type === "NESTED" && (
        <Select
          label="Workflow"
          placeholder="Choose a workflow"
          data={workflows}
          value={node.workflowId}
          searchable
          nothingFoundMessage="No other workflow"
          disabled={readOnly}
          onChange={(v) => set({ workflowId: v })}
        />
      )}
      {(node.type === "DECISION" || node.type === "FOREACH") && (
        <Textarea
          label="Expression"
          description={
            node.type === "DECISION"
              ? "expr-lang over context and upstream; its value picks the out-edges with that label (true/false for a boolean)."
              : "expr-lang over context and upstream, yielding the list to run the job for."
          }
          autosize
          minRows={2}
          styles={mono}
          value={node.expression}
          disabled={readOnly}
          onChange={(e) => set({ expression: e.currentTarget.value }, true)}
        />
      )}
      {node.type === "DECISION" && (
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            Out-edges
          </Text>
          {outEdges.length === 0 ? (
            <Text size="xs" c="dimmed">
              None yet: drag from this node’s right handle to the nodes it chooses between.
            </Text>
          ) : (
            outEdges.map((e) => (
              <TextInput
                key={e.to}
                label={`Label of the edge to ${e.to}`}
                size="xs"
                styles={mono}
                value={e.label}
                disabled={readOnly}
                onChange={(ev) =>
                  dispatch({ type: "updateEdge", from: e.from, to: e.to, patch: { label: ev.currentTarget.value }, typing: true })
                }
              />
            ))
          )}
        </Stack>
      )}
      {node.type === "JOB" && (
        <Textarea
          label="Parameters"
          description="In place of the job’s own; empty keeps the job’s."
          autosize
          minRows={1}
          styles={mono}
          value={node.params}
          disabled={readOnly}
          onChange={(e) => set({ params: e.currentTarget.value }, true)}
        />
      )}
      {node.type === "FOREACH" && (
        <NumberInput
          label="Parallelism"
          description="Elements running at once (1 to 1000)."
          min={1}
          max={1000}
          value={node.parallelism ?? ""}
          disabled={readOnly}
          onChange={(v) => set({ parallelism: numberOrNull(v) })}
        />
      )}
      {(runsJob || node.type === "APPROVAL") && (
        <NumberInput
          label={node.type === "APPROVAL" ? "Timeout (seconds)" : "Timeout override (seconds)"}
          description={node.type === "APPROVAL" ? "Blank: waits for ever." : "Blank: the job’s own."}
          min={0}
          allowNegative={false}
          value={node.timeoutMs === null ? "" : node.timeoutMs / 1000}
          disabled={readOnly}
          onChange={(v) => set({ timeoutMs: typeof v === "number" ? Math.round(v * 1000) : null })}
        />
      )}
      {runsJob && (
        <NumberInput
          label="Retries override"
          description="Blank: the job’s own."
          min={0}
          max={100}
          allowNegative={false}
          value={node.retries ?? ""}
          disabled={readOnly}
          onChange={(v) => set({ retries: numberOrNull(v) })}
        />
      )}
      {runsJob && (
        <Select
          label={poolText.pool}
          description={poolText.poolHelp}
          placeholder="—"
          clearable
          data={node.pool && !pools.some((p) => p.value === node.pool) ? [...pools, { value: node.pool, label: node.pool }] : pools}
          value={node.pool || null}
          disabled={readOnly}
          onChange={(v) => set({ pool: v ?? "", poolSlots: v ? node.poolSlots : null })}
        />
      )}
      {runsJob && node.pool !== "" && (
        <NumberInput
          label={poolText.slots}
          description={poolText.slotsHelp}
          min={1}
          allowNegative={false}
          allowDecimal={false}
          value={node.poolSlots ?? ""}
          disabled={readOnly}
          onChange={(v) => set({ poolSlots: numberOrNull(v) })}
        />
      )}
      <Select
        label="Trigger rule"
        description="When it runs, given how its upstream nodes ended."
        data={triggerRules.map((r) => ({ value: r.value, label: r.label }))}
        value={node.triggerRule}
        allowDeselect={false}
        disabled={readOnly}
        onChange={(v) => v && set({ triggerRule: v as TriggerRule })}
      />
      <Switch
        label="Enabled (a disabled node is skipped)"
        checked={node.enabled}
        disabled={readOnly}
        onChange={(e) => set({ enabled: e.currentTarget.checked })}
      />
      <Switch
        label="Ignore its failure"
        checked={node.skipWhenFailed}
        disabled={readOnly}
        onChange={(e) => set({ skipWhenFailed: e.currentTarget.checked })}
      />
    </Stack>
  );
}

function EdgeOptions({ graph, dispatch, problems, readOnly, edge }: PanelProps & { edge: EditorEdge }) {
  const mine = problems.filter((p) => isAt(p, { edge }));
  const fromDecision = graph.nodes.find((n) => n.key === edge.from)?.type === "DECISION";
  return (
    <Stack gap="sm" component="section" aria-label={`Edge ${edge.from} to ${edge.to}`}>
      <Group justify="space-between">
        <Title order={3} size="h5">
          Edge {edge.from} → {edge.to}
        </Title>
        {!readOnly && (
          <Button
            size="compact-xs"
            color="red"
            variant="subtle"
            onClick={() => dispatch({ type: "remove", nodes: [], edges: [{ from: edge.from, to: edge.to }] })}
          >
            Delete edge
          </Button>
        )}
      </Group>
      <Problems problems={mine} />
      {fromDecision ? (
        <TextInput
          label="Label"
          description={`The value ${edge.from} must yield for this edge to be taken.`}
          styles={mono}
          value={edge.label}
          disabled={readOnly}
          onChange={(e) =>
            dispatch({ type: "updateEdge", from: edge.from, to: edge.to, patch: { label: e.currentTarget.value }, typing: true })
          }
        />
      ) : (
        <Text size="sm" c="dimmed">
          {edge.to} may start once {edge.from} has settled, as its trigger rule says.
        </Text>
      )}
    </Stack>
  );
}
