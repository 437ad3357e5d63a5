import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { graphQLError, mockClient, renderRoutes } from "../test/render";
import { LoginPage } from "./LoginPage";

const routes = [
  { path: "/login", Component: LoginPage },
  { path: "/servers", element: <p>Servers screen</p> },
];

describe("LoginPage", () => {
  it("has labelled username and password fields", () => {
    renderRoutes(routes, "/login", mockClient({}).asClient);
    expect(screen.getByLabelText("Username")).toHaveAttribute("autocomplete", "username");
    expect(screen.getByLabelText("Password")).toHaveAttribute("type", "password");
    expect(screen.getByRole("button", { name: "Log in" })).toBeEnabled();
  });

  it("shows the server's error on a wrong password and stays on the page", async () => {
    const { client, asClient } = mockClient({
      mutation: { data: undefined, error: graphQLError("wrong username or password", "UNAUTHENTICATED") },
    });
    const { router, dispose } = renderRoutes(routes, "/login?next=%2Fservers", asClient);
    const user = userEvent.setup();

    await user.type(screen.getByLabelText("Username"), "admin");
    await user.type(screen.getByLabelText("Password"), "nope");
    await user.click(screen.getByRole("button", { name: "Log in" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("wrong username or password");
    expect(client.executeMutation).toHaveBeenCalledWith(
      expect.objectContaining({ variables: { username: "admin", password: "nope" } }),
      expect.anything(),
    );
    expect(router.state.location.pathname).toBe("/login");
    expect(dispose).not.toHaveBeenCalled();
  });

  it("takes the last attempt's error away as soon as the next attempt starts", async () => {
    let answer: "wrong" | "pending" = "wrong";
    const { asClient } = mockClient({
      mutation: () =>
        answer === "wrong"
          ? { data: undefined, error: graphQLError("wrong username or password", "UNAUTHENTICATED") }
          : undefined, // never answers: the next attempt is in flight
    });
    renderRoutes(routes, "/login", asClient);
    const user = userEvent.setup();

    await user.type(screen.getByLabelText("Username"), "admin");
    await user.type(screen.getByLabelText("Password"), "nope{Enter}");
    expect(await screen.findByRole("alert")).toHaveTextContent("wrong username or password");

    // Correcting the password is the next attempt: the old verdict goes.
    await user.clear(screen.getByLabelText("Password"));
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    await user.type(screen.getByLabelText("Password"), "nope");
    answer = "pending";
    await user.click(screen.getByRole("button", { name: "Log in" }));
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("goes where the user was headed after logging in, with a fresh client", async () => {
    const { asClient } = mockClient({
      mutation: {
        data: { login: { expiresAt: "2030-01-01T00:00:00Z", user: { id: "1", username: "admin" } } },
        error: undefined,
      },
    });
    const { router, create, dispose } = renderRoutes(routes, "/login?next=%2Fservers", asClient);
    const user = userEvent.setup();

    await user.type(screen.getByLabelText("Username"), "admin");
    await user.type(screen.getByLabelText("Password"), "right{Enter}");

    expect(await screen.findByText("Servers screen")).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/servers");
    expect(dispose).toHaveBeenCalledOnce();
    expect(create).toHaveBeenCalledTimes(2);
  });

  it("offers single sign-on, keeping where to land, and hides the password form when passwords are off", () => {
    const { asClient } = mockClient({
      query: (r) =>
        r.name === "SignInOptions"
          ? { data: { signInOptions: { password: false, sso: { name: "Okta", loginUrl: "/auth/sso/login" } } }, error: undefined }
          : undefined,
    });
    renderRoutes(routes, "/login?next=%2Fservers", asClient);
    expect(screen.getByRole("link", { name: "Sign in with Okta" })).toHaveAttribute(
      "href",
      "/auth/sso/login?next=%2Fservers",
    );
    expect(screen.queryByLabelText("Password")).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Log in" })).not.toBeInTheDocument();
  });

  it("says why single sign-on sent the browser back", () => {
    renderRoutes(routes, "/login?sso_error=denied", mockClient({}).asClient);
    expect(screen.getByRole("alert")).toHaveTextContent("not allowed here");
    // Without single sign-on configured, the password form stays.
    expect(screen.getByRole("button", { name: "Log in" })).toBeEnabled();
  });
});
