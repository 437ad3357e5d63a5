import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { WorkflowRunRowFragment, WorkflowRunsQuery } from "../graphql/graphql";
import { mockClient, renderRoutes, type MockRequest } from "../test/render";
import { WorkflowRuns } from "./WorkflowRuns";
import { WorkflowRunsPage } from "./WorkflowRunsPage";

vi.setConfig({ testTimeout: 60_000 });

function row(id: string, status: WorkflowRunRowFragment["status"], extra: Partial<WorkflowRunRowFragment> = {}): WorkflowRunRowFragment {
  return {
    id,
    status,
    reason: "",
    version: 2,
    triggerType: "API",
    triggerTime: "2026-11-21T12:00:00Z",
    startedTime: "2026-11-21T12:00:01Z",
    finishedTime: null,
    parentNodeKey: null,
    workflow: { id: "3", name: "etl" },
    ...extra,
  };
}

function page(rows: WorkflowRunRowFragment[], totalCount: number, endCursor: string | null): WorkflowRunsQuery {
  return {
    workflowInstances: {
      edges: rows.map((node) => ({ cursor: `c${node.id}`, node })),
      pageInfo: { hasNextPage: endCursor !== null, endCursor },
      totalCount,
    },
  };
}

function setup(path: string, element?: React.ReactNode) {
  const mock = mockClient({
    query: ({ name, variables }: MockRequest) => {
      if (name !== "WorkflowRuns") return undefined;
      const status = variables["status"] as string[] | null;
      if (status?.includes("FAILED")) {
        return { data: page([row("9", "FAILED", { reason: "NODE_FAILED" })], 1, null), error: undefined };
      }
      if (variables["after"] === "c8") return { data: page([row("7", "SUCCEEDED")], 27, null), error: undefined };
      return {
        data: page([row("9", "FAILED"), row("8", "RUNNING", { parentNodeKey: "sub", workflow: { id: "4", name: "child" } })], 27, "c8"),
        error: undefined,
      };
    },
  });
  const routes = element
    ? [{ path: "/apps/:app/workflows/:id", element }]
    : [{ path: "/apps/:app/workflow-instances", Component: WorkflowRunsPage }];
  const { router } = renderRoutes(routes, path, mock.asClient);
  return { mock, router };
}

describe("the workflow runs lists", () => {
  it("list the app's runs with their total, filter by status in the URL, and page", async () => {
    const user = userEvent.setup();
    const { mock, router } = setup("/apps/orders/workflow-instances");
    expect(await screen.findByTestId("runs-total")).toHaveTextContent("27 runs");
    const table = screen.getByRole("table", { name: "Workflow runs" });
    const first = within(table).getByRole("row", { name: /#9/ });
    expect(within(first).getByRole("link", { name: "#9" })).toHaveAttribute("href", "/apps/orders/workflow-instances/9");
    expect(within(first).getByRole("link", { name: "etl" })).toHaveAttribute("href", "/apps/orders/workflows/3");
    expect(within(table).getByRole("row", { name: /#8/ })).toHaveTextContent("nested (sub)");
    expect(mock.sent("WorkflowRuns")[0]?.variables).toMatchObject({ app: "orders", workflowId: null, status: null, first: 25 });
    expect(screen.getByText("Page 1 of 2")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Next" }));
    await waitFor(() => expect(mock.sent("WorkflowRuns").at(-1)?.variables["after"]).toBe("c8"));
    expect(await screen.findByText("Page 2 of 2")).toBeInTheDocument();
    expect(await screen.findByRole("link", { name: "#7" })).toBeInTheDocument();

    // A filter starts again at the first page.
    await user.click(screen.getByRole("checkbox", { name: "FAILED" }));
    await waitFor(() => expect(mock.sent("WorkflowRuns").at(-1)?.variables).toMatchObject({ status: ["FAILED"], after: null }));
    expect(router.state.location.search).toBe("?status=FAILED");
    await waitFor(() => expect(screen.getByTestId("runs-total")).toHaveTextContent("1 run"));
    expect(screen.getByText("NODE_FAILED")).toBeInTheDocument();
  });

  it("list one workflow's runs without a workflow column", async () => {
    const { mock } = setup("/apps/orders/workflows/3?tab=runs", <WorkflowRuns app="orders" workflowId="3" />);
    expect(await screen.findByTestId("runs-total")).toHaveTextContent("27 runs");
    expect(mock.sent("WorkflowRuns")[0]?.variables).toMatchObject({ workflowId: "3" });
    expect(screen.queryByRole("columnheader", { name: "Workflow" })).toBeNull();
  });
});
