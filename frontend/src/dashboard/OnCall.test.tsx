import { screen, within } from "@testing-library/react";
import type { OnCallQuery } from "../graphql/graphql";
import { mockClient, renderRoutes } from "../test/render";
import { OnCall, formatMs } from "./OnCall";

function Page() {
  return <OnCall app="orders" hours={24} />;
}

const routes = [{ path: "/apps/:app/dashboard", Component: Page }];

const summary = (p50: number, p99: number, count = 40) => ({ count, p50, p99, max: p99 * 2 });

const data: OnCallQuery = {
  appStats: {
    capacity: { workers: 2, slots: 8, freeSlots: 3 },
    lag: {
      samples: 40,
      triggerLateness: summary(2, 15),
      fireToStart: summary(90, 1500),
      buckets: [{ start: "2026-11-24T03:00:00Z", triggerLateness: summary(2, 40), fireToStart: summary(80, 900) }],
    },
    latestFailures: [
      { id: "41", reason: "NO_WORKER", result: 'no worker has tag "gpu"', finishedTime: "2026-11-24T03:10:00Z", job: { id: "7", name: "train" } },
    ],
    nextFires: [{ time: "2026-11-24T04:00:00Z", job: { id: "9", name: "nightly" } }],
  },
};

describe("the dashboard's on-call panels", () => {
  it("show lag, fire → start, capacity, the latest failures linked, and the next fires", async () => {
    const mock = mockClient({
      query: ({ name, variables }) => {
        if (name !== "OnCall") return undefined;
        expect(variables).toEqual({ app: "orders", hours: 24 });
        return { data, error: undefined };
      },
    });
    renderRoutes(routes, "/apps/orders/dashboard", mock.asClient);
    const lag = await screen.findByTestId("oncall-lag");
    expect(lag).toHaveTextContent("p50 2 ms · p99 15 ms");
    expect(lag).toHaveTextContent("worst hour p99 40 ms");
    expect(screen.getByTestId("oncall-fire-to-start")).toHaveTextContent("p50 90 ms · p99 1.5 s");
    expect(screen.getByTestId("oncall-capacity")).toHaveTextContent("3 / 8 slots free");
    const failures = screen.getByRole("table", { name: "Latest failures" });
    expect(within(failures).getByRole("link", { name: "train #41" })).toHaveAttribute("href", "/apps/orders/instances/41");
    expect(within(failures).getByText("NO_WORKER")).toBeInTheDocument();
    const next = screen.getByRole("table", { name: "Next fires" });
    expect(within(next).getByRole("link", { name: "nightly" })).toHaveAttribute("href", "/apps/orders/jobs/9");
  });

  it("formats durations", () => {
    expect(formatMs(null)).toBe("—");
    expect(formatMs(12.4)).toBe("12 ms");
    expect(formatMs(1500)).toBe("1.5 s");
    expect(formatMs(42_000)).toBe("42 s");
  });
});
