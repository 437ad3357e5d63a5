import { useEffect, useMemo, useReducer, useState } from "react";
import { Alert, Badge, Box, Button, Grid, Group, Paper, Stack, Text, Tooltip } from "@mantine/core";
import { ReactFlowProvider, useReactFlow } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useQuery } from "urql";
import type { CombinedError } from "urql";
import { errorMessage } from "../api/errors";
import type { WorkflowNodeType } from "../graphql/graphql";
import { EditorCanvas, paletteMime } from "./EditorCanvas";
import { editorReducer, initialEditorState } from "./editorState";
import { localProblems, nodeTitle, nodeTypes, problemAt, type Graph, type Problem, type WorkflowSettings } from "./graph";
import { autoLayout, fitOptions } from "./layout";
import { NodePanel } from "./NodePanel";
import { WorkflowChoicesQuery } from "./operations";
import { SettingsFields } from "./SettingsFields";
import { t } from "../i18n";

export interface SaveOutcome {
  error?: CombinedError;
}

interface WorkflowEditorProps {
  app: string;
  /** The workflow being edited (null for a new one): NESTED nodes may not name it. */
  workflowId: string | null;
  initialGraph: Graph;
  initialSettings: WorkflowSettings;
  readOnly: boolean;
  /** Saves; the graph given is the one whose indices a BAD_INPUT names. */
  onSave: (settings: WorkflowSettings, graph: Graph) => Promise<SaveOutcome>;
  saveLabel: string;
}

/** The workflow editor: palette, canvas, side panel, and the workflow's own fields. */
export function WorkflowEditor(props: WorkflowEditorProps) {
  return (
    <ReactFlowProvider>
      <EditorBody {...props} />
    </ReactFlowProvider>
  );
}

/** Whether a key press is typing in a field (which keeps its own undo). */
function inField(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.isContentEditable);
}

function EditorBody({ app, workflowId, initialGraph, initialSettings, readOnly, onSave, saveLabel }: WorkflowEditorProps) {
  const [state, dispatch] = useReducer(editorReducer, initialGraph, initialEditorState);
  const [settings, setSettings] = useState(initialSettings);
  const [serverProblems, setServerProblems] = useState<Problem[]>([]);
  const [saveError, setSaveError] = useState<CombinedError | null>(null);
  const [saving, setSaving] = useState(false);
  const flow = useReactFlow();

  const [choices] = useQuery({ query: WorkflowChoicesQuery, variables: { app } });
  const jobs = useMemo(
    () => (choices.data?.jobs.edges ?? []).map((e) => ({ value: e.node.id, label: e.node.name })),
    [choices.data],
  );
  const workflows = useMemo(
    () =>
      (choices.data?.workflows.edges ?? [])
        .filter((e) => e.node.id !== workflowId)
        .map((e) => ({ value: e.node.id, label: e.node.name })),
    [choices.data, workflowId],
  );
  const pools = useMemo(
    () => (choices.data?.pools ?? []).map((p) => ({ value: p.name, label: `${p.name} (${p.slots})` })),
    [choices.data],
  );
  const jobNames = useMemo(() => new Map(jobs.map((j) => [j.value, j.label])), [jobs]);
  const workflowNames = useMemo(() => new Map(workflows.map((w) => [w.value, w.label])), [workflows]);

  // A server problem stays on its node or edge until the next save; the
  // editor's own are recomputed as the graph changes.
  const problems = useMemo(() => {
    const local = readOnly ? [] : localProblems(state.graph);
    return [...serverProblems, ...local.filter((l) => !serverProblems.some((s) => s.message === l.message))];
  }, [serverProblems, state.graph, readOnly]);
  const fieldErrors = useMemo(() => {
    const out: Record<string, string> = {};
    for (const p of serverProblems) if ("field" in p.target) out[p.target.field] = p.message;
    return out;
  }, [serverProblems]);

  // Fit the view once the nodes are drawn after a layout or an undo.
  const [fitAfter, setFitAfter] = useState(0);
  useEffect(() => {
    if (fitAfter === 0) return;
    const frame = window.requestAnimationFrame(() => void flow.fitView(fitOptions));
    return () => window.cancelAnimationFrame(frame);
  }, [fitAfter, flow]);

  function add(type: WorkflowNodeType) {
    // Beside the rightmost node, so nothing is drawn over.
    const right = state.graph.nodes.reduce((m, n) => Math.max(m, n.position.x), -260);
    const top = state.graph.nodes.reduce((m, n) => Math.min(m, n.position.y), 0);
    dispatch({ type: "add", nodeType: type, position: { x: right + 260, y: top } });
    setFitAfter((n) => n + 1);
  }

  function layout() {
    dispatch({ type: "layout", positions: autoLayout(state.graph.nodes, state.graph.edges) });
    setFitAfter((n) => n + 1);
  }

  async function save() {
    setSaving(true);
    const saved = state.graph;
    const { error } = await onSave(settings, saved);
    setSaving(false);
    const bad = (error?.graphQLErrors ?? []).filter(
      (e) => e.extensions["code"] === "BAD_INPUT" && typeof e.extensions["field"] === "string",
    );
    setServerProblems(
      bad.map((e) => {
        const field = String(e.extensions["field"]).replace(/^input\./, "");
        const message = e.message.startsWith(`${field}: `) ? e.message.slice(field.length + 2) : e.message;
        return problemAt(saved, field, message);
      }),
    );
    setSaveError(error && bad.length === 0 ? error : null);
  }

  // Ctrl/Cmd+Z undoes and Ctrl/Cmd+Shift+Z or +Y redoes anywhere on the
  // page (a click on the canvas focuses nothing), but not while typing in a
  // field, which keeps its own undo; nor while a dialog is open.
  useEffect(() => {
    if (readOnly) return;
    function onKeyDown(e: KeyboardEvent) {
      if (inField(e.target) || !(e.ctrlKey || e.metaKey) || document.querySelector("[role=dialog]")) return;
      const key = e.key.toLowerCase();
      if (key === "z" && !e.shiftKey) {
        e.preventDefault();
        dispatch({ type: "undo" });
      } else if ((key === "z" && e.shiftKey) || key === "y") {
        e.preventDefault();
        dispatch({ type: "redo" });
      }
    }
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [readOnly]);

  const graphProblems = serverProblems.filter((p) => !("field" in p.target));
  return (
    <Stack>
      {!readOnly && (
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap={6} role="toolbar" aria-label={t("workflows.WorkflowEditor.palette")}>
            <Text size="sm" fw={500}>{t("workflows.WorkflowEditor.add")}</Text>
            {nodeTypes.map((nodeType) => (
              <Tooltip key={nodeType.value} label={t("workflows.WorkflowEditor.clickOrDragOnto", { description: nodeType.description })}>
                <Button
                  size="xs"
                  variant="light"
                  draggable
                  onDragStart={(e) => {
                    e.dataTransfer.setData(paletteMime, nodeType.value);
                    e.dataTransfer.effectAllowed = "move";
                  }}
                  onClick={() => add(nodeType.value)}
                  aria-label={t("workflows.WorkflowEditor.addNode", { label: nodeType.label })}
                >
                  {nodeType.label}
                </Button>
              </Tooltip>
            ))}
          </Group>
          <Group gap={6}>
            <Button size="xs" variant="default" disabled={state.past.length === 0} onClick={() => dispatch({ type: "undo" })}>{t("workflows.WorkflowEditor.undo")}</Button>
            <Button size="xs" variant="default" disabled={state.future.length === 0} onClick={() => dispatch({ type: "redo" })}>{t("workflows.WorkflowEditor.redo")}</Button>
            <Button size="xs" variant="default" disabled={state.graph.nodes.length === 0} onClick={layout}>{t("workflows.WorkflowEditor.autoLayout")}</Button>
            <Button size="xs" variant="default" onClick={() => void flow.fitView(fitOptions)}>{t("workflows.WorkflowEditor.fitView")}</Button>
          </Group>
        </Group>
      )}
      {state.refused && (
        <Alert color="yellow" p="xs" role="status">
          <Text size="sm">{state.refused}</Text>
        </Alert>
      )}
      <Grid gutter="md">
        <Grid.Col span={{ base: 12, lg: 8 }}>
          <Paper
            withBorder
            radius="md"
            h={520}
            data-testid="workflow-canvas"
            style={{ overflow: "hidden", position: "relative" }}
          >
            {state.graph.nodes.length === 0 && (
              <Box pos="absolute" top="40%" left={0} right={0} style={{ zIndex: 5, pointerEvents: "none" }}>
                <Text ta="center" c="dimmed" size="sm">
                  {readOnly ? t("workflows.WorkflowEditor.thisWorkflowHasNo") : t("workflows.WorkflowEditor.emptyAddANode")}
                </Text>
              </Box>
            )}
            <EditorCanvas
              state={state}
              dispatch={dispatch}
              problems={problems}
              jobNames={jobNames}
              workflowNames={workflowNames}
              readOnly={readOnly}
            />
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <Paper withBorder radius="md" p="sm" mih={520}>
            <NodePanel
              graph={state.graph}
              selection={state.selection}
              dispatch={dispatch}
              problems={problems}
              jobs={jobs}
              workflows={workflows}
              pools={pools}
              readOnly={readOnly}
            />
          </Paper>
        </Grid.Col>
      </Grid>
      {graphProblems.length > 0 && (
        <Alert color="red" title={t("workflows.WorkflowEditor.theServerRefusedThe")} role="alert">
          {graphProblems.map((p) => (
            <Text size="sm" key={p.message}>
              {"node" in p.target ? t("workflows.WorkflowEditor.node", { node: nodeTitle(state.graph.nodes, p.target.node) }) : "edge" in p.target ? t("workflows.WorkflowEditor.edge", { from: nodeTitle(state.graph.nodes, p.target.edge.from), to: nodeTitle(state.graph.nodes, p.target.edge.to) }) : ""}: {p.message}
            </Text>
          ))}
        </Alert>
      )}
      <SettingsFields
        settings={settings}
        onChange={(patch) => setSettings((s) => ({ ...s, ...patch }))}
        errors={fieldErrors}
        readOnly={readOnly}
      />
      {saveError && (
        <Alert color="red" title={t("workflows.WorkflowEditor.couldNotSaveThe")} role="alert">
          <Text size="sm" style={{ whiteSpace: "pre-line" }}>
            {errorMessage(saveError)}
          </Text>
        </Alert>
      )}
      {!readOnly && (
        <Group justify="flex-end">
          {problems.length > 0 && (
            <Badge color="red" variant="light">{t("workflows.WorkflowEditor.onTheCanvas", { count: problems.length })}</Badge>
          )}
          <Button onClick={() => void save()} loading={saving}>
            {saveLabel}
          </Button>
        </Group>
      )}
    </Stack>
  );
}
