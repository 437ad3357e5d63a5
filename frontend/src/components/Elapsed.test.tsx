import { act, screen } from "@testing-library/react";
import { renderWithMantine } from "../test/render";
import { Elapsed } from "./Elapsed";

describe("Elapsed", () => {
  afterEach(() => vi.useRealTimers());

  it("keeps a running time current as time passes, and leaves a finished one alone", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "Date"] });
    vi.setSystemTime(new Date("2026-11-21T12:00:08Z"));
    renderWithMantine(
      <>
        <p data-testid="running">
          <Elapsed start="2026-11-21T12:00:00Z" end={null} />
        </p>
        <p data-testid="finished">
          <Elapsed start="2026-11-21T12:00:00Z" end="2026-11-21T12:00:03Z" />
        </p>
        <p data-testid="waiting">
          <Elapsed start={null} end={null} />
        </p>
      </>,
    );
    expect(screen.getByTestId("running")).toHaveTextContent("8.0 s");
    expect(screen.getByTestId("finished")).toHaveTextContent("3.0 s");
    expect(screen.getByTestId("waiting")).toHaveTextContent("—");

    await act(() => vi.advanceTimersByTimeAsync(5_000));
    expect(screen.getByTestId("running")).toHaveTextContent("13.0 s");
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    expect(screen.getByTestId("running")).toHaveTextContent("1 m 13 s");
    expect(screen.getByTestId("finished")).toHaveTextContent("3.0 s");
  });
});
