import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { makeSubject, type Subject } from "wonka";
import type { WorkflowInstanceStatus, WorkflowNodeStatus, WorkflowRunFieldsFragment } from "../graphql/graphql";
import { mockClient, renderRoutes, type MockRequest } from "../test/render";
import { WorkflowRunPage } from "./WorkflowRunPage";

type Node = WorkflowRunFieldsFragment["nodes"][number];

function node(key: string, type: Node["type"], status: WorkflowNodeStatus, reason = ""): Node {
  return {
    key,
    type,
    name: "",
    status,
    reason,
    message: "",
    result: "",
    output: null,
    failureIgnored: false,
    generation: 1,
    items: 0,
    decidedBy: null,
    comment: "",
    deadline: null,
    startedTime: null,
    finishedTime: null,
    child: null,
    instances: [],
  };
}

function run(status: WorkflowInstanceStatus, nodes: Node[]): WorkflowRunFieldsFragment {
  return {
    id: "5",
    status,
    reason: "",
    version: 1,
    triggerType: "API",
    triggerTime: "2026-11-21T12:00:00Z",
    startedTime: "2026-11-21T12:00:00Z",
    finishedTime: null,
    parentNodeKey: null,
    workflow: { id: "3", name: "etl" },
    result: "",
    context: { mode: "full" },
    initialContext: { mode: "full" },
    createdAt: "2026-11-21T12:00:00Z",
    parent: null,
    edges: [
      { from: "extract", to: "check", label: null },
      { from: "check", to: "full", label: "true" },
      { from: "check", to: "small", label: "false" },
      { from: "check", to: "approve", label: "maybe" },
    ],
    nodes,
  };
}

function setup(first: WorkflowRunFieldsFragment, role: "OWNER" | "VIEWER" = "OWNER") {
  const pushes: Subject<{ data?: unknown }>[] = [];
  const mock = mockClient({
    role,
    query: ({ name, variables }: MockRequest) => {
      if (name === "WorkflowRun") return { data: { workflowInstance: first }, error: undefined };
      if (name === "InstanceLogs") {
        const id = String(variables["id"]);
        const lines = [{ seq: 1, time: "2026-11-21T12:00:01Z", level: "INFO", worker: "w1", text: `line of instance ${id}` }];
        return { data: { instance: { id, logs: { hasMore: false, lines } } }, error: undefined };
      }
      return undefined;
    },
    // Each run operation answers with the run as it was (the stream brings the change).
    mutation: ({ name }: MockRequest) => {
      const field = mutationFields[name];
      return field ? { data: { [field]: first }, error: undefined } : undefined;
    },
    subscription: ({ name }) => {
      if (name !== "WorkflowRunUpdated") return undefined;
      const s = makeSubject<{ data?: unknown }>();
      pushes.push(s);
      return s.source;
    },
  });
  renderRoutes([{ path: "/apps/:app/workflow-instances/:runId", Component: WorkflowRunPage }], "/apps/orders/workflow-instances/5", mock.asClient);
  return { pushes, mock };
}

const mutationFields: Record<string, string> = {
  StopWorkflowRun: "stopWorkflowInstance",
  PauseWorkflowRun: "pauseWorkflowInstance",
  ResumeWorkflowRun: "resumeWorkflowInstance",
  RetryWorkflowRun: "retryWorkflowInstance",
  MarkWorkflowNodeSucceeded: "markWorkflowNodeSucceeded",
  RerunWorkflowNode: "rerunWorkflowNode",
  ApproveWorkflowNode: "approveWorkflowNode",
};

const dagNode = (key: string) => screen.getByTestId(`dag-node-${key}`);

/** Clicks a node on the canvas (React Flow's handler is on its wrapper). */
async function clickNode(key: string) {
  await act(async () => {
    dagNode(key).dispatchEvent(new MouseEvent("click", { bubbles: true }));
    await Promise.resolve();
  });
  return screen.findByRole("region", { name: `Node ${key}` });
}

type Instance = Node["instances"][number];

function instance(id: string, status: Instance["status"], attempt = 1, workflowInput: unknown = null): Instance {
  return {
    id,
    status,
    attempt,
    startedTime: "2026-11-21T12:00:01Z",
    finishedTime: status === "RUNNING" ? null : "2026-11-21T12:00:09Z",
    result: status === "SUCCEEDED" ? `done ${id}` : "",
    reason: "",
    params: "",
    workflowInput,
    worker: { id: "1", host: "w1" },
  };
}

describe("the workflow run view", () => {
  it("colours each node by its state, carried as data-status", async () => {
    setup(
      run("RUNNING", [
        node("extract", "JOB", "SUCCEEDED"),
        node("check", "DECISION", "SUCCEEDED"),
        node("full", "JOB", "RUNNING"),
        node("small", "JOB", "SKIPPED", "BRANCH_NOT_TAKEN"),
        node("approve", "APPROVAL", "AWAITING_APPROVAL"),
      ]),
    );
    await waitFor(() => expect(dagNode("extract")).toHaveAttribute("data-status", "SUCCEEDED"));
    expect(dagNode("check")).toHaveAttribute("data-status", "SUCCEEDED");
    expect(dagNode("full")).toHaveAttribute("data-status", "RUNNING");
    expect(dagNode("small")).toHaveAttribute("data-status", "SKIPPED");
    expect(dagNode("approve")).toHaveAttribute("data-status", "AWAITING_APPROVAL");
    // Colours: each state its own.
    expect(dagNode("extract").style.background).toContain("teal");
    expect(dagNode("full").style.background).toContain("blue");
    expect(dagNode("approve").style.background).toContain("violet");
    expect(dagNode("small").style.border).toContain("dashed");
    expect(dagNode("small")).toHaveTextContent("branch not taken");
  });

  it("shows waiting nodes of a paused run as PAUSED, and follows workflowInstanceUpdated live", async () => {
    const { pushes } = setup(
      run("PAUSED", [
        node("extract", "JOB", "SUCCEEDED"),
        node("check", "DECISION", "WAITING"),
        node("full", "JOB", "WAITING"),
        node("small", "JOB", "WAITING"),
        node("approve", "APPROVAL", "WAITING"),
      ]),
    );
    await waitFor(() => expect(dagNode("check")).toHaveAttribute("data-status", "PAUSED"));
    expect(dagNode("check").style.border).toContain("yellow");
    await waitFor(() => expect(pushes).toHaveLength(1));
    act(() =>
      pushes[0]?.next({
        data: {
          workflowInstanceUpdated: run("FAILED", [
            node("extract", "JOB", "SUCCEEDED"),
            node("check", "DECISION", "SUCCEEDED"),
            node("full", "JOB", "FAILED", "JOB_FAILED"),
            node("small", "JOB", "SKIPPED", "BRANCH_NOT_TAKEN"),
            node("approve", "APPROVAL", "SKIPPED", "BRANCH_NOT_TAKEN"),
          ]),
        },
      }),
    );
    await waitFor(() => expect(dagNode("full")).toHaveAttribute("data-status", "FAILED"));
    expect(dagNode("full").style.background).toContain("red");
    expect(screen.getByRole("button", { name: "Retry failed nodes" })).toBeInTheDocument();
  });

  it("offers a viewer no action", async () => {
    setup(run("FAILED", [node("extract", "JOB", "FAILED")]), "VIEWER");
    await waitFor(() => expect(dagNode("extract")).toHaveAttribute("data-status", "FAILED"));
    expect(screen.queryByRole("button", { name: "Retry failed nodes" })).toBeNull();
  });
});

describe("a node of a run", () => {
  it("shows its instance with times and attempts, its result, the context it saw and appended, and its log", async () => {
    setup(
      run("SUCCEEDED", [
        {
          ...node("extract", "JOB", "SUCCEEDED"),
          result: "extracted 3 rows",
          output: { rows: 3 },
          startedTime: "2026-11-21T12:00:01Z",
          finishedTime: "2026-11-21T12:00:09Z",
          instances: [instance("41", "SUCCEEDED", 2, { context: { mode: "full" }, upstream: {} })],
        },
        node("check", "DECISION", "SUCCEEDED"),
      ]),
    );
    await waitFor(() => expect(dagNode("extract")).toHaveAttribute("data-status", "SUCCEEDED"));
    const panel = await clickNode("extract");
    expect(within(panel).getByTestId("node-status")).toHaveTextContent("SUCCEEDED");
    expect(within(panel).getByText("extracted 3 rows")).toBeInTheDocument();
    expect(panel).toHaveTextContent(/Appended to the context\s*\{\s*"rows": 3/);
    expect(within(panel).getByTestId("node-input")).toHaveTextContent(/"mode": "full"/);
    const instances = within(panel).getByRole("table", { name: "Node instances" });
    const row = within(instances).getAllByRole("row")[1] as HTMLElement;
    expect(within(row).getByRole("link", { name: "#41" })).toHaveAttribute("href", "/apps/orders/instances/41");
    // Status, attempt 2.
    expect(row).toHaveTextContent(/SUCCEEDED\s*2/);
    expect(await within(panel).findByText("line of instance 41")).toBeInTheDocument();
  });

  it("lists a FOREACH node's element runs, each with its log, and links a NESTED node's child run", async () => {
    const user = userEvent.setup();
    setup(
      run("RUNNING", [
        {
          ...node("each", "FOREACH", "RUNNING"),
          items: 3,
          instances: [instance("51", "SUCCEEDED"), instance("52", "FAILED", 3), instance("53", "RUNNING")],
        },
        { ...node("sub", "NESTED", "RUNNING"), child: { id: "77", status: "RUNNING" } },
      ]),
    );
    await waitFor(() => expect(dagNode("each")).toHaveTextContent("3 elements"));
    const panel = await clickNode("each");
    expect(within(panel).getByText("Element runs (3)")).toBeInTheDocument();
    const rows = within(within(panel).getByRole("table", { name: "Node instances" })).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.textContent.slice(0, 3))).toEqual(["1#5", "2#5", "3#5"]);
    await user.click(within(panel).getByRole("button", { name: "Log of instance #52" }));
    expect(await within(panel).findByText("line of instance 52")).toBeInTheDocument();

    const sub = await clickNode("sub");
    expect(within(sub).getByRole("link", { name: "run #77" })).toHaveAttribute("href", "/apps/orders/workflow-instances/77");
  });

  it("approves a waiting node with a comment, after asking", async () => {
    const user = userEvent.setup();
    const { mock } = setup(run("RUNNING", [node("approve", "APPROVAL", "AWAITING_APPROVAL")]));
    await waitFor(() => expect(dagNode("approve")).toHaveAttribute("data-status", "AWAITING_APPROVAL"));
    const panel = await clickNode("approve");
    expect(within(panel).getByRole("button", { name: "Reject" })).toBeInTheDocument();
    await user.click(within(panel).getByRole("button", { name: "Approve" }));
    const dialog = await screen.findByRole("dialog", { name: "Approve" });
    expect(mock.mutated("ApproveWorkflowNode")).toHaveLength(0);
    await user.type(within(dialog).getByRole("textbox", { name: "Comment (optional)" }), "looks right");
    await user.click(within(dialog).getByRole("button", { name: "Approve" }));
    await waitFor(() => expect(mock.mutated("ApproveWorkflowNode")).toHaveLength(1));
    expect(mock.mutated("ApproveWorkflowNode")[0]?.variables).toEqual({ id: "5", node: "approve", approve: true, comment: "looks right" });
    // The dialog closes once the answer came (and its transition ends before the test does).
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("marks a failed node succeeded, or reruns it alone or with its downstream, each after asking", async () => {
    const user = userEvent.setup();
    const { mock } = setup(run("FAILED", [node("extract", "JOB", "FAILED", "JOB_FAILED")]));
    await waitFor(() => expect(dagNode("extract")).toHaveAttribute("data-status", "FAILED"));
    const panel = await clickNode("extract");
    for (const [button, title, op, vars] of [
      ["Mark succeeded", "Mark node succeeded", "MarkWorkflowNodeSucceeded", { id: "5", node: "extract" }],
      ["Rerun node", "Rerun node", "RerunWorkflowNode", { id: "5", node: "extract", downstream: false }],
      ["Rerun with downstream", "Rerun with downstream", "RerunWorkflowNode", { id: "5", node: "extract", downstream: true }],
    ] as const) {
      const before = mock.mutated(op).length;
      await user.click(within(panel).getByRole("button", { name: button }));
      const dialog = await screen.findByRole("dialog", { name: title });
      expect(mock.mutated(op)).toHaveLength(before);
      await user.click(within(dialog).getByRole("button", { name: title }));
      await waitFor(() => expect(mock.mutated(op)).toHaveLength(before + 1));
      expect(mock.mutated(op).at(-1)?.variables).toEqual(vars);
      await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    }
  });

  it("pauses, and stops, a running run after asking; cancelling sends nothing", async () => {
    const user = userEvent.setup();
    const { mock } = setup(run("RUNNING", [node("extract", "JOB", "RUNNING")]));
    await waitFor(() => expect(dagNode("extract")).toHaveAttribute("data-status", "RUNNING"));
    expect(screen.queryByRole("button", { name: "Resume" })).toBeNull();
    await user.click(screen.getByRole("button", { name: "Stop" }));
    let dialog = await screen.findByRole("dialog", { name: "Stop run" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(mock.mutated("StopWorkflowRun")).toHaveLength(0);

    await user.click(screen.getByRole("button", { name: "Pause" }));
    dialog = await screen.findByRole("dialog", { name: "Pause run" });
    await user.click(within(dialog).getByRole("button", { name: "Pause run" }));
    await waitFor(() => expect(mock.mutated("PauseWorkflowRun")).toHaveLength(1));
    expect(mock.mutated("PauseWorkflowRun")[0]?.variables).toEqual({ id: "5" });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());

    await user.click(screen.getByRole("button", { name: "Stop" }));
    dialog = await screen.findByRole("dialog", { name: "Stop run" });
    await user.click(within(dialog).getByRole("button", { name: "Stop run" }));
    await waitFor(() => expect(mock.mutated("StopWorkflowRun")).toHaveLength(1));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("offers Resume on a paused run", async () => {
    const user = userEvent.setup();
    const { mock } = setup(run("PAUSED", [node("extract", "JOB", "WAITING")]));
    await user.click(await screen.findByRole("button", { name: "Resume" }));
    const dialog = await screen.findByRole("dialog", { name: "Resume run" });
    await user.click(within(dialog).getByRole("button", { name: "Resume run" }));
    await waitFor(() => expect(mock.mutated("ResumeWorkflowRun")).toHaveLength(1));
    expect(screen.queryByRole("button", { name: "Pause" })).toBeNull();
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });
});
