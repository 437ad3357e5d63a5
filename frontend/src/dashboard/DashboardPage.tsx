import { lazy, Suspense, type ReactNode } from "react";
import { Anchor, Card, Center, Group, Loader, Paper, SegmentedControl, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useId } from "@mantine/hooks";
import { Link, useSearchParams } from "react-router";
import { useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { useCanEdit } from "../apps/useAppRole";
import { QueryView } from "../components/QueryView";
import { useKeptData } from "../components/useKeptData";
import { useNow } from "../components/useNow";
import { usePolling } from "../components/usePolling";
import type { AppStatsQuery } from "../graphql/graphql";
import { useInstanceChanges } from "../instances/useInstanceChanges";
import { OnCall } from "./OnCall";
import { AppStatsQuery as AppStats } from "./operations";
import { t } from "../i18n";

// The chart library is most of the dashboard's weight: loaded with it only.
const OutcomesChart = lazy(() => import("./OutcomesChart"));

type Stats = AppStatsQuery["appStats"];

/** The windows the dashboard offers, in hours (the API allows at most 168). */
export const windows = [
  { value: "24", label: "24 hours" },
  { value: "168", label: "7 days" },
] as const;

/** How often the counts are re-read anyway (workers come and go without instance changes). */
export const dashboardRefreshMs = 30_000;

function windowOf(params: URLSearchParams): number {
  return params.get("hours") === "168" ? 168 : 24;
}

/** "the last 24 hours", "the last 7 days". */
export function windowName(hours: number): string {
  return hours === 168 ? t("dashboard.DashboardPage.theLast7Days") : t("dashboard.DashboardPage.theLastHours", { hours: hours });
}

/** /apps/:app/dashboard: the app at a glance. */
export function DashboardPage() {
  const app = useAppName();
  const [params, setParams] = useSearchParams();
  const hours = windowOf(params);
  const windowLabelId = useId();
  const [fetched, reexecute] = useQuery({ query: AppStats, variables: { app, hours } });
  const result = useKeptData(fetched);
  const refresh = () => reexecute({ requestPolicy: "network-only" });
  // Counts follow the app's instances as they change (at most every 3 s).
  useInstanceChanges({ app, refresh, windowMs: 3_000, fallbackMs: 10_000 });
  usePolling(refresh, dashboardRefreshMs);

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>{t("dashboard.DashboardPage.dashboard")}</Title>
          <Text c="dimmed" size="sm">{t("dashboard.DashboardPage.appAtAGlance", { app: app, windowName: windowName(hours) })}</Text>
        </div>
        <Group gap="xs" align="center">
          <Text size="sm" fw={500} id={windowLabelId}>{t("dashboard.DashboardPage.window")}</Text>
          <div role="radiogroup" aria-labelledby={windowLabelId}>
            <SegmentedControl
              size="xs"
              data={windows.map((w) => ({ ...w }))}
              value={String(hours)}
              onChange={(value) =>
                setParams(
                  (p) => {
                    if (value === "24") p.delete("hours");
                    else p.set("hours", value);
                    return p;
                  },
                  { replace: true },
                )
              }
            />
          </div>
        </Group>
      </Group>
      <QueryView
        result={result}
        onRetry={refresh}
        loading={t("dashboard.DashboardPage.loadingTheDashboard")}
        isEmpty={() => false}
        empty={null}
      >
        {(data) => <Dashboard app={app} hours={hours} stats={data.appStats} />}
      </QueryView>
    </Stack>
  );
}

function Dashboard({ app, hours, stats }: { app: string; hours: number; stats: Stats }) {
  const canEdit = useCanEdit();
  const now = useNow(60_000);
  const from = new Date(now - hours * 3_600_000).toISOString();
  const finished = stats.succeeded + stats.failed;
  const successRate = finished > 0 ? Math.round((stats.succeeded / finished) * 100) : null;
  const instances = (query: string) => `${appPath(app, "instances")}?${query}`;

  return (
    <Stack>
      <SimpleGrid cols={{ base: 2, sm: 3, md: 5 }} spacing="md">
        <StatCard
          label={t("dashboard.DashboardPage.jobs")}
          value={stats.jobs}
          to={appPath(app, "jobs")}
          caption={t("dashboard.DashboardPage.enabled", { enabledJobs: stats.enabledJobs })}
        />
        <StatCard
          label={t("dashboard.DashboardPage.running")}
          value={stats.running}
          to={instances("status=DISPATCHED&status=RUNNING")}
          caption={t("dashboard.DashboardPage.waiting", { waiting: stats.waiting })}
          color={stats.running > 0 ? "blue" : undefined}
        />
        <StatCard
          label={t("dashboard.DashboardPage.failed")}
          value={stats.failed}
          to={instances(`status=FAILED&from=${encodeURIComponent(from)}`)}
          caption={t("dashboard.DashboardPage.in", { windowName: windowName(hours) })}
          color={stats.failed > 0 ? "red" : undefined}
        />
        <StatCard
          label={t("dashboard.DashboardPage.succeeded")}
          value={stats.succeeded}
          to={instances(`status=SUCCEEDED&from=${encodeURIComponent(from)}`)}
          caption={successRate === null ? t("dashboard.DashboardPage.in", { windowName: windowName(hours) }) : t("dashboard.DashboardPage.ofFinishedRuns", { successRate: successRate })}
          color={stats.succeeded > 0 ? "teal" : undefined}
        />
        <StatCard
          label={t("dashboard.DashboardPage.liveWorkers")}
          value={stats.workersAlive}
          to={appPath(app, "workers")}
          caption={stats.workersAlive === 0 ? t("dashboard.DashboardPage.noneConnectedNothingCan") : t("dashboard.DashboardPage.connectedNow")}
          color={stats.workersAlive === 0 ? "orange" : undefined}
        />
      </SimpleGrid>
      {stats.jobs === 0 && (
        <Text c="dimmed" size="sm">{t("dashboard.DashboardPage.appHasNoJobs", { app: app })}{canEdit && (
            <>
              {" "}
              <Anchor component={Link} to={appPath(app, "jobs", "new")} inherit>{t("dashboard.DashboardPage.createOne")}</Anchor>{t("dashboard.DashboardPage.thenStartWorkersWith", { app: app })}</>
          )}
        </Text>
      )}
      <Suspense
        fallback={
          <Card withBorder radius="md" h={340}>
            <Center h="100%">
              <Loader size="sm" aria-label={t("dashboard.DashboardPage.loadingTheChart")} />
            </Center>
          </Card>
        }
      >
        <OutcomesChart outcomes={stats.outcomes} hours={hours} now={now} />
      </Suspense>
      <OnCall app={app} hours={hours} />
    </Stack>
  );
}

interface StatCardProps {
  label: string;
  value: number;
  caption: ReactNode;
  /** Where the count's items are listed. */
  to: string;
  color?: string | undefined;
}

/** One count, linking to what it counts. */
function StatCard({ label, value, caption, to, color }: StatCardProps) {
  return (
    <Paper
      component={Link}
      to={to}
      withBorder
      p="md"
      radius="md"
      data-testid={`stat-${label}`}
      style={{ textDecoration: "none", color: "inherit" }}
    >
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text fz={30} fw={700} lh={1.2} c={color}>
        {value}
      </Text>
      <Text size="xs" c="dimmed">
        {caption}
      </Text>
    </Paper>
  );
}
