import { act, screen, waitFor, within } from "@testing-library/react";
import { makeSubject, type Subject } from "wonka";
import { liveStatusStore } from "../api/live";
import type { WorkerRowFragment } from "../graphql/graphql";
import { mockClient, renderRoutes } from "../test/render";
import { WorkersPage, workersFallbackMs } from "./WorkersPage";

const routes = [{ path: "/apps/:app/workers", Component: WorkersPage }];

function worker(id: string, host: string, alive = true): WorkerRowFragment {
  return {
    id,
    host,
    tags: ["gpu"],
    processors: ["SHELL"],
    slots: 4,
    metrics: { cpuCores: 8, load1: 0.5, freeMemoryMB: 4096, freeDiskMB: 90_000 },
    connectedAt: "2026-11-22T03:00:00Z",
    lastHeartbeat: "2026-11-22T03:00:05Z",
    alive,
    health: alive ? "HEALTHY" : "LOST",
  };
}

describe("the workers page", () => {
  it("shows the listing the workersUpdated subscription pushes, as it changes", async () => {
    const pushes: Subject<{ data?: unknown }>[] = [];
    const mock = mockClient({
      query: ({ name }) => (name === "Workers" ? { data: { workers: [worker("w1", "host-a")] }, error: undefined } : undefined),
      subscription: ({ name, variables }) => {
        if (name !== "WorkersUpdated") return undefined;
        expect(variables).toEqual({ app: "orders" });
        const subject = makeSubject<{ data?: unknown }>();
        pushes.push(subject);
        return subject.source;
      },
    });
    renderRoutes(routes, "/apps/orders/workers", mock.asClient);
    expect(await screen.findByRole("row", { name: /host-a/ })).toBeInTheDocument();
    await waitFor(() => expect(pushes).toHaveLength(1));

    // A second worker connects, the first is lost.
    act(() => pushes[0]?.next({ data: { workersUpdated: [worker("w2", "host-b"), worker("w1", "host-a", false)] } }));
    const b = await screen.findByRole("row", { name: /host-b/ });
    expect(within(b).getByText("HEALTHY")).toBeInTheDocument();
    expect(within(screen.getByRole("row", { name: /host-a/ })).getByText("LOST")).toBeInTheDocument();
    // Pushed, not polled.
    expect(mock.sent("Workers")).toHaveLength(1);
  });

  it("polls, and says so, while the websocket is down", async () => {
    const live = liveStatusStore();
    live.set("connected");
    const mock = mockClient({
      query: ({ name }) => (name === "Workers" ? { data: { workers: [worker("w1", "host-a")] }, error: undefined } : undefined),
    });
    renderRoutes(routes, "/apps/orders/workers", mock.asClient, live);
    await screen.findByRole("row", { name: /host-a/ });
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      act(() => live.set("down"));
      expect(screen.getByText(/Live updates interrupted/)).toBeInTheDocument();
      const reads = mock.sent("Workers").length;
      await act(() => vi.advanceTimersByTimeAsync(workersFallbackMs * 2));
      expect(mock.sent("Workers").length).toBe(reads + 2);
      act(() => live.set("connected"));
      expect(screen.queryByText(/Live updates interrupted/)).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });
});
