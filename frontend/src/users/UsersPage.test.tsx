import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { UsersQuery } from "../graphql/graphql";
import { graphQLError, mockClient, renderRoutes, type MockRequest } from "../test/render";
import { UsersPage } from "./UsersPage";

const routes = [{ path: "/users", Component: UsersPage }];

const users: UsersQuery = {
  users: [
    { id: "1", username: "admin", admin: true, createdAt: "2026-01-01T00:00:00Z" },
    { id: "2", username: "vic", admin: false, createdAt: "2026-01-02T00:00:00Z" },
  ],
};

function answer({ name }: MockRequest) {
  return name === "Users" ? { data: users, error: undefined } : undefined;
}

describe("the users screen", () => {
  it("lists the users, administrators marked", async () => {
    renderRoutes(routes, "/users", mockClient({ query: answer }).asClient);
    expect(within(await screen.findByRole("row", { name: /admin/ })).getByText("Administrator")).toBeInTheDocument();
    expect(within(screen.getByRole("row", { name: /vic/ })).getByText("User")).toBeInTheDocument();
  });

  it("creates an administrator, showing the server's errors at their fields", async () => {
    const user = userEvent.setup();
    const mock = mockClient({
      query: answer,
      mutation: ({ variables }) =>
        String(variables["password"]).length < 8
          ? { data: undefined, error: graphQLError("must be at least 8 characters", "BAD_INPUT", "password") }
          : {
              data: { createUser: { id: "3", username: "ana", admin: true, createdAt: "2026-01-03T00:00:00Z" } },
              error: undefined,
            },
    });
    renderRoutes(routes, "/users", mock.asClient);
    await user.click(await screen.findByRole("button", { name: "Create user" }));
    const dialog = await screen.findByRole("dialog", { name: "Create user" });
    await user.type(within(dialog).getByLabelText(/^Username/), "ana");
    const password = within(dialog).getByLabelText(/^Password/);
    await user.type(password, "short");
    await user.click(within(dialog).getByRole("checkbox", { name: /Administrator/ }));
    await user.click(within(dialog).getByRole("button", { name: "Create user" }));
    await waitFor(() => expect(password).toHaveAttribute("aria-invalid", "true"));
    expect(password).toHaveAccessibleDescription(/at least 8 characters/);

    await user.type(password, "-and-longer");
    await user.click(within(dialog).getByRole("button", { name: "Create user" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(mock.mutated("CreateUser").at(-1)?.variables).toEqual({
      username: "ana",
      password: "short-and-longer",
      admin: true,
    });
  });

  it("tells a non-administrator that users are for administrators", async () => {
    const me = { me: { id: "2", username: "vic", admin: false } };
    const mock = mockClient({ query: ({ name }) => (name === "Me" ? { data: me, error: undefined } : undefined) });
    renderRoutes(routes, "/users", mock.asClient);
    expect(await screen.findByText(/Only administrators/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Create user" })).not.toBeInTheDocument();
    expect(mock.sent("Users")).toHaveLength(0);
  });
});
