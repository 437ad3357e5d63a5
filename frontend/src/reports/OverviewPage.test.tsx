import { screen, within } from "@testing-library/react";
import type { AppsOverviewQuery } from "../graphql/graphql";
import { mockClient, renderRoutes } from "../test/render";
import { OverviewPage } from "./OverviewPage";

const routes = [{ path: "/overview", Component: OverviewPage }];

const overview: AppsOverviewQuery = {
  appsOverview: [
    { app: { id: "1", name: "billing", description: "" }, jobs: 3, runsToday: 10, failuresToday: 0, runningNow: 1, workersOnline: 2 },
    { app: { id: "2", name: "orders", description: "Order pipeline" }, jobs: 5, runsToday: 8, failuresToday: 2, runningNow: 0, workersOnline: 1 },
    { app: { id: "3", name: "reports", description: "" }, jobs: 2, runsToday: 0, failuresToday: 0, runningNow: 0, workersOnline: 0 },
  ],
};

test("lists every app with its health, failing and workerless apps first", async () => {
  const mock = mockClient({ query: ({ name }) => (name === "AppsOverview" ? { data: overview, error: undefined } : undefined) });
  renderRoutes(routes, "/overview", mock.asClient);
  const table = await screen.findByRole("table", { name: "Overview" });
  const rows = within(table).getAllByRole("row").slice(1);
  const [first] = rows;
  if (!first) throw new Error("no rows");
  expect(rows.map((r) => r.getAttribute("data-app"))).toEqual(["orders", "reports", "billing"]);
  expect(rows[0]).toHaveTextContent("Failing");
  expect(rows[1]).toHaveTextContent("No workers");
  expect(rows[2]).toHaveTextContent("Healthy");
  // 6 of 8 runs today succeeded.
  expect(rows[0]).toHaveTextContent("75%");
  expect(within(first).getByTestId("failures-today")).toHaveAttribute("href", "/apps/orders/instances?status=FAILED");
  expect(within(first).getByRole("link", { name: "orders" })).toHaveAttribute("href", "/apps/orders/dashboard");
  expect(within(first).getByTestId("runs-today").getAttribute("href")).toMatch(/^\/reports\?app=orders&from=\d{4}-\d\d-\d\d&to=/);
  expect(mock.sent("AppsOverview")[0]?.variables["timeZone"]).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
});
