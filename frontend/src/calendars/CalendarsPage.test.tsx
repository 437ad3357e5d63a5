import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { AppRole, CalendarFieldsFragment } from "../graphql/graphql";
import { graphQLError, mockClient, renderRoutes, type MockRequest } from "../test/render";
import { CalendarsPage } from "./CalendarsPage";

// Dialogs in jsdom are slow on a busy machine; this bounds a hang, not speed.
vi.setConfig({ testTimeout: 60_000 });

const routes = [{ path: "/apps/:app/calendars", Component: CalendarsPage }];

const holidays: CalendarFieldsFragment = {
  id: "3",
  name: "holidays",
  description: "Public holidays",
  // One long past, three far ahead: the row shows the next three.
  dates: ["2020-01-01", "2999-12-24", "2999-12-25", "2999-12-26", "2999-12-31"],
  jobs: [{ id: "7", name: "nightly" }],
  updatedAt: "2026-11-20T10:00:00Z",
};

function setup(role: AppRole = "EDITOR", deleteAnswer?: "conflict") {
  const mock = mockClient({
    role,
    query: ({ name }: MockRequest) =>
      name === "AppCalendars" ? { data: { calendars: [holidays] }, error: undefined } : undefined,
    mutation: ({ name, variables }) => {
      if (name === "DeleteCalendar") {
        return deleteAnswer === "conflict"
          ? { data: undefined, error: graphQLError("calendar holidays is used by jobs: nightly", "CONFLICT") }
          : { data: { deleteCalendar: true }, error: undefined };
      }
      const input = variables["input"] as { name: string; description: string; dates: string[] };
      const id = typeof variables["id"] === "string" ? variables["id"] : "4";
      const calendar = { ...holidays, id, ...input, jobs: [] };
      return name === "CreateCalendar"
        ? { data: { createCalendar: calendar }, error: undefined }
        : { data: { updateCalendar: calendar }, error: undefined };
    },
  });
  renderRoutes(routes, "/apps/orders/calendars", mock.asClient);
  return mock;
}

describe("the calendars screen", () => {
  it("lists each calendar with its count of dates, the next ones and the jobs that use it", async () => {
    setup();
    const row = await screen.findByRole("row", { name: /holidays/ });
    expect(row).toHaveTextContent("Public holidays");
    expect(within(row).getAllByRole("cell")[0]).toHaveTextContent("5");
    expect(row).toHaveTextContent("2999-12-242999-12-252999-12-26");
    expect(row).not.toHaveTextContent("2999-12-31");
    expect(within(row).getByRole("link", { name: "nightly" })).toHaveAttribute("href", "/apps/orders/jobs/7");
  });

  it("creates a calendar, refusing what is not a date before it sends", async () => {
    const user = userEvent.setup();
    const mock = setup();
    await user.click(await screen.findByRole("button", { name: "New calendar" }));
    const dialog = await screen.findByRole("dialog", { name: "New calendar" });
    await user.type(within(dialog).getByRole("textbox", { name: /^Name/ }), "closures");
    const dates = within(dialog).getByRole("textbox", { name: /^Excluded dates/ });
    await user.type(dates, "2026-12-25{enter}25.12.2026");
    await user.click(within(dialog).getByRole("button", { name: "Create calendar" }));
    expect(await within(dialog).findByText(/Not a date such as 2026-12-25: 25\.12\.2026/)).toBeInTheDocument();
    expect(mock.mutated("CreateCalendar")).toHaveLength(0);

    await user.clear(dates);
    await user.type(dates, "2026-12-26, 2026-12-25");
    await user.click(within(dialog).getByRole("button", { name: "Create calendar" }));
    await waitFor(() => expect(mock.mutated("CreateCalendar")).toHaveLength(1));
    expect(mock.mutated("CreateCalendar")[0]?.variables).toEqual({
      input: { app: "orders", name: "closures", description: "", dates: ["2026-12-25", "2026-12-26"] },
    });
  });

  it("edits a calendar's dates", async () => {
    const user = userEvent.setup();
    const mock = setup();
    await user.click(await screen.findByRole("button", { name: "Edit holidays" }));
    const dialog = await screen.findByRole("dialog", { name: "Edit holidays" });
    const dates = within(dialog).getByRole("textbox", { name: /^Excluded dates/ });
    expect(dates).toHaveValue(holidays.dates.join("\n"));
    await user.clear(dates);
    await user.type(dates, "2999-01-01");
    await user.click(within(dialog).getByRole("button", { name: "Save calendar" }));
    await waitFor(() => expect(mock.mutated("UpdateCalendar")).toHaveLength(1));
    expect(mock.mutated("UpdateCalendar")[0]?.variables).toEqual({
      id: "3",
      input: { app: "orders", name: "holidays", description: "Public holidays", dates: ["2999-01-01"] },
    });
  });

  it("shows the server's refusal to delete a calendar jobs still use", async () => {
    const user = userEvent.setup();
    setup("OWNER", "conflict");
    await user.click(await screen.findByRole("button", { name: "Delete holidays" }));
    const dialog = await screen.findByRole("dialog", { name: "Delete calendar" });
    await user.click(within(dialog).getByRole("button", { name: "Delete calendar" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("used by jobs: nightly");
  });

  it("shows a VIEWER the calendars and their dates with nothing to change them", async () => {
    const user = userEvent.setup();
    const mock = setup("VIEWER");
    await screen.findByRole("row", { name: /holidays/ });
    expect(screen.queryByRole("button", { name: "New calendar" })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /^(Edit|Delete) / })).not.toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Show holidays" }));
    const dialog = await screen.findByRole("dialog", { name: "Calendar holidays" });
    expect(within(dialog).getByRole("textbox", { name: /^Excluded dates/ })).toBeDisabled();
    expect(within(dialog).getByRole("textbox", { name: /^Name/ })).toBeDisabled();
    expect(within(dialog).queryByRole("button", { name: /Save|Create/ })).not.toBeInTheDocument();
    expect(mock.mutated("UpdateCalendar")).toHaveLength(0);
  });
});
