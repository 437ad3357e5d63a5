import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { AppRole, InstanceRowFragment } from "../graphql/graphql";
import { mockClient, renderRoutes, type MockRequest } from "../test/render";
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

  describe("row actions", () => {
    const failed: InstanceRowFragment = { ...running, id: "43", status: "FAILED", finishedTime: "2026-11-21T12:00:09Z" };

    function setup(role: AppRole) {
      const mock = mockClient({
        role,
        // Apps and Me come from the mock's defaults; the log is empty and stored.
        query: ({ name }: MockRequest) =>
          name === "InstanceLogs" ? { data: { instance: { id: "43", logs: { lines: [], hasMore: false } } }, error: undefined } : undefined,
        mutation: ({ name, variables }: MockRequest) =>
          name === "StopInstance"
            ? { data: { stopInstance: { ...running, id: variables["id"], status: "STOPPED" } }, error: undefined }
            : undefined,
      });
      const { router } = renderRoutes(
        [
          { path: "/apps/:app/instances", element: <InstancesTable app="orders" instances={[running, failed]} /> },
          { path: "/apps/:app/instances/:id", element: <p>instance page</p> },
        ],
        "/apps/orders/instances",
        mock.asClient,
      );
      return { mock, router };
    }

    it("stop a running instance from its row, after asking, without opening it", async () => {
      const user = userEvent.setup();
      const { mock, router } = setup("EDITOR");
      const row = await screen.findByRole("row", { name: /#42/ });
      await user.click(await within(row).findByRole("button", { name: "Stop instance #42" }));
      const dialog = await screen.findByRole("dialog", { name: "Stop instance" });
      await user.click(within(dialog).getByRole("button", { name: "Stop instance" }));
      await waitFor(() => expect(mock.mutated("StopInstance")).toEqual([{ name: "StopInstance", variables: { id: "42" } }]));
      expect(router.state.location.pathname).toBe("/apps/orders/instances");
      // A failed one offers Retry instead, a running one no Retry.
      const failedRow = screen.getByRole("row", { name: /#43/ });
      expect(within(failedRow).getByRole("button", { name: "Retry instance #43" })).toBeInTheDocument();
      expect(within(failedRow).queryByRole("button", { name: /^Stop/ })).not.toBeInTheDocument();
      expect(within(row).queryByRole("button", { name: /^Retry/ })).not.toBeInTheDocument();
    });

    it("open an instance's log in a drawer, beside the list", async () => {
      const user = userEvent.setup();
      const { router } = setup("VIEWER");
      const row = await screen.findByRole("row", { name: /#43/ });
      await user.click(within(row).getByRole("button", { name: "Log of instance #43" }));
      const drawer = await screen.findByRole("dialog", { name: "Log of instance #43" });
      expect(within(drawer).getByRole("link", { name: "Open the instance →" })).toHaveAttribute("href", "/apps/orders/instances/43");
      expect(router.state.location.pathname).toBe("/apps/orders/instances");
    });

    it("offer a VIEWER no stop or retry", async () => {
      setup("VIEWER");
      const row = await screen.findByRole("row", { name: /#43/ });
      await screen.findByRole("button", { name: "Log of instance #42" });
      expect(within(row).queryByRole("button", { name: /^(Stop|Retry)/ })).not.toBeInTheDocument();
      expect(screen.queryByRole("button", { name: "Stop instance #42" })).not.toBeInTheDocument();
    });
  });
});
