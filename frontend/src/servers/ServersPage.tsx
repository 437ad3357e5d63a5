import { useEffect } from "react";
import { Stack, Text, Title } from "@mantine/core";
import { useQuery } from "urql";
import { QueryView } from "../components/QueryView";
import { ServersTable } from "./ServersTable";
import { ServersQuery } from "./operations";

/** How often the list is re-read, so liveness and heartbeats stay current. */
const refreshMs = 10_000;

export function ServersPage() {
  const [result, reexecute] = useQuery({ query: ServersQuery });

  useEffect(() => {
    const timer = setInterval(() => reexecute({ requestPolicy: "network-only" }), refreshMs);
    return () => clearInterval(timer);
  }, [reexecute]);

  return (
    <Stack>
      <div>
        <Title order={2}>Servers</Title>
        <Text c="dimmed" size="sm">
          Every registered jobwheel server, oldest first. Refreshed every {refreshMs / 1000} seconds.
        </Text>
      </div>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading="Loading servers"
        isEmpty={(data) => data.servers.length === 0}
        empty="No server has registered yet."
      >
        {(data) => <ServersTable servers={data.servers} />}
      </QueryView>
    </Stack>
  );
}
