import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CombinedError } from "urql";
import { mockClient, renderRoutes } from "../test/render";
import { RunJobDialog } from "./RunJobDialog";

vi.setConfig({ testTimeout: 60_000 });

function setup(answers: Array<"lost" | "ok">) {
  let n = 0;
  const mock = mockClient({
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
  return mock;
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
});
