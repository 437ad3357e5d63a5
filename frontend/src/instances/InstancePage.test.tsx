import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CombinedError } from "urql";
import { makeSubject, type Subject } from "wonka";
import type { AppRole, InstanceFieldsFragment, InstanceStatus } from "../graphql/graphql";
import { graphQLError, mockClient, renderRoutes, type MockRequest } from "../test/render";
import { InstancePage } from "./InstancePage";
import { settleMs } from "./useInstanceChanges";

const routes = [{ path: "/apps/:app/instances/:instanceId", Component: InstancePage }];

function instance(status: InstanceStatus): InstanceFieldsFragment {
  return {
    id: "42",
    status,
    traceId: null,
    triggerType: "API",
    expectedTriggerTime: null,
    actualTriggerTime: "2026-11-21T12:00:00Z",
    startedTime: "2026-11-21T12:00:01Z",
    finishedTime: status === "RUNNING" ? null : "2026-11-21T12:00:09Z",
    attempt: 1,
    params: "",
    result: "",
    reason: status === "FAILED" ? "FAILED" : "",
    nextAttemptAt: null,
    job: { id: "7", name: "echo-lines", executionMode: "STANDALONE" },
    worker: null,
    attempts: [],
    unqualifiedAt: null,
    unqualifiedWorkers: [],
    tasks: {
      total: 1,
      waiting: 0,
      running: status === "RUNNING" ? 1 : 0,
      succeeded: 0,
      failed: status === "FAILED" ? 1 : 0,
      stopped: status === "STOPPED" ? 1 : 0,
    },
  };
}

type Pushed = { data?: unknown };

/**
 * A server with instance 42 in `status()` and an empty stored log; the
 * subscriptions it is asked for are kept, to push values through.
 */
function setup(
  status: () => InstanceStatus,
  role: AppRole = "OWNER",
  change: Partial<InstanceFieldsFragment> = {},
  traceUrlTemplate: string | null = null,
) {
  const logs: Subject<Pushed>[] = [];
  const changes: { variables: Record<string, unknown>; subject: Subject<Pushed> }[] = [];
  const mock = mockClient({
    role,
    query: ({ name }: MockRequest) => {
      if (name === "Instance")
        return { data: { instance: { ...instance(status()), ...change }, traceUrlTemplate }, error: undefined };
      if (name === "InstanceLogs")
        return { data: { instance: { id: "42", logs: { lines: [], hasMore: false } } }, error: undefined };
      return undefined;
    },
    subscription: ({ name, variables }) => {
      const subject = makeSubject<Pushed>();
      if (name === "InstanceLogLines") logs.push(subject);
      else if (name === "InstanceChanges" || name === "InstanceLiveChanges") changes.push({ variables, subject });
      else return undefined;
      return subject.source;
    },
  });
  renderRoutes(routes, "/apps/orders/instances/42", mock.asClient);
  return { mock, logs, changes };
}

function logLine(seq: number, text: string) {
  return {
    data: { instanceLogs: { seq, time: "2026-11-21T12:00:02Z", level: "INFO", worker: "agent1", text, attempt: 1 } },
  };
}

describe("the instance page", () => {
  it("links a traced instance to its trace when the server has a trace URL", async () => {
    setup(() => "SUCCEEDED", "VIEWER", { traceId: "4bf92f3577b34da6a3ce929d0e0e4736" }, "https://jaeger.example.com/trace/{traceId}");
    const link = await screen.findByRole("link", { name: /Open trace 4bf92f35/ });
    expect(link).toHaveAttribute("href", "https://jaeger.example.com/trace/4bf92f3577b34da6a3ce929d0e0e4736");
    expect(link).toHaveAttribute("target", "_blank");
  });

  it("shows no trace link without a trace URL template", async () => {
    setup(() => "SUCCEEDED", "VIEWER", { traceId: "4bf92f3577b34da6a3ce929d0e0e4736" });
    await screen.findByText("Details");
    expect(screen.queryByRole("link", { name: /Open trace/ })).not.toBeInTheDocument();
  });

  it("says when a retried instance's next attempt is due", async () => {
    setup(() => "WAITING", "OWNER", {
      attempt: 2,
      reason: "FAILED",
      nextAttemptAt: "2026-11-21T12:00:13Z",
      attempts: [
        {
          attempt: 1,
          status: "FAILED",
          worker: "agent1",
          result: "exit status 3",
          reason: "FAILED",
          startedTime: "2026-11-21T12:00:01Z",
          finishedTime: "2026-11-21T12:00:09Z",
        },
      ],
    });
    expect(await screen.findByText("Next attempt due")).toBeInTheDocument();
    expect(screen.getByText(/\(retry back-off\)/)).toBeInTheDocument();
  });

  it("shows log lines as the instanceLogs subscription pushes them", async () => {
    const { logs, mock } = setup(() => "RUNNING");
    await screen.findByRole("heading", { name: "Instance #42" });
    expect(await screen.findByText(/No log lines yet/)).toBeInTheDocument();
    await waitFor(() => expect(logs).toHaveLength(1));
    expect(mock.subscribed("InstanceLogLines")[0]?.variables).toEqual({ instanceId: "42", afterSeq: 0 });

    act(() => logs[0]?.next(logLine(1, "line-1")));
    const table = await screen.findByTestId("log-lines");
    expect(within(table).getByRole("cell", { name: "line-1" })).toBeInTheDocument();
    act(() => logs[0]?.next(logLine(2, "line-2")));
    expect(within(table).getByRole("cell", { name: "line-2" })).toBeInTheDocument();
    expect(screen.getByText("2 lines")).toBeInTheDocument();
    expect(screen.getByText("live")).toBeInTheDocument();
    // No polling of the log meanwhile: the stored lines were read once.
    expect(mock.sent("InstanceLogs")).toHaveLength(1);
  });

  it("reads the instance afresh when instanceUpdated says it changed", async () => {
    // Time runs, and can be skipped ahead.
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      let status: InstanceStatus = "RUNNING";
      const { changes, mock } = setup(() => status);
      await screen.findByRole("heading", { name: "Instance #42" });
      await waitFor(() => expect(changes).toHaveLength(1));
      // Narrowed to the instance's job.
      expect(changes[0]?.variables).toEqual({ app: "orders", jobId: "7" });
      // A subscription starts with one fresh read, for what changed before it did.
      await act(() => vi.advanceTimersByTimeAsync(settleMs));
      await waitFor(() => expect(mock.sent("Instance").length).toBeGreaterThanOrEqual(2));
      await act(() => vi.advanceTimersByTimeAsync(1_000));
      const reads = mock.sent("Instance").length;

      // Another instance of the job changed: nothing to read.
      act(() => changes[0]?.subject.next({ data: { instanceUpdated: { id: "43", status: "SUCCEEDED" } } }));
      expect(mock.sent("Instance")).toHaveLength(reads);

      status = "FAILED";
      act(() => changes[0]?.subject.next({ data: { instanceUpdated: { id: "42", status: "FAILED" } } }));
      await waitFor(() => expect(mock.sent("Instance")).toHaveLength(reads + 1));
      expect(await screen.findByRole("button", { name: "Retry" })).toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows the status, start and worker the server pushes, even when a read raced the change", async () => {
    // Every read answers as the instance was when it was dispatched: the
    // re-read after the push was answered before the change committed.
    const { changes, mock } = setup(() => "DISPATCHED", "OWNER", { startedTime: null, finishedTime: null, worker: null });
    await screen.findByRole("heading", { name: "Instance #42" });
    const heading = screen.getByRole("heading", { name: "Instance #42" }).parentElement;
    if (!heading) throw new Error("no heading group");
    expect(within(heading).getByText("DISPATCHED")).toBeInTheDocument();
    expect(screen.getAllByText("not yet").length).toBeGreaterThan(0);
    await waitFor(() => expect(changes).toHaveLength(1));

    act(() =>
      changes[0]?.subject.next({
        data: {
          instanceUpdated: {
            id: "42",
            status: "RUNNING",
            attempt: 1,
            reason: "",
            startedTime: "2026-11-21T12:00:01Z",
            finishedTime: null,
            worker: { id: "agent-7-x", host: "agent-7", alive: true, health: "HEALTHY", lastHeartbeat: "2026-11-21T12:00:01Z" },
          },
        },
      }),
    );
    expect(await within(heading).findByText("RUNNING")).toBeInTheDocument();
    expect(screen.getByText("agent-7")).toBeInTheDocument();
    // Started is reached: only Finished still says not yet.
    expect(screen.getAllByText("not yet")).toHaveLength(1);
    expect(await screen.findByRole("button", { name: "Stop" })).toBeInTheDocument();

    // The re-read the push asked for (still answering DISPATCHED) takes nothing back.
    await waitFor(() => expect(mock.sent("Instance").length).toBeGreaterThanOrEqual(2));
    expect(within(heading).getByText("RUNNING")).toBeInTheDocument();
  });

  it("shows a live instance's log before the rest, and a finished one's result once, above its log", async () => {
    let status: InstanceStatus = "RUNNING";
    const { changes } = setup(() => status, "OWNER", { worker: null });
    const log = await screen.findByRole("heading", { name: "Log" });
    const result = screen.getByRole("heading", { name: "Result" });
    expect(log.compareDocumentPosition(result) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    // One attempt is the instance itself: no table repeats it.
    expect(screen.queryByRole("heading", { name: "Attempts" })).not.toBeInTheDocument();
    await waitFor(() => expect(changes).toHaveLength(1));

    // It finished: what it returned comes first, once, and the log stays as it was (its search kept).
    const search = screen.getByRole("searchbox", { name: "Search the log" });
    await userEvent.type(search, "boom");
    status = "FAILED";
    act(() => changes[0]?.subject.next({ data: { instanceUpdated: { id: "42", status: "FAILED" } } }));
    // Read again at each try: findByRole can return the Result heading
    // still below the log, which the re-render replaces (CI, loaded: the
    // old, detached heading never came before the log).
    await waitFor(() => {
      const failed = screen.getByRole("heading", { name: "Result" });
      expect(screen.getByRole("heading", { name: "Log" }).compareDocumentPosition(failed) & Node.DOCUMENT_POSITION_PRECEDING).toBeTruthy();
    });
    expect(screen.getByRole("searchbox", { name: "Search the log" })).toHaveValue("boom");
  });

  it("does not repeat in Result the last lines a script printed, which the log shows", async () => {
    const { logs } = setup(() => "FAILED", "OWNER", { result: "exit status 3\nabout to fail\nbye" });
    await waitFor(() => expect(logs).toHaveLength(1));
    act(() => logs[0]?.next(logLine(1, "hello")));
    act(() => logs[0]?.next(logLine(2, "about to fail")));
    act(() => logs[0]?.next(logLine(3, "bye")));
    const result = screen.getByRole("region", { name: "Result" });
    await within(result).findByText("…then the last 2 lines it printed, shown in the log below.");
    expect(within(result).getByText("exit status 3")).toBeInTheDocument();
    expect(within(result).queryByText(/about to fail/)).not.toBeInTheDocument();
    // Once in all: the log.
    expect(screen.getAllByText("about to fail")).toHaveLength(1);
  });

  it("lists a retried instance's attempts without repeating the result shown under Result", async () => {
    const attempt = (n: number, result: string) => ({
      attempt: n,
      status: "FAILED" as const,
      worker: "agent1",
      result,
      reason: "FAILED",
      startedTime: "2026-11-21T12:00:01Z",
      finishedTime: "2026-11-21T12:00:09Z",
    });
    setup(() => "FAILED", "OWNER", {
      attempt: 2,
      result: "exit status 4",
      attempts: [attempt(1, "exit status 3"), attempt(2, "exit status 4")],
    });
    const table = (await screen.findByRole("heading", { name: "Attempts" })).parentElement;
    if (!table) throw new Error("no attempts section");
    expect(screen.getAllByText("exit status 4")).toHaveLength(1);
    expect(within(table).getByText("exit status 3")).toBeInTheDocument();
    expect(within(table).getByText("Under Result, above")).toBeInTheDocument();
  });

  it("offers no stop or retry to a VIEWER", async () => {
    setup(() => "FAILED", "VIEWER");
    await screen.findByRole("heading", { name: "Instance #42" });
    expect(screen.getByText("FAILED", { selector: ".mantine-Badge-label" })).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Retry" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Stop" })).not.toBeInTheDocument();
  });

  it("offers stop to an EDITOR while it runs", async () => {
    setup(() => "RUNNING", "EDITOR");
    expect(await screen.findByRole("button", { name: "Stop" })).toBeInTheDocument();
  });

  it("draws a stopped instance's tasks as stopped, in their own colour, not as failed", async () => {
    setup(() => "STOPPED");
    await screen.findByRole("heading", { name: "Instance #42" });
    expect(screen.getByText("1 stopped")).toBeInTheDocument();
    expect(screen.getByText("0 failed")).toBeInTheDocument();
    const sections = within(screen.getByLabelText("Tasks by status")).getAllByRole("progressbar");
    expect(sections.map((s) => s.getAttribute("style"))).toEqual([expect.stringMatching(/orange/)]);
  });

  it("lists each worker that was ruled out and the filter that did it, when no worker could take the instance", async () => {
    setup(() => "FAILED", "OWNER", {
      reason: "NO_WORKER",
      unqualifiedAt: "2026-11-21T12:00:10Z",
      unqualifiedWorkers: [
        { worker: "agent1-abc", host: "host-a", filter: "TAG", reason: 'lacks tag "gpu"' },
        { worker: "agent2-def", host: "host-b", filter: "CPU", reason: "has 2 CPU cores, fewer than 8" },
      ],
    });
    const section = await screen.findByRole("region", { name: "Why no worker" });
    const rows = within(within(section).getByRole("table")).getAllByRole("row");
    expect(rows.map((r) => r.textContent)).toEqual([
      "WorkerHostFilterReason",
      'agent1-abchost-aTAGlacks tag "gpu"',
      "agent2-defhost-bCPUhas 2 CPU cores, fewer than 8",
    ]);
  });

  it("says no worker was connected when none was", async () => {
    setup(() => "FAILED", "OWNER", { reason: "NO_WORKER", unqualifiedAt: "2026-11-21T12:00:10Z", unqualifiedWorkers: [] });
    const section = await screen.findByRole("region", { name: "Why no worker" });
    expect(within(section).getByText("No worker of the app was connected.")).toBeInTheDocument();
  });

  it("shows no why-no-worker section for an instance that never waited for a worker", async () => {
    setup(() => "SUCCEEDED");
    await screen.findByRole("heading", { name: "Instance #42" });
    expect(screen.queryByRole("region", { name: "Why no worker" })).not.toBeInTheDocument();
  });

  it("says what Result holds, and for a stopped instance without one what there is instead", async () => {
    setup(() => "STOPPED", "OWNER", { reason: "STOPPED" });
    const result = await screen.findByRole("region", { name: "Result" });
    expect(within(result).getByText(/the last lines a script printed/)).toBeInTheDocument();
    expect(within(result).queryByText("None.")).not.toBeInTheDocument();
    expect(within(result).getByText(/stopped before its processor returned a result/)).toBeInTheDocument();
    expect(within(result).getByText(/Everything it printed is in the log below/)).toBeInTheDocument();
  });

  it("shows one not-found state for an instance that does not exist, and no Try again", async () => {
    const mock = mockClient({
      query: ({ name }: MockRequest) =>
        name === "Instance"
          ? { data: { instance: null }, error: graphQLError("instance 999999 not found", "NOT_FOUND") }
          : undefined,
    });
    renderRoutes(routes, "/apps/orders/instances/999999", mock.asClient);
    expect(await screen.findByText(/There is no instance 999999/)).toBeInTheDocument();
    expect(screen.queryByText(/Something went wrong/)).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Try again" })).not.toBeInTheDocument();
    expect(screen.getAllByText(/not found|no instance/i)).toHaveLength(1);
  });

  it("still offers Try again when the server could not be reached", async () => {
    const mock = mockClient({
      query: ({ name }: MockRequest) =>
        name === "Instance" ? { data: undefined, error: new CombinedError({ networkError: new Error("down") }) } : undefined,
    });
    renderRoutes(routes, "/apps/orders/instances/42", mock.asClient);
    expect(await screen.findByRole("button", { name: "Try again" })).toBeInTheDocument();
  });
});
