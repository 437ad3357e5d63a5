import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { InstanceFieldsFragment, InstanceStatus, TaskRowFragment, TaskStatus } from "../graphql/graphql";
import { mockClient, renderRoutes, type MockRequest } from "../test/render";
import { InstancePage } from "./InstancePage";
import { taskPageSize } from "./TasksSection";
import { taskPollMs } from "./useTaskSummary";

const routes = [{ path: "/apps/:app/instances/:instanceId", Component: InstancePage }];

const counts = { total: 1000, waiting: 300, running: 95, succeeded: 600, failed: 5, stopped: 0 };

function instance(status: InstanceStatus): InstanceFieldsFragment {
  return {
    id: "42",
    status,
    traceId: null,
    triggerType: "API",
    expectedTriggerTime: null,
    actualTriggerTime: "2026-11-21T12:00:00Z",
    startedTime: "2026-11-21T12:00:01Z",
    finishedTime: null,
    attempt: 1,
    params: "",
    result: status === "SUCCEEDED" ? "sum=500500" : "",
    reason: "",
    nextAttemptAt: null,
    job: { id: "7", name: "sum", executionMode: "MAP_REDUCE" },
    worker: null,
    attempts: [],
    unqualifiedAt: null,
    unqualifiedWorkers: [],
    tasks: counts,
  };
}

function row(id: number, status: TaskStatus): TaskRowFragment {
  return {
    id: String(id),
    name: `part-${id}`,
    kind: "MAP",
    status,
    workerId: status === "WAITING" ? null : "agent-1",
    attempt: 1,
    createdTime: "2026-11-21T12:00:02Z",
    finishedTime: null,
    nextAttemptAt: null,
  };
}

/** A page of tasks after `after` (the cursor is the last id), of the statuses asked. */
function page({ status, after }: Record<string, unknown>) {
  const statuses = (status as TaskStatus[] | null) ?? ["SUCCEEDED"];
  const from = after ? Number(after) + 1 : 100;
  const rows = Array.from({ length: taskPageSize }, (_, i) => row(from + i, statuses[0] ?? "SUCCEEDED"));
  return {
    instance: {
      id: "42",
      taskList: {
        edges: rows.map((r) => ({ cursor: r.id, node: r })),
        pageInfo: { hasNextPage: true, endCursor: rows.at(-1)?.id ?? null },
      },
    },
  };
}

function setup(status: InstanceStatus, summary = () => counts, path = "/apps/orders/instances/42") {
  const mock = mockClient({
    query: ({ name, variables }: MockRequest) => {
      switch (name) {
        case "Instance":
          return { data: { instance: instance(status) }, error: undefined };
        case "InstanceLogs":
          return { data: { instance: { id: "42", logs: { lines: [], hasMore: false } } }, error: undefined };
        case "InstanceTaskSummary":
          return { data: { instance: { id: "42", status, tasks: summary() } }, error: undefined };
        case "InstanceTasks":
          return { data: page(variables), error: undefined };
        case "InstanceTask":
          return {
            data: {
              instance: {
                id: "42",
                task: {
                  ...row(Number(variables.taskId), "FAILED"),
                  parentId: "1",
                  payload: "x".repeat(4096),
                  payloadSize: 10_000,
                  result: "boom: the part was malformed",
                  resultSize: 28,
                  instanceAttempt: 1,
                  dispatchedTime: "2026-11-21T12:00:03Z",
                  updatedTime: "2026-11-21T12:00:04Z",
                  worker: { id: "agent-1", host: "host-a", alive: true },
                },
              },
            },
            error: undefined,
          };
      }
      return undefined;
    },
  });
  const { router } = renderRoutes(routes, path, mock.asClient);
  return { mock, router };
}

describe("an instance's tasks", () => {
  it("shows how far a MAP_REDUCE instance has got, and its reduce result", async () => {
    setup("SUCCEEDED");
    expect(await screen.findByText("60% done")).toBeInTheDocument();
    expect(screen.getByText(/605 of 1,000 tasks finished/)).toBeInTheDocument();
    const result = screen.getByRole("region", { name: "Result of the reduce" });
    expect(within(result).getByText("sum=500500")).toBeInTheDocument();
  });

  it("re-reads the counts while the instance runs", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout"] });
    try {
      let now = counts;
      const { mock } = setup("RUNNING", () => now);
      expect(await screen.findByText("60% done")).toBeInTheDocument();
      now = { ...counts, waiting: 5, running: 0, succeeded: 990 };
      await act(() => vi.advanceTimersByTimeAsync(taskPollMs));
      expect(await screen.findByText("99% done")).toBeInTheDocument();
      expect(mock.sent("InstanceTaskSummary").length).toBeGreaterThanOrEqual(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("filters by status with the summary's counts and pages by cursor", async () => {
    const user = userEvent.setup();
    const { mock, router } = setup("SUCCEEDED");
    const table = await screen.findByRole("table", { name: "Tasks of this page" });
    expect(within(table).getByText("part-100")).toBeInTheDocument();
    expect(mock.sent("InstanceTasks")[0]?.variables).toEqual({ id: "42", status: null, first: taskPageSize, after: null });
    expect(screen.getByText("Page 1 of 50")).toBeInTheDocument();

    await user.click(screen.getByText("Failed (5)"));
    await waitFor(() =>
      expect(mock.sent("InstanceTasks").at(-1)?.variables).toMatchObject({ status: ["FAILED"], after: null }),
    );
    expect(router.state.location.search).toBe("?taskStatus=failed");
    await user.click(screen.getByText("Running (95)"));
    await waitFor(() =>
      expect(mock.sent("InstanceTasks").at(-1)?.variables).toMatchObject({ status: ["DISPATCHED", "RUNNING"] }),
    );
    expect(await screen.findByText("Page 1 of 5")).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Next" }));
    await waitFor(() => expect(mock.sent("InstanceTasks").at(-1)?.variables).toMatchObject({ after: "119" }));
    expect(await screen.findByText("Page 2 of 5")).toBeInTheDocument();
    expect(await screen.findByText("part-120")).toBeInTheDocument();
  });

  it("opens a task in a drawer with its payload cut and sized, result, worker, attempt and times", async () => {
    const user = userEvent.setup();
    const { mock, router } = setup("SUCCEEDED");
    await user.click(await screen.findByRole("button", { name: "Task #105" }));
    const drawer = await screen.findByRole("dialog", { name: "Task #105" });
    expect(mock.sent("InstanceTask")[0]?.variables).toEqual({ id: "42", taskId: "105" });
    expect(router.state.location.search).toBe("?task=105");
    expect(await within(drawer).findByText("boom: the part was malformed")).toBeInTheDocument();
    const payload = within(drawer).getByRole("region", { name: "Payload" });
    expect(within(payload).getByText("9.8 KiB")).toBeInTheDocument();
    expect(within(payload).getByText("The first 4,096 characters of 9.8 KiB.")).toBeInTheDocument();
    expect(within(drawer).getByText("host-a")).toBeInTheDocument();
    expect(within(drawer).getByText(/of instance attempt 1/)).toBeInTheDocument();
    expect(within(drawer).getByText("task #1")).toBeInTheDocument();

    await user.keyboard("{Escape}");
    await waitFor(() => expect(router.state.location.search).toBe(""));
  });

  it("opens the task a link names", async () => {
    setup("SUCCEEDED", () => counts, "/apps/orders/instances/42?task=7");
    expect(await screen.findByRole("dialog", { name: "Task #7" })).toBeInTheDocument();
  });
});
