import { Anchor, Card, Group, Paper, SimpleGrid, Table, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import { useQuery } from "urql";
import { appPath } from "../apps/currentApp";
import { QueryView } from "../components/QueryView";
import { useKeptData } from "../components/useKeptData";
import { usePolling } from "../components/usePolling";
import type { LatencySummaryFieldsFragment, OnCallQuery as OnCallData } from "../graphql/graphql";
import { OnCallQuery } from "./operations";
import { locale, t } from "../i18n";

type Stats = OnCallData["appStats"];

/** "12 ms", "1.4 s", "—". */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return t("dashboard.OnCall.ms", { round: Math.round(ms) });
  return t("dashboard.OnCall.s", { toFixed: (ms / 1000).toFixed(ms < 10_000 ? 1 : 0) });
}

function percentiles(s: LatencySummaryFieldsFragment): string {
  return s.count === 0 ? t("dashboard.OnCall.noRuns") : `p50 ${formatMs(s.p50)} · p99 ${formatMs(s.p99)}`;
}

/** How often the on-call figures are re-read. */
export const onCallRefreshMs = 15_000;

/**
 * The dashboard's on-call half: scheduling lag and fire → start latency
 * over the window (the figures /metrics exports), worker capacity, the
 * latest failures with their reasons, and the next fires.
 */
export function OnCall({ app, hours }: { app: string; hours: number }) {
  const [fetched, reexecute] = useQuery({ query: OnCallQuery, variables: { app, hours } });
  const result = useKeptData(fetched);
  const refresh = () => reexecute({ requestPolicy: "network-only" });
  usePolling(refresh, onCallRefreshMs);
  return (
    <QueryView
      result={result}
      onRetry={refresh}
      loading={t("dashboard.OnCall.loadingLagFailuresAnd")}
      isEmpty={() => false}
      empty={null}
    >
      {(data) => <Panels app={app} stats={data.appStats} />}
    </QueryView>
  );
}

function Panels({ app, stats }: { app: string; stats: Stats }) {
  const { capacity, lag } = stats;
  const worst = lag.buckets.reduce<number | null>((m, b) => Math.max(m ?? 0, b.triggerLateness.p99 ?? 0), null);
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
        <Figure
          label={t("dashboard.OnCall.schedulingLag")}
          value={percentiles(lag.triggerLateness)}
          caption={t("dashboard.OnCall.actualExpectedFireTime", { count: lag.triggerLateness.count, value: worst !== null ? `; worst hour p99 ${formatMs(worst)}` : "" })}
          testId="lag"
        />
        <Figure
          label={t("dashboard.OnCall.fireStart")}
          value={percentiles(lag.fireToStart)}
          caption={t("dashboard.OnCall.fromTheFireTo", { formatMs: formatMs(lag.fireToStart.max) })}
          testId="fire-to-start"
        />
        <Figure
          label={t("dashboard.OnCall.workerCapacity")}
          value={t("dashboard.OnCall.slotsFree", { freeSlots: capacity.freeSlots, slots: capacity.slots })}
          caption={t("dashboard.OnCall.workerConnected", { count: capacity.workers })}
          color={capacity.slots === 0 ? "orange" : capacity.freeSlots === 0 ? "red" : undefined}
          testId="capacity"
        />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Card withBorder radius="md">
          <Title order={4}>{t("dashboard.OnCall.latestFailures")}</Title>
          {stats.latestFailures.length === 0 ? (
            <Text c="dimmed" size="sm">{t("dashboard.OnCall.noInstanceFailedIn")}</Text>
          ) : (
            <Table verticalSpacing={4} aria-label={t("dashboard.OnCall.latestFailures")}>
              <Table.Tbody>
                {stats.latestFailures.map((f) => (
                  <Table.Tr key={f.id}>
                    <Table.Td>
                      <Anchor component={Link} to={appPath(app, "instances", f.id)} size="sm">
                        {t("dashboard.OnCall.jobRun", { job: f.job?.name ?? t("dashboard.OnCall.job"), id: f.id })}
                      </Anchor>
                      <Text size="xs" c="dimmed">
                        {f.finishedTime ? new Date(f.finishedTime).toLocaleString(locale()) : ""}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" c="red" fw={500}>
                        {f.reason}
                      </Text>
                      <Text size="xs" c="dimmed" lineClamp={2}>
                        {f.result}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Card>
        <Card withBorder radius="md">
          <Title order={4}>{t("dashboard.OnCall.nextFires")}</Title>
          {stats.nextFires.length === 0 ? (
            <Text c="dimmed" size="sm">{t("dashboard.OnCall.noEnabledJobIs")}</Text>
          ) : (
            <Table verticalSpacing={4} aria-label={t("dashboard.OnCall.nextFires")}>
              <Table.Tbody>
                {stats.nextFires.map((n) => (
                  <Table.Tr key={n.job.id}>
                    <Table.Td>
                      <Anchor component={Link} to={appPath(app, "jobs", n.job.id)} size="sm">
                        {n.job.name}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{new Date(n.time).toLocaleString(locale())}</Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Card>
      </SimpleGrid>
    </>
  );
}

interface FigureProps {
  label: string;
  value: string;
  caption: string;
  color?: string | undefined;
  testId: string;
}

function Figure({ label, value, caption, color, testId }: FigureProps) {
  return (
    <Paper withBorder p="md" radius="md" data-testid={`oncall-${testId}`}>
      <Group justify="space-between">
        <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
          {label}
        </Text>
      </Group>
      <Text fz={20} fw={700} lh={1.3} c={color}>
        {value}
      </Text>
      <Text size="xs" c="dimmed">
        {caption}
      </Text>
    </Paper>
  );
}
