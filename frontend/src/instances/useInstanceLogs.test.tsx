import type { ReactNode } from "react";
import { act, renderHook, waitFor } from "@testing-library/react";
import { CombinedError, Provider } from "urql";
import { makeSubject, type Subject } from "wonka";
import { resubscribeDelayMs } from "../api/useLiveSubscription";
import { graphQLError, mockClient, type MockRequest } from "../test/render";
import { useInstanceLogs, type LogLine } from "./useInstanceLogs";

function line(seq: number, attempt = 1): LogLine {
  return { seq, time: "2026-11-21T12:00:00Z", level: "INFO", worker: "w-1", text: `line-${seq}`, attempt };
}

/** A server whose stored log has `count` lines, handed out `pageSize` at a time after afterSeq. */
function logServer(count: number, pageSize = 2) {
  return ({ name, variables }: MockRequest) => {
    if (name !== "InstanceLogs") return undefined;
    const after = Number(variables["afterSeq"] ?? 0);
    const all = Array.from({ length: count }, (_, i) => line(i + 1)).filter((l) => l.seq > after);
    const lines = all.slice(0, pageSize);
    return { data: { instance: { id: "5", logs: { lines, hasMore: all.length > lines.length } } }, error: undefined };
  };
}

interface Stream {
  afterSeq: unknown;
  subject: Subject<{ data?: unknown; error?: CombinedError }>;
}

function setup(stored: number, live = true) {
  const streams: Stream[] = [];
  const mock = mockClient({
    query: logServer(stored),
    subscription: ({ name, variables }) => {
      if (name !== "InstanceLogLines") return undefined;
      const subject = makeSubject<{ data?: unknown; error?: CombinedError }>();
      streams.push({ afterSeq: variables["afterSeq"], subject });
      return subject.source;
    },
  });
  const wrapper = ({ children }: { children: ReactNode }) => <Provider value={mock.asClient}>{children}</Provider>;
  const hook = renderHook(({ isLive, attempt }) => useInstanceLogs("5", isLive, attempt), {
    wrapper,
    initialProps: { isLive: live, attempt: 1 },
  });
  const push = (stream: Stream | undefined, seq: number, attempt = 1) =>
    act(() => stream?.subject.next({ data: { instanceLogs: line(seq, attempt) } }));
  const seqs = () => hook.result.current.lines.map((l) => l.seq);
  return { ...hook, mock, streams, push, seqs };
}

describe("useInstanceLogs", () => {
  it("reads the stored lines a page at a time, then subscribes after the last of them", async () => {
    const { result, mock, streams, seqs } = setup(5);
    await waitFor(() => expect(result.current.loaded).toBe(true));
    expect(seqs()).toEqual([1, 2, 3, 4, 5]);
    expect(mock.sent("InstanceLogs").map((r) => r.variables["afterSeq"])).toEqual([0, 2, 4]);
    await waitFor(() => expect(streams).toHaveLength(1));
    expect(streams[0]?.afterSeq).toBe(5);
  });

  it("adds the lines the subscription pushes, each once, and completes with the stream", async () => {
    const { result, rerender, streams, push, seqs } = setup(2);
    await waitFor(() => expect(streams).toHaveLength(1));
    push(streams[0], 3);
    push(streams[0], 3);
    push(streams[0], 2);
    push(streams[0], 4);
    expect(seqs()).toEqual([1, 2, 3, 4]);
    expect(result.current.complete).toBe(false);

    // The instance finished: the server completes the stream.
    rerender({ isLive: false, attempt: 1 });
    act(() => streams[0]?.subject.complete());
    expect(result.current.complete).toBe(true);
    expect(streams).toHaveLength(1);
  });

  it("follows a retry: the new attempt's lines come live after the finished attempt's stream completed", async () => {
    const { result, rerender, streams, push, seqs } = setup(2, false);
    await waitFor(() => expect(streams).toHaveLength(1));
    // The instance had finished: its stream completes.
    act(() => streams[0]?.subject.complete());
    expect(result.current.complete).toBe(true);

    // Retried: the page sees attempt 2, unfinished.
    rerender({ isLive: true, attempt: 2 });
    await waitFor(() => expect(streams).toHaveLength(2));
    expect(streams[1]?.afterSeq).toBe(2);
    expect(result.current.complete).toBe(false);
    push(streams[1], 3, 2);
    push(streams[1], 4, 2);
    expect(seqs()).toEqual([1, 2, 3, 4]);
    expect(result.current.lines.map((l) => l.attempt)).toEqual([1, 1, 2, 2]);
  });

  it("subscribes again when the stream completes while the instance still runs (a server shutting down)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const { result, streams, push } = setup(1);
      await act(() => vi.advanceTimersByTimeAsync(0));
      push(streams[0], 2);
      act(() => streams[0]?.subject.complete());
      expect(result.current.complete).toBe(false);
      await act(() => vi.advanceTimersByTimeAsync(resubscribeDelayMs(1)));
      expect(streams).toHaveLength(2);
      expect(streams[1]?.afterSeq).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("subscribes again after the last seq received when the stream breaks", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const { result, streams, push, seqs } = setup(1);
      await act(() => vi.advanceTimersByTimeAsync(0));
      expect(streams).toHaveLength(1);
      push(streams[0], 2);
      push(streams[0], 3);

      act(() => streams[0]?.subject.next({ error: graphQLError("the client did not keep up", "SLOW_CONSUMER") }));
      expect(result.current.error?.message).toMatch(/did not keep up/);
      await act(() => vi.advanceTimersByTimeAsync(resubscribeDelayMs(1) - 1));
      expect(streams).toHaveLength(1);
      await act(() => vi.advanceTimersByTimeAsync(1));
      expect(streams).toHaveLength(2);
      expect(streams[1]?.afterSeq).toBe(3);
      expect(result.current.error).toBeNull();

      // The new stream may repeat nothing and miss nothing.
      push(streams[1], 4);
      expect(seqs()).toEqual([1, 2, 3, 4]);

      // A dropped websocket is a network error: subscribed again, too.
      act(() =>
        streams[1]?.subject.next({ error: new CombinedError({ networkError: new Error("socket closed") }) }),
      );
      await act(() => vi.advanceTimersByTimeAsync(resubscribeDelayMs(2)));
      expect(streams).toHaveLength(3);
      expect(streams[2]?.afterSeq).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });

  it("stops on an error another try would repeat", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const { result, streams } = setup(0);
      await act(() => vi.advanceTimersByTimeAsync(0));
      act(() => streams[0]?.subject.next({ error: graphQLError("instance not found", "NOT_FOUND") }));
      await act(() => vi.advanceTimersByTimeAsync(60_000));
      expect(streams).toHaveLength(1);
      expect(result.current.error?.message).toMatch(/not found/);
    } finally {
      vi.useRealTimers();
    }
  });
});
