import { useEffect, useRef, useState } from "react";
import { createRequest, useClient, type AnyVariables, type CombinedError, type TypedDocumentNode } from "urql";
import { onEnd, pipe, subscribe } from "wonka";
import { hasErrorCode } from "./errors";

/** Waits before subscribing again after the n-th failure in a row: 1 s, 2 s, 4 s, … at most 15 s. */
export function resubscribeDelayMs(failures: number): number {
  return Math.min(15_000, 1_000 * 2 ** Math.max(0, failures - 1));
}

/** How long a stream must have lived to count as healthy when it fails. */
const healthyMs = 20_000;

/** Errors that another try would only repeat. */
function isFinal(error: CombinedError): boolean {
  return (["UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND", "BAD_INPUT"] as const).some((code) =>
    hasErrorCode(error, code),
  );
}

interface LiveSubscriptionOptions<Data, Variables extends AnyVariables> {
  query: TypedDocumentNode<Data, Variables>;
  /** The arguments, read at every (re)subscription: e.g. a log's afterSeq = the last seq received. */
  variables: () => Variables;
  /** A change of key ends the subscription and starts a new one. */
  key: string;
  /** Whether to subscribe at all. */
  enabled?: boolean;
  onData: (data: Data) => void;
  /**
   * Called each time a subscription is sent, `again` after a failure:
   * what changed meanwhile was not pushed, so a screen reads it afresh.
   */
  onStart?: (again: boolean) => void;
  /** Called when the server completes the stream (it has nothing more to send). */
  onComplete?: () => void;
  /**
   * Asked when the server completes the stream: true to subscribe again
   * (after a delay, as after an error), for a stream that should not have
   * ended yet. A server shutting down gracefully may complete its streams
   * instead of ending them with UNAVAILABLE.
   */
  resubscribeOnComplete?: () => boolean;
}

export interface LiveSubscriptionState {
  /** The last failure, until data arrives again; a final one stops the retries. */
  error: CombinedError | null;
  /** The server completed the stream. */
  completed: boolean;
}

/**
 * Keeps a GraphQL subscription open for as long as the component wants it.
 * A stream that ends with an error (the server's SLOW_CONSUMER or
 * UNAVAILABLE, a dropped websocket, a server that could not be reached) is
 * subscribed again after a growing delay, with the arguments `variables()`
 * gives at that moment; errors a retry would only repeat (FORBIDDEN,
 * NOT_FOUND, …) stop it. A stream the server completes stays completed.
 */
export function useLiveSubscription<Data, Variables extends AnyVariables>({
  query,
  variables,
  key,
  enabled = true,
  onData,
  onStart,
  onComplete,
  resubscribeOnComplete,
}: LiveSubscriptionOptions<Data, Variables>): LiveSubscriptionState {
  const client = useClient();
  // Kept with the key it is about, so a new key starts from a clean state.
  const [state, setState] = useState<LiveSubscriptionState & { key: string }>({ key, error: null, completed: false });
  // The latest callbacks, so a new render does not restart the subscription.
  const latest = useRef({ query, variables, onData, onStart, onComplete, resubscribeOnComplete });
  useEffect(() => {
    latest.current = { query, variables, onData, onStart, onComplete, resubscribeOnComplete };
  });

  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    let failures = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let current: { unsubscribe: () => void } | undefined;
    const report = (next: LiveSubscriptionState) => setState({ key, ...next });

    function start(again: boolean) {
      const { query, variables } = latest.current;
      // Set once this stream is over, so its later signals (and the end
      // signal our own unsubscribe causes) are ignored.
      let over = false;
      const startedAt = Date.now();
      if (again) report({ error: null, completed: false });
      const stream = pipe(
        client.executeSubscription(createRequest(query, variables())),
        onEnd(() => {
          if (over || stopped) return;
          over = true;
          if (latest.current.resubscribeOnComplete?.()) {
            retry();
            return;
          }
          report({ error: null, completed: true });
          latest.current.onComplete?.();
        }),
        subscribe((result) => {
          if (over || stopped) return;
          const { error, data } = result;
          if (error) {
            // A subscription's error ends its stream.
            over = true;
            queueMicrotask(() => stream.unsubscribe());
            report({ error, completed: false });
            if (isFinal(error)) return;
            retry();
            return;
          }
          if (data !== undefined && data !== null) {
            failures = 0;
            latest.current.onData(data);
          }
        }),
      );
      current = stream;
      latest.current.onStart?.(again);

      function retry() {
        // A stream that lived a while was healthy: start the delays afresh.
        failures = Date.now() - startedAt > healthyMs ? 1 : failures + 1;
        timer = setTimeout(() => {
          if (!stopped) start(true);
        }, resubscribeDelayMs(failures));
      }
    }

    start(false);
    return () => {
      stopped = true;
      clearTimeout(timer);
      current?.unsubscribe();
    };
  }, [client, key, enabled]);

  return state.key === key ? { error: state.error, completed: state.completed } : { error: null, completed: false };
}
