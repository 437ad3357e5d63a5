import { useEffect } from "react";
import { Stack, Text, Title } from "@mantine/core";
import { useQuery } from "urql";
import { QueryView } from "../components/QueryView";
import { ServersTable } from "./ServersTable";
import { ServersQuery } from "./operations";
import { t } from "../i18n";

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
        <Title order={2}>{t("servers.ServersPage.servers")}</Title>
        <Text c="dimmed" size="sm">{t("servers.ServersPage.everyRegisteredJobwheelServer", { value: refreshMs / 1000 })}</Text>
      </div>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("servers.ServersPage.loadingServers")}
        isEmpty={(data) => data.servers.length === 0}
        empty={t("servers.ServersPage.noServerHasRegistered")}
      >
        {(data) => <ServersTable servers={data.servers} />}
      </QueryView>
    </Stack>
  );
}
