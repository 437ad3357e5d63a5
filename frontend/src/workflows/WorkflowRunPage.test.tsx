import { act, screen, waitFor } from "@testing-library/react";
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
    query: ({ name }: MockRequest) =>
      name === "WorkflowRun" ? { data: { workflowInstance: first }, error: undefined } : undefined,
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

const dagNode = (key: string) => screen.getByTestId(`dag-node-${key}`);

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
