import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { AppRole, AppSettingsQuery } from "../graphql/graphql";
import { graphQLError, mockClient, renderRoutes, type MockRequest } from "../test/render";
import { AppSettingsPage } from "./AppSettingsPage";

const routes = [
  { path: "/apps/:app/settings", Component: AppSettingsPage },
  { path: "/apps", Component: () => <p>All apps</p> },
];

function settings(myRole: AppRole): AppSettingsQuery {
  return {
    apps: [
      {
        id: "1",
        name: "orders",
        description: "Order processing",
        createdAt: "2026-01-01T00:00:00Z",
        myRole,
        retentionDays: null,
        members: [
          { userId: "1", username: "olga", role: "OWNER", admin: false },
          { userId: "2", username: "vic", role: "VIEWER", admin: false },
        ],
      },
    ],
  };
}

type MutationAnswer = (request: MockRequest) => { data?: unknown; error?: ReturnType<typeof graphQLError> } | undefined;

function setup(myRole: AppRole, mutation: MutationAnswer = () => undefined) {
  const mock = mockClient({
    role: myRole,
    query: ({ name }) => (name === "AppSettings" ? { data: settings(myRole), error: undefined } : undefined),
    mutation: (request) => {
      const out = mutation(request);
      return out ? { data: out.data, error: out.error } : undefined;
    },
  });
  renderRoutes(routes, "/apps/orders/settings", mock.asClient);
  return mock;
}

const app = (members = settings("OWNER").apps[0]?.members) => ({ setAppRole: { id: "1", myRole: "OWNER", members } });

describe("app settings", () => {
  it("mark an administrator among the members, and say removing their role leaves their access", async () => {
    const user = userEvent.setup();
    const listed = settings("OWNER");
    const orders = listed.apps[0];
    if (!orders) throw new Error("no app");
    orders.members = [{ userId: "9", username: "admin", role: "OWNER", admin: true }, ...orders.members];
    const mock = mockClient({
      role: "OWNER",
      query: ({ name }) => (name === "AppSettings" ? { data: listed, error: undefined } : undefined),
    });
    renderRoutes(routes, "/apps/orders/settings", mock.asClient);
    const row = await screen.findByRole("row", { name: /^admin/ });
    expect(within(row).getByText("Administrator")).toBeInTheDocument();
    expect(within(screen.getByRole("row", { name: /^olga/ })).queryByText("Administrator")).not.toBeInTheDocument();
    // The page does not claim administrators go unlisted while it lists one.
    expect(screen.queryByText(/without being listed/)).not.toBeInTheDocument();
    expect(screen.getByText(/whether they are listed here or not/)).toBeInTheDocument();
    await user.click(within(row).getByRole("button", { name: "Remove admin" }));
    const dialog = await screen.findByRole("dialog", { name: "Remove member" });
    expect(dialog).toHaveTextContent(/keep their access: they are an administrator/);
  });

  it("let an OWNER change a member's role in place", async () => {
    const user = userEvent.setup();
    const mock = setup("OWNER", () => ({ data: app() }));
    const role = await screen.findByRole("textbox", { name: "vic Role" });
    expect(role).toHaveValue("VIEWER");
    await user.click(role);
    await user.click(await screen.findByRole("option", { name: "EDITOR" }));
    await waitFor(() => expect(mock.mutated("SetAppRole")).toHaveLength(1));
    expect(mock.mutated("SetAppRole")[0]?.variables).toEqual({ app: "orders", username: "vic", role: "EDITOR" });
  });

  it("show the server's refusal to remove the last OWNER in the confirmation", async () => {
    const user = userEvent.setup();
    const conflict = graphQLError('olga is the last OWNER of app "orders"; make someone else OWNER first', "CONFLICT");
    const mock = setup("OWNER", () => ({ error: conflict }));
    await user.click(await screen.findByRole("button", { name: "Remove olga" }));
    const dialog = await screen.findByRole("dialog", { name: "Remove member" });
    expect(mock.mutated("SetAppRole")).toHaveLength(0);
    await user.click(within(dialog).getByRole("button", { name: "Remove member" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("is the last OWNER");
    expect(mock.mutated("SetAppRole")[0]?.variables).toEqual({ app: "orders", username: "olga", role: null });
    expect(screen.getByRole("dialog", { name: "Remove member" })).toBeInTheDocument();
  });

  it("add a member by username and role, with the server's field error at the field", async () => {
    const user = userEvent.setup();
    const mock = setup("OWNER", ({ variables }) =>
      variables["username"] === "nobody"
        ? { error: graphQLError('there is no user named "nobody"', "BAD_INPUT", "username") }
        : { data: app() },
    );
    const form = await screen.findByRole("form", { name: "Add a member" });
    const username = within(form).getByRole("textbox", { name: /^Username/ });
    await user.type(username, "nobody");
    await user.click(within(form).getByRole("textbox", { name: /^Role/ }));
    await user.click(await screen.findByRole("option", { name: "EDITOR" }));
    await user.click(within(form).getByRole("button", { name: "Add member" }));
    await waitFor(() => expect(username).toHaveAttribute("aria-invalid", "true"));
    expect(username).toHaveAccessibleDescription(/there is no user named "nobody"/);

    await user.clear(username);
    await user.type(username, "eve");
    expect(username).not.toHaveAttribute("aria-invalid", "true");
    await user.click(within(form).getByRole("button", { name: "Add member" }));
    await waitFor(() => expect(username).toHaveValue(""));
    expect(mock.mutated("SetAppRole").at(-1)?.variables).toEqual({ app: "orders", username: "eve", role: "EDITOR" });
  });

  it("rotate the secret after asking, and show the new one once", async () => {
    const user = userEvent.setup();
    setup("OWNER", ({ name }) =>
      name === "RotateAppSecret"
        ? { data: { rotateAppSecret: { app: { id: "1", name: "orders" }, secret: "jwa_n3w" } } }
        : undefined,
    );
    await user.click(await screen.findByRole("button", { name: "Rotate secret" }));
    const confirm = await screen.findByRole("dialog", { name: "Rotate the app secret" });
    await user.click(within(confirm).getByRole("button", { name: "Rotate secret" }));
    const shown = await screen.findByRole("dialog", { name: "New app secret" });
    expect(within(shown).getByText("jwa_n3w")).toBeInTheDocument();
    expect(within(shown).getByRole("button", { name: "Copy secret" })).toBeInTheDocument();
    await user.click(within(shown).getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByText("jwa_n3w")).not.toBeInTheDocument());
  });

  it("delete the app only once its name is typed, say why the server refused, and leave for the apps list", async () => {
    const user = userEvent.setup();
    let refuse = true;
    localStorage.setItem("jobwheel.app", JSON.stringify("orders"));
    const mock = setup("OWNER", ({ name }) => {
      if (name !== "DeleteApp") return undefined;
      if (refuse) {
        refuse = false;
        return {
          error: graphQLError(
            'app "orders" has 1 connected worker(s) (on host-a): stop them, then delete the app',
            "CONFLICT",
          ),
        };
      }
      return { data: { deleteApp: true } };
    });
    await user.click(await screen.findByRole("button", { name: "Delete app" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete the app" });
    const confirm = within(dialog).getByRole("button", { name: "Delete app" });
    expect(confirm).toBeDisabled();
    await user.type(within(dialog).getByLabelText("Type the app's name to confirm"), "orders");
    expect(confirm).toBeEnabled();
    await user.click(confirm);
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("connected worker(s) (on host-a)");
    await user.click(confirm);
    expect(await screen.findByText("All apps")).toBeInTheDocument();
    // The console no longer opens on the deleted app.
    expect(localStorage.getItem("jobwheel.app")).not.toContain("orders");
    expect(mock.mutated("DeleteApp").map((r) => r.variables)).toEqual([{ app: "orders" }, { app: "orders" }]);
  });

  it("show a VIEWER the members, and nothing to change", async () => {
    setup("VIEWER");
    const table = await screen.findByRole("table", { name: "Members" });
    expect(within(table).getByRole("row", { name: /vic/ })).toHaveTextContent("VIEWER");
    expect(screen.queryByRole("textbox", { name: /Role/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("button")).not.toBeInTheDocument();
    expect(screen.getByText(/Only its owners can change members/)).toBeInTheDocument();
  });

  it("let an OWNER set the app's retention, with the server's field error at the field, and empty for the server's", async () => {
    const user = userEvent.setup();
    const mock = setup("OWNER", (request) =>
      request.variables["days"] === 0
        ? { error: graphQLError("0 is out of range 1 to 36500", "BAD_INPUT", "days") }
        : { data: { setAppRetention: { id: "1", retentionDays: request.variables["days"] } } },
    );
    const days = await screen.findByRole("textbox", { name: "Days to keep" });
    expect(days).toHaveValue("");
    await user.type(days, "0");
    await user.click(screen.getByRole("button", { name: "Save retention" }));
    expect(await screen.findByText("0 is out of range 1 to 36500")).toBeInTheDocument();
    await user.clear(days);
    await user.type(days, "30");
    await user.click(screen.getByRole("button", { name: "Save retention" }));
    await waitFor(() => expect(mock.mutated("SetAppRetention")).toHaveLength(2));
    expect(mock.mutated("SetAppRetention")[1]?.variables).toEqual({ app: "orders", days: 30 });
    await user.clear(days);
    await user.click(screen.getByRole("button", { name: "Save retention" }));
    await waitFor(() => expect(mock.mutated("SetAppRetention")).toHaveLength(3));
    expect(mock.mutated("SetAppRetention")[2]?.variables).toEqual({ app: "orders", days: null });
  });

  it("show a VIEWER the app's retention without a form", async () => {
    setup("VIEWER");
    expect(await screen.findByText("The server's retention applies.")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Save retention" })).not.toBeInTheDocument();
  });
});
