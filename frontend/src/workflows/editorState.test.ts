import { describe, expect, it } from "vitest";
import { editorReducer, initialEditorState, type EditorAction, type EditorState } from "./editorState";
import { localProblems, problemAt, toInput, defaultSettings, type Graph } from "./graph";

const empty: Graph = { nodes: [], edges: [] };

function run(state: EditorState, ...actions: EditorAction[]): EditorState {
  return actions.reduce(editorReducer, state);
}

const at = { x: 0, y: 0 };

describe("the editor's state", () => {
  it("adds nodes with unique keys, and selects the one added", () => {
    const s = run(
      initialEditorState(empty),
      { type: "add", nodeType: "JOB", position: at },
      { type: "add", nodeType: "JOB", position: at },
      { type: "add", nodeType: "DECISION", position: at },
    );
    expect(s.graph.nodes.map((n) => n.key)).toEqual(["job_1", "job_2", "decision_1"]);
    expect(s.selection).toEqual({ node: "decision_1" });
    expect(s.past).toHaveLength(3);
  });

  it("connects nodes, labels a decision's out-edges true then false, and refuses cycles and repeats", () => {
    let s = run(
      initialEditorState(empty),
      { type: "add", nodeType: "JOB", position: at },
      { type: "add", nodeType: "DECISION", position: at },
      { type: "add", nodeType: "JOB", position: at },
      { type: "add", nodeType: "JOB", position: at },
      { type: "connect", from: "job_1", to: "decision_1" },
      { type: "connect", from: "decision_1", to: "job_2" },
      { type: "connect", from: "decision_1", to: "job_3" },
    );
    expect(s.graph.edges).toEqual([
      { from: "job_1", to: "decision_1", label: "" },
      { from: "decision_1", to: "job_2", label: "true" },
      { from: "decision_1", to: "job_3", label: "false" },
    ]);
    const before = s.graph;
    s = run(s, { type: "connect", from: "job_2", to: "job_1" });
    expect(s.graph).toBe(before);
    expect(s.refused).toMatch(/cycle/);
    s = run(s, { type: "connect", from: "job_1", to: "decision_1" });
    expect(s.graph).toBe(before);
    expect(s.refused).toMatch(/already connected/);
    s = run(s, { type: "connect", from: "job_1", to: "job_1" });
    expect(s.refused).toMatch(/cycle/);
  });

  it("deletes a node with its edges, and undo and redo walk the steps", () => {
    const built = run(
      initialEditorState(empty),
      { type: "add", nodeType: "JOB", position: at },
      { type: "add", nodeType: "JOB", position: at },
      { type: "connect", from: "job_1", to: "job_2" },
    );
    const removed = run(built, { type: "remove", nodes: ["job_2"], edges: [] });
    expect(removed.graph.nodes.map((n) => n.key)).toEqual(["job_1"]);
    expect(removed.graph.edges).toEqual([]);
    // job_2 was selected (added last, then the edge); the selection goes with it.
    expect(removed.selection).toBeNull();

    const undone = run(removed, { type: "undo" });
    expect(undone.graph).toEqual(built.graph);
    const redone = run(undone, { type: "redo" });
    expect(redone.graph).toEqual(removed.graph);
    // Back to the start, and no further.
    const start = run(redone, { type: "undo" }, { type: "undo" }, { type: "undo" }, { type: "undo" }, { type: "undo" });
    expect(start.graph).toEqual(empty);
    // A new change clears what could be redone.
    const branched = run(undone, { type: "add", nodeType: "APPROVAL", position: at });
    expect(branched.future).toEqual([]);
  });

  it("removes an edge alone, as the Delete key does with a selected edge", () => {
    const s = run(
      initialEditorState(empty),
      { type: "add", nodeType: "JOB", position: at },
      { type: "add", nodeType: "JOB", position: at },
      { type: "connect", from: "job_1", to: "job_2" },
      { type: "remove", nodes: [], edges: [{ from: "job_1", to: "job_2" }] },
    );
    expect(s.graph.nodes).toHaveLength(2);
    expect(s.graph.edges).toEqual([]);
  });

  it("makes one undo step of typing in one field, and carries edges along a key change", () => {
    let s = run(
      initialEditorState(empty),
      { type: "add", nodeType: "DECISION", position: at },
      { type: "add", nodeType: "JOB", position: at },
      { type: "connect", from: "decision_1", to: "job_1" },
    );
    const steps = s.past.length;
    for (const text of ["c", "co", "context.ok"]) {
      s = run(s, { type: "updateNode", key: "decision_1", patch: { expression: text }, typing: true });
    }
    expect(s.past.length).toBe(steps + 1);
    expect(run(s, { type: "undo" }).graph.nodes[0]?.expression).toBe("");

    s = run(s, { type: "updateNode", key: "decision_1", patch: { key: "check" } });
    expect(s.graph.edges[0]).toEqual({ from: "check", to: "job_1", label: "true" });
    s = run(s, { type: "updateNode", key: "job_1", patch: { key: "check" } });
    expect(s.refused).toMatch(/Another node has key check/);
  });

  it("drags a node as one undo step", () => {
    let s = run(initialEditorState(empty), { type: "add", nodeType: "JOB", position: at }, { type: "dragStart" });
    for (let x = 1; x <= 5; x++) s = run(s, { type: "move", key: "job_1", position: { x: x * 10, y: 0 } });
    expect(s.graph.nodes[0]?.position).toEqual({ x: 50, y: 0 });
    expect(run(s, { type: "undo" }).graph.nodes[0]?.position).toEqual(at);
  });
});

describe("problems on the canvas", () => {
  const graph: Graph = run(
    initialEditorState(empty),
    { type: "add", nodeType: "JOB", position: at },
    { type: "add", nodeType: "DECISION", position: at },
    { type: "add", nodeType: "JOB", position: at },
    { type: "connect", from: "job_1", to: "decision_1" },
    { type: "connect", from: "decision_1", to: "job_2" },
    { type: "updateEdge", from: "decision_1", to: "job_2", patch: { label: "" } },
  ).graph;

  it("finds what the server would refuse before saving", () => {
    const found = localProblems(graph).map((p) => [p.target, p.message]);
    expect(found).toEqual([
      [{ node: "job_1" }, "Choose the job it runs"],
      [{ node: "decision_1" }, "Needs an expression"],
      [{ node: "job_2" }, "Choose the job it runs"],
      [{ edge: { from: "decision_1", to: "job_2" } }, "Needs the value that takes it"],
    ]);
  });

  it("puts the server's error on the node or edge its field names", () => {
    expect(problemAt(graph, "nodes[1].expression", "unexpected token")).toEqual({
      target: { node: "decision_1" },
      message: "expression: unexpected token",
    });
    expect(problemAt(graph, "edges[1].label", "needs a label")).toEqual({
      target: { edge: { from: "decision_1", to: "job_2" } },
      message: "needs a label",
    });
    expect(problemAt(graph, "name", "must not be empty")).toEqual({ target: { field: "name" }, message: "must not be empty" });
  });

  it("sends only the fields each node type takes", () => {
    const input = toInput("orders", { ...defaultSettings, name: " etl " }, graph);
    expect(input.name).toBe("etl");
    expect(input.nodes[0]).toMatchObject({ type: "JOB", expression: null, workflowId: null, parallelism: null });
    expect(input.nodes[1]).toMatchObject({ type: "DECISION", jobId: null, expression: "", retries: null, timeoutMs: null });
    expect(input.edges).toEqual([
      { from: "job_1", to: "decision_1", label: null },
      { from: "decision_1", to: "job_2", label: "" },
    ]);
  });
});
