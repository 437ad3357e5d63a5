// urql rather than Apollo Client: its document cache fits a console whose
// screens are lists refetched after mutations (no normalized cache to keep
// consistent), exchanges make the global UNAUTHENTICATED redirect and the
// graphql-ws subscription transport a few lines each, it takes the typed
// documents of graphql-codegen's client preset as they are, and it is a
// fraction of Apollo's bundle size.
import { Client, cacheExchange, fetchExchange, mapExchange, subscriptionExchange } from "urql";
import { createClient as createWsClient } from "graphql-ws";
import { hasErrorCode } from "./errors";
import { liveStatusStore, type LiveConnection } from "./live";

/** The GraphQL endpoint, on the console's own origin. */
const graphqlPath = "/graphql";

/** A client and what it holds open (the websocket). */
export interface Api {
  client: Client;
  dispose: () => void;
  /** The websocket's state; absent: treated as always connected. */
  live?: LiveConnection;
}

export interface ApiOptions {
  /** Called when any operation reports that the session is missing or over. */
  onUnauthenticated: () => void;
}

export function createApi({ onUnauthenticated }: ApiOptions): Api {
  // Subscriptions share the /graphql URL (graphql-transport-ws). The browser
  // sends the session cookie with the upgrade request, which the server
  // accepts when connection_init carries no token. lazy: the socket opens
  // with the first subscription and closes after the last.
  //
  // retryAttempts 0: when the socket drops, every subscription ends with an
  // error at once and its hook subscribes again itself (useLiveSubscription),
  // with arguments of that moment: a log resumes after the last line it
  // has, where graphql-ws's own retry would repeat the first arguments.
  const live = liveStatusStore();
  const ws = createWsClient({
    url: () => {
      const url = new URL(graphqlPath, window.location.href);
      url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
      return url.href;
    },
    lazy: true,
    retryAttempts: 0,
    on: {
      connecting: () => live.set("connecting"),
      connected: () => live.set("connected"),
      // 1000 is the lazy close after the last subscription ended.
      closed: (event) => live.set(closeCode(event) === 1000 ? "idle" : "down"),
      error: () => live.set("down"),
    },
  });

  const client = new Client({
    url: graphqlPath,
    // The server takes queries over POST only (no GET transport), and the
    // session cookie rides along on the same origin.
    preferGetMethod: false,
    fetchOptions: { credentials: "same-origin" },
    exchanges: [
      mapExchange({
        onError(error) {
          if (hasErrorCode(error, "UNAUTHENTICATED")) onUnauthenticated();
        },
      }),
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query ?? "" };
          return {
            subscribe(sink) {
              return { unsubscribe: ws.subscribe(input, sink) };
            },
          };
        },
      }),
    ],
  });

  return { client, live, dispose: () => void ws.dispose() };
}

function closeCode(event: unknown): number | undefined {
  return typeof event === "object" && event !== null && "code" in event && typeof event.code === "number"
    ? event.code
    : undefined;
}
