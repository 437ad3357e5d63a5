import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CombinedError } from "urql";
import { mockClient, renderRoutes } from "../test/render";
import { parseContext, RunWorkflowDialog } from "./RunWorkflowDialog";

vi.setConfig({ testTimeout: 60_000 });

function setup(answers: Array<"lost" | "ok">) {
  let n = 0;
  const mock = mockClient({
    query: () => undefined,
    mutation: ({ name }) => {
      if (name !== "RunWorkflow") return undefined;
      const next = answers[n++];
      return next === "lost"
        ? { data: undefined, error: new CombinedError({ networkError: new Error("Failed to fetch") }) }
        : { data: { runWorkflow: { id: "61", status: "WAITING" } }, error: undefined };
    },
  });
  const routes = [
    { path: "/", element: <RunWorkflowDialog app="orders" workflow={{ id: "3", name: "etl" }} onClose={() => {}} /> },
  ];
  renderRoutes(routes, "/", mock.asClient);
  return mock;
}

describe("RunWorkflowDialog", () => {
  it("refuses a context that is not a JSON object, and sends the context and the delay", async () => {
    const user = userEvent.setup();
    const mock = setup(["ok"]);
    const context = await screen.findByRole("textbox", { name: "Context" });
    await user.click(context);
    await user.paste('{"mode": full}');
    await user.click(screen.getByRole("button", { name: "Run" }));
    expect(await screen.findByText(/Not valid JSON/)).toBeInTheDocument();
    expect(mock.mutated("RunWorkflow")).toHaveLength(0);

    await user.clear(context);
    await user.paste("[1]");
    await user.click(screen.getByRole("button", { name: "Run" }));
    expect(await screen.findByText(/Must be a JSON object/)).toBeInTheDocument();
    expect(mock.mutated("RunWorkflow")).toHaveLength(0);

    await user.clear(context);
    await user.paste('{"mode": "full"}');
    await user.type(screen.getByRole("textbox", { name: "Delay (seconds)" }), "2.5");
    await user.click(screen.getByRole("button", { name: "Run" }));
    expect(await screen.findByRole("status")).toHaveTextContent("#61");
    expect(screen.getByRole("link", { name: "Open run #61" })).toHaveAttribute("href", "/apps/orders/workflow-instances/61");
    expect(mock.mutated("RunWorkflow")[0]?.variables).toMatchObject({ id: "3", context: { mode: "full" }, delayMs: 2500 });
  });

  it("sends one idempotency key for every try of one opening", async () => {
    const user = userEvent.setup();
    const mock = setup(["lost", "ok"]);
    await user.click(await screen.findByRole("button", { name: "Run" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("could not be reached");
    await user.click(screen.getByRole("button", { name: "Run" }));
    expect(await screen.findByRole("status")).toHaveTextContent("#61");
    await waitFor(() => expect(mock.mutated("RunWorkflow")).toHaveLength(2));
    const sent = mock.mutated("RunWorkflow").map((r) => r.variables["idempotencyKey"]);
    expect(sent[0]).toMatch(/^console-[0-9a-f]{32}$/);
    expect(sent[1]).toBe(sent[0]);
    // No context typed: none sent.
    expect(mock.mutated("RunWorkflow")[0]?.variables["context"]).toBeNull();
  });

  it("reads an empty context as none", () => {
    expect(parseContext("  ")).toEqual({ value: null });
    expect(parseContext('{"a": 1}')).toEqual({ value: { a: 1 } });
    expect(parseContext("null")).toHaveProperty("error");
  });
});
