import type { ReactNode } from "react";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { notifications } from "@mantine/notifications";
import type { JobRowFragment, JobsQuery } from "../graphql/graphql";
import { graphQLError, mockClient, renderRoutes, renderWithMantine, type MockRequest } from "../test/render";
import { JobsPage } from "./JobsPage";

const routes = [{ path: "/apps/:app/jobs", Component: JobsPage }];

function job(id: string, name: string, tags: string[]): JobRowFragment {
  return {
    id,
    name,
    description: "",
    enabled: true,
    scheduleType: "API",
    scheduleExpression: "",
    timeZone: "UTC",
    processorType: "SHELL",
    executionMode: "STANDALONE",
    nextTriggerTime: null,
    lastRun: null,
    workerFilter: { tags },
  };
}

const rows = [job("1", "train-model", ["gpu"]), job("2", "render-video", ["gpu", "big"]), job("3", "send-mail", [])];
const jobs: JobsQuery = {
  jobs: { edges: rows.map((node) => ({ cursor: node.id, node })), pageInfo: { hasNextPage: false, endCursor: null } },
};

function setup(refuse: string | null = null) {
  const show = vi.spyOn(notifications, "show").mockImplementation(() => "");
  const mock = mockClient({
    role: "EDITOR",
    query: ({ name }: MockRequest) => (name === "Jobs" ? { data: jobs, error: undefined } : undefined),
    mutation: ({ name, variables }: MockRequest) => {
      const id = String(variables["id"]);
      if (id === refuse) return { data: undefined, error: graphQLError("forbidden: job 2 is managed by a declared set", "FORBIDDEN") };
      const row = rows.find((r) => r.id === id);
      if (!row) return undefined;
      if (name === "SetJobEnabled") return { data: { setJobEnabled: { ...row, enabled: variables["enabled"] } }, error: undefined };
      if (name === "RunJob") return { data: { runJob: { id: `9${id}`, status: "WAITING" } }, error: undefined };
      if (name === "DeleteJob") return { data: { deleteJob: true }, error: undefined };
      return undefined;
    },
  });
  renderRoutes(routes, "/apps/orders/jobs", mock.asClient);
  return { mock, show };
}

afterEach(() => vi.restoreAllMocks());

/** Picks a worker tag in the bulk bar's select. */
async function pickTag(user: ReturnType<typeof userEvent.setup>, tag: string) {
  await user.click(await screen.findByRole("textbox", { name: "Select by worker tag" }));
  await user.click(await screen.findByRole("option", { name: tag }));
}

describe("bulk actions on jobs", () => {
  it("select the jobs needing a worker tag, and disable them, saying how each ended", async () => {
    const user = userEvent.setup();
    const { mock, show } = setup("2");
    await pickTag(user, "gpu");
    expect(screen.getByTestId("bulk-count")).toHaveTextContent("2 jobs selected");
    expect(screen.getByRole("checkbox", { name: "Select train-model" })).toBeChecked();
    expect(screen.getByRole("checkbox", { name: "Select render-video" })).toBeChecked();
    expect(screen.getByRole("checkbox", { name: "Select send-mail" })).not.toBeChecked();

    await user.click(screen.getByRole("button", { name: "Disable" }));
    await waitFor(() =>
      expect(mock.mutated("SetJobEnabled").map((m) => m.variables)).toEqual([
        { id: "1", enabled: false },
        { id: "2", enabled: false },
      ]),
    );
    await waitFor(() => expect(show).toHaveBeenCalled());
    const summary = show.mock.calls.at(-1)?.[0];
    if (!summary) throw new Error("no summary shown");
    expect(summary.title).toBe("Disabled 1 of 2 jobs");
    expect(summary.color).toBe("red");
    // Both stay selected, for the next action.
    expect(screen.getByTestId("bulk-count")).toHaveTextContent("2 jobs selected");
    expectFailuresListed(summary.message);
  });

  it("run and delete several after asking, listing them", async () => {
    const user = userEvent.setup();
    const { mock, show } = setup();
    await user.click(await screen.findByRole("checkbox", { name: "Select every job of this page" }));
    expect(screen.getByTestId("bulk-count")).toHaveTextContent("3 jobs selected");
    await user.click(screen.getByRole("checkbox", { name: "Select send-mail" }));

    await user.click(screen.getByRole("button", { name: "Run now" }));
    const run = await screen.findByRole("dialog", { name: "Run 2 jobs now" });
    expect(within(run).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["train-model", "render-video"]);
    await user.click(within(run).getByRole("button", { name: "Run 2 jobs" }));
    await waitFor(() => expect(mock.mutated("RunJob").map((m) => m.variables["id"])).toEqual(["1", "2"]));
    await waitFor(() => expect(show.mock.calls.at(-1)?.[0].title).toBe("Started 2 of 2 jobs"));

    await user.click(screen.getByRole("button", { name: "Delete" }));
    const del = await screen.findByRole("dialog", { name: "Delete 2 jobs" });
    await user.click(within(del).getByRole("button", { name: "Delete 2 jobs" }));
    await waitFor(() => expect(mock.mutated("DeleteJob").map((m) => m.variables["id"])).toEqual(["1", "2"]));
    await waitFor(() => expect(screen.getByTestId("bulk-count")).toHaveTextContent("0 jobs selected"));
    // The list is read again.
    expect(mock.sent("Jobs").length).toBeGreaterThan(1);
  });
});

/** The failures' list in a notification names the job and the reason. */
function expectFailuresListed(message: unknown) {
  const { container } = renderWithFragment(message);
  expect(container).toHaveTextContent("render-video: forbidden: job 2 is managed by a declared set");
}

function renderWithFragment(node: unknown) {
  return renderWithMantine(node as ReactNode);
}
