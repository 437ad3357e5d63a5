import { act, screen, within } from "@testing-library/react";
import type { InstanceRowFragment } from "../graphql/graphql";
import { mockClient, renderRoutes } from "../test/render";
import { InstancesTable } from "./InstancesTable";

const running: InstanceRowFragment = {
  id: "42",
  status: "RUNNING",
  triggerType: "SCHEDULE",
  expectedTriggerTime: "2026-11-21T12:00:00Z",
  actualTriggerTime: "2026-11-21T12:00:00Z",
  startedTime: "2026-11-21T12:00:00Z",
  finishedTime: null,
  attempt: 1,
  job: { id: "7", name: "nightly-report" },
  worker: { id: "w-1", host: "worker-a" },
};

describe("the instances table", () => {
  afterEach(() => vi.useRealTimers());

  it("keeps a running instance's duration current, with no update from the server", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(new Date("2026-11-21T12:00:04Z"));
    const { asClient } = mockClient({});
    renderRoutes(
      [{ path: "/apps/:app/instances", element: <InstancesTable app="orders" instances={[running]} /> }],
      "/apps/orders/instances",
      asClient,
    );
    const row = screen.getByRole("row", { name: /#42/ });
    expect(within(row).getByText("4.0 s")).toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(6_000));
    expect(within(row).getByText("10.0 s")).toBeInTheDocument();
  });
});
