import { act, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useLocation, useParams } from "react-router";
import { makeSubject, type Subject } from "wonka";
import type { WorkflowGridRunFragment, WorkflowInstanceStatus, WorkflowNodeStatus } from "../graphql/graphql";
import { mockClient, renderRoutes } from "../test/render";
import { WorkflowGrid } from "./WorkflowGrid";
import { topologicalOrder } from "./timeline";

type Node = WorkflowGridRunFragment["nodes"][number];

function node(key: string, status: WorkflowNodeStatus, reason = ""): Node {
  return { key, name: "", type: "JOB", status, reason, startedTime: null, finishedTime: null };
}

function run(id: string, status: WorkflowInstanceStatus, nodes: Node[], version = 2): WorkflowGridRunFragment {
  return {
    id,
    status,
    version,
    triggerTime: "2026-11-21T12:00:00Z",
    startedTime: "2026-11-21T12:00:00Z",
    finishedTime: null,
    parentNodeKey: null,
    nodes,
  };
}

// The definition lists its nodes out of dependency order: the grid sorts them.
const workflow = {
  id: "3",
  nodes: [
    { key: "load", name: "Load" },
    { key: "report", name: "" },
    { key: "extract", name: "Extract" },
    { key: "check", name: "" },
  ],
  edges: [
    { from: "extract", to: "check" },
    { from: "check", to: "load" },
    { from: "check", to: "report" },
  ],
} as unknown as Parameters<typeof WorkflowGrid>[0]["workflow"];

/** Where a cell's link led: the run page's route, with its search. */
function RunPageStub() {
  const { runId } = useParams();
  const location = useLocation();
  return <p data-testid="opened">{`run ${runId ?? ""} ${location.search}`}</p>;
}

function setup(initial: WorkflowGridRunFragment[]) {
  let runs = initial;
  const runStreams = new Map<string, Subject<{ data?: unknown }>>();
  const instanceStreams: Subject<{ data?: unknown }>[] = [];
  const mock = mockClient({
    query: ({ name }) =>
      name === "WorkflowGrid"
        ? { data: { workflowInstances: { edges: runs.map((node) => ({ node })), totalCount: runs.length } }, error: undefined }
        : undefined,
    subscription: ({ name, variables }) => {
      const s = makeSubject<{ data?: unknown }>();
      if (name === "WorkflowGridRunChanged") runStreams.set(String(variables["id"]), s);
      else if (name === "WorkflowGridInstanceChanged") instanceStreams.push(s);
      else return undefined;
      return s.source;
    },
  });
  renderRoutes(
    [
      { path: "/apps/:app/workflows/:workflowId", element: <WorkflowGrid app="orders" workflow={workflow} /> },
      { path: "/apps/:app/workflow-instances/:runId", Component: RunPageStub },
    ],
    "/apps/orders/workflows/3",
    mock.asClient,
  );
  return {
    mock,
    runStreams,
    instanceStreams,
    setRuns: (next: WorkflowGridRunFragment[]) => {
      runs = next;
    },
  };
}

const rowNames = () =>
  within(screen.getByTestId("workflow-grid"))
    .getAllByRole("rowheader")
    .map((th) => th.textContent);
const columnNames = () =>
  within(screen.getByTestId("workflow-grid"))
    .getAllByRole("columnheader")
    .slice(1)
    .map((th) => th.textContent);
const cell = (run: string, key: string) => screen.getByTestId(`grid-cell-${run}-${key}`);

describe("the workflow's grid", () => {
  it("puts the nodes in topological order and the runs oldest first", () => {
    expect(topologicalOrder(["d", "c", "b", "a"], [{ from: "a", to: "b" }, { from: "b", to: "c" }, { from: "a", to: "d" }])).toEqual(["a", "d", "b", "c"]);
    setup([
      run("12", "SUCCEEDED", [node("extract", "SUCCEEDED"), node("check", "SUCCEEDED"), node("load", "SUCCEEDED"), node("report", "SKIPPED", "BRANCH_NOT_TAKEN")]),
      // An older version had a node the current one dropped.
      run("10", "FAILED", [node("extract", "FAILED"), node("old", "SKIPPED", "UPSTREAM_FAILED")], 1),
    ]);
    return screen.findByTestId("workflow-grid").then(() => {
      expect(rowNames()).toEqual(["Extractextract", "check", "Loadload", "report", "old"]);
      expect(columnNames()).toEqual(["#10", "#12"]);
    });
  });

  it("colours and names each cell by the node's state in that run, with a legend", async () => {
    setup([
      run("12", "PAUSED", [node("extract", "SUCCEEDED"), node("check", "RUNNING"), node("load", "WAITING"), node("report", "WAITING")]),
      run("10", "FAILED", [node("extract", "FAILED", "JOB_FAILED"), node("check", "SKIPPED", "UPSTREAM_FAILED"), node("old", "SKIPPED")], 1),
    ]);
    await screen.findByTestId("workflow-grid");
    expect(cell("12", "extract")).toHaveAttribute("data-status", "SUCCEEDED");
    expect(cell("12", "extract")).toHaveAccessibleName("Extract in run #12: SUCCEEDED");
    expect(cell("12", "extract")).toHaveAttribute("title", "Extract in run #12: SUCCEEDED");
    expect(cell("12", "check")).toHaveAttribute("data-status", "RUNNING");
    // A node waiting in a paused run will not start until it is resumed.
    expect(cell("12", "load")).toHaveAttribute("data-status", "PAUSED");
    expect(cell("10", "extract")).toHaveAccessibleName("Extract in run #10: FAILED (JOB_FAILED)");
    expect(cell("10", "check")).toHaveAccessibleName("check in run #10: SKIPPED (UPSTREAM_FAILED)");
    // Run 10's version had no "load"; run 12's has no "old".
    expect(cell("10", "load")).toHaveAccessibleName("Load is not in run #10 (version 1)");
    expect(cell("12", "old")).not.toHaveAttribute("data-status");
    expect(cell("10", "extract")).toHaveTextContent("✗");
    expect(cell("12", "extract")).toHaveTextContent("✓");
    expect(screen.getByRole("link", { name: "Run #12: PAUSED" })).toHaveAttribute("href", "/apps/orders/workflow-instances/12");

    const legend = screen.getByRole("list", { name: "What the colours mean" });
    expect(within(legend).getAllByRole("listitem").map((li) => li.textContent)).toEqual([
      "WAITING",
      "‖PAUSED",
      "▶RUNNING",
      "?AWAITING_APPROVAL",
      "✓SUCCEEDED",
      "✗FAILED",
      "■STOPPED",
      "–SKIPPED",
    ]);
    expect(screen.getByText("Columns are runs, oldest on the left; a cell opens its run at that node.")).toBeInTheDocument();
  });

  it("opens the run with the cell's node chosen", async () => {
    setup([run("12", "SUCCEEDED", [node("extract", "SUCCEEDED"), node("check", "SUCCEEDED"), node("load", "SUCCEEDED"), node("report", "SUCCEEDED")])]);
    await userEvent.click(await screen.findByRole("link", { name: "Load in run #12: SUCCEEDED" }));
    expect(await screen.findByTestId("opened")).toHaveTextContent("run 12 ?node=load");
  });

  it("stays live: a watched run's change and a new run's first instance re-read it", async () => {
    const { mock, runStreams, instanceStreams, setRuns } = setup([
      run("12", "RUNNING", [node("extract", "RUNNING"), node("check", "WAITING"), node("load", "WAITING"), node("report", "WAITING")]),
      run("10", "SUCCEEDED", [node("extract", "SUCCEEDED"), node("check", "SUCCEEDED"), node("load", "SUCCEEDED"), node("report", "SUCCEEDED")]),
    ]);
    await screen.findByTestId("workflow-grid");
    // Only the unfinished run is watched.
    expect(mock.subscribed("WorkflowGridRunChanged").map((r) => r.variables)).toEqual([{ id: "12" }]);
    expect(mock.subscribed("WorkflowGridInstanceChanged").map((r) => r.variables)).toEqual([{ app: "orders" }]);
    const reads = mock.sent("WorkflowGrid").length;

    setRuns([
      run("12", "RUNNING", [node("extract", "SUCCEEDED"), node("check", "RUNNING"), node("load", "WAITING"), node("report", "WAITING")]),
      run("10", "SUCCEEDED", [node("extract", "SUCCEEDED"), node("check", "SUCCEEDED"), node("load", "SUCCEEDED"), node("report", "SUCCEEDED")]),
    ]);
    act(() => runStreams.get("12")?.next({ data: { workflowInstanceUpdated: { __typename: "WorkflowInstance", id: "12", status: "RUNNING" } } }));
    // Re-reads come at most once a second, so a burst of changes costs one.
    expect(await screen.findByRole("link", { name: "check in run #12: RUNNING" }, { timeout: 3_000 })).toBeInTheDocument();
    expect(cell("12", "extract")).toHaveAttribute("data-status", "SUCCEEDED");
    expect(mock.sent("WorkflowGrid").length).toBeGreaterThan(reads);

    // A new run shows when its first node's instance appears; another job's instance re-reads nothing.
    const before = mock.sent("WorkflowGrid").length;
    act(() => instanceStreams[0]?.next({ data: { instanceUpdated: { __typename: "Instance", id: "99", triggerType: "API" } } }));
    expect(mock.sent("WorkflowGrid").length).toBe(before);
    setRuns([
      run("13", "RUNNING", [node("extract", "RUNNING"), node("check", "WAITING"), node("load", "WAITING"), node("report", "WAITING")]),
      run("12", "SUCCEEDED", [node("extract", "SUCCEEDED"), node("check", "SUCCEEDED"), node("load", "SUCCEEDED"), node("report", "SKIPPED")]),
      run("10", "SUCCEEDED", [node("extract", "SUCCEEDED"), node("check", "SUCCEEDED"), node("load", "SUCCEEDED"), node("report", "SUCCEEDED")]),
    ]);
    act(() => instanceStreams[0]?.next({ data: { instanceUpdated: { __typename: "Instance", id: "100", triggerType: "WORKFLOW" } } }));
    expect(await screen.findByTestId("grid-cell-13-extract", {}, { timeout: 3_000 })).toHaveAttribute("data-status", "RUNNING");
    expect(columnNames()).toEqual(["#10", "#12", "#13"]);
    expect(cell("12", "report")).toHaveAttribute("data-status", "SKIPPED");
    // The finished run is no longer watched; the new one is.
    expect(mock.subscribed("WorkflowGridRunChanged").map((r) => r.variables)).toEqual([{ id: "12" }, { id: "13" }]);
  });

  it("follows at most the newest 10 unfinished runs one by one", async () => {
    const { mock } = setup(
      Array.from({ length: 12 }, (_, i) => run(String(20 - i), i % 2 === 0 ? "RUNNING" : "WAITING", [node("extract", "WAITING")])).concat(
        run("5", "SUCCEEDED", [node("extract", "SUCCEEDED")]),
      ),
    );
    await screen.findByTestId("workflow-grid");
    expect(mock.subscribed("WorkflowGridRunChanged").map((r) => r.variables["id"])).toEqual(["20", "19", "18", "17", "16", "15", "14", "13", "12", "11"]);
  });

  it("says so when the workflow has not run", async () => {
    setup([]);
    expect(await screen.findByText("No runs yet: the grid fills in as the workflow runs.")).toBeInTheDocument();
  });
});
