import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { AppRole, WorkflowRowFragment, WorkflowsQuery } from "../graphql/graphql";
import { mockClient, renderRoutes, type MockRequest } from "../test/render";
import { WorkflowsPage } from "./WorkflowsPage";

vi.setConfig({ testTimeout: 60_000 });

const etl: WorkflowRowFragment = {
  id: "3",
  name: "etl",
  description: "Nightly load",
  enabled: true,
  scheduleType: "CRON",
  scheduleExpression: "0 0 2 * * ?",
  timeZone: "Europe/Paris",
  version: 4,
  nextTriggerTime: "2030-01-02T01:00:00Z",
  lastRun: { id: "12", status: "FAILED", triggerTime: "2026-11-21T12:00:00Z" },
};

const manual: WorkflowRowFragment = {
  ...etl,
  id: "4",
  name: "manual",
  description: "",
  enabled: false,
  scheduleType: "API",
  scheduleExpression: "",
  timeZone: "UTC",
  version: 1,
  nextTriggerTime: null,
  lastRun: null,
};

function list(rows: WorkflowRowFragment[]): WorkflowsQuery {
  return {
    workflows: {
      edges: rows.map((node) => ({ cursor: `c${node.id}`, node })),
      pageInfo: { hasNextPage: false, endCursor: null },
      totalCount: rows.length,
    },
  };
}

function setup(role: AppRole = "OWNER") {
  const mock = mockClient({
    role,
    query: ({ name, variables }: MockRequest) => {
      if (name === "Workflows") {
        const search = typeof variables["search"] === "string" ? variables["search"] : "";
        return { data: list([etl, manual].filter((w) => w.name.includes(search))), error: undefined };
      }
      if (name === "ExportWorkflow") {
        return { data: { exportWorkflow: { name: "etl", nodes: [{ key: "a", type: "JOB", job: "extract" }] } }, error: undefined };
      }
      return undefined;
    },
    mutation: ({ name, variables }: MockRequest) => {
      if (name === "SetWorkflowEnabled") {
        return { data: { setWorkflowEnabled: { ...etl, enabled: variables["enabled"] as boolean } }, error: undefined };
      }
      if (name === "DeleteWorkflow") return { data: { deleteWorkflow: true }, error: undefined };
      if (name === "ImportWorkflow") return { data: { importWorkflow: { id: "9", name: "etl" } }, error: undefined };
      return undefined;
    },
  });
  const routes = [
    { path: "/apps/:app/workflows", Component: WorkflowsPage },
    { path: "/apps/:app/workflows/:workflowId", element: <p>the workflow page</p> },
  ];
  const { router } = renderRoutes(routes, "/apps/orders/workflows", mock.asClient);
  return { mock, router };
}

describe("the workflows list", () => {
  it("shows each workflow's name, enabled switch, schedule, next fire and last run (linked)", async () => {
    setup();
    const row = await screen.findByRole("row", { name: /etl/ });
    expect(screen.getByText("2 workflows")).toBeInTheDocument();
    expect(within(row).getByRole("link", { name: "etl" })).toHaveAttribute("href", "/apps/orders/workflows/3");
    expect(within(row).getByRole("switch", { name: "etl enabled" })).toBeChecked();
    expect(within(row).getByText("0 0 2 * * ?")).toBeInTheDocument();
    expect(within(row).getByText("Europe/Paris")).toBeInTheDocument();
    // The next fire is a time, not the dash of none.
    expect(within(row).queryByText("—")).toBeNull();
    expect(within(row).getByRole("link", { name: "Run #12: FAILED" })).toHaveAttribute(
      "href",
      "/apps/orders/workflow-instances/12",
    );
    const other = screen.getByRole("row", { name: /manual/ });
    expect(within(other).getByRole("switch", { name: "manual enabled" })).not.toBeChecked();
    expect(within(other).getByText("never")).toBeInTheDocument();
    expect(within(other).getByText("—")).toBeInTheDocument();
    expect(within(row).getByRole("link", { name: "Runs of etl" })).toHaveAttribute("href", "/apps/orders/workflows/3?tab=runs");
  });

  it("searches by name, in the URL", async () => {
    const user = userEvent.setup();
    const { mock, router } = setup();
    await screen.findByRole("row", { name: /manual/ });
    await user.type(screen.getByRole("searchbox", { name: "Search workflows" }), "et");
    await waitFor(() => expect(mock.sent("Workflows").at(-1)?.variables["search"]).toBe("et"));
    expect(router.state.location.search).toBe("?q=et");
    await waitFor(() => expect(screen.queryByRole("row", { name: /manual/ })).toBeNull());
    expect(screen.getByRole("row", { name: /etl/ })).toBeInTheDocument();
  });

  it("turns a workflow's schedule off with its switch", async () => {
    const user = userEvent.setup();
    const { mock } = setup();
    await user.click(await screen.findByRole("switch", { name: "etl enabled" }));
    await waitFor(() => expect(mock.mutated("SetWorkflowEnabled")).toHaveLength(1));
    expect(mock.mutated("SetWorkflowEnabled")[0]?.variables).toEqual({ id: "3", enabled: false });
  });

  it("duplicates a workflow through the new-workflow editor, and deletes one after asking", async () => {
    const user = userEvent.setup();
    const { mock } = setup();
    await user.click(await screen.findByRole("button", { name: "More for etl" }));
    expect(await screen.findByRole("menuitem", { name: "Duplicate" })).toHaveAttribute("href", "/apps/orders/workflows/new?from=3");
    await user.click(screen.getByRole("menuitem", { name: "Delete" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete workflow" });
    expect(dialog).toHaveTextContent("Delete workflow etl with its versions and runs?");
    expect(mock.mutated("DeleteWorkflow")).toHaveLength(0);
    await user.click(within(dialog).getByRole("button", { name: "Delete workflow" }));
    await waitFor(() => expect(mock.mutated("DeleteWorkflow")).toHaveLength(1));
    expect(mock.mutated("DeleteWorkflow")[0]?.variables).toEqual({ id: "3" });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("exports a workflow as a JSON file", async () => {
    const user = userEvent.setup();
    const blobs: Blob[] = [];
    const names: string[] = [];
    const createObjectURL = vi.fn((b: Blob) => {
      blobs.push(b);
      return "blob:workflow";
    });
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    try {
      const { mock } = setup();
      await user.click(await screen.findByRole("button", { name: "More for etl" }));
      await user.click(await screen.findByRole("menuitem", { name: "Export JSON" }));
      await waitFor(() => expect(names).toEqual(["workflow-etl.json"]));
      expect(mock.sent("ExportWorkflow")[0]?.variables).toEqual({ id: "3" });
      expect(blobs[0]?.type).toBe("application/json");
      expect(blobs[0]?.size).toBeGreaterThan(10);
    } finally {
      click.mockRestore();
    }
  });

  it("imports a workflow from exported JSON, refusing what is not a JSON object, and opens it", async () => {
    const user = userEvent.setup();
    const { mock, router } = setup();
    await user.click(await screen.findByRole("button", { name: "Import" }));
    const dialog = await screen.findByRole("dialog", { name: "Import a workflow" });
    const text = within(dialog).getByRole("textbox", { name: "Definition" });
    await user.type(text, "not json");
    await user.click(within(dialog).getByRole("button", { name: "Import" }));
    expect(await within(dialog).findByText(/^Not JSON/)).toBeInTheDocument();
    await user.clear(text);
    await user.click(text);
    await user.paste("[]");
    await user.click(within(dialog).getByRole("button", { name: "Import" }));
    expect(await within(dialog).findByText(/Must be a JSON object/)).toBeInTheDocument();
    expect(mock.mutated("ImportWorkflow")).toHaveLength(0);

    await user.clear(text);
    await user.click(text);
    await user.paste('{"name": "etl", "nodes": []}');
    await user.click(within(dialog).getByRole("checkbox", { name: /Replace the app’s workflow of the same name/ }));
    await user.click(within(dialog).getByRole("button", { name: "Import" }));
    await waitFor(() => expect(mock.mutated("ImportWorkflow")).toHaveLength(1));
    expect(mock.mutated("ImportWorkflow")[0]?.variables).toEqual({
      app: "orders",
      definition: { name: "etl", nodes: [] },
      replace: true,
    });
    await waitFor(() => expect(router.state.location.pathname).toBe("/apps/orders/workflows/9"));
  });

  it("is read-only for a VIEWER: no switch, run, new, import, duplicate or delete; export stays", async () => {
    const user = userEvent.setup();
    setup("VIEWER");
    const row = await screen.findByRole("row", { name: /etl/ });
    expect(within(row).queryByRole("switch")).toBeNull();
    expect(within(row).getByText("Enabled")).toBeInTheDocument();
    for (const name of [/^New workflow$/, /^Import$/, /^Run etl$/]) {
      expect(screen.queryByRole("button", { name })).toBeNull();
      expect(screen.queryByRole("link", { name })).toBeNull();
    }
    await user.click(within(row).getByRole("button", { name: "More for etl" }));
    expect(await screen.findByRole("menuitem", { name: "Export JSON" })).toBeInTheDocument();
    expect(screen.queryByRole("menuitem", { name: "Duplicate" })).toBeNull();
    expect(screen.queryByRole("menuitem", { name: "Delete" })).toBeNull();
  });
});
