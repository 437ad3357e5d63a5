import { useState } from "react";
import { Badge, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "urql";
import { useLiveStatus } from "../api/live";
import { useLiveSubscription } from "../api/useLiveSubscription";
import { useAppName } from "../apps/currentApp";
import { QueryView } from "../components/QueryView";
import { useKeptData } from "../components/useKeptData";
import { usePolling } from "../components/usePolling";
import type { WorkerRowFragment } from "../graphql/graphql";
import { WorkersTable } from "./WorkersTable";
import { WorkersQuery, WorkersUpdatedSubscription } from "./operations";
import { t } from "../i18n";

/** How often the list is re-read while the websocket is down. */
export const workersFallbackMs = 5_000;

export function WorkersPage() {
  const app = useAppName();
  // The page remounts per app (the route's key), so the pushed listing
  // never belongs to another app.
  return <Workers key={app} app={app} />;
}

function Workers({ app }: { app: string }) {
  const [fetched, reexecute] = useQuery({ query: WorkersQuery, variables: { app } });
  const result = useKeptData(fetched);
  // The latest listing the workersUpdated subscription pushed; it replaces
  // the query's as soon as it arrives.
  const [pushed, setPushed] = useState<WorkerRowFragment[] | null>(null);
  const status = useLiveStatus();
  const { error } = useLiveSubscription({
    query: WorkersUpdatedSubscription,
    variables: () => ({ app }),
    key: app,
    onData: (data) => setPushed(data.workersUpdated),
    // It has no end of its own: one that ends was cut short.
    resubscribeOnComplete: () => true,
  });
  const down = status === "down" || error !== null;
  usePolling(
    () => {
      setPushed(null);
      reexecute({ requestPolicy: "network-only" });
    },
    workersFallbackMs,
    down,
  );

  return (
    <Stack>
      <div>
        <Title order={2}>{t("workers.WorkersPage.workers")}</Title>
        <Text c="dimmed" size="sm">{t("workers.WorkersPage.theWorkersOfApp", { app: app })}</Text>
      </div>
      {down && (
        <Badge color="yellow" variant="light" w="fit-content">{t("workers.WorkersPage.liveUpdatesInterruptedRefreshing", { value: workersFallbackMs / 1000 })}</Badge>
      )}
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("workers.WorkersPage.loadingWorkers")}
        isEmpty={(data) => (pushed ?? data.workers).length === 0}
        empty={
          <>{t("workers.WorkersPage.noWorkerOfApp", { app: app, app2: app })}</>
        }
      >
        {(data) => <WorkersTable workers={pushed ?? data.workers} />}
      </QueryView>
    </Stack>
  );
}
