import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { makeSubject, type Subject } from "wonka";
import type { AppRole, AppStatsQuery } from "../graphql/graphql";
import { graphQLError, mockClient, renderRoutes, type MockRequest } from "../test/render";
import { DashboardPage } from "./DashboardPage";
import { hourRows } from "./outcomes";

const routes = [{ path: "/apps/:app/dashboard", Component: DashboardPage }];

// jsdom lays nothing out, so recharts finds its container 0 px wide and
// says so; the browser test draws the real chart.
const warn = console.warn.bind(console);
beforeEach(() => {
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].startsWith("The width(0) and height(0) of chart")) return;
    warn(...args);
  });
});
afterEach(() => vi.restoreAllMocks());

const hour = 3_600_000;
/** The start of the hour `n` hours before this one, as the API writes it. */
function hoursAgo(n: number): string {
  return new Date((Math.floor(Date.now() / hour) - n) * hour).toISOString();
}

const busy: AppStatsQuery = {
  appStats: {
    jobs: 4,
    enabledJobs: 3,
    waiting: 2,
    running: 1,
    succeeded: 17,
    failed: 3,
    workersAlive: 2,
    outcomes: [
      { start: hoursAgo(5), succeeded: 10, failed: 1, stopped: 0, canceled: 0 },
      { start: hoursAgo(1), succeeded: 7, failed: 2, stopped: 1, canceled: 4 },
    ],
  },
};

const quiet: AppStatsQuery = {
  appStats: {
    jobs: 0,
    enabledJobs: 0,
    waiting: 0,
    running: 0,
    succeeded: 0,
    failed: 0,
    workersAlive: 0,
    outcomes: [],
  },
};

function setup(stats: () => AppStatsQuery | Error, role: AppRole = "OWNER", path = "/apps/orders/dashboard") {
  const changes: Subject<{ data?: unknown }>[] = [];
  const mock = mockClient({
    role,
    query: ({ name }: MockRequest) => {
      if (name !== "AppStats") return undefined;
      const s = stats();
      return s instanceof Error
        ? { data: undefined, error: graphQLError(s.message, "INTERNAL") }
        : { data: s, error: undefined };
    },
    subscription: ({ name }) => {
      if (name !== "InstanceChanges") return undefined;
      const subject = makeSubject<{ data?: unknown }>();
      changes.push(subject);
      return subject.source;
    },
  });
  const rendered = renderRoutes(routes, path, mock.asClient);
  return { ...rendered, mock, changes };
}

function card(label: string) {
  return screen.getByTestId(`stat-${label}`);
}

describe("the dashboard", () => {
  it("shows the app's counts, each linking to what it counts, and the outcomes per hour", async () => {
    setup(() => busy);
    await screen.findByTestId("stat-Jobs");
    expect(card("Jobs")).toHaveTextContent("4");
    expect(card("Jobs")).toHaveTextContent("3 enabled");
    expect(card("Jobs")).toHaveAttribute("href", "/apps/orders/jobs");
    expect(card("Running")).toHaveTextContent("1");
    expect(card("Running")).toHaveTextContent("2 waiting");
    expect(card("Failed")).toHaveTextContent("3");
    expect(card("Failed").getAttribute("href")).toMatch(/^\/apps\/orders\/instances\?status=FAILED&from=/);
    expect(card("Succeeded")).toHaveTextContent("85% of finished runs");
    expect(card("Live workers")).toHaveTextContent("2");
    expect(card("Live workers")).toHaveAttribute("href", "/apps/orders/workers");

    // The chart comes with its own chunk, a moment later.
    expect(
      await screen.findByRole("img", { name: /Outcomes per hour: 17 succeeded, 3 failed, 1 stopped, 4 canceled/ }),
    ).toBeInTheDocument();

    // The same numbers as a table: the hours with any outcome, oldest first.
    await userEvent.setup().click(screen.getByRole("radio", { name: "Table" }));
    const table = screen.getByRole("table", { name: "Outcomes per hour" });
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((r) => within(r).getAllByRole("cell").map((c) => c.textContent))).toEqual([
      ["10", "1", "0", "0"],
      ["7", "2", "1", "4"],
    ]);
  });

  it("says so when nothing ran in the window, and when the app has no jobs", async () => {
    setup(() => quiet);
    expect(await screen.findByTestId("outcomes-empty")).toHaveTextContent(
      "No instance finished in the last 24 hours",
    );
    expect(screen.queryByRole("img", { name: /Outcomes per hour/ })).not.toBeInTheDocument();
    expect(card("Live workers")).toHaveTextContent("none connected");
    expect(screen.getByText(/has no jobs yet/)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Create one" })).toHaveAttribute("href", "/apps/orders/jobs/new");
  });

  it("offers a VIEWER no job to create", async () => {
    setup(() => quiet, "VIEWER");
    expect(await screen.findByText(/has no jobs yet/)).toBeInTheDocument();
    expect(screen.queryByRole("link", { name: "Create one" })).not.toBeInTheDocument();
  });

  it("shows an error with a retry button", async () => {
    setup(() => new Error("database is down"));
    expect(await screen.findByRole("alert")).toHaveTextContent("database is down");
    expect(screen.getByRole("button", { name: "Try again" })).toBeInTheDocument();
  });

  it("asks for the window chosen, kept in the URL", async () => {
    const { mock, router } = setup(() => busy, "OWNER", "/apps/orders/dashboard?hours=168");
    await screen.findByTestId("stat-Jobs");
    expect(mock.sent("AppStats").at(-1)?.variables).toEqual({ app: "orders", hours: 168 });
    expect(screen.getByRole("radio", { name: "7 days" })).toBeChecked();
    expect(card("Failed")).toHaveTextContent("in the last 7 days");
    await userEvent.setup().click(screen.getByRole("radio", { name: "24 hours" }));
    await waitFor(() => expect(router.state.location.search).toBe(""));
    await waitFor(() => expect(mock.sent("AppStats").at(-1)?.variables).toEqual({ app: "orders", hours: 24 }));
  });

  it("reads the counts afresh when an instance of the app changes", async () => {
    const { mock, changes } = setup(() => busy);
    await screen.findByTestId("stat-Jobs");
    await waitFor(() => expect(changes).toHaveLength(1));
    const reads = mock.sent("AppStats").length;
    act(() => changes[0]?.next({ data: { instanceUpdated: { id: "9", status: "RUNNING" } } }));
    await waitFor(() => expect(mock.sent("AppStats").length).toBeGreaterThan(reads));
  });
});

describe("hourRows", () => {
  it("has one row per hour of the window, ending with this hour, zero where the API left an hour out", () => {
    const now = Date.parse("2026-11-21T12:34:00Z");
    const rows = hourRows(
      [{ start: "2026-11-21T10:00:00Z", succeeded: 2, failed: 1, stopped: 0, canceled: 0 }],
      4,
      now,
      (d) => d.toISOString().slice(11, 16),
    );
    expect(rows.map((r) => [r.hour, r.succeeded, r.failed])).toEqual([
      ["09:00", 0, 0],
      ["10:00", 2, 1],
      ["11:00", 0, 0],
      ["12:00", 0, 0],
    ]);
  });
});
