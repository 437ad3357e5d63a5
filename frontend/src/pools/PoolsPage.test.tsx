import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { makeSubject, type Subject } from "wonka";
import type { AppRole, PoolFieldsFragment, PoolInstanceFieldsFragment } from "../graphql/graphql";
import { graphQLError, mockClient, renderRoutes, type MockRequest } from "../test/render";
import { PoolsPage } from "./PoolsPage";

// Dialogs in jsdom are slow on a busy machine; this bounds a hang, not speed.
vi.setConfig({ testTimeout: 60_000 });

const routes = [{ path: "/apps/:app/pools", Component: PoolsPage }];

function instance(id: string, over: Partial<PoolInstanceFieldsFragment> = {}): PoolInstanceFieldsFragment {
  return {
    id,
    status: "RUNNING",
    reason: "",
    result: "",
    triggerType: "API",
    actualTriggerTime: "2026-11-20T10:00:00Z",
    startedTime: "2026-11-20T10:00:01Z",
    poolSlots: 1,
    poolPosition: null,
    job: { id: "7", name: "write" },
    ...over,
  };
}

const db: PoolFieldsFragment = {
  id: "3",
  name: "db",
  description: "Connections to the orders database",
  slots: 2,
  usedSlots: 2,
  holders: [instance("41"), instance("42")],
  queue: [
    instance("43", { status: "WAITING", reason: "POOL_FULL", startedTime: null, poolPosition: 1 }),
    instance("44", { status: "WAITING", reason: "POOL_FULL", startedTime: null, poolPosition: 2, job: { id: "8", name: "report" } }),
  ],
  jobs: [
    { id: "7", name: "write", poolSlots: 1 },
    { id: "8", name: "report", poolSlots: 1 },
  ],
  updatedAt: "2026-11-20T10:00:00Z",
};

function setup(role: AppRole = "EDITOR", pools: PoolFieldsFragment[] = [db]) {
  const changes: Subject<{ data?: unknown }>[] = [];
  const mock = mockClient({
    role,
    query: ({ name }: MockRequest) => (name === "AppPools" ? { data: { pools }, error: undefined } : undefined),
    mutation: ({ name, variables }) => {
      if (name === "DeletePool") {
        return { data: undefined, error: graphQLError('pool "db" is named by job "write"; change them first', "CONFLICT") };
      }
      const input = variables["input"] as { name: string; description: string; slots: number };
      if (input.slots < 1) return { data: undefined, error: graphQLError("0 is out of range 1 to 10000", "BAD_INPUT", "slots") };
      const pool = { ...db, id: "4", ...input, holders: [], queue: [], jobs: [], usedSlots: 0 };
      return name === "CreatePool"
        ? { data: { createPool: pool }, error: undefined }
        : { data: { updatePool: pool }, error: undefined };
    },
    subscription: ({ name }) => {
      if (name !== "InstanceChanges") return undefined;
      const subject = makeSubject<{ data?: unknown }>();
      changes.push(subject);
      return subject.source;
    },
  });
  renderRoutes(routes, "/apps/orders/pools", mock.asClient);
  return { mock, changes };
}

describe("the pools screen", () => {
  it("shows each pool's use, its holders and its queue in order with their places, and the jobs that name it", async () => {
    setup();
    const pool = await screen.findByRole("region", { name: "Pool db" });
    expect(within(pool).getByTestId("pool-usage")).toHaveTextContent("2 of 2 slots in use");
    const holders = within(pool).getByRole("table", { name: "Holding" });
    expect(within(holders).getByRole("link", { name: "Instance 41" })).toHaveAttribute("href", "/apps/orders/instances/41");
    const queue = within(within(pool).getByRole("table", { name: "Waiting" }).querySelector("tbody") as HTMLElement).getAllByRole("row");
    expect(queue.map((r) => r.textContent)).toEqual([expect.stringMatching(/^#1Instance 43write/), expect.stringMatching(/^#2Instance 44report/)]);
    expect(within(pool).getByRole("link", { name: "report (1 slot)" })).toHaveAttribute("href", "/apps/orders/jobs/8");
  });

  it("reads the pools afresh when an instance of the app changes", async () => {
    const { mock, changes } = setup();
    await screen.findByRole("region", { name: "Pool db" });
    await waitFor(() => expect(changes).toHaveLength(1));
    const before = mock.sent("AppPools").length;
    act(() => changes[0]?.next({ data: { instanceUpdated: { id: "43", status: "DISPATCHED" } } }));
    await waitFor(() => expect(mock.sent("AppPools").length).toBeGreaterThan(before));
  });

  it("creates a pool, showing the server's error at its field", async () => {
    const user = userEvent.setup();
    const { mock } = setup();
    await user.click(await screen.findByRole("button", { name: "New pool" }));
    const dialog = await screen.findByRole("dialog", { name: "New pool" });
    await user.type(within(dialog).getByRole("textbox", { name: /^Name/ }), "gpu");
    const slots = within(dialog).getByRole("textbox", { name: /^Slots/ });
    await user.clear(slots);
    await user.type(slots, "0");
    await user.click(within(dialog).getByRole("button", { name: "Create pool" }));
    expect(await within(dialog).findByText("0 is out of range 1 to 10000")).toBeInTheDocument();
    await user.clear(slots);
    await user.type(slots, "4");
    await user.click(within(dialog).getByRole("button", { name: "Create pool" }));
    await waitFor(() => expect(mock.mutated("CreatePool")).toHaveLength(2));
    expect(mock.mutated("CreatePool")[1]?.variables).toEqual({ input: { app: "orders", name: "gpu", description: "", slots: 4 } });
  });

  it("says why a pool cannot be deleted", async () => {
    const user = userEvent.setup();
    setup();
    await user.click(await screen.findByRole("button", { name: "Delete db" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete pool" });
    await user.click(within(dialog).getByRole("button", { name: "Delete pool" }));
    expect(await within(dialog).findByText(/named by job "write"/)).toBeInTheDocument();
  });

  it("gives a VIEWER the pools and no control that changes them", async () => {
    setup("VIEWER");
    await screen.findByRole("region", { name: "Pool db" });
    expect(screen.queryByRole("button", { name: "New pool" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Delete db" })).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Show db" })).toBeInTheDocument();
  });
});
