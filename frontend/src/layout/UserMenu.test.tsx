import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { JobsQuery } from "../graphql/graphql";
import { routes } from "../routes";
import { mockClient, renderRoutes, type MockRequest } from "../test/render";

const noJobs: JobsQuery = { jobs: { edges: [], pageInfo: { hasNextPage: false, endCursor: null } } };
const answer = ({ name }: MockRequest) => (name === "Jobs" ? { data: noJobs, error: undefined } : undefined);

describe("the user menu", () => {
  beforeEach(() => localStorage.clear());

  it("switches the colour scheme to dark and back to the system's, and remembers it", async () => {
    const user = userEvent.setup();
    renderRoutes(routes, "/apps/orders/jobs", mockClient({ query: answer }).asClient);
    await user.click(await screen.findByRole("button", { name: "Account: admin" }));
    const schemes = await screen.findByRole("radiogroup", { name: "Colour scheme" });
    // (The test's provider starts light; the console's starts at the system's.)
    expect(within(schemes).getByRole("radio", { name: "Light" })).toBeChecked();

    await user.click(within(schemes).getByRole("radio", { name: "Dark" }));
    await waitFor(() => expect(document.documentElement).toHaveAttribute("data-mantine-color-scheme", "dark"));
    expect(within(schemes).getByRole("radio", { name: "Dark" })).toBeChecked();
    expect(localStorage.getItem("mantine-color-scheme-value")).toBe("dark");

    await user.click(within(schemes).getByRole("radio", { name: "System" }));
    expect(within(schemes).getByRole("radio", { name: "System" })).toBeChecked();
    await waitFor(() => expect(document.documentElement).toHaveAttribute("data-mantine-color-scheme", "light"));
    expect(localStorage.getItem("mantine-color-scheme-value")).toBe("auto");
  });

  it("links to the GraphQL explorer", async () => {
    const user = userEvent.setup();
    renderRoutes(routes, "/apps/orders/jobs", mockClient({ query: answer }).asClient);
    await user.click(await screen.findByRole("button", { name: "Account: admin" }));
    expect(await screen.findByRole("menuitem", { name: "GraphQL explorer" })).toHaveAttribute("href", "/graphiql");
  });
});

describe("keyboard shortcuts", () => {
  it("'/' goes to the screen's search field and '?' lists the shortcuts, but not while typing", async () => {
    const user = userEvent.setup();
    renderRoutes(routes, "/apps/orders/jobs", mockClient({ query: answer }).asClient);
    const search = await screen.findByRole("searchbox", { name: "Search jobs" });
    await user.keyboard("/");
    expect(search).toHaveFocus();
    // Typed into the field, "/" and "?" are text.
    await user.keyboard("a/?");
    expect(search).toHaveValue("a/?");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();

    search.blur();
    await user.keyboard("?");
    const dialog = await screen.findByRole("dialog", { name: "Keyboard shortcuts" });
    expect(dialog).toHaveTextContent("Go to the search field");
  });
});
