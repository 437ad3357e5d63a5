import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ApiTokenFieldsFragment, MeQuery } from "../graphql/graphql";
import { mockClient, renderRoutes, type MockRequest } from "../test/render";
import { ApiTokensPage } from "./ApiTokensPage";

const routes = [{ path: "/tokens", Component: ApiTokensPage }];

const deploy: ApiTokenFieldsFragment = {
  id: "5",
  name: "deploy pipeline",
  app: { id: "1", name: "orders" },
  role: "EDITOR",
  user: { id: "2", username: "vic" },
  createdAt: "2026-11-20T10:00:00Z",
  lastUsedAt: null,
  revokedAt: null,
};
const old: ApiTokenFieldsFragment = {
  ...deploy,
  id: "4",
  name: "old script",
  app: null,
  role: null,
  revokedAt: "2026-11-21T10:00:00Z",
};

function setup(me?: MeQuery) {
  const mock = mockClient({
    query: ({ name }: MockRequest) => {
      if (name === "ApiTokens") return { data: { apiTokens: [deploy, old] }, error: undefined };
      if (name === "Me" && me) return { data: me, error: undefined };
      return undefined;
    },
    mutation: ({ name, variables }) => {
      if (name === "RevokeApiToken") return { data: { revokeApiToken: true }, error: undefined };
      const token = { ...deploy, id: "6", name: String(variables["name"]), role: variables["role"] as null };
      return { data: { createApiToken: { token, secret: "jwt_s3cr3t" } }, error: undefined };
    },
  });
  renderRoutes(routes, "/tokens", mock.asClient);
  return mock;
}

describe("the API tokens screen", () => {
  it("lists tokens with their app, role and state; an administrator sees whose", async () => {
    setup();
    const active = await screen.findByRole("row", { name: /deploy pipeline/ });
    expect(within(active).getAllByRole("cell").map((c) => c.textContent)).toEqual(
      expect.arrayContaining(["vic", "orders", "EDITOR", "Active"]),
    );
    const revoked = screen.getByRole("row", { name: /old script/ });
    expect(revoked).toHaveTextContent("Every app");
    expect(revoked).toHaveTextContent("Creator’s role");
    expect(revoked).toHaveTextContent("Revoked");
    expect(within(revoked).queryByRole("button", { name: /Revoke/ })).not.toBeInTheDocument();
    expect(screen.getByRole("columnheader", { name: "User" })).toBeInTheDocument();
  });

  it("does not show a user their own name on every row", async () => {
    setup({ me: { id: "2", username: "vic", admin: false, ssoSubject: null } });
    await screen.findByRole("row", { name: /deploy pipeline/ });
    expect(screen.queryByRole("columnheader", { name: "User" })).not.toBeInTheDocument();
  });

  it("creates a token for one app and role, and shows its secret once with a copy button", async () => {
    const user = userEvent.setup();
    const mock = setup();
    await user.click(await screen.findByRole("button", { name: "Create token" }));
    const dialog = await screen.findByRole("dialog", { name: "Create API token" });
    await user.type(within(dialog).getByRole("textbox", { name: /^Name/ }), "ci");
    await user.click(within(dialog).getByRole("textbox", { name: /^App/ }));
    await user.click(await screen.findByRole("option", { name: "billing" }));
    await user.click(within(dialog).getByRole("textbox", { name: /^Role/ }));
    await user.click(await screen.findByRole("option", { name: /^VIEWER/ }));
    await user.click(within(dialog).getByRole("button", { name: "Create token" }));

    const shown = await screen.findByRole("dialog", { name: "New API token" });
    expect(mock.mutated("CreateApiToken")[0]?.variables).toEqual({ name: "ci", app: "billing", role: "VIEWER" });
    expect(within(shown).getByText("jwt_s3cr3t")).toBeInTheDocument();
    expect(within(shown).getByText(/will not be shown again/)).toBeInTheDocument();
    await user.click(within(shown).getByRole("button", { name: "Copy token" }));
    await expect(navigator.clipboard.readText()).resolves.toBe("jwt_s3cr3t");
    await user.click(within(shown).getByRole("button", { name: "Done" }));
    await waitFor(() => expect(screen.queryByText("jwt_s3cr3t")).not.toBeInTheDocument());

    // Opening it again starts a new, empty form.
    await user.click(screen.getByRole("button", { name: "Create token" }));
    const again = await screen.findByRole("dialog", { name: "Create API token" });
    expect(within(again).getByRole("textbox", { name: /^Name/ })).toHaveValue("");
    expect(again).not.toHaveTextContent("jwt_s3cr3t");
  });

  it("revokes a token after asking, then reads the list again", async () => {
    const user = userEvent.setup();
    const mock = setup();
    await user.click(await screen.findByRole("button", { name: "Revoke deploy pipeline" }));
    const dialog = await screen.findByRole("dialog", { name: "Revoke API token" });
    expect(mock.mutated("RevokeApiToken")).toHaveLength(0);
    const reads = mock.sent("ApiTokens").length;
    await user.click(within(dialog).getByRole("button", { name: "Revoke token" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(mock.mutated("RevokeApiToken")[0]?.variables).toEqual({ id: "5" });
    expect(mock.sent("ApiTokens").length).toBeGreaterThan(reads);
  });
});
