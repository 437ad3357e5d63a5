import { Anchor, Badge, Group, Stack, Table, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import { useQuery } from "urql";
import { appPath } from "../apps/currentApp";
import { QueryView } from "../components/QueryView";
import { usePolling } from "../components/usePolling";
import { useKeptData } from "../components/useKeptData";
import type { AppsOverviewQuery } from "../graphql/graphql";
import { AppsOverviewQuery as Overview } from "./operations";
import { lastDays, successRate, viewerTimeZone } from "./report";
import { t } from "../i18n";

type AppOverview = AppsOverviewQuery["appsOverview"][number];

/** How often the overview is re-read. */
const refreshMs = 30_000;

/** What needs a look first: failures today, then an app with jobs and no worker. */
export type Health = "failing" | "noWorkers" | "healthy";

export function healthOf(a: Pick<AppOverview, "jobs" | "failuresToday" | "workersOnline">): Health {
  if (a.failuresToday > 0) return "failing";
  if (a.jobs > 0 && a.workersOnline === 0) return "noWorkers";
  return "healthy";
}

const healthBadge: Record<Health, { color: string; label: string }> = {
  failing: { color: "red", label: t("reports.OverviewPage.failing") },
  noWorkers: { color: "orange", label: t("reports.OverviewPage.noWorkers") },
  healthy: { color: "teal", label: t("reports.OverviewPage.healthy") },
};

const order: Record<Health, number> = { failing: 0, noWorkers: 1, healthy: 2 };

/**
 * /overview: every app the viewer sees at a glance, for people who look
 * after many: today's runs and failures, what runs now, workers online.
 * Apps needing a look come first.
 */
export function OverviewPage() {
  const timeZone = viewerTimeZone();
  const [fetched, reexecute] = useQuery({ query: Overview, variables: { timeZone } });
  const result = useKeptData(fetched);
  const refresh = () => reexecute({ requestPolicy: "network-only" });
  usePolling(refresh, refreshMs);

  return (
    <Stack>
      <div>
        <Title order={2}>{t("reports.OverviewPage.overview")}</Title>
        <Text c="dimmed" size="sm">{t("reports.OverviewPage.intro", { timeZone })}</Text>
      </div>
      <QueryView
        result={result}
        onRetry={refresh}
        loading={t("reports.OverviewPage.loading")}
        isEmpty={(data) => data.appsOverview.length === 0}
        empty={t("reports.OverviewPage.noApps")}
      >
        {(data) => <OverviewTable apps={data.appsOverview} />}
      </QueryView>
    </Stack>
  );
}

function OverviewTable({ apps }: { apps: readonly AppOverview[] }) {
  const sorted = [...apps].sort((a, b) => order[healthOf(a)] - order[healthOf(b)] || a.app.name.localeCompare(b.app.name));
  const today = lastDays(1);
  return (
    <Table.ScrollContainer minWidth={720}>
      <Table striped highlightOnHover verticalSpacing="sm" aria-label={t("reports.OverviewPage.overview")} data-testid="overview">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t("reports.OverviewPage.app")}</Table.Th>
            <Table.Th scope="col">{t("reports.OverviewPage.health")}</Table.Th>
            <Table.Th scope="col" ta="right">{t("reports.OverviewPage.jobs")}</Table.Th>
            <Table.Th scope="col" ta="right">{t("reports.OverviewPage.runsToday")}</Table.Th>
            <Table.Th scope="col" ta="right">{t("reports.OverviewPage.failuresToday")}</Table.Th>
            <Table.Th scope="col" ta="right">{t("reports.ReportsPage.successRate")}</Table.Th>
            <Table.Th scope="col" ta="right">{t("reports.OverviewPage.runningNow")}</Table.Th>
            <Table.Th scope="col" ta="right">{t("reports.OverviewPage.workersOnline")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {sorted.map((a) => {
            const health = healthBadge[healthOf(a)];
            const rate = successRate(a.runsToday - a.failuresToday, a.failuresToday);
            const report = `/reports?app=${encodeURIComponent(a.app.name)}&from=${today.from}&to=${today.to}`;
            return (
              <Table.Tr key={a.app.id} data-app={a.app.name}>
                <Table.Th scope="row" fw={400} maw={260}>
                  <Anchor component={Link} to={appPath(a.app.name, "dashboard")} fw={600} style={{ overflowWrap: "anywhere" }}>
                    {a.app.name}
                  </Anchor>
                  {a.app.description && (
                    <Text size="xs" c="dimmed" lineClamp={1}>
                      {a.app.description}
                    </Text>
                  )}
                </Table.Th>
                <Table.Td>
                  <Badge color={health.color} variant="light" style={{ overflow: "visible" }}>
                    {health.label}
                  </Badge>
                </Table.Td>
                <Table.Td ta="right">
                  <Anchor component={Link} to={appPath(a.app.name, "jobs")}>
                    {a.jobs}
                  </Anchor>
                </Table.Td>
                <Table.Td ta="right">
                  <Anchor component={Link} to={report} data-testid="runs-today">
                    {a.runsToday}
                  </Anchor>
                </Table.Td>
                <Table.Td ta="right">
                  {a.failuresToday > 0 ? (
                    <Anchor component={Link} to={`${appPath(a.app.name, "instances")}?status=FAILED`} c="red" fw={700} data-testid="failures-today">
                      {a.failuresToday}
                    </Anchor>
                  ) : (
                    <Text span size="sm" data-testid="failures-today">
                      0
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="right">{rate === null ? "—" : t("reports.ReportsPage.percent", { value: rate })}</Table.Td>
                <Table.Td ta="right">
                  <Group justify="flex-end">
                    <Anchor component={Link} to={`${appPath(a.app.name, "instances")}?status=DISPATCHED&status=RUNNING`}>
                      {a.runningNow}
                    </Anchor>
                  </Group>
                </Table.Td>
                <Table.Td ta="right" c={a.workersOnline === 0 ? "orange" : undefined}>
                  <Anchor component={Link} to={appPath(a.app.name, "workers")} c="inherit">
                    {a.workersOnline}
                  </Anchor>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
