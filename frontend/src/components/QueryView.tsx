import type { ReactNode } from "react";
import type { UseQueryState } from "urql";
import { hasErrorCode } from "../api/errors";
import { EmptyState, ErrorState, LoadingState } from "./states";

interface QueryViewProps<Data> {
  result: UseQueryState<Data>;
  /** Runs the query again, skipping the cache. */
  onRetry: () => void;
  /** Names what is loading, e.g. "Loading apps". */
  loading: string;
  isEmpty: (data: Data) => boolean;
  empty: ReactNode;
  children: (data: Data) => ReactNode;
}

/**
 * A query's loading, error, empty and loaded states, so every screen shows
 * each of them the same way; NOT_FOUND is the empty state. Data already on screen stays while a refetch
 * runs; a failed refetch still shows its error.
 */
export function QueryView<Data>({ result, onRetry, loading, isEmpty, empty, children }: QueryViewProps<Data>) {
  const { data, error } = result;
  // What is not there is the empty state, said once: another try would
  // only find it missing again.
  if (hasErrorCode(error, "NOT_FOUND")) return <EmptyState>{empty}</EmptyState>;
  if (!data) {
    return error ? <ErrorState error={error} onRetry={onRetry} /> : <LoadingState label={loading} />;
  }
  return (
    <>
      {error && <ErrorState error={error} onRetry={onRetry} />}
      {isEmpty(data) ? <EmptyState>{empty}</EmptyState> : children(data)}
    </>
  );
}
