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
import { isAt, nodeTitle, nodeTypes, triggerRules, type EditorEdge, type EditorNode, type Graph, type Problem } from "./graph";
import { t } from "../i18n";

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
  pool: t("workflows.NodePanel.poolOverride"),
  poolHelp: t("workflows.NodePanel.aPoolWhoseSlots"),
  slots: t("workflows.NodePanel.poolSlots"),
  slotsHelp: t("workflows.NodePanel.slotsEachInstanceTakes"),
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
      <Title order={3} size="h5">{t("workflows.NodePanel.options")}</Title>
      <Text size="sm" c="dimmed">
        {props.readOnly
          ? t("workflows.NodePanel.clickANodeOr")
          : t("workflows.NodePanel.addNodesFromThe")}
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
    <Stack gap="sm" component="section" aria-label={t("workflows.NodePanel.node", { key: node.key })}>
      <Group justify="space-between">
        <Title order={3} size="h5">{t("workflows.NodePanel.node2", { label: nodeTypes.find((nodeType) => nodeType.value === node.type)?.label ?? "" })}</Title>
        {!readOnly && (
          <Button
            size="compact-xs"
            color="red"
            variant="subtle"
            onClick={() => dispatch({ type: "remove", nodes: [node.key], edges: [] })}
          >{t("workflows.NodePanel.deleteNode")}</Button>
        )}
      </Group>
      <Problems problems={mine} />
      <TextInput
        label={t("workflows.NodePanel.key")}
        description={t("workflows.NodePanel.stableWithinTheWorkflow")}
        value={node.key}
        disabled={readOnly}
        styles={mono}
        onChange={(e) => set({ key: e.currentTarget.value })}
      />
      <TextInput
        label={t("workflows.NodePanel.name")}
        value={node.name}
        disabled={readOnly}
        onChange={(e) => set({ name: e.currentTarget.value }, true)}
      />
      <Select
        label={t("workflows.NodePanel.type")}
        data={nodeTypes.map((nodeType) => ({ value: nodeType.value, label: nodeType.label }))}
        value={node.type}
        allowDeselect={false}
        disabled={readOnly}
        onChange={(v) => v && set({ type: v as WorkflowNodeType })}
      />
      {runsJob && (
        <Select
          label={t("workflows.NodePanel.job")}
          placeholder={t("workflows.NodePanel.chooseAJob")}
          data={jobs}
          value={node.jobId}
          searchable
          nothingFoundMessage={t("workflows.NodePanel.noSuchJob")}
          disabled={readOnly}
          onChange={(v) => set({ jobId: v })}
        />
      )}
      {node.type === "NESTED" && (
        <Select
          label={t("workflows.NodePanel.workflow")}
          placeholder={t("workflows.NodePanel.chooseAWorkflow")}
          data={workflows}
          value={node.workflowId}
          searchable
          nothingFoundMessage={t("workflows.NodePanel.noOtherWorkflow")}
          disabled={readOnly}
          onChange={(v) => set({ workflowId: v })}
        />
      )}
      {(node.type === "DECISION" || node.type === "FOREACH") && (
        <Textarea
          label={t("workflows.NodePanel.expression")}
          description={
            node.type === "DECISION"
              ? t("workflows.NodePanel.exprLangOverContext")
              : t("workflows.NodePanel.exprLangOverContext2")
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
          <Text size="sm" fw={500}>{t("workflows.NodePanel.outEdges")}</Text>
          {outEdges.length === 0 ? (
            <Text size="xs" c="dimmed">{t("workflows.NodePanel.noneYetDragFrom")}</Text>
          ) : (
            outEdges.map((e) => (
              <TextInput
                key={e.to}
                label={t("workflows.NodePanel.labelOfTheEdge", { to: nodeTitle(graph.nodes, e.to) })}
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
          label={t("workflows.NodePanel.parameters")}
          description={t("workflows.NodePanel.inPlaceOfThe")}
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
          label={t("workflows.NodePanel.parallelism")}
          description={t("workflows.NodePanel.elementsRunningAtOnce")}
          min={1}
          max={1000}
          value={node.parallelism ?? ""}
          disabled={readOnly}
          onChange={(v) => set({ parallelism: numberOrNull(v) })}
        />
      )}
      {(runsJob || node.type === "APPROVAL") && (
        <NumberInput
          label={node.type === "APPROVAL" ? t("workflows.NodePanel.timeoutSeconds") : t("workflows.NodePanel.timeoutOverrideSeconds")}
          description={node.type === "APPROVAL" ? t("workflows.NodePanel.blankWaitsForEver") : t("workflows.NodePanel.blankTheJobS")}
          min={0}
          allowNegative={false}
          value={node.timeoutMs === null ? "" : node.timeoutMs / 1000}
          disabled={readOnly}
          onChange={(v) => set({ timeoutMs: typeof v === "number" ? Math.round(v * 1000) : null })}
        />
      )}
      {runsJob && (
        <NumberInput
          label={t("workflows.NodePanel.retriesOverride")}
          description={t("workflows.NodePanel.blankTheJobS")}
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
        label={t("workflows.NodePanel.triggerRule")}
        description={t("workflows.NodePanel.whenItRunsGiven")}
        data={triggerRules.map((r) => ({ value: r.value, label: r.label }))}
        value={node.triggerRule}
        allowDeselect={false}
        disabled={readOnly}
        onChange={(v) => v && set({ triggerRule: v as TriggerRule })}
      />
      <Switch
        label={t("workflows.NodePanel.enabledADisabledNode")}
        checked={node.enabled}
        disabled={readOnly}
        onChange={(e) => set({ enabled: e.currentTarget.checked })}
      />
      <Switch
        label={t("workflows.NodePanel.ignoreItsFailure")}
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
  const names = { from: nodeTitle(graph.nodes, edge.from), to: nodeTitle(graph.nodes, edge.to) };
  return (
    <Stack gap="sm" component="section" aria-label={t("workflows.NodePanel.edgeTo", names)}>
      <Group justify="space-between">
        <Title order={3} size="h5">{t("workflows.NodePanel.edge", names)}</Title>
        {!readOnly && (
          <Button
            size="compact-xs"
            color="red"
            variant="subtle"
            onClick={() => dispatch({ type: "remove", nodes: [], edges: [{ from: edge.from, to: edge.to }] })}
          >{t("workflows.NodePanel.deleteEdge")}</Button>
        )}
      </Group>
      <Problems problems={mine} />
      {fromDecision ? (
        <TextInput
          label={t("workflows.NodePanel.label")}
          description={t("workflows.NodePanel.theValueMustYield", { from: names.from })}
          styles={mono}
          value={edge.label}
          disabled={readOnly}
          onChange={(e) =>
            dispatch({ type: "updateEdge", from: edge.from, to: edge.to, patch: { label: e.currentTarget.value }, typing: true })
          }
        />
      ) : (
        <Text size="sm" c="dimmed">{t("workflows.NodePanel.mayStartOnceHas", { to: edge.to, from: edge.from })}</Text>
      )}
    </Stack>
  );
}
