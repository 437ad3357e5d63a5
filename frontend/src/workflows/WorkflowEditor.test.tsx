import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useParams } from "react-router";
import { graphQLError, mockClient, renderRoutes, type MockRequest } from "../test/render";
import { defaultSettings, type Graph } from "./graph";
import { WorkflowEditor, type SaveOutcome } from "./WorkflowEditor";

const graph: Graph = {
  nodes: [
    {
      key: "extract",
      type: "JOB",
      name: "",
      jobId: "7",
      workflowId: null,
      expression: "",
      params: "",
      enabled: true,
      skipWhenFailed: false,
      triggerRule: "ALL_SUCCEEDED",
      parallelism: null,
      timeoutMs: null,
      retries: null,
      pool: "",
      poolSlots: null,
      position: { x: 0, y: 0 },
    },
    {
      key: "check",
      type: "DECISION",
      name: "",
      jobId: null,
      workflowId: null,
      expression: "context.mode ==",
      params: "",
      enabled: true,
      skipWhenFailed: false,
      triggerRule: "ALL_SUCCEEDED",
      parallelism: null,
      timeoutMs: null,
      retries: null,
      pool: "",
      poolSlots: null,
      position: { x: 260, y: 0 },
    },
  ],
  edges: [{ from: "extract", to: "check", label: "" }],
};

function setup(save: (g: Graph) => SaveOutcome, role: "OWNER" | "VIEWER" = "OWNER", initialGraph: Graph = graph) {
  const saved: Graph[] = [];
  function Editor() {
    const { app = "" } = useParams();
    return (
      <WorkflowEditor
        app={app}
        workflowId="3"
        initialGraph={initialGraph}
        initialSettings={{ ...defaultSettings, name: "etl" }}
        readOnly={role === "VIEWER"}
        saveLabel="Save workflow"
        onSave={(_, g) => {
          saved.push(g);
          return Promise.resolve(save(g));
        }}
      />
    );
  }
  const mock = mockClient({
    role,
    query: ({ name }: MockRequest) => {
      if (name === "WorkflowChoices") {
        return {
          data: {
            jobs: { edges: [{ node: { id: "7", name: "extract-job" } }, { node: { id: "8", name: "load-job" } }] },
            // The workflow being edited (3) is no choice for its own NESTED node.
            workflows: { edges: [{ node: { id: "3", name: "etl" } }, { node: { id: "4", name: "child-flow" } }] },
          },
          error: undefined,
        };
      }
      return undefined;
    },
  });
  renderRoutes([{ path: "/apps/:app/workflows/:id", Component: Editor }], "/apps/orders/workflows/3", mock.asClient);
  return { saved };
}

const node = (key: string) => screen.getByTestId(`dag-node-${key}`);

describe("the workflow editor", () => {
  it("draws the nodes, names the jobs they run, and flags what the editor can tell is wrong", async () => {
    setup(() => ({}));
    await waitFor(() => expect(node("extract")).toHaveTextContent("extract-job"));
    // A decision with an expression has nothing to flag before saving (the server judges the expression).
    expect(node("check")).not.toHaveAttribute("data-problems");
  });

  it("adds a node from the palette, removes it, and undo and redo bring it back and take it away", async () => {
    const user = userEvent.setup();
    setup(() => ({}));
    await user.click(screen.getByRole("button", { name: "Add Job node" }));
    expect(node("job_1")).toBeInTheDocument();
    // New and without a job: flagged on the canvas before any save.
    expect(node("job_1")).toHaveAttribute("data-problems", "true");
    expect(node("job_1")).toHaveTextContent("Choose the job it runs");
    // Its options are in the side panel.
    const panel = screen.getByRole("region", { name: "Node job_1" });
    await user.click(within(panel).getByRole("button", { name: "Delete node" }));
    expect(screen.queryByTestId("dag-node-job_1")).toBeNull();
    await user.click(screen.getByRole("button", { name: "Undo" }));
    expect(node("job_1")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Redo" }));
    expect(screen.queryByTestId("dag-node-job_1")).toBeNull();
    await user.click(screen.getByRole("button", { name: "Undo" }));
    await user.click(screen.getByRole("button", { name: "Undo" }));
    expect(screen.queryByTestId("dag-node-job_1")).toBeNull();
    expect(screen.getByRole("button", { name: "Undo" })).toBeDisabled();
  });

  it("shows the server's BAD_INPUT on the node its field names, and in the node's panel", async () => {
    const user = userEvent.setup();
    const { saved } = setup(() => ({
      error: graphQLError("nodes[1].expression: unexpected token EOF (variables: context, upstream)", "BAD_INPUT", "nodes[1].expression"),
    }));
    await user.click(screen.getByRole("button", { name: "Save workflow" }));
    await waitFor(() => expect(node("check")).toHaveAttribute("data-problems", "true"));
    expect(saved).toHaveLength(1);
    expect(node("check")).toHaveTextContent("expression: unexpected token EOF");
    expect(node("extract")).not.toHaveAttribute("data-problems");
    // Selected, the node's panel says it too.
    await act(async () => {
      node("check").dispatchEvent(new MouseEvent("click", { bubbles: true }));
      await Promise.resolve();
    });
    const panel = await screen.findByRole("region", { name: "Node check" });
    expect(within(panel).getByRole("alert")).toHaveTextContent("unexpected token EOF");
  });

  it("shows an edge's error on the edge", async () => {
    const user = userEvent.setup();
    setup(() => ({ error: graphQLError("edges[0]: closes a cycle: extract → check → extract", "BAD_INPUT", "edges[0]") }));
    await user.click(screen.getByRole("button", { name: "Save workflow" }));
    expect(await screen.findByText(/Edge extract → check: closes a cycle/)).toBeInTheDocument();
  });

  it("shows a workflow field's error at the field", async () => {
    const user = userEvent.setup();
    setup(() => ({ error: graphQLError("name: must not be empty", "BAD_INPUT", "name") }));
    await user.click(screen.getByRole("button", { name: "Save workflow" }));
    expect(await screen.findByText("must not be empty")).toBeInTheDocument();
  });

  it("offers a viewer no editing control", async () => {
    setup(() => ({}), "VIEWER");
    await waitFor(() => expect(node("extract")).toHaveTextContent("extract-job"));
    for (const name of [/^Add /, /^Undo$/, /^Redo$/, /^Auto-layout$/, /^Save workflow$/]) {
      expect(screen.queryByRole("button", { name })).toBeNull();
    }
    expect(screen.getByRole("textbox", { name: "Name" })).toBeDisabled();
  });
});

describe("the editor's side panel", () => {
  const base = graph.nodes[0] as Graph["nodes"][number];
  const branched: Graph = {
    nodes: [
      ...graph.nodes,
      { ...base, key: "load", jobId: "8", position: { x: 520, y: 0 } },
    ],
    edges: [...graph.edges, { from: "check", to: "load", label: "true" }],
  };

  async function choose(user: ReturnType<typeof userEvent.setup>, panel: HTMLElement, label: string, option: string) {
    await user.click(within(panel).getByRole("textbox", { name: label }));
    await user.click(await screen.findByRole("option", { name: option }));
  }

  async function select(key: string) {
    await act(async () => {
      node(key).dispatchEvent(new MouseEvent("click", { bubbles: true }));
      await Promise.resolve();
    });
    return screen.findByRole("region", { name: `Node ${key}` });
  }

  it("sets a JOB's job and overrides, a NESTED node's workflow, a DECISION's edge labels and trigger rules", async () => {
    const user = userEvent.setup();
    const { saved } = setup(() => ({}), "OWNER", branched);
    await waitFor(() => expect(node("load")).toHaveTextContent("load-job"));

    // A JOB: its job, parameters, timeout and retries, and its trigger rule.
    let panel = await select("extract");
    await choose(user, panel, "Job", "load-job");
    await user.type(within(panel).getByRole("textbox", { name: "Parameters" }), "--full");
    await user.type(within(panel).getByRole("textbox", { name: "Timeout override (seconds)" }), "30");
    await user.type(within(panel).getByRole("textbox", { name: "Retries override" }), "2");
    await choose(user, panel, "Trigger rule", "All upstream ended, however");
    expect(node("extract")).toHaveTextContent("load-job");

    // A DECISION: its out-edges' labels.
    panel = await select("check");
    const label = within(panel).getByRole("textbox", { name: "Label of the edge to load" });
    expect(label).toHaveValue("true");
    await user.clear(label);
    await user.type(label, "full");

    // A NESTED node picks another workflow of the app, never this one.
    await user.click(screen.getByRole("button", { name: "Add Nested workflow node" }));
    panel = await screen.findByRole("region", { name: "Node nested_1" });
    await user.click(within(panel).getByRole("textbox", { name: "Workflow" }));
    expect(await screen.findByRole("option", { name: "child-flow" })).toBeInTheDocument();
    expect(screen.queryByRole("option", { name: "etl" })).toBeNull();
    await user.click(screen.getByRole("option", { name: "child-flow" }));
    await waitFor(() => expect(node("nested_1")).toHaveTextContent("child-flow"));

    await user.click(screen.getByRole("button", { name: "Save workflow" }));
    await waitFor(() => expect(saved).toHaveLength(1));
    const g = saved[0] as Graph;
    expect(g.nodes.find((n) => n.key === "extract")).toMatchObject({
      jobId: "8",
      params: "--full",
      timeoutMs: 30_000,
      retries: 2,
      triggerRule: "ALL_DONE",
    });
    expect(g.nodes.find((n) => n.key === "nested_1")).toMatchObject({ type: "NESTED", workflowId: "4" });
    expect(g.edges).toContainEqual({ from: "check", to: "load", label: "full" });
  });
});
