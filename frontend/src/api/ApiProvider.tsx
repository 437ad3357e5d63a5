import { createContext, useCallback, useContext, useState, type ReactNode } from "react";
import { Provider } from "urql";
import type { Api } from "./client";
import { alwaysConnected, LiveContext } from "./live";

const ResetContext = createContext<(() => void) | null>(null);

interface ApiProviderProps {
  /** Makes a client; called again on every reset. */
  create: () => Api;
  children: ReactNode;
}

/**
 * Provides the GraphQL client. A login or logout replaces it with a new
 * one, so nothing cached for one session is ever shown in the next.
 */
export function ApiProvider({ create, children }: ApiProviderProps) {
  const [api, setApi] = useState(create);
  const reset = useCallback(() => {
    api.dispose();
    setApi(create());
  }, [api, create]);
  return (
    <ResetContext value={reset}>
      <LiveContext value={api.live ?? alwaysConnected}>
        <Provider value={api.client}>{children}</Provider>
      </LiveContext>
    </ResetContext>
  );
}

/** Returns a function that drops the client's cache and connections. */
export function useResetApi(): () => void {
  const reset = useContext(ResetContext);
  if (!reset) throw new Error("useResetApi must be used inside <ApiProvider>");
  return reset;
}
