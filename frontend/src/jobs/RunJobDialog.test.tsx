import { act, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CombinedError } from "urql";
import { makeSubject, type Subject } from "wonka";
import { mockClient, renderRoutes } from "../test/render";
import { RunJobDialog } from "./RunJobDialog";

vi.setConfig({ testTimeout: 60_000 });

function setup(answers: Array<"lost" | "ok">) {
  let n = 0;
  const changes: { variables: Record<string, unknown>; subject: Subject<{ data?: unknown }> }[] = [];
  const mock = mockClient({
    subscription: ({ name, variables }) => {
      if (name !== "InstanceChanges") return undefined;
      const subject = makeSubject<{ data?: unknown }>();
      changes.push({ variables, subject });
      return subject.source;
    },
    query: () => undefined,
    mutation: ({ name }) => {
      if (name !== "RunJob") return undefined;
      const next = answers[n++];
      return next === "lost"
        ? { data: undefined, error: new CombinedError({ networkError: new Error("Failed to fetch") }) }
        : { data: { runJob: { id: "51", status: "WAITING" } }, error: undefined };
    },
  });
  const routes = [
    { path: "/", element: <RunJobDialog app="orders" job={{ id: "7", name: "nightly" }} onClose={() => {}} /> },
  ];
  renderRoutes(routes, "/", mock.asClient);
  return Object.assign(mock, { changes });
}

describe("RunJobDialog", () => {
  it("sends one idempotency key for every try of one opening", async () => {
    const user = userEvent.setup();
    const mock = setup(["lost", "ok"]);
    await user.click(await screen.findByRole("button", { name: "Run" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("could not be reached");
    await user.click(screen.getByRole("button", { name: "Run" }));
    expect(await screen.findByRole("status")).toHaveTextContent("#51");
    const sent = mock.mutated("RunJob").map((r) => r.variables["idempotencyKey"]);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^console-[0-9a-f]{32}$/);
    expect(sent[1]).toBe(sent[0]);
  });

  it("follows the started instance live: waiting, then running, as its row does", async () => {
    const user = userEvent.setup();
    const mock = setup(["ok"]);
    // Subscribed as it opens, before Run: no change can come first.
    await waitFor(() => expect(mock.changes).toHaveLength(1));
    expect(mock.changes[0]?.variables).toEqual({ app: "orders", jobId: "7" });
    const push = (id: string, status: string) =>
      act(() => mock.changes[0]?.subject.next({ data: { instanceUpdated: { id, status } } }));
    // It started before the answer came.
    push("51", "DISPATCHED");
    await user.click(await screen.findByRole("button", { name: "Run" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Instance #51 is dispatched");
    push("50", "SUCCEEDED"); // another instance of the job
    push("51", "RUNNING");
    expect(screen.getByRole("status")).toHaveTextContent("Instance #51 is running");
    push("51", "SUCCEEDED");
    expect(screen.getByRole("status")).toHaveTextContent("Instance #51 is succeeded");
  });
});
