import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { AppRole, JobFieldsFragment, JobRowFragment, JobsQuery } from "../graphql/graphql";
import { mockClient, renderRoutes, type MockRequest } from "../test/render";
import { copyName, EditJobPage, NewJobPage } from "./JobFormPage";
import { JobsPage } from "./JobsPage";

// CodeMirror needs layout jsdom lacks; a textarea stands in for it.
vi.mock("./ScriptEditor", () => ({
  default: ({ value, labelledBy, readOnly }: { value: string; labelledBy: string; readOnly?: boolean }) => (
    <textarea aria-labelledby={labelledBy} value={value} readOnly={readOnly} onChange={() => undefined} />
  ),
}));

// The job form in jsdom is slow on a busy machine; this bounds a hang, not speed.
vi.setConfig({ testTimeout: 60_000 });

const routes = [
  { path: "/apps/:app/jobs", Component: JobsPage },
  { path: "/apps/:app/jobs/new", Component: NewJobPage },
  { path: "/apps/:app/jobs/:jobId/edit", Component: EditJobPage },
];

const row: JobRowFragment = {
  id: "7",
  name: "echo-lines",
  description: "",
  enabled: true,
  scheduleType: "API",
  scheduleExpression: "",
  timeZone: "UTC",
  processorType: "SHELL",
  executionMode: "STANDALONE",
  nextTriggerTime: null,
  lastRun: { id: "41", status: "FAILED", actualTriggerTime: "2026-11-21T12:00:00Z" },
  workerFilter: { tags: [] },
};

const jobs: JobsQuery = {
  jobs: { edges: [{ cursor: "c7", node: row }], pageInfo: { hasNextPage: false, endCursor: null } },
};

const job: JobFieldsFragment & { app: { id: string; name: string } } = {
  ...row,
  app: { id: "1", name: "orders" },
  lifecycle: { start: null, end: null },
  scheduleWindow: null,
  calendar: null,
  managedBy: null,
  managedSource: null,
  version: 1,
  processor: "echo hello",
  params: "",
  maxInstances: 1,
  taskConcurrency: 1,
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
  misfirePolicy: "SKIP",
  alarm: { rules: [], channels: [] },
  updatedAt: "2026-11-21T00:00:00Z",
};

function answer({ name }: MockRequest) {
  if (name === "Jobs") return { data: jobs, error: undefined };
  if (name === "Job") return { data: { job }, error: undefined };
  return undefined;
}

function render(path: string, role: AppRole) {
  return renderRoutes(routes, path, mockClient({ query: answer, role }).asClient);
}

/** Buttons and switches that change something. */
const editControls = [/^New job$/, /^Run .* now$/, /^Edit /, /^Delete /, /^Duplicate$/, /^More actions for /];

describe("the jobs screens by role", () => {
  it("show a VIEWER the jobs without a button that changes or runs one", async () => {
    render("/apps/orders/jobs", "VIEWER");
    const jobRow = await screen.findByRole("row", { name: /echo-lines/ });
    for (const name of editControls) {
      expect(screen.queryByRole("button", { name })).not.toBeInTheDocument();
      expect(screen.queryByRole("link", { name })).not.toBeInTheDocument();
    }
    expect(within(jobRow).queryByRole("switch")).not.toBeInTheDocument();
    expect(within(jobRow).getByText("Enabled")).toBeInTheDocument();
    // The job itself still opens, to be read.
    expect(within(jobRow).getByRole("link", { name: "echo-lines" })).toHaveAttribute("href", "/apps/orders/jobs/7");
  });

  it("give an EDITOR new, run, edit, delete and the enable switch", async () => {
    const user = userEvent.setup();
    render("/apps/orders/jobs", "EDITOR");
    const jobRow = await screen.findByRole("row", { name: /echo-lines/ });
    expect(screen.getByRole("link", { name: "New job" })).toBeInTheDocument();
    expect(within(jobRow).getByRole("button", { name: "Run echo-lines now" })).toBeInTheDocument();
    // The row's other actions are in its menu, so the row stays narrow.
    await user.click(within(jobRow).getByRole("button", { name: "More actions for echo-lines" }));
    expect(await screen.findByRole("menuitem", { name: "Edit" })).toHaveAttribute("href", "/apps/orders/jobs/7/edit");
    expect(screen.getByRole("menuitem", { name: "Instances" })).toHaveAttribute("href", "/apps/orders/instances?job=7");
    expect(screen.getByRole("menuitem", { name: "Delete" })).toBeInTheDocument();
    await user.keyboard("{Escape}");
    expect(within(jobRow).getByRole("switch", { name: "echo-lines enabled" })).toBeChecked();
    // Its last run, linked.
    expect(within(jobRow).getByRole("link", { name: "Instance #41: FAILED" })).toHaveAttribute(
      "href",
      "/apps/orders/instances/41",
    );
  });

  it("let an EDITOR duplicate a job: the new-job form starts from its copy, renamed", async () => {
    const user = userEvent.setup();
    const mock = mockClient({
      query: answer,
      mutation: ({ name }) =>
        name === "CreateJob" ? { data: { createJob: { ...job, id: "8", name: "echo-lines-copy" } } } : undefined,
      role: "EDITOR",
    });
    renderRoutes(routes, "/apps/orders/jobs/7/edit", mock.asClient);
    await user.click(await screen.findByRole("link", { name: "Duplicate" }));
    expect(await screen.findByRole("heading", { name: "New job" })).toBeInTheDocument();
    expect(await screen.findByRole("textbox", { name: /^Name/ })).toHaveValue("echo-lines-copy");
    await user.click(screen.getByRole("button", { name: "Create job" }));
    await waitFor(() => expect(mock.mutated("CreateJob")).toHaveLength(1));
    expect(mock.mutated("CreateJob")[0]?.variables).toMatchObject({
      input: { app: "orders", name: "echo-lines-copy", scheduleType: "API", processorType: "SHELL", processor: "echo hello" },
    });
  });

  it("keep a copy's name within 128 characters", () => {
    expect(copyName("nightly")).toBe("nightly-copy");
    expect(copyName("x".repeat(128))).toHaveLength(128);
  });

  it("show a VIEWER a job read-only, with nothing to save", async () => {
    render("/apps/orders/jobs/7/edit", "VIEWER");
    expect(await screen.findByRole("heading", { name: "Job echo-lines" })).toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: /^Name/ })).toBeDisabled();
    expect(screen.getByRole("textbox", { name: /^Name/ })).toHaveValue("echo-lines");
    expect(screen.queryByRole("button", { name: "Save job" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Cancel" })).not.toBeInTheDocument();
    expect(screen.queryByRole("link", { name: "Duplicate" })).not.toBeInTheDocument();
  });

  it("do not offer a VIEWER the new job form", async () => {
    render("/apps/orders/jobs/new", "VIEWER");
    expect(await screen.findByText(/lets you see the jobs, not create them/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Create job" })).not.toBeInTheDocument();
  });
});
