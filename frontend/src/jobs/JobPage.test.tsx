import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { AppRole, InstanceRowFragment, JobOverviewQuery, JobsQuery } from "../graphql/graphql";
import { graphQLError, mockClient, renderRoutes, type MockRequest } from "../test/render";
import { EditJobPage } from "./JobFormPage";
import { JobPage } from "./JobPage";
import { JobsPage } from "./JobsPage";

vi.mock("./ScriptEditor", () => ({
  default: ({ value, labelledBy }: { value: string; labelledBy: string }) => (
    <textarea aria-labelledby={labelledBy} value={value} readOnly />
  ),
}));

// The job form in jsdom is slow on a busy machine; this bounds a hang, not speed.
vi.setConfig({ testTimeout: 60_000 });

const routes = [
  { path: "/apps/:app/jobs", Component: JobsPage },
  { path: "/apps/:app/jobs/:jobId", Component: JobPage },
  { path: "/apps/:app/jobs/:jobId/edit", Component: EditJobPage },
];

const longName = "n".repeat(128);

function run(id: number, status: InstanceRowFragment["status"], seconds: number): InstanceRowFragment {
  const start = Date.parse("2026-11-21T12:00:00Z") + id * 60_000;
  return {
    id: String(id),
    status,
    triggerType: "SCHEDULE",
    expectedTriggerTime: null,
    actualTriggerTime: new Date(start).toISOString(),
    startedTime: new Date(start).toISOString(),
    finishedTime: new Date(start + seconds * 1000).toISOString(),
    attempt: 1,
    job: { id: "7", name: "nightly" },
    worker: null,
  };
}

const job: NonNullable<JobOverviewQuery["job"]> = {
  id: "7",
  name: "nightly",
  description: "Rebuilds the search index.",
  enabled: true,
  scheduleType: "CRON",
  scheduleExpression: "0 0 2 * * ?",
  timeZone: "UTC",
  lifecycle: { start: null, end: null },
  scheduleWindow: null,
  calendar: null,
  managedBy: null,
  managedSource: null,
  version: 1,
  executionMode: "STANDALONE",
  processorType: "SHELL",
  processor: "echo hi",
  params: "",
  maxInstances: 1,
  taskConcurrency: 5,
  timeoutMs: 0,
  instanceRetries: 0,
  taskRetries: 0,
  overlapPolicy: "CANCEL",
  maxQueued: 10,
  priority: 0,
  retryDelayMs: 0,
  retryBackoff: 1,
  retryDelayMaxMs: 0,
  pool: null,
  poolSlots: 1,
  workerFilter: { designated: [], tags: [], minCpuCores: 0, minMemoryMB: 0, minDiskMB: 0, maxWorkers: 0 },
  dispatchStrategy: "HEALTH_FIRST",
  misfirePolicy: "FIRE_ONCE",
  alarm: {
    rules: [{ type: "FAILURE", threshold: 0, silenceSec: 600 }],
    channels: [
      { type: "WEBHOOK", target: "https://hooks.example/ops" },
      { type: "EMAIL", target: "ops@example.com" },
    ],
  },
  nextTriggerTime: "2026-11-22T02:00:00Z",
  updatedAt: "2026-11-21T00:00:00Z",
  app: { id: "1", name: "orders" },
  upcoming: ["2026-11-22T02:00:00Z", "2026-11-23T02:00:00Z", "2026-11-24T02:00:00Z"],
  stats: {
    succeeded: 9,
    failed: 1,
    stopped: 1,
    canceled: 0,
    outcomes: [{ start: "2026-11-21T12:00:00Z", succeeded: 9, failed: 1, stopped: 1, canceled: 0 }],
  },
};

const overview: JobOverviewQuery = {
  job,
  instances: {
    edges: [run(3, "STOPPED", 4), run(2, "FAILED", 2), run(1, "SUCCEEDED", 3)].map((node) => ({ node })),
    totalCount: 11,
  },
};

function setup(role: AppRole, answer: (r: MockRequest) => { data: unknown; error: undefined } | undefined = () => undefined) {
  const mock = mockClient({
    role,
    query: (r: MockRequest) => answer(r) ?? (r.name === "JobOverview" ? { data: overview, error: undefined } : undefined),
  });
  const rendered = renderRoutes(routes, "/apps/orders/jobs/7", mock.asClient);
  return { mock, ...rendered };
}

describe("a job's overview page", () => {
  it("shows its schedule and next fires, success rate, alarm and latest runs, with run now and enable", async () => {
    const { mock } = setup("EDITOR");
    expect(await screen.findByRole("heading", { name: "Job nightly", level: 2 })).toBeInTheDocument();
    expect(screen.getByRole("tab", { name: "Overview" })).toHaveAttribute("aria-selected", "true");
    expect(screen.getByRole("tab", { name: "Edit" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Run nightly now" })).toBeInTheDocument();
    expect(screen.getByRole("switch", { name: "nightly enabled" })).toBeChecked();

    const schedule = screen.getByRole("region", { name: "Schedule" });
    expect(within(schedule).getByText("0 0 2 * * ?")).toBeInTheDocument();
    expect(within(within(schedule).getByRole("list", { name: "Next fires" })).getAllByRole("listitem")).toHaveLength(3);

    const success = screen.getByRole("region", { name: "Success rate" });
    expect(within(success).getByText("90%")).toBeInTheDocument();
    expect(within(success).getByText("1 stopped")).toBeInTheDocument();

    const alarm = screen.getByRole("region", { name: "Alarm" });
    expect(alarm).toHaveTextContent("When an instance fails, tell:");
    expect(alarm).toHaveTextContent("ops@example.com");

    const latest = screen.getByRole("region", { name: "Latest runs" });
    expect(within(latest).getAllByRole("row")).toHaveLength(4);
    expect(within(latest).getByRole("link", { name: "All 11 instances →" })).toHaveAttribute(
      "href",
      "/apps/orders/instances?job=7",
    );
    // Both charts (loaded on their own: a busy machine may take a while), with what they show in words.
    const loaded = { timeout: 30_000 };
    expect(
      await screen.findByRole("img", { name: /Outcomes per hour: 9 succeeded, 1 failed, 1 stopped/ }, loaded),
    ).toBeInTheDocument();
    expect(
      await screen.findByRole("img", { name: /Latest runs: 3 finished runs; median 3\.0 s, longest 4\.0 s/ }, loaded),
    ).toBeInTheDocument();
    expect(mock.sent("JobOverview")[0]?.variables).toEqual({ id: "7", app: "orders", hours: 24, runs: 30 });
  });

  it("says which set manages a job and where its definition lives: files or code", async () => {
    setup("EDITOR", (r) =>
      r.name === "JobOverview"
        ? { data: { ...overview, job: { ...job, managedBy: "billing-config", managedSource: "FILES" } }, error: undefined }
        : undefined,
    );
    const badge = await screen.findByText("Managed by billing-config (files)");
    expect(badge.closest("[title]")).toHaveAttribute("title", expect.stringMatching(/next apply of the set overwrites/));
    expect(screen.queryByText(/Managed by code/)).not.toBeInTheDocument();
  });

  it("opens the run dialog from Run now", async () => {
    const user = userEvent.setup();
    setup("EDITOR");
    await user.click(await screen.findByRole("button", { name: "Run nightly now" }));
    expect(await screen.findByRole("dialog", { name: "Run nightly" })).toBeInTheDocument();
  });

  it("goes to the edit form from its tab", async () => {
    const user = userEvent.setup();
    const { router } = setup("EDITOR", ({ name }) =>
      name === "Job" ? { data: { job: { ...job, app: { id: "1", name: "orders" } } }, error: undefined } : undefined,
    );
    await user.click(await screen.findByRole("tab", { name: "Edit" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/apps/orders/jobs/7/edit"));
    expect(await screen.findByRole("button", { name: "Save job" })).toBeInTheDocument();
  });

  it("shows a VIEWER the overview without run, enable, duplicate or delete", async () => {
    setup("VIEWER");
    await screen.findByRole("heading", { name: "Job nightly", level: 2 });
    expect(screen.queryByRole("button", { name: /Run .* now/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("switch")).not.toBeInTheDocument();
    expect(screen.queryByRole("link", { name: "Duplicate" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /^Delete/ })).not.toBeInTheDocument();
    expect(screen.getByRole("tab", { name: "Definition" })).toBeInTheDocument();
  });

  it("says once that a missing job is missing, without Try again", async () => {
    const mock = mockClient({
      query: ({ name }) =>
        name === "JobOverview" ? { data: undefined, error: graphQLError("job 7 not found", "NOT_FOUND") } : undefined,
    });
    renderRoutes(routes, "/apps/orders/jobs/7", mock.asClient);
    expect(await screen.findByText(/There is no job 7 in app orders/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Try again" })).not.toBeInTheDocument();
  });
});

describe("a long job name", () => {
  it("is cut to its column in the jobs table, whole in its tooltip, and links to the job's page", async () => {
    const jobs: JobsQuery = {
      jobs: {
        edges: [
          {
            cursor: "c7",
            node: {
              id: "7",
              name: longName,
              description: "",
              enabled: true,
              scheduleType: "CRON",
              scheduleExpression: "0 0/5 * * * ?",
              timeZone: "UTC",
              processorType: "SHELL",
              executionMode: "STANDALONE",
              nextTriggerTime: null,
              lastRun: null,
              workerFilter: { tags: [] },
            },
          },
        ],
        pageInfo: { hasNextPage: false, endCursor: null },
      },
    };
    const user = userEvent.setup();
    const mock = mockClient({ query: ({ name }) => (name === "Jobs" ? { data: jobs, error: undefined } : undefined) });
    renderRoutes(routes, "/apps/orders/jobs", mock.asClient);
    const link = await screen.findByRole("link", { name: longName });
    expect(link).toHaveAttribute("href", "/apps/orders/jobs/7");
    expect(link).toHaveAttribute("data-truncate", "end");
    // The cron expression keeps its trailing "?" on its line.
    expect(screen.getByText("0 0/5 * * * ?")).toHaveStyle({ whiteSpace: "nowrap" });
    await user.hover(link);
    expect(await screen.findByRole("tooltip")).toHaveTextContent(longName);
  });

  it("is whole in the job page's heading (which wraps) and cut in the delete dialog", async () => {
    const user = userEvent.setup();
    setup("OWNER", ({ name }) =>
      name === "JobOverview" ? { data: { ...overview, job: { ...job, name: longName } }, error: undefined } : undefined,
    );
    const heading = await screen.findByRole("heading", { name: `Job ${longName}`, level: 2 });
    // Never cut in the heading: on a narrow screen it wraps, so the page always says which job it is.
    expect(heading).toHaveTextContent(`Job ${longName}`);
    expect(heading.querySelector("[data-truncate]")).toBeNull();
    expect(heading).toHaveStyle({ overflowWrap: "anywhere" });
    await user.click(screen.getByRole("button", { name: `Delete ${longName}` }));
    const dialog = await screen.findByRole("dialog", { name: "Delete job" });
    expect(within(dialog).getByText(longName)).toHaveAttribute("data-truncate", "end");
  });
});
