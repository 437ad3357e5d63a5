import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { AppRole, WorkflowFieldsFragment, WorkflowVersionsQuery } from "../graphql/graphql";
import { mockClient, renderRoutes, type MockRequest } from "../test/render";
import { NewWorkflowPage, WorkflowPage } from "./WorkflowPage";

// The editor in jsdom is slow on a busy machine; this bounds a hang, not speed.
vi.setConfig({ testTimeout: 60_000 });

const nodeDefaults = {
  name: "",
  jobId: null,
  workflowId: null,
  expression: null,
  params: null,
  enabled: true,
  skipWhenFailed: false,
  triggerRule: "ALL_SUCCEEDED" as const,
  parallelism: null,
  timeoutMs: null,
  retries: null,
  pool: null,
  poolSlots: null,
};

const etl: WorkflowFieldsFragment = {
  id: "3",
  name: "etl",
  description: "",
  enabled: true,
  scheduleType: "CRON",
  scheduleExpression: "0 0 2 * * ?",
  timeZone: "UTC",
  maxInstances: 2,
  overlapPolicy: "QUEUE",
  misfirePolicy: "FIRE_ONCE",
  failFast: false,
  version: 2,
  nextTriggerTime: "2030-01-01T02:00:00Z",
  updatedAt: "2026-11-21T12:00:00Z",
  managedBy: null,
  managedSource: null,
  nodes: [
    { ...nodeDefaults, key: "extract", type: "JOB", jobId: "7", position: { x: 0, y: 0 } },
    { ...nodeDefaults, key: "check", type: "DECISION", expression: "context.full", position: { x: 260, y: 0 } },
  ],
  edges: [{ from: "extract", to: "check", label: null }],
  alarm: { rules: [], channels: [] },
};

const versions: WorkflowVersionsQuery = {
  workflow: {
    id: "3",
    version: 2,
    versions: [
      {
        version: 2,
        createdBy: "alice",
        createdAt: "2026-11-21T12:00:00Z",
        definition: { name: "etl", nodes: etl.nodes, edges: etl.edges },
      },
      {
        version: 1,
        createdBy: "bob",
        createdAt: "2026-11-20T12:00:00Z",
        definition: {
          name: "etl",
          nodes: [{ key: "extract", type: "JOB", jobId: "7", position: { x: 0, y: 0 } }],
          edges: [],
        },
      },
    ],
  },
};

function setup(path: string, role: AppRole = "OWNER") {
  const mock = mockClient({
    role,
    query: ({ name }: MockRequest) => {
      if (name === "Workflow") return { data: { workflow: etl }, error: undefined };
      if (name === "WorkflowVersions") return { data: versions, error: undefined };
      if (name === "WorkflowChoices") {
        return {
          data: { jobs: { edges: [{ node: { id: "7", name: "extract-job" } }] }, workflows: { edges: [] } },
          error: undefined,
        };
      }
      if (name === "PreviewSchedule") {
        return { data: { previewSchedule: ["2030-01-01T02:00:00Z", "2030-01-02T02:00:00Z"] }, error: undefined };
      }
      return undefined;
    },
    mutation: ({ name }: MockRequest) => {
      if (name === "UpdateWorkflow") return { data: { updateWorkflow: { ...etl, version: 3 } }, error: undefined };
      if (name === "CreateWorkflow") return { data: { createWorkflow: { ...etl, id: "10", name: "Copy of etl" } }, error: undefined };
      if (name === "RestoreWorkflowVersion") return { data: { restoreWorkflowVersion: { ...etl, version: 3 } }, error: undefined };
      return undefined;
    },
  });
  const routes = [
    { path: "/apps/:app/workflows/new", Component: NewWorkflowPage },
    { path: "/apps/:app/workflows/:workflowId", Component: WorkflowPage },
  ];
  const { router } = renderRoutes(routes, path, mock.asClient);
  return { mock, router };
}

describe("a workflow's page", () => {
  it("edits the schedule with its next fires previewed, maxInstances and overlap, and saves against the version read", async () => {
    const user = userEvent.setup();
    const { mock } = setup("/apps/orders/workflows/3");
    await waitFor(() => expect(screen.getByTestId("dag-node-extract")).toHaveTextContent("extract-job"));
    expect(screen.getByRole("textbox", { name: "Cron expression" })).toHaveValue("0 0 2 * * ?");
    expect(await screen.findByTestId("schedule-preview", {}, { timeout: 5_000 })).toHaveTextContent("2030-01-01 02:00:00");
    expect(mock.sent("PreviewSchedule").at(-1)?.variables).toMatchObject({ type: "CRON", expression: "0 0 2 * * ?" });
    expect(screen.getByRole("textbox", { name: "Max runs at once" })).toHaveValue("2");
    expect(screen.getByRole("textbox", { name: "Over the limit" })).toHaveValue("Queue it until an earlier run ends");

    await user.click(screen.getByRole("button", { name: "Save workflow" }));
    await waitFor(() => expect(mock.mutated("UpdateWorkflow")).toHaveLength(1));
    expect(mock.mutated("UpdateWorkflow")[0]?.variables).toMatchObject({
      id: "3",
      expectedVersion: 2,
      input: {
        app: "orders",
        name: "etl",
        scheduleType: "CRON",
        scheduleExpression: "0 0 2 * * ?",
        maxInstances: 2,
        overlapPolicy: "QUEUE",
        nodes: [
          { key: "extract", type: "JOB", jobId: "7" },
          { key: "check", type: "DECISION", expression: "context.full" },
        ],
        edges: [{ from: "extract", to: "check", label: null }],
      },
    });
  });

  it("lists the saved versions, shows one, and restores it after asking", async () => {
    const user = userEvent.setup();
    const { mock } = setup("/apps/orders/workflows/3?tab=versions");
    const table = await screen.findByRole("table", { name: "Versions" });
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent(/2\s*current\s*alice/);
    expect(rows[1]).toHaveTextContent(/1\s*bob/);
    // The current version cannot be restored onto itself.
    expect(within(rows[0] as HTMLElement).queryByRole("button", { name: /^Restore/ })).toBeNull();

    await user.click(within(rows[1] as HTMLElement).getByRole("button", { name: "View" }));
    const shown = await screen.findByRole("dialog", { name: "Version 1" });
    await waitFor(() => expect(within(shown).getByTestId("dag-node-extract")).toBeInTheDocument());
    expect(within(shown).queryByTestId("dag-node-check")).toBeNull();
    expect(shown).toHaveTextContent(/"key": "extract"/);
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Version 1" })).toBeNull());

    await user.click(within(rows[1] as HTMLElement).getByRole("button", { name: "Restore version 1" }));
    const ask = await screen.findByRole("dialog", { name: "Restore version" });
    expect(mock.mutated("RestoreWorkflowVersion")).toHaveLength(0);
    await user.click(within(ask).getByRole("button", { name: "Restore version 1" }));
    await waitFor(() => expect(mock.mutated("RestoreWorkflowVersion")).toHaveLength(1));
    expect(mock.mutated("RestoreWorkflowVersion")[0]?.variables).toEqual({ id: "3", version: 1 });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("duplicates a workflow: the new-workflow editor starts from its copy, renamed", async () => {
    const user = userEvent.setup();
    const { mock, router } = setup("/apps/orders/workflows/new?from=3");
    expect(await screen.findByRole("heading", { name: "New workflow from etl" })).toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: "Name" })).toHaveValue("Copy of etl");
    await waitFor(() => expect(screen.getByTestId("dag-node-check")).toBeInTheDocument());
    await user.click(screen.getByRole("button", { name: "Create workflow" }));
    await waitFor(() => expect(mock.mutated("CreateWorkflow")).toHaveLength(1));
    expect(mock.mutated("CreateWorkflow")[0]?.variables).toMatchObject({
      input: {
        app: "orders",
        name: "Copy of etl",
        maxInstances: 2,
        nodes: [{ key: "extract", jobId: "7" }, { key: "check", expression: "context.full" }],
        edges: [{ from: "extract", to: "check" }],
      },
    });
    await waitFor(() => expect(router.state.location.pathname).toBe("/apps/orders/workflows/10"));
  });

  it("shows a VIEWER the definition and versions with nothing to run, save, duplicate, delete or restore", async () => {
    const user = userEvent.setup();
    setup("/apps/orders/workflows/3", "VIEWER");
    await waitFor(() => expect(screen.getByTestId("dag-node-extract")).toHaveTextContent("extract-job"));
    for (const name of [/^Run$/, /^Save workflow$/, /^Duplicate$/, /^Delete$/, /^Add /]) {
      expect(screen.queryByRole("button", { name })).toBeNull();
      expect(screen.queryByRole("link", { name })).toBeNull();
    }
    expect(screen.getByRole("button", { name: "Export JSON" })).toBeInTheDocument();
    expect(screen.getByRole("textbox", { name: "Cron expression" })).toBeDisabled();
    await user.click(screen.getByRole("tab", { name: "Versions" }));
    const table = await screen.findByRole("table", { name: "Versions" });
    expect(within(table).getAllByRole("button", { name: "View" })).toHaveLength(2);
    expect(within(table).queryByRole("button", { name: /^Restore/ })).toBeNull();
  });
});
