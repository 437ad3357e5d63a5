import { screen } from "@testing-library/react";
import { CombinedError } from "urql";
import { graphQLError, mockClient, renderRoutes } from "../test/render";
import { RequireAuth } from "./RequireAuth";

const routes = [
  { path: "/login", element: <p>Login screen</p> },
  { Component: RequireAuth, children: [{ path: "/servers", element: <p>Servers screen</p> }] },
];

describe("RequireAuth", () => {
  it("shows the screen to a logged-in user", async () => {
    const me = { me: { id: "1", username: "admin", admin: true } };
    renderRoutes(routes, "/servers", mockClient({ query: { data: me, error: undefined } }).asClient);
    expect(await screen.findByText("Servers screen")).toBeInTheDocument();
  });

  it("sends a visitor without a session to log in, remembering the deep link", async () => {
    const error = graphQLError("log in first", "UNAUTHENTICATED");
    const { router } = renderRoutes(routes, "/servers?x=1", mockClient({ query: { data: undefined, error } }).asClient);
    expect(await screen.findByText("Login screen")).toBeInTheDocument();
    expect(router.state.location.search).toBe("?next=%2Fservers%3Fx%3D1");
  });

  it("offers a retry when the server cannot be reached", async () => {
    const error = new CombinedError({ networkError: new Error("Failed to fetch") });
    renderRoutes(routes, "/servers", mockClient({ query: { data: undefined, error } }).asClient);
    expect(await screen.findByRole("alert")).toHaveTextContent("could not be reached");
    expect(screen.getByRole("button", { name: "Try again" })).toBeInTheDocument();
  });
});
