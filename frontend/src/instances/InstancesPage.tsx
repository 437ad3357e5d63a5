import { useState } from "react";
import { Badge, Button, Group, Stack, Text, Title } from "@mantine/core";
import { useSearchParams } from "react-router";
import { useQuery } from "urql";
import { useAppName } from "../apps/currentApp";
import { CursorPager, useCursorPages } from "../components/CursorPager";
import { QueryView } from "../components/QueryView";
import { useKeptData } from "../components/useKeptData";
import { filterParams, hasFilters, readFilters, type InstanceFilters } from "./filters";
import { InstanceFilterBar } from "./InstanceFilterBar";
import { InstancesTable } from "./InstancesTable";
import { InstancesQuery, JobChoicesQuery } from "./operations";
import { useInstanceChanges } from "./useInstanceChanges";
import { t } from "../i18n";

const pageSize = 50;
/** How often the list is re-read while the websocket is down. */
export const instancesFallbackMs = 3_000;
/** How many jobs the job filter offers. */
const jobChoices = 500;
const context = { additionalTypenames: ["Instance"] };

export function InstancesPage() {
  const app = useAppName();
  const [params, setParams] = useSearchParams();
  const filters = readFilters(params);
  const { data: jobs } = useQuery({ query: JobChoicesQuery, variables: { app, first: jobChoices } })[0];

  function change(next: InstanceFilters) {
    setParams(filterParams(next), { replace: true });
  }

  return (
    <Stack>
      <div>
        <Title order={2}>{t("instances.InstancesPage.instances")}</Title>
        <Text c="dimmed" size="sm">{t("instances.InstancesPage.runsOfAppS", { app: app })}</Text>
      </div>
      <InstanceFilterBar filters={filters} onChange={change} jobs={jobs?.jobs.edges.map((e) => e.node) ?? []} />
      {/* A new filter starts again at the first page. */}
      <InstanceList key={filterParams(filters).toString()} app={app} filters={filters} />
    </Stack>
  );
}

function InstanceList({ app, filters }: { app: string; filters: InstanceFilters }) {
  const pages = useCursorPages();
  const [fetched, reexecute] = useQuery({
    query: InstancesQuery,
    variables: {
      app,
      jobId: filters.jobId,
      status: filters.statuses.length > 0 ? filters.statuses : null,
      from: filters.from,
      to: filters.to,
      first: pageSize,
      after: pages.after,
    },
    context,
  });
  const result = useKeptData(fetched);
  const { live } = useInstanceChanges({
    app,
    jobId: filters.jobId,
    refresh: () => reexecute({ requestPolicy: "network-only" }),
    fallbackMs: instancesFallbackMs,
  });
  // Past the first page the rows stay put (a page is the instances older
  // than its cursor, so new ones never enter it); what arrived meanwhile
  // is counted against the total this page opened with, and offered.
  const total = result.data?.instances.totalCount;
  const [opened, setOpened] = useState<{ after: string | null; total: number } | null>(null);
  if (total !== undefined && opened?.after !== pages.after) setOpened({ after: pages.after, total });
  const arrived = pages.page > 1 && opened && total !== undefined ? total - opened.total : 0;

  return (
    <Stack>
      {!live && (
        <Badge color="yellow" variant="light" w="fit-content">{t("instances.InstancesPage.liveUpdatesInterruptedRefreshing", { value: instancesFallbackMs / 1000 })}</Badge>
      )}
      {arrived > 0 && (
        <Button variant="light" size="xs" w="fit-content" onClick={pages.first} aria-live="polite">{t("instances.InstancesPage.newShow", { arrived: arrived })}</Button>
      )}
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("instances.InstancesPage.loadingInstances")}
        isEmpty={(data) => data.instances.edges.length === 0}
        empty={hasFilters(filters) ? t("instances.InstancesPage.noInstanceMatchesThese") : t("instances.InstancesPage.noJobOfApp", { app: app })}
      >
        {(data) => (
          <Stack>
            <InstancesTable app={app} instances={data.instances.edges.map((e) => e.node)} />
            <Group justify="space-between">
              <Text size="sm" c="dimmed">
                {countLabel(data.instances.totalCount, hasFilters(filters))}
              </Text>
              <CursorPager
                page={pages.page}
                pageCount={Math.ceil(data.instances.totalCount / pageSize)}
                hasNextPage={data.instances.pageInfo.hasNextPage}
                onPrevious={pages.previous}
                onNext={() => {
                  const cursor = data.instances.pageInfo.endCursor;
                  if (cursor) pages.next(cursor);
                }}
              />
            </Group>
          </Stack>
        )}
      </QueryView>
    </Stack>
  );
}

/** "1 instance", "312 instances", or "… match" under filters. */
function countLabel(n: number, filtered: boolean): string {
  return filtered ? t("instances.InstancesPage.match", { count: n }) : t("instances.InstancesPage.count", { count: n });
}
