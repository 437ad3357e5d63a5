import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { AppsQuery, CreateAppMutation } from "../graphql/graphql";
import { graphQLError, mockClient, renderRoutes, type MockRequest } from "../test/render";
import { AppsPage } from "./AppsPage";

const routes = [{ path: "/apps", Component: AppsPage }];

const existing: AppsQuery = {
  apps: [
    { id: "1", name: "billing", description: "Invoices", createdAt: "2026-01-02T03:04:05Z", myRole: "OWNER" },
  ],
};

const created: CreateAppMutation = {
  createApp: {
    app: { id: "2", name: "reports", description: "Nightly", createdAt: "2026-02-01T00:00:00Z", myRole: "OWNER" },
    secret: "jwa_s3cr3t",
  },
};

/** Answers the app list with `apps`; "Me" is left to the mock (an administrator). */
function appsAre(apps: AppsQuery) {
  return ({ name }: MockRequest) => (name === "Apps" ? { data: apps, error: undefined } : undefined);
}

async function fillAndSubmit(name: string, description: string) {
  const user = userEvent.setup();
  await user.click(screen.getByRole("button", { name: "Create app" }));
  const dialog = await screen.findByRole("dialog");
  await user.type(within(dialog).getByLabelText("Name", { exact: false }), name);
  if (description) await user.type(within(dialog).getByLabelText("Description"), description);
  await user.click(within(dialog).getByRole("button", { name: "Create app" }));
  return { user, dialog };
}

describe("AppsPage", () => {
  it("lists the apps with their description and role", async () => {
    renderRoutes(routes, "/apps", mockClient({ query: appsAre(existing) }).asClient);
    const row = await screen.findByRole("row", { name: /billing/ });
    expect(within(row).getByText("Invoices")).toBeInTheDocument();
    expect(within(row).getByText("OWNER")).toBeInTheDocument();
  });

  it("says so when there are no apps", async () => {
    renderRoutes(routes, "/apps", mockClient({ query: appsAre({ apps: [] }) }).asClient);
    expect(await screen.findByText(/No apps yet/)).toBeInTheDocument();
  });

  it("offers creating an app to administrators only", async () => {
    const me = { me: { id: "2", username: "olga", admin: false } };
    const query = ({ name }: MockRequest) =>
      name === "Me" ? { data: me, error: undefined } : appsAre(existing)({ name, variables: {} });
    renderRoutes(routes, "/apps", mockClient({ query }).asClient);
    const row = await screen.findByRole("row", { name: /billing/ });
    expect(within(row).getByRole("link", { name: "billing" })).toHaveAttribute("href", "/apps/billing/dashboard");
    expect(screen.queryByRole("button", { name: "Create app" })).not.toBeInTheDocument();
  });

  it("shows a query error with a retry button", async () => {
    const error = graphQLError("internal error (reference abc)", "INTERNAL");
    renderRoutes(routes, "/apps", mockClient({ query: { data: undefined, error } }).asClient);
    expect(await screen.findByRole("alert")).toHaveTextContent("internal error (reference abc)");
    expect(screen.getByRole("button", { name: "Try again" })).toBeInTheDocument();
  });

  it("shows the new app's secret once, with a copy button", async () => {
    const { client, asClient } = mockClient({
      query: appsAre(existing),
      mutation: { data: created, error: undefined },
    });
    renderRoutes(routes, "/apps", asClient);

    const { user, dialog } = await fillAndSubmit("reports", "Nightly");

    expect(client.executeMutation).toHaveBeenCalledWith(
      expect.objectContaining({ variables: { name: "reports", description: "Nightly" } }),
      expect.anything(),
    );
    expect(await within(dialog).findByText("jwa_s3cr3t")).toBeInTheDocument();
    expect(within(dialog).getByText(/will not be shown again/)).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Copy secret" }));
    expect(within(dialog).getByRole("button", { name: "Copied" })).toBeInTheDocument();
    await expect(navigator.clipboard.readText()).resolves.toBe("jwa_s3cr3t");

    // A command to start an agent, this server, the app and its secret filled in.
    const origin = window.location.origin;
    expect(within(dialog).getByTestId("agent command")).toHaveTextContent(
      `JOBWHEEL_SERVERS=${origin} \\ JOBWHEEL_APP=reports \\ JOBWHEEL_APP_SECRET=jwa_s3cr3t \\ ./bin/jobwheel-agent`,
    );
    await user.click(within(dialog).getByRole("button", { name: "Copy the agent command" }));
    await expect(navigator.clipboard.readText()).resolves.toMatch(/^JOBWHEEL_SERVERS=.*\.\/bin\/jobwheel-agent$/s);
    await user.click(within(dialog).getByRole("tab", { name: "Docker" }));
    expect(within(dialog).getByTestId("docker command")).toHaveTextContent(
      /^docker run -d --name jobwheel-agent-reports( --network host)? \\ -e JOBWHEEL_SERVERS=.* -e JOBWHEEL_APP=reports \\ -e JOBWHEEL_APP_SECRET=jwa_s3cr3t \\ jobwheel-agent$/,
    );

    await user.click(within(dialog).getByRole("button", { name: "Done" }));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(screen.queryByText("jwa_s3cr3t")).not.toBeInTheDocument();

    // Opening the dialog again starts a new form; the secret is gone.
    await user.click(screen.getByRole("button", { name: "Create app" }));
    expect(await screen.findByRole("dialog")).not.toHaveTextContent("jwa_s3cr3t");
  });

  it("shows a BAD_INPUT error next to the field it names", async () => {
    const { asClient } = mockClient({
      query: appsAre(existing),
      mutation: { data: undefined, error: graphQLError("name: must be lower-case letters…", "BAD_INPUT", "name") },
    });
    renderRoutes(routes, "/apps", asClient);

    const { user, dialog } = await fillAndSubmit("Bad Name", "");

    const name = within(dialog).getByLabelText("Name", { exact: false });
    expect(name).toHaveAttribute("aria-invalid", "true");
    // The reason alone, as every form words it: not "name: must be …".
    expect(name).toHaveAccessibleDescription(/^must be lower-case letters… Workers name it/);
    expect(within(dialog).queryByRole("alert")).not.toBeInTheDocument();
    expect(within(dialog).queryByText(/jwa_/)).not.toBeInTheDocument();

    // Editing the field clears its error until the next try.
    await user.type(name, "x");
    expect(name).not.toHaveAttribute("aria-invalid", "true");
  });
});
