import { screen, waitFor } from "@testing-library/react";
import { routes } from "../routes";
import { appsWithRole, mockClient, renderRoutes, type MockRequest } from "../test/render";

function client(names: string[]) {
  return mockClient({
    query: ({ name }: MockRequest) => {
      if (name === "Apps") return { data: appsWithRole("OWNER", names), error: undefined };
      if (name === "AppStats" || name === "Jobs") return { data: undefined, error: undefined };
      return undefined;
    },
  }).asClient;
}

describe("the console's home", () => {
  beforeEach(() => localStorage.clear());

  it("opens the dashboard of the one app a user has", async () => {
    const { router } = renderRoutes(routes, "/", client(["orders"]));
    await waitFor(() => expect(router.state.location.pathname).toBe("/apps/orders/dashboard"));
  });

  it("lists the apps when there are several", async () => {
    const { router } = renderRoutes(routes, "/", client(["orders", "billing"]));
    await waitFor(() => expect(router.state.location.pathname).toBe("/apps"));
    expect(await screen.findByRole("heading", { name: "Apps" })).toBeInTheDocument();
  });
});
