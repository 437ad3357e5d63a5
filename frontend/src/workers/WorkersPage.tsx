import { Stack, Text, Title } from "@mantine/core";
import { useQuery } from "urql";
import { useAppName } from "../apps/currentApp";
import { QueryView } from "../components/QueryView";
import { useKeptData } from "../components/useKeptData";
import { usePolling } from "../components/usePolling";
import { WorkersTable } from "./WorkersTable";
import { WorkersQuery } from "./operations";

/** How often the list is re-read while the page is visible. */
const refreshMs = 5_000;

export function WorkersPage() {
  const app = useAppName();
  const [fetched, reexecute] = useQuery({ query: WorkersQuery, variables: { app } });
  const result = useKeptData(fetched);
  usePolling(() => reexecute({ requestPolicy: "network-only" }), refreshMs);

  return (
    <Stack>
      <div>
        <Title order={2}>Workers</Title>
        <Text c="dimmed" size="sm">
          The workers of app {app}: connected ones first, then those lost in the last hour. Refreshed every{" "}
          {refreshMs / 1000} seconds.
        </Text>
      </div>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading="Loading workers"
        isEmpty={(data) => data.workers.length === 0}
        empty={
          <>
            No worker of app {app} has connected in the last hour. Start one with JOBWHEEL_APP={app} and the app’s
            secret.
          </>
        }
      >
        {(data) => <WorkersTable workers={data.workers} />}
      </QueryView>
    </Stack>
  );
}
