import { useState } from "react";
import type { UseQueryState } from "urql";

/**
 * A query's state that keeps the last data it had while a refetch of the
 * same query (same operation key: document and variables) fails or runs
 * again after failing, so a screen that refreshes itself does not blank out
 * (and lose what it holds, like a log) when the server is away for a
 * moment: it shows what it had, with the error above it.
 */
export function useKeptData<Data>(result: UseQueryState<Data>): UseQueryState<Data> {
  const [kept, setKept] = useState<{ key: number; data: Data } | null>(null);
  const key = result.operation?.key;
  if (result.data !== undefined && key !== undefined && (kept?.key !== key || kept.data !== result.data)) {
    setKept({ key, data: result.data });
  }
  if (result.data === undefined && kept && kept.key === key) {
    return { ...result, data: kept.data };
  }
  return result;
}
