import { useQuery } from "urql";
import { AppsQuery } from "./operations";

// urql's document cache refetches a query when a mutation returns a type it
// holds; an empty list holds none, so every reader of the app list names
// App up front (whichever reader's request fills the cache decides).
const context = { additionalTypenames: ["App"] };

/** The apps the caller may see, refreshed after any mutation returning an App. */
export function useApps() {
  return useQuery({ query: AppsQuery, context });
}
