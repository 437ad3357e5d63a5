import { useCallback, useEffect, useRef, useState } from "react";
import { useClient, type CombinedError } from "urql";
import { useLiveSubscription } from "../api/useLiveSubscription";
import type { InstanceLogsQuery as LogsResult } from "../graphql/graphql";
import { InstanceLogLinesSubscription, InstanceLogsQuery } from "./operations";

export type LogLine = NonNullable<LogsResult["instance"]>["logs"]["lines"][number];

/** Lines per request (the API's most). */
const pageLines = 1000;
/** The wait before reading the stored log again after a failed read. */
export const rereadMs = 2_000;

export interface InstanceLogs {
  lines: LogLine[];
  /** The lines stored when the page opened have been read. */
  loaded: boolean;
  /** Why the log could not be read or followed (it is tried again). */
  error: CombinedError | null;
  /** The server said the log is complete: the instance finished and every line was sent. */
  complete: boolean;
}

/**
 * An instance's log, growing as lines arrive. The lines already stored are
 * read a page at a time (logs(afterSeq), a thousand a request); then the
 * instanceLogs subscription sends those written since, live, and completes
 * once the instance has finished and every line was sent. When the stream
 * breaks (the server's SLOW_CONSUMER or UNAVAILABLE, a dropped websocket)
 * it is subscribed again after the last seq received, so no line is missed
 * or shown twice. `live`: whether the instance is unfinished as far as the
 * page knows. `attempt`: its current attempt, as far as the page knows: a
 * retry (a new attempt of an instance whose stream had completed) is
 * followed by subscribing again after the last line held, so its lines
 * come live too.
 */
export function useInstanceLogs(instanceId: string, live: boolean, attempt = 0): InstanceLogs {
  const client = useClient();
  const [lines, setLines] = useState<LogLine[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [readError, setReadError] = useState<CombinedError | null>(null);
  const lastSeq = useRef(0);
  const liveRef = useRef(live);
  useEffect(() => {
    liveRef.current = live;
  });

  // Adds lines after the last one held; repeats are dropped by seq.
  const append = useCallback((more: LogLine[]) => {
    const fresh = more.filter((l) => l.seq > lastSeq.current);
    const last = fresh.at(-1);
    if (!last) return;
    lastSeq.current = last.seq;
    setLines((held) => [...held, ...fresh]);
  }, []);

  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    async function readStored() {
      for (;;) {
        const result = await client
          .query(
            InstanceLogsQuery,
            { id: instanceId, afterSeq: lastSeq.current, first: pageLines },
            { requestPolicy: "network-only" },
          )
          .toPromise();
        if (cancelled) return;
        const page = result.data?.instance?.logs;
        if (result.error || !page) {
          setReadError(result.error ?? null);
          timer = setTimeout(() => void readStored(), rereadMs);
          return;
        }
        setReadError(null);
        append(page.lines);
        if (!page.hasMore) break;
      }
      setLoaded(true);
    }
    void readStored();
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [client, instanceId, append]);

  const stream = useLiveSubscription({
    query: InstanceLogLinesSubscription,
    variables: () => ({ instanceId, afterSeq: lastSeq.current }),
    // A new attempt subscribes again: the stream of the one before may have
    // completed with it.
    key: `${instanceId}#${String(attempt)}`,
    // After the stored lines, so the backlog comes in pages, not line by line.
    enabled: loaded,
    onData: (data) => append([data.instanceLogs]),
    // The stream completes once the instance has finished; while the page
    // still sees it unfinished, a completed stream was cut short (a server
    // shutting down) and is subscribed again. If the instance did finish,
    // its status follows shortly and the new stream completes at once.
    resubscribeOnComplete: () => liveRef.current,
  });

  return { lines, loaded, error: readError ?? stream.error, complete: stream.completed };
}
