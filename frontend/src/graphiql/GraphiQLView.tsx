// GraphiQL and its editors, loaded with /graphiql only (they are most of
// its weight), from the console's own bundle: no CDN, so it works offline.
import "graphiql/style.css";
import { useMemo } from "react";
import { useComputedColorScheme } from "@mantine/core";
import { createGraphiQLFetcher } from "@graphiql/toolkit";
import { GraphiQL } from "graphiql";

/** The GraphQL endpoint, on the console's own origin. */
const graphqlPath = "/graphql";

export const defaultQuery = `# Runs as you, or as the token above.
# Ctrl-Enter runs it.
{
  me {
    username
    admin
  }
  apps {
    name
    myRole
  }
}
`;

/**
 * GraphiQL against /graphql: queries and mutations over POST with the
 * session cookie (or `token` as a bearer token), subscriptions over the
 * same graphql-ws websocket the console uses.
 */
export default function GraphiQLView({ token }: { token: string }) {
  const scheme = useComputedColorScheme("light");
  const fetcher = useMemo(() => {
    const ws = new URL(graphqlPath, window.location.href);
    ws.protocol = ws.protocol === "https:" ? "wss:" : "ws:";
    const auth = token ? { Authorization: `Bearer ${token}` } : undefined;
    return createGraphiQLFetcher({
      url: graphqlPath,
      subscriptionUrl: ws.href,
      headers: auth,
      // Without a token the websocket's upgrade request carries the session cookie.
      wsConnectionParams: auth,
      fetch: (input, init) => fetch(input, { ...init, credentials: "same-origin" }),
    });
  }, [token]);
  return (
    <GraphiQL
      // A new token is a new identity: start its schema and results afresh.
      key={token}
      fetcher={fetcher}
      defaultQuery={defaultQuery}
      forcedTheme={scheme}
      isHeadersEditorEnabled={false}
    />
  );
}
