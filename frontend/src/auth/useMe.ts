import { useQuery } from "urql";
import { MeQuery } from "./operations";

/** The logged-in user (RequireAuth has loaded it, so this reads the cache), or null. */
export function useMe() {
  const [{ data }] = useQuery({ query: MeQuery });
  return data?.me ?? null;
}

/** Whether the logged-in user is a global administrator. */
export function useIsAdmin(): boolean {
  return useMe()?.admin ?? false;
}
