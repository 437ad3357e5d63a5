import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { RunReportQuery } from "../graphql/graphql";
import { graphQLError, mockClient, renderRoutes } from "../test/render";
import { ReportsPage } from "./ReportsPage";
import { jobTotals, rangeInstants } from "./report";

const routes = [{ path: "/reports", Component: ReportsPage }];

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

const nightly = { id: "7", name: "nightly-export", app: { id: "1", name: "orders" } };
const invoices = { id: "9", name: "send-invoices", app: { id: "2", name: "billing" } };

const report: RunReportQuery = {
  runReport: {
    from: "2026-11-20T00:00:00Z",
    to: "2026-11-22T00:00:00Z",
    timeZone: "UTC",
    days: [
      { date: "2026-11-20", start: "2026-11-20T00:00:00Z", runs: 5, succeeded: 3, failed: 1, stopped: 1, canceled: 0 },
      { date: "2026-11-21", start: "2026-11-21T00:00:00Z", runs: 4, succeeded: 2, failed: 2, stopped: 0, canceled: 0 },
    ],
    rows: [
      { date: "2026-11-20", job: nightly, runs: 4, succeeded: 3, failed: 0, stopped: 1, canceled: 0, durationP50Ms: 1200, durationP95Ms: 2500, durationMaxMs: 3000 },
      { date: "2026-11-20", job: invoices, runs: 1, succeeded: 0, failed: 1, stopped: 0, canceled: 0, durationP50Ms: 400, durationP95Ms: 400, durationMaxMs: 400 },
      { date: "2026-11-21", job: nightly, runs: 4, succeeded: 2, failed: 2, stopped: 0, canceled: 0, durationP50Ms: 900, durationP95Ms: 5000, durationMaxMs: 65_000 },
    ],
  },
};

function setup(path: string, answer: () => RunReportQuery | Error = () => report) {
  const mock = mockClient({
    query: ({ name }) => {
      if (name !== "RunReport") return undefined;
      const a = answer();
      return a instanceof Error ? { data: undefined, error: graphQLError(a.message, "BAD_INPUT", "to") } : { data: a, error: undefined };
    },
  });
  renderRoutes(routes, path, mock.asClient);
  return mock;
}

test("asks for the days in the URL, cut in the viewer's zone, for every app", async () => {
  const mock = setup("/reports?from=2026-11-20&to=2026-11-21");
  await screen.findByTestId("report-runs");
  const asked = mock.sent("RunReport").at(-1)?.variables;
  const range = rangeInstants("2026-11-20", "2026-11-21");
  expect(asked).toMatchObject({ app: null, from: range.from, to: range.to });
  expect(asked?.["timeZone"]).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  // The day after the last one is the end (exclusive).
  expect(Date.parse(range.to) - Date.parse(range.from)).toBeGreaterThanOrEqual(47 * 3_600_000);
});

test("shows the totals, per job with each job's app, per day, and per day and job with durations", async () => {
  setup("/reports?from=2026-11-20&to=2026-11-21");
  expect(await screen.findByTestId("report-runs-value")).toHaveTextContent("9");
  expect(screen.getByTestId("report-succeeded-value")).toHaveTextContent("5");
  expect(screen.getByTestId("report-failed-value")).toHaveTextContent("3");
  expect(screen.getByTestId("report-other-value")).toHaveTextContent("1");
  // 5 of 8 that succeeded or failed.
  expect(screen.getByTestId("report-rate-value")).toHaveTextContent("63%");

  const jobs = screen.getByRole("table", { name: "Per job" });
  const jobRows = within(jobs).getAllByRole("row").slice(1);
  expect(jobRows).toHaveLength(2);
  expect(jobRows[0]).toHaveTextContent("nightly-export");
  expect(jobRows[0]).toHaveTextContent("orders");
  const [first] = jobRows;
  if (!first) throw new Error("no rows");
  expect(within(first).getByRole("link", { name: "nightly-export" })).toHaveAttribute("href", "/apps/orders/jobs/7");
  expect(jobRows[0]).toHaveTextContent("1 m 05 s");
  expect(jobRows[1]).toHaveTextContent("billing");

  await userEvent.click(screen.getByRole("tab", { name: "Per day" }));
  const days = screen.getByRole("table", { name: "Per day" });
  expect(within(days).getAllByRole("row")).toHaveLength(3);

  await userEvent.click(screen.getByRole("tab", { name: "Per day and job" }));
  const rows = within(screen.getByRole("table", { name: "Per day and job" })).getAllByRole("row").slice(1);
  expect(rows).toHaveLength(3);
  expect(rows[2]).toHaveTextContent("900 ms");
  expect(rows[2]).toHaveTextContent("5.0 s");
});

test("a report for one app names it in the URL and asks for that app", async () => {
  const mock = setup("/reports?app=orders&from=2026-11-20&to=2026-11-21");
  await screen.findByTestId("report-runs");
  expect(mock.sent("RunReport").at(-1)?.variables).toMatchObject({ app: "orders" });
});

test("a preset asks for the last 30 days", async () => {
  const mock = setup("/reports");
  await screen.findByTestId("report-runs");
  await userEvent.click(screen.getByRole("button", { name: "Last 30 days" }));
  await waitFor(() => {
    const v = mock.sent("RunReport").at(-1)?.variables;
    const days = (Date.parse(String(v?.["to"])) - Date.parse(String(v?.["from"]))) / 86_400_000;
    expect(Math.round(days)).toBe(30);
  });
  expect(screen.getByRole("button", { name: "Last 30 days" })).toHaveAttribute("aria-pressed", "true");
});

test("says so when no run finished", async () => {
  setup("/reports", () => ({ runReport: { ...report.runReport, days: [], rows: [] } }));
  expect(await screen.findByTestId("report-empty")).toHaveTextContent("No run finished in these days.");
});

test("shows the server's refusal", async () => {
  setup("/reports", () => new Error("to: the range spans at most 92 days"));
  expect(await screen.findByText(/at most 92 days/)).toBeInTheDocument();
});

test("job totals add up a job's days, most runs first", () => {
  const totals = jobTotals(report.runReport.rows);
  expect(totals.map((t) => [t.job.name, t.runs, t.failed, t.durationMaxMs])).toEqual([
    ["nightly-export", 8, 2, 65_000],
    ["send-invoices", 1, 1, 400],
  ]);
});
