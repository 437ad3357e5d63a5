import { act, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { renderWithMantine } from "../test/render";
import { logText } from "./logFile";
import { LogViewer } from "./LogViewer";
import type { LogLine } from "./useInstanceLogs";

function line(seq: number, level: string, text: string, worker: string | null = "w-1", attempt = 1): LogLine {
  return { seq, time: `2026-11-21T12:00:0${seq % 10}.000Z`, level, worker, text, attempt };
}

const lines = [
  line(1, "DEBUG", "connecting to db"),
  line(2, "INFO", "synced 42 orders"),
  line(3, "WARN", "slow query: 2s", "w-2"),
  line(4, "ERROR", "request timeout after 30s"),
  line(5, "INFO", "done", null),
];

function view(props: Partial<Parameters<typeof LogViewer>[0]> = {}) {
  return <LogViewer lines={lines} live loaded error={null} fileName="instance-1.log" {...props} />;
}

/** The text of the shown log lines. */
function shownTexts(): string[] {
  const rows = within(screen.getByTestId("log-lines")).getAllByRole("row").slice(1);
  return rows.map((r) => within(r).getAllByRole("cell").at(-1)?.textContent ?? "");
}

function viewport(): HTMLElement {
  const el = screen.getByTestId("log-lines").closest<HTMLElement>(".mantine-ScrollArea-viewport");
  if (!el) throw new Error("no scroll viewport");
  return el;
}

describe("LogViewer", () => {
  it("shows each line's seq, time, level, worker and text", () => {
    renderWithMantine(view());
    const row = screen.getByRole("row", { name: /slow query/ });
    const cells = within(row).getAllByRole("cell").map((c) => c.textContent);
    expect(cells[0]).toBe("3");
    expect(cells[2]).toBe("WARN");
    expect(cells[3]).toBe("w-2");
    expect(cells[4]).toBe("slow query: 2s");
    expect(within(row).getByRole("cell", { name: /\d\d:\d\d:\d\d/ }).querySelector("time")).toHaveAttribute(
      "datetime",
      "2026-11-21T12:00:03.000Z",
    );
    // Lines the server wrote have no worker.
    expect(within(screen.getByRole("row", { name: /done/ })).getByText("server")).toBeInTheDocument();
    expect(screen.getByText("5 lines")).toBeInTheDocument();
  });

  it("filters by level", async () => {
    const user = userEvent.setup();
    renderWithMantine(view());
    await user.click(screen.getByRole("checkbox", { name: "DEBUG" }));
    await user.click(screen.getByRole("checkbox", { name: "INFO" }));
    expect(shownTexts()).toEqual(["slow query: 2s", "request timeout after 30s"]);
    expect(screen.getByText("2 of 5 lines")).toBeInTheDocument();

    await user.click(screen.getByRole("checkbox", { name: "WARN" }));
    await user.click(screen.getByRole("checkbox", { name: "ERROR" }));
    expect(screen.getByText("No line matches the filters.")).toBeInTheDocument();
  });

  it("searches the text and the worker, case-insensitively", async () => {
    const user = userEvent.setup();
    renderWithMantine(view());
    await user.type(screen.getByLabelText("Search the log"), "TIMEOUT");
    expect(shownTexts()).toEqual(["request timeout after 30s"]);
    // The match is marked.
    expect(within(screen.getByTestId("log-lines")).getByText("timeout").tagName).toBe("MARK");

    await user.clear(screen.getByLabelText("Search the log"));
    await user.type(screen.getByLabelText("Search the log"), "w-2");
    expect(shownTexts()).toEqual(["slow query: 2s"]);
  });

  it("follows new lines to the end until paused, and counts what arrives while paused", async () => {
    const user = userEvent.setup();
    const { rerender } = renderWithMantine(view({ lines: lines.slice(0, 2) }));
    const follow = screen.getByRole("switch", { name: "Follow" });
    expect(follow).toBeChecked();

    // jsdom lays nothing out; give the log a height to scroll to.
    Object.defineProperty(viewport(), "scrollHeight", { configurable: true, value: 900 });
    rerender(view({ lines: lines.slice(0, 3) }));
    expect(viewport().scrollTop).toBe(900);

    await user.click(follow);
    expect(follow).not.toBeChecked();
    viewport().scrollTop = 100;
    Object.defineProperty(viewport(), "scrollHeight", { configurable: true, value: 1200 });
    rerender(view({ lines }));
    expect(viewport().scrollTop).toBe(100);
    expect(shownTexts()).toHaveLength(5);

    const catchUp = screen.getByRole("button", { name: /2 new lines/ });
    await user.click(catchUp);
    expect(follow).toBeChecked();
    expect(viewport().scrollTop).toBe(1200);
    expect(screen.queryByRole("button", { name: /new line/ })).not.toBeInTheDocument();
  });

  it("pauses following when scrolled up", () => {
    renderWithMantine(view());
    const el = viewport();
    Object.defineProperty(el, "scrollHeight", { configurable: true, value: 900 });
    Object.defineProperty(el, "clientHeight", { configurable: true, value: 300 });
    el.scrollTop = 100;
    act(() => {
      el.dispatchEvent(new Event("scroll"));
    });
    expect(screen.getByRole("switch", { name: "Follow" })).not.toBeChecked();
  });

  it("says so while there are no lines yet, and while loading", () => {
    const { rerender } = renderWithMantine(view({ lines: [], loaded: false }));
    expect(screen.getByRole("status")).toHaveTextContent("Loading the log");
    rerender(view({ lines: [] }));
    expect(screen.getByText(/No log lines yet/)).toBeInTheDocument();
    rerender(view({ lines: [], live: false }));
    expect(screen.getByText("This instance wrote no log lines.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Download .log" })).toBeDisabled();
  });

  it("downloads the whole log as text, one line each", async () => {
    const user = userEvent.setup();
    const createObjectURL = vi.fn<(blob: Blob) => string>(() => "blob:log");
    const revokeObjectURL = vi.fn();
    Object.assign(URL, { createObjectURL, revokeObjectURL });
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    renderWithMantine(view());

    await user.click(screen.getByRole("button", { name: "Download .log" }));
    expect(click).toHaveBeenCalledTimes(1);
    const blob = createObjectURL.mock.calls[0]?.[0];
    expect(await blob?.text()).toBe(logText(lines));
    expect(logText(lines.slice(2, 3))).toBe("2026-11-21T12:00:03.000Z WARN  [w-2] slow query: 2s\n");
    click.mockRestore();
  });

  it("separates a retried instance's attempts with a line each, in the view and in the downloaded file", () => {
    const retried = [
      line(1, "INFO", "first try"),
      line(2, "ERROR", "exit status 3"),
      line(3, "INFO", "second try", "w-2", 2),
      line(4, "INFO", "done", "w-2", 2),
    ];
    const { rerender } = renderWithMantine(view({ lines: retried }));
    const rows = within(screen.getByTestId("log-lines")).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.textContent)).toEqual([
      "Attempt 1",
      expect.stringContaining("first try"),
      expect.stringContaining("exit status 3"),
      "Attempt 2",
      expect.stringContaining("second try"),
      expect.stringContaining("done"),
    ]);
    // Narrowed by level, a separator still heads each attempt's first line shown.
    rerender(view({ lines: retried.filter((l) => l.level === "INFO") }));
    expect(screen.getAllByTestId("attempt-separator").map((r) => r.textContent)).toEqual(["Attempt 1", "Attempt 2"]);
    expect(logText(retried)).toMatch(/^--- attempt 1 ---\n.*first try\n.*exit status 3\n--- attempt 2 ---\n.*second try\n/);
  });

  it("shows no separator while the instance has had one attempt", () => {
    renderWithMantine(view());
    expect(screen.queryByTestId("attempt-separator")).not.toBeInTheDocument();
    expect(logText(lines)).not.toContain("attempt");
  });
});
