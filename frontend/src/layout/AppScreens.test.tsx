import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { AppsQuery, JobsQuery, MeQuery } from "../graphql/graphql";
import { routes } from "../routes";
import { mockClient, renderRoutes, type MockRequest } from "../test/render";

const me: MeQuery = { me: { id: "1", username: "admin", admin: true, ssoSubject: null } };
const apps: AppsQuery = {
  apps: [
    { id: "1", name: "billing", description: "", createdAt: "2026-01-01T00:00:00Z", myRole: "OWNER" },
    { id: "2", name: "orders", description: "", createdAt: "2026-01-01T00:00:00Z", myRole: "OWNER" },
  ],
};
const noJobs: JobsQuery = { jobs: { edges: [], pageInfo: { hasNextPage: false, endCursor: null } } };

function answer({ name }: MockRequest) {
  switch (name) {
    case "Me":
      return { data: me, error: undefined };
    case "Apps":
      return { data: apps, error: undefined };
    case "Jobs":
      return { data: noJobs, error: undefined };
    default:
      return undefined;
  }
}

function nav() {
  return within(screen.getByRole("navigation", { name: "Main" }));
}

describe("per-app screens", () => {
  beforeEach(() => localStorage.clear());

  it("lists the per-app screens in the navbar, for the app chosen last", async () => {
    localStorage.setItem("jobwheel.app", JSON.stringify("orders"));
    const { router } = renderRoutes(routes, "/jobs", mockClient({ query: answer }).asClient);
    await waitFor(() => expect(router.state.location.pathname).toBe("/apps/orders/jobs"));
    expect(await screen.findByText(/App orders has no jobs yet/)).toBeInTheDocument();

    expect(nav().getAllByRole("link").map((l) => l.textContent)).toEqual([
      "Apps",
      "Overview",
      "Reports",
      "Dashboard",
      "Jobs",
      "Instances",
      "Workflows",
      "Calendars",
      "Pools",
      "Workers",
      "Settings",
      "Audit",
      "Servers",
      "Users",
      "API tokens",
    ]);
    expect(nav().getByRole("link", { name: "Jobs" })).toHaveAttribute("aria-current", "page");
    expect(nav().getByRole("link", { name: "Apps" })).not.toHaveAttribute("aria-current");
    expect(nav().getByRole("link", { name: "Instances" })).toHaveAttribute("href", "/apps/orders/instances");
    expect(document.title).toBe("Jobs · orders · jobwheel");
  });

  it("goes to the same screen of the app picked in the header, and remembers it", async () => {
    const user = userEvent.setup();
    const { router } = renderRoutes(routes, "/apps/orders/jobs", mockClient({ query: answer }).asClient);
    const picker = await screen.findByRole("textbox", { name: "App" });
    await waitFor(() => expect(picker).toHaveValue("orders"));
    await user.click(picker);
    await user.click(await screen.findByRole("option", { name: "billing" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/apps/billing/jobs"));
    expect(JSON.parse(localStorage.getItem("jobwheel.app") ?? "null")).toBe("billing");
  });

  it("opens the app shown in the header on the Apps screen when it is picked", async () => {
    localStorage.setItem("jobwheel.app", JSON.stringify("orders"));
    const user = userEvent.setup();
    const { router } = renderRoutes(routes, "/apps", mockClient({ query: answer }).asClient);
    const picker = await screen.findByRole("textbox", { name: "App" });
    await waitFor(() => expect(picker).toHaveValue("orders"));
    await user.click(picker);
    await user.click(await screen.findByRole("option", { name: "orders" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/apps/orders/dashboard"));
  });

  it("says so for an app that does not exist", async () => {
    renderRoutes(routes, "/apps/nope/workers", mockClient({ query: answer }).asClient);
    expect(await screen.findByRole("heading", { name: "No app “nope”" })).toBeInTheDocument();
  });

  it("opens an app at its dashboard", async () => {
    const { router } = renderRoutes(routes, "/apps/orders", mockClient({ query: answer }).asClient);
    await waitFor(() => expect(router.state.location.pathname).toBe("/apps/orders/dashboard"));
    expect(await screen.findByRole("heading", { name: "Dashboard" })).toBeInTheDocument();
  });

  it("leaves Users out of a non-administrator's navbar", async () => {
    const user: MeQuery = { me: { id: "2", username: "vic", admin: false, ssoSubject: null } };
    const query = (r: MockRequest) => (r.name === "Me" ? { data: user, error: undefined } : answer(r));
    renderRoutes(routes, "/apps/orders/jobs", mockClient({ query }).asClient);
    await screen.findByRole("heading", { name: "Jobs" });
    const labels = nav().getAllByRole("link").map((l) => l.textContent);
    expect(labels).not.toContain("Users");
    expect(labels).toContain("API tokens");
  });
});
