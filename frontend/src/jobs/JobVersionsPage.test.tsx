import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { mockClient, renderRoutes } from "../test/render";
import { JobVersionsPage } from "./JobVersionsPage";

vi.setConfig({ testTimeout: 60_000 });

const version = (n: number, change: string, script: string) => ({
  version: n,
  change,
  author: "admin",
  createdAt: "2026-11-20T10:00:00Z",
  processor: script,
  definition: {
    name: "nightly",
    processor: script,
    timeoutMs: n,
    alarm: { rules: [{ kind: "FAILURE", threshold: n === 1 ? 1 : 3 }], channels: [{ kind: "WEBHOOK", url: "https://hooks.example.com/a" }] },
  },
});

function setup(role: "EDITOR" | "VIEWER") {
  const mock = mockClient({
    role,
    query: ({ name }) => {
      if (name === "JobVersions")
        return {
          data: {
            job: { id: "7", version: 2, versions: [version(2, "UPDATE", "echo a\necho c"), version(1, "CREATE", "echo a\necho b")] },
          },
          error: undefined,
        };
      if (name === "Job")
        return {
          data: {
            job: {
              id: "7",
              name: "nightly",
              enabled: true,
              description: "",
              scheduleType: "CRON",
              managedBy: "billing-service",
              managedSource: "CODE",
              app: { id: "1", name: "orders" },
            },
          },
          error: undefined,
        };
      return undefined;
    },
    mutation: ({ name }) =>
      name === "RestoreJobVersion" ? ({ data: { restoreJobVersion: { id: "7", version: 3 } }, error: undefined }) : undefined,
  });
  renderRoutes([{ path: "/apps/:app/jobs/:jobId/versions", Component: JobVersionsPage }], "/apps/orders/jobs/7/versions", mock.asClient);
  return mock;
}

describe("JobVersionsPage", () => {
  it("lists versions, diffs the script and restores one", async () => {
    const user = userEvent.setup();
    const mock = setup("EDITOR");
    const table = await screen.findByRole("table", { name: "Versions" });
    expect(within(table).getByText("UPDATE")).toBeInTheDocument();
    expect(screen.getByText("Managed by code: billing-service")).toBeInTheDocument();
    const diff = screen.getByRole("region", { name: "Processor diff" });
    expect(diff.querySelector('[data-kind="removed"]')).toHaveTextContent("echo b");
    expect(diff.querySelector('[data-kind="added"]')).toHaveTextContent("echo c");
    // Each changed value, before and after, the alarm's down to the rule.
    const changes = screen.getByRole("table", { name: "Changed fields" });
    expect(within(changes).getAllByRole("row").map((r) => r.textContent)).toEqual([
      "FieldVersion 1Version 2",
      "alarm.rules[0].threshold13",
      "processorChanged: see the diff below",
      "timeoutMs12",
    ]);
    await user.click(screen.getByRole("button", { name: "Restore version 1" }));
    expect(mock.mutated("RestoreJobVersion")[0]?.variables).toEqual({ id: "7", version: 1 });
  });

  it("offers a VIEWER no restore", async () => {
    setup("VIEWER");
    await screen.findByRole("table", { name: "Versions" });
    expect(screen.queryByRole("button", { name: /Restore/ })).not.toBeInTheDocument();
  });
});
