import { createContext, useContext, useSyncExternalStore } from "react";

/**
 * The state of the websocket that carries subscriptions:
 * - idle: not open, because no subscription needs it;
 * - connecting: opening (or reopening);
 * - connected: open and acknowledged, so subscriptions deliver;
 * - down: it closed abnormally or could not open; subscriptions are
 *   resubscribing, and screens fall back to polling meanwhile.
 */
export type LiveStatus = "idle" | "connecting" | "connected" | "down";

/** A store of the websocket's state, for useSyncExternalStore. */
export interface LiveConnection {
  getSnapshot: () => LiveStatus;
  subscribe: (listener: () => void) => () => void;
}

/** A store that a client's websocket events update. */
export function liveStatusStore(): LiveConnection & { set: (status: LiveStatus) => void } {
  let status: LiveStatus = "idle";
  const listeners = new Set<() => void>();
  return {
    getSnapshot: () => status,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(next) {
      if (next === status) return;
      status = next;
      for (const l of listeners) l();
    },
  };
}

/** A connection that is always up: for clients without a websocket (tests). */
export const alwaysConnected: LiveConnection = {
  getSnapshot: () => "connected",
  subscribe: () => () => undefined,
};

export const LiveContext = createContext<LiveConnection>(alwaysConnected);

/** The websocket's state; screens poll as a fallback while it is not "connected". */
export function useLiveStatus(): LiveStatus {
  const live = useContext(LiveContext);
  return useSyncExternalStore(live.subscribe, live.getSnapshot);
}
