import { act, screen } from "@testing-library/react";
import { renderWithMantine } from "../test/render";
import { Timestamp } from "./Timestamp";

describe("Timestamp", () => {
  afterEach(() => vi.useRealTimers());

  it("keeps a relative age current as time passes, without a re-render from outside", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(new Date("2026-11-21T12:00:08Z"));
    renderWithMantine(<Timestamp value="2026-11-21T12:00:00Z" relative />);
    expect(screen.getByRole("time")).toHaveTextContent("8s ago");

    await act(() => vi.advanceTimersByTimeAsync(50_000));
    expect(screen.getByRole("time")).toHaveTextContent("58s ago");
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(screen.getByRole("time")).toHaveTextContent("1m ago");
  });
});
