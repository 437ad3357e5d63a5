import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { InstanceRowFragment, InstancesQuery, JobChoicesQuery } from "../graphql/graphql";
import { makeSubject, type Subject } from "wonka";
import { liveStatusStore } from "../api/live";
import { mockClient, renderRoutes, type MockRequest } from "../test/render";
import { readFilters } from "./filters";
import { InstancesPage, instancesFallbackMs } from "./InstancesPage";
import { settleMs } from "./useInstanceChanges";

const routes = [
  { path: "/apps/:app/instances", Component: InstancesPage },
  { path: "/apps/:app/instances/:instanceId", element: <p>Instance page</p> },
];

const jobs: JobChoicesQuery = {
  jobs: {
    edges: [
      { node: { id: "7", name: "nightly-report" } },
      { node: { id: "8", name: "sync-orders" } },
    ],
  },
};

const failed: InstanceRowFragment = {
  id: "41",
  status: "FAILED",
  triggerType: "SCHEDULE",
  expectedTriggerTime: "2026-11-21T12:00:00Z",
  actualTriggerTime: "2026-11-21T12:00:00.012Z",
  startedTime: "2026-11-21T12:00:00.050Z",
  finishedTime: "2026-11-21T12:00:03.250Z",
  attempt: 2,
  job: { id: "7", name: "nightly-report" },
  worker: { id: "w-1", host: "worker-a" },
};

function page(nodes: InstanceRowFragment[]): InstancesQuery {
  return {
    instances: {
      edges: nodes.map((node) => ({ cursor: `c${node.id}`, node })),
      pageInfo: { hasNextPage: false, endCursor: null },
      totalCount: nodes.length,
    },
  };
}

function answer({ name }: MockRequest) {
  if (name === "JobChoices") return { data: jobs, error: undefined };
  if (name === "Instances") return { data: page([failed]), error: undefined };
  return undefined;
}

describe("the instances list", () => {
  it("reads its filters from the URL and asks the server for them", async () => {
    const mock = mockClient({ query: answer });
    renderRoutes(
      routes,
      "/apps/orders/instances?job=7&status=FAILED&status=STOPPED&from=2026-11-21T00:00:00.000Z",
      mock.asClient,
    );

    const row = await screen.findByRole("row", { name: /#41/ });
    const cells = within(row).getAllByRole("cell").map((c) => c.textContent);
    expect(cells).toEqual(expect.arrayContaining(["nightly-report", "FAILED", "SCHEDULE", "3.2 s", "2", "worker-a"]));

    expect(screen.getByText("1 instance match")).toBeInTheDocument();
    expect(mock.sent("Instances").at(-1)?.variables).toEqual({
      app: "orders",
      jobId: "7",
      status: ["FAILED", "STOPPED"],
      from: "2026-11-21T00:00:00.000Z",
      to: null,
      first: 50,
      after: null,
    });
    await waitFor(() => expect(screen.getByRole("textbox", { name: "Job" })).toHaveValue("nightly-report"));
    const status = screen.getByRole("textbox", { name: "Status" }).closest(".mantine-MultiSelect-root");
    expect(status).toHaveTextContent("FAILED");
    expect(status).toHaveTextContent("STOPPED");
  });

  it("puts a changed filter in the URL and asks again", async () => {
    const user = userEvent.setup();
    const mock = mockClient({ query: answer });
    const { router } = renderRoutes(routes, "/apps/orders/instances", mock.asClient);
    await screen.findByRole("row", { name: /#41/ });
    expect(mock.sent("Instances").at(-1)?.variables).toMatchObject({ jobId: null, status: null, from: null, to: null });

    await user.click(screen.getByRole("textbox", { name: "Status" }));
    await user.click(await screen.findByRole("option", { name: "RUNNING" }));
    await user.click(await screen.findByRole("option", { name: "FAILED" }));
    await waitFor(() => expect(router.state.location.search).toBe("?status=RUNNING&status=FAILED"));
    await waitFor(() =>
      expect(mock.sent("Instances").at(-1)?.variables).toMatchObject({ status: ["RUNNING", "FAILED"] }),
    );

    await user.click(screen.getByRole("textbox", { name: "Job" }));
    await user.click(await screen.findByRole("option", { name: "sync-orders" }));
    await waitFor(() => expect(router.state.location.search).toBe("?job=8&status=RUNNING&status=FAILED"));
    expect(readFilters(new URLSearchParams(router.state.location.search))).toEqual({
      jobId: "8",
      statuses: ["RUNNING", "FAILED"],
      from: null,
      to: null,
    });

    await user.click(screen.getByRole("button", { name: "Clear filters" }));
    await waitFor(() => expect(router.state.location.search).toBe(""));
    await waitFor(() => expect(mock.sent("Instances").at(-1)?.variables).toMatchObject({ jobId: null, status: null }));
  });

  it("opens an instance from its row", async () => {
    const user = userEvent.setup();
    const { router } = renderRoutes(routes, "/apps/orders/instances", mockClient({ query: answer }).asClient);
    await user.click(await screen.findByRole("cell", { name: "worker-a" }));
    expect(router.state.location.pathname).toBe("/apps/orders/instances/41");
    expect(await screen.findByText("Instance page")).toBeInTheDocument();
  });

  it("says when nothing matches the filters", async () => {
    const mock = mockClient({
      query: ({ name }) =>
        name === "Instances" ? { data: page([]), error: undefined } : { data: jobs, error: undefined },
    });
    renderRoutes(routes, "/apps/orders/instances?status=CANCELED", mock.asClient);
    expect(await screen.findByText("No instance matches these filters.")).toBeInTheDocument();
  });

  it("ignores statuses it does not know in the URL", () => {
    expect(readFilters(new URLSearchParams("status=FAILED,bogus&status=running&from=not-a-time"))).toEqual({
      jobId: null,
      statuses: ["FAILED", "RUNNING"],
      from: null,
      to: null,
    });
  });

  it("reads the list afresh when instanceUpdated reports a change, at most once a second", async () => {
    // Time runs, and can be skipped ahead.
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const changes: { variables: Record<string, unknown>; subject: Subject<{ data?: unknown }> }[] = [];
      const mock = mockClient({
        query: answer,
        subscription: ({ name, variables }) => {
          if (name !== "InstanceChanges") return undefined;
          const subject = makeSubject<{ data?: unknown }>();
          changes.push({ variables, subject });
          return subject.source;
        },
      });
      renderRoutes(routes, "/apps/orders/instances?job=7", mock.asClient);
      await screen.findByRole("row", { name: /#41/ });
      await waitFor(() => expect(changes).toHaveLength(1));
      expect(changes[0]?.variables).toEqual({ app: "orders", jobId: "7" });
      // The read a subscription starts with, for what changed before the server had it.
      await act(() => vi.advanceTimersByTimeAsync(settleMs));
      await waitFor(() => expect(mock.sent("Instances")).toHaveLength(2));
      await act(() => vi.advanceTimersByTimeAsync(1_000));

      const change = (id: string) => ({ data: { instanceUpdated: { id, status: "RUNNING" } } });
      act(() => changes[0]?.subject.next(change("50")));
      await waitFor(() => expect(mock.sent("Instances")).toHaveLength(3));
      // A burst makes one more read, at the end of the second.
      act(() => {
        changes[0]?.subject.next(change("51"));
        changes[0]?.subject.next(change("52"));
      });
      expect(mock.sent("Instances")).toHaveLength(3);
      await act(() => vi.advanceTimersByTimeAsync(1_000));
      await waitFor(() => expect(mock.sent("Instances")).toHaveLength(4));
    } finally {
      vi.useRealTimers();
    }
  });

  it("polls, and says so, while the websocket is down", async () => {
    const live = liveStatusStore();
    live.set("connected");
    const mock = mockClient({ query: answer });
    renderRoutes(routes, "/apps/orders/instances", mock.asClient, live);
    await screen.findByRole("row", { name: /#41/ });
    expect(screen.queryByText(/Live updates interrupted/)).not.toBeInTheDocument();

    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      act(() => live.set("down"));
      expect(screen.getByText(/Live updates interrupted/)).toBeInTheDocument();
      const reads = mock.sent("Instances").length;
      await act(() => vi.advanceTimersByTimeAsync(instancesFallbackMs * 2));
      expect(mock.sent("Instances").length).toBe(reads + 2);

      act(() => live.set("connected"));
      await act(() => vi.advanceTimersByTimeAsync(instancesFallbackMs * 2));
      expect(mock.sent("Instances").length).toBe(reads + 2);
      expect(screen.queryByText(/Live updates interrupted/)).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps the page in the URL: Next and Previous, a reload, a link", async () => {
    const user = userEvent.setup();
    const more = (after: unknown): InstancesQuery => {
      const first = page([{ ...failed, id: after ? "10" : "41" }]);
      first.instances.pageInfo = { hasNextPage: !after, endCursor: after ? "c10" : "c41" };
      first.instances.totalCount = 51;
      return first;
    };
    const mock = mockClient({
      query: ({ name, variables }) =>
        name === "Instances" ? { data: more(variables["after"]), error: undefined } : answer({ name, variables }),
    });
    const { router } = renderRoutes(routes, "/apps/orders/instances?status=FAILED", mock.asClient);
    await screen.findByRole("row", { name: /#41/ });
    await user.click(screen.getByRole("button", { name: "Next" }));
    await waitFor(() => expect(router.state.location.search).toBe("?status=FAILED&cursor=c41"));
    expect(await screen.findByRole("row", { name: /#10/ })).toBeInTheDocument();
    expect(screen.getByText("Page 2 of 2")).toBeInTheDocument();
    expect(mock.sent("Instances").at(-1)?.variables).toMatchObject({ status: ["FAILED"], after: "c41" });

    await user.click(screen.getByRole("button", { name: "Previous" }));
    await waitFor(() => expect(router.state.location.search).toBe("?status=FAILED"));
    expect(await screen.findByRole("row", { name: /#41/ })).toBeInTheDocument();

    // Opening the second page's address opens the second page.
    await act(() => router.navigate("/apps/orders/instances?status=FAILED&cursor=c41"));
    expect(await screen.findByRole("row", { name: /#10/ })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Previous" })).toBeEnabled();
  });

  it("past the first page, keeps its rows and offers what arrived as 'N new — show'", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const user = userEvent.setup({ advanceTimers: (ms) => vi.advanceTimersByTime(ms) });
      let total = 60;
      const changes: Subject<{ data?: unknown }>[] = [];
      const mock = mockClient({
        query: ({ name, variables }) => {
          if (name !== "Instances") return answer({ name, variables });
          const data = page([{ ...failed, id: variables["after"] ? "10" : String(total) }]);
          data.instances.totalCount = total;
          data.instances.pageInfo = { hasNextPage: true, endCursor: "c-next" };
          return { data, error: undefined };
        },
        subscription: ({ name }) => {
          if (name !== "InstanceChanges") return undefined;
          const subject = makeSubject<{ data?: unknown }>();
          changes.push(subject);
          return subject.source;
        },
      });
      const { router } = renderRoutes(routes, "/apps/orders/instances?cursor=c11", mock.asClient);
      await screen.findByRole("row", { name: /#10/ });
      await waitFor(() => expect(changes).toHaveLength(1));
      await act(() => vi.advanceTimersByTimeAsync(settleMs + 1_000));
      expect(screen.queryByRole("button", { name: /new — show/ })).not.toBeInTheDocument();

      total = 62;
      act(() => changes[0]?.next({ data: { instanceUpdated: { id: "62", status: "RUNNING" } } }));
      const show = await screen.findByRole("button", { name: "2 new — show" });
      // The page itself did not move.
      expect(screen.getByRole("row", { name: /#10/ })).toBeInTheDocument();
      expect(router.state.location.search).toBe("?cursor=c11");

      await user.click(show);
      await waitFor(() => expect(router.state.location.search).toBe(""));
      expect(await screen.findByRole("row", { name: /#62/ })).toBeInTheDocument();
      expect(screen.queryByRole("button", { name: /new — show/ })).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });
});
