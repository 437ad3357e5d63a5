import { screen } from "@testing-library/react";
import { renderWithMantine } from "../test/render";
import { nodeTitle, type EditorNode, type Graph } from "./graph";
import { fitOptions, nodeTitlePx } from "./layout";
import { NodePanel } from "./NodePanel";

function node(key: string, name: string, type: EditorNode["type"] = "JOB"): EditorNode {
  return {
    key, type, name, jobId: null, workflowId: null, expression: "", params: "", enabled: true,
    skipWhenFailed: false, triggerRule: "ALL_SUCCEEDED", parallelism: null, timeoutMs: null,
    retries: null, pool: "", poolSlots: null, position: { x: 0, y: 0 },
  };
}

const graph: Graph = {
  nodes: [node("job_3", "Extract orders", "DECISION"), node("job_4", "Load warehouse"), node("job_5", "")],
  edges: [
    { from: "job_3", to: "job_4", label: "true" },
    { from: "job_4", to: "job_5", label: "" },
  ],
};

function panel(from: string, to: string) {
  renderWithMantine(
    <NodePanel graph={graph} selection={{ edge: { from, to } }} dispatch={() => {}} problems={[]} jobs={[]} workflows={[]} readOnly={false} />,
  );
}

describe("the workflow editor names nodes as people typed them", () => {
  it("titles an edge by its nodes' names, not their keys", () => {
    panel("job_3", "job_4");
    expect(screen.getByRole("region", { name: "Edge Extract orders to Load warehouse" })).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Edge Extract orders → Load warehouse" })).toBeInTheDocument();
    expect(screen.queryByText(/job_3|job_4/)).not.toBeInTheDocument();
  });

  it("falls back to the key of a node with no name", () => {
    panel("job_4", "job_5");
    expect(screen.getByRole("heading", { name: "Edge Load warehouse → job_5" })).toBeInTheDocument();
    expect(nodeTitle(graph.nodes, "gone")).toBe("gone");
  });

  it("never fits a DAG so small that a node's title is unreadable", () => {
    // Fit view zoomed a 30-node DAG out to ~8 px text; it stops at 11 px.
    expect(nodeTitlePx * fitOptions.minZoom).toBeGreaterThanOrEqual(11);
  });
});
