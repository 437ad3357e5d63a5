import { useQuery } from "urql";
import { usePolling } from "../components/usePolling";
import type { InstanceFieldsFragment } from "../graphql/graphql";
import { InstanceTaskSummaryQuery } from "./operations";

/**
 * How often a running instance's tasks are re-read. Tasks move without the
 * instance changing, so instanceUpdated does not tell of them; the summary
 * is read from the database, so each read costs a count of the instance's
 * tasks, and a slow one is not asked again before it answered.
 */
export const taskPollMs = 3_000;

/** An instance's task counts: its own, re-read every taskPollMs while it runs. */
export function useTaskSummary(instance: InstanceFieldsFragment, live: boolean): InstanceFieldsFragment["tasks"] {
  const [result, reexecute] = useQuery({
    query: InstanceTaskSummaryQuery,
    variables: { id: instance.id },
    pause: !live,
    requestPolicy: "network-only",
  });
  usePolling(
    () => {
      if (!result.fetching) reexecute({ requestPolicy: "network-only" });
    },
    taskPollMs,
    live,
  );
  const polled = result.data?.instance?.tasks;
  return live && polled ? polled : instance.tasks;
}
