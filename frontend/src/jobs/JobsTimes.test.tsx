import { screen, within } from "@testing-library/react";
import type { JobRowFragment, JobsQuery } from "../graphql/graphql";
import { clockIn, viewerZone } from "../components/ZonedTime";
import { mockClient, renderRoutes, type MockRequest } from "../test/render";
import { JobsPage } from "./JobsPage";

const routes = [{ path: "/apps/:app/jobs", Component: JobsPage }];

const day = 86_400_000;
/** A zone that is not the viewer's (whatever zone the tests run in). */
const elsewhere = viewerZone() === "Asia/Shanghai" ? "America/New_York" : "Asia/Shanghai";

function row(id: string, name: string, timeZone: string, next: string, last: string): JobRowFragment {
  return {
    id,
    name,
    description: "",
    enabled: true,
    scheduleType: "CRON",
    scheduleExpression: "0 0 18 * * ?",
    timeZone,
    processorType: "SHELL",
    executionMode: "STANDALONE",
    nextTriggerTime: next,
    lastRun: { id: `${id}1`, status: "SUCCEEDED", actualTriggerTime: last },
    workerFilter: { tags: [] },
  };
}

function render(rows: JobRowFragment[]) {
  const jobs: JobsQuery = {
    jobs: { edges: rows.map((node) => ({ cursor: node.id, node })), pageInfo: { hasNextPage: false, endCursor: null } },
  };
  const answer = ({ name }: MockRequest) => (name === "Jobs" ? { data: jobs, error: undefined } : undefined);
  renderRoutes(routes, "/apps/orders/jobs", mockClient({ query: answer }).asClient);
}

describe("times in the jobs list", () => {
  it("show the date of a fire that is not today", async () => {
    const next = new Date(Date.now() + 3 * day);
    render([row("1", "here", viewerZone(), next.toISOString(), new Date(Date.now() - 3 * day).toISOString())]);
    const r = await screen.findByRole("row", { name: /here/ });
    const [nextTime, lastTime] = within(r).getAllByRole("time");
    const month = new Intl.DateTimeFormat("en", { month: "short" }).format(next);
    expect(nextTime).toHaveTextContent(new RegExp(`${month} ${next.getDate()}\\b`));
    expect(lastTime).toHaveTextContent(/[A-Z][a-z]{2} \d{1,2}\b/);
    // In the viewer's own zone, no second clock.
    expect(within(r).queryByTestId("zoned-time")).not.toBeInTheDocument();
  });

  it("also show a job's times as the clock reads in its zone when it is not the viewer's", async () => {
    const next = new Date(Date.now() + 3 * day).toISOString();
    const last = new Date(Date.now() - 3 * day).toISOString();
    render([row("2", "shanghai", elsewhere, next, last)]);
    const r = await screen.findByRole("row", { name: /shanghai/ });
    const zoned = within(r).getAllByTestId("zoned-time");
    expect(zoned).toHaveLength(2);
    expect(zoned[0]).toHaveTextContent(`${clockIn(next, elsewhere)} ${elsewhere}`);
    expect(zoned[1]).toHaveTextContent(`${clockIn(last, elsewhere)} ${elsewhere}`);
  });

  it("give no second clock to a job whose schedule has no zone (API, fixed rate)", async () => {
    const last = new Date(Date.now() - 3 * day).toISOString();
    render([{ ...row("3", "on-demand", elsewhere, last, last), scheduleType: "API", nextTriggerTime: null }]);
    const r = await screen.findByRole("row", { name: /on-demand/ });
    expect(within(r).getAllByRole("time")).toHaveLength(1);
    expect(within(r).queryByTestId("zoned-time")).not.toBeInTheDocument();
  });

  it("say the clock in another zone with its date only when that is not its today", () => {
    const now = new Date("2026-11-28T09:00:00Z"); // 17:00 in Shanghai
    expect(clockIn("2026-11-28T10:00:00Z", "Asia/Shanghai", now)).toMatch(/^06:00:00 PM$|^18:00:00$/);
    expect(clockIn("2026-11-28T17:00:00Z", "Asia/Shanghai", now)).toMatch(/^Nov 29, /);
    expect(clockIn("2026-11-28T10:00:00Z", "No/Such_Zone", now)).toBeNull();
  });
});
