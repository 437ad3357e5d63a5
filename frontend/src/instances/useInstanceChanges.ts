import { useEffect, useRef } from "react";
import { useLiveStatus } from "../api/live";
import { useLiveSubscription } from "../api/useLiveSubscription";
import { usePolling } from "../components/usePolling";
import { useThrottled } from "../components/useThrottled";
import type { TypedDocumentNode } from "urql";
import type {
  InstanceChangesSubscription as Changes,
  InstanceChangesSubscriptionVariables as ChangesVariables,
  InstanceLiveChangesSubscription as LiveChanges,
} from "../graphql/graphql";
import { InstanceChangesSubscription, InstanceLiveChangesSubscription } from "./operations";

export type InstanceChange = Changes["instanceUpdated"];
/** A change with what a screen of one instance shows straight from it. */
export type LiveInstanceChange = LiveChanges["instanceUpdated"];

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
  /**
   * Given, each change arrives with the instance's status, attempt, worker
   * and times (InstanceLiveChanges), for a screen to show at once.
   */
  onPush?: (change: LiveInstanceChange) => void;
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
  onPush,
  windowMs = 1_000,
  fallbackMs,
  fallback = true,
  enabled = true,
}: InstanceChangesOptions) {
  const status = useLiveStatus();
  const throttled = useThrottled(refresh, windowMs);
  const settle = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(settle.current), []);

  // The same stream either way; the detailed one only for a screen that uses it.
  const detailed = onPush !== undefined;
  const query = (detailed ? InstanceLiveChangesSubscription : InstanceChangesSubscription) as TypedDocumentNode<
    Changes | LiveChanges,
    ChangesVariables
  >;
  const { error } = useLiveSubscription({
    query,
    variables: () => ({ app, jobId }),
    key: `${app}\n${jobId ?? ""}\n${String(detailed)}`,
    enabled,
    onData: (data) => {
      const change = data.instanceUpdated;
      if (onPush && "attempt" in change) onPush(change);
      if (matters(change)) throttled();
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
