import { useEffect, useRef } from "react";
import { useLiveStatus } from "../api/live";
import { useLiveSubscription } from "../api/useLiveSubscription";
import { usePolling } from "../components/usePolling";
import { useThrottled } from "../components/useThrottled";
import type { InstanceChangesSubscription as Changes } from "../graphql/graphql";
import { InstanceChangesSubscription } from "./operations";

export type InstanceChange = Changes["instanceUpdated"];

/** How long after subscribing a screen reads afresh what changed before the server had the subscription. */
export const settleMs = 1_000;

interface InstanceChangesOptions {
  app: string;
  /** Only this job's instances. */
  jobId?: string | null;
  /** Reads what the screen shows afresh. */
  refresh: () => void;
  /** Which changes matter to the screen (default: all). */
  matters?: (change: InstanceChange) => boolean;
  /** At most one refresh per window, however many changes arrive. */
  windowMs?: number;
  /** While the websocket is down: poll this often… */
  fallbackMs: number;
  /** …if this is true (e.g. only while the instance is unfinished). */
  fallback?: boolean;
  enabled?: boolean;
}

/**
 * Keeps a screen of instances current from the instanceUpdated
 * subscription: each change that matters refreshes it (throttled), as does
 * every (re)subscription, for what changed while there was none. While the
 * websocket is down the screen polls instead.
 */
export function useInstanceChanges({
  app,
  jobId = null,
  refresh,
  matters = () => true,
  windowMs = 1_000,
  fallbackMs,
  fallback = true,
  enabled = true,
}: InstanceChangesOptions) {
  const status = useLiveStatus();
  const throttled = useThrottled(refresh, windowMs);
  const settle = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(settle.current), []);

  const { error } = useLiveSubscription({
    query: InstanceChangesSubscription,
    variables: () => ({ app, jobId }),
    key: `${app}\n${jobId ?? ""}`,
    enabled,
    onData: (data) => {
      if (matters(data.instanceUpdated)) throttled();
    },
    onStart: () => {
      clearTimeout(settle.current);
      settle.current = setTimeout(throttled, settleMs);
    },
    // It has no end of its own: one that ends was cut short.
    resubscribeOnComplete: () => true,
  });

  const down = status === "down" || error !== null;
  usePolling(refresh, fallbackMs, enabled && fallback && down);
  return { live: enabled && !down };
}
