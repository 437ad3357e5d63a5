import { lazy, Suspense, type ReactNode } from "react";
import {
  Anchor,
  Badge,
  Card,
  Center,
  Code,
  Group,
  List,
  Loader,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from "@mantine/core";
import { useId } from "@mantine/hooks";
import { Link, useParams, useSearchParams } from "react-router";
import { useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { QueryView } from "../components/QueryView";
import { Timestamp } from "../components/Timestamp";
import { useKeptData } from "../components/useKeptData";
import { useNow } from "../components/useNow";
import { windowName, windows } from "../dashboard/DashboardPage";
import type { JobOverviewQuery as Overview } from "../graphql/graphql";
import { InstancesTable } from "../instances/InstancesTable";
import { useInstanceChanges } from "../instances/useInstanceChanges";
import { channelLabels, ruleLabels, shownTarget } from "./alarmForm";
import { JobHeader } from "./JobHeader";
import { hasExpression, labelOf, scheduleTypes } from "./labels";
import { JobOverviewQuery } from "./operations";
import { successRate } from "./runs";
import { inZone } from "./SchedulePreview";
import { t } from "../i18n";

// The chart library is most of this page's weight: loaded with the charts only.
const OutcomesChart = lazy(() => import("../dashboard/OutcomesChart"));
const RunsChart = lazy(() => import("./RunsChart"));

type Job = NonNullable<Overview["job"]>;
type Runs = Overview["instances"];

/** How many of the job's latest runs the chart draws; the table shows the first of them. */
const chartRuns = 30;
const tableRuns = 10;

/** /apps/:app/jobs/:jobId: a job at a glance. */
export function JobPage() {
  const app = useAppName();
  const { jobId = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const hours = params.get("hours") === "168" ? 168 : 24;
  const [fetched, reexecute] = useQuery({
    query: JobOverviewQuery,
    variables: { id: jobId, app, hours, runs: chartRuns },
    requestPolicy: "cache-and-network",
  });
  const result = useKeptData(fetched);
  const refresh = () => reexecute({ requestPolicy: "network-only" });
  // Runs, counts and the next fires follow the job's instances as they change.
  useInstanceChanges({ app, jobId, refresh, windowMs: 2_000, fallbackMs: 10_000 });

  function setHours(value: string) {
    setParams(
      (p) => {
        if (value === "24") p.delete("hours");
        else p.set("hours", value);
        return p;
      },
      { replace: true },
    );
  }

  return (
    <QueryView
      result={result}
      onRetry={refresh}
      loading={t("jobs.JobPage.loadingTheJob")}
      isEmpty={(data) => !data.job || data.job.app.name !== app}
      empty={
        <>{t("jobs.JobPage.thereIsNoJob", { jobId: jobId, app: app })}{" "}<Anchor component={Link} to={appPath(app, "jobs")} inherit>{t("jobs.JobPage.seeItsJobs")}</Anchor>
          .
        </>
      }
    >
      {(data) =>
        data.job && (
          <Stack gap="lg">
            <JobHeader app={app} job={data.job} tab="overview" />
            <Overview app={app} job={data.job} runs={data.instances} hours={hours} onHours={setHours} />
          </Stack>
        )
      }
    </QueryView>
  );
}

interface OverviewProps {
  app: string;
  job: Job;
  runs: Runs;
  hours: number;
  onHours: (value: string) => void;
}

function Overview({ app, job, runs, hours, onHours }: OverviewProps) {
  const windowLabelId = useId();
  const now = useNow(60_000);
  const latest = runs.edges.map((e) => e.node);
  return (
    <Stack gap="lg">
      <SimpleGrid cols={{ base: 1, md: 3 }} spacing="md">
        <ScheduleCard job={job} />
        <SuccessCard job={job} hours={hours} />
        <AlarmCard app={app} job={job} />
      </SimpleGrid>

      <Group justify="space-between" align="center">
        <Title order={3} size="h4">{t("jobs.JobPage.howItsRunsEnded")}</Title>
        <Group gap="xs" align="center">
          <Text size="sm" fw={500} id={windowLabelId}>{t("jobs.JobPage.window")}</Text>
          <div role="radiogroup" aria-labelledby={windowLabelId}>
            <SegmentedControl size="xs" data={windows.map((w) => ({ ...w }))} value={String(hours)} onChange={onHours} />
          </div>
        </Group>
      </Group>
      <Suspense fallback={<ChartLoading />}>
        <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
          <OutcomesChart outcomes={job.stats.outcomes} hours={hours} now={now} />
          <RunsChart runs={latest} />
        </SimpleGrid>
      </Suspense>

      <Stack gap="xs" component="section" aria-label={t("jobs.JobPage.latestRuns")}>
        <Group justify="space-between" align="baseline">
          <Title order={3} size="h4">{t("jobs.JobPage.latestRuns")}</Title>
          <Anchor component={Link} to={appPath(app, "instances") + `?job=${job.id}`} size="sm">{t("jobs.JobPage.all", { count: runs.totalCount })}</Anchor>
        </Group>
        {latest.length === 0 ? (
          <Text c="dimmed" size="sm">{t("jobs.JobPage.itHasNotRun")}</Text>
        ) : (
          <InstancesTable app={app} instances={latest.slice(0, tableRuns)} withJob={false} />
        )}
      </Stack>
    </Stack>
  );
}

function ChartLoading() {
  return (
    <Card withBorder radius="md" h={340}>
      <Center h="100%">
        <Loader size="sm" aria-label={t("jobs.JobPage.loadingTheCharts")} />
      </Center>
    </Card>
  );
}

/** A card of the overview, a section named by its title. */
function InfoCard({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <Card withBorder radius="md" padding="md" component="section" aria-labelledby={id}>
      <Title order={3} size="h5" id={id} mb="xs">
        {title}
      </Title>
      {children}
    </Card>
  );
}

function ScheduleCard({ job }: { job: Job }) {
  const type = labelOf(scheduleTypes, job.scheduleType);
  return (
    <InfoCard title={t("jobs.JobPage.schedule")}>
      <Stack gap="xs">
        <Group gap={6} style={{ rowGap: 2 }}>
          <Badge variant="light">{type}</Badge>
          {hasExpression(job.scheduleType) && (
            <Code style={{ whiteSpace: "nowrap" }}>{job.scheduleExpression}</Code>
          )}
          {job.scheduleType === "CRON" && (
            <Text size="xs" c="dimmed">
              {job.timeZone}
            </Text>
          )}
        </Group>
        {!hasExpression(job.scheduleType) ? (
          <Text size="sm" c="dimmed">
            {job.scheduleType === "API"
              ? t("jobs.JobPage.itFiresOnlyWhen")
              : t("jobs.JobPage.itRunsOnlyAs")}
          </Text>
        ) : !job.enabled ? (
          <Text size="sm" c="dimmed">{t("jobs.JobPage.disabledItDoesNot")}</Text>
        ) : job.upcoming.length === 0 ? (
          <Text size="sm" c="dimmed">{t("jobs.JobPage.noFireIsAhead")}</Text>
        ) : (
          <div>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>{t("jobs.JobPage.nextFires")}</Text>
            <List size="sm" spacing={2} listStyleType="none" aria-label={t("jobs.JobPage.nextFires")}>
              {job.upcoming.map((time) => (
                <List.Item key={time}>
                  <Timestamp value={time} />
                  {job.timeZone !== "UTC" && job.scheduleType === "CRON" && (
                    <Text span size="xs" c="dimmed">
                      {" "}
                      ({inZone(time, job.timeZone) ?? job.timeZone} {job.timeZone})
                    </Text>
                  )}
                </List.Item>
              ))}
            </List>
            {job.scheduleType === "FIXED_DELAY" && (
              <Text size="xs" c="dimmed">{t("jobs.JobPage.laterFiresDependOn")}</Text>
            )}
          </div>
        )}
        {(job.lifecycle.start ?? job.lifecycle.end) && (
          <Text size="xs" c="dimmed">{t("jobs.JobPage.fires")}{" "}{job.lifecycle.start && <>{t("jobs.JobPage.from")}{" "}<Timestamp value={job.lifecycle.start} /> </>}
            {job.lifecycle.end && <>{t("jobs.JobPage.until")}{" "}<Timestamp value={job.lifecycle.end} /></>}
          </Text>
        )}
        {job.calendar && (
          <Text size="xs" c="dimmed">{t("jobs.JobPage.notOnTheDates")}{" "}<Anchor component={Link} to={appPath(job.app.name, "calendars")} inherit>
              {job.calendar.name}
            </Anchor>
            .
          </Text>
        )}
      </Stack>
    </InfoCard>
  );
}

function SuccessCard({ job, hours }: { job: Job; hours: number }) {
  const { succeeded, failed, stopped, canceled } = job.stats;
  const rate = successRate(job.stats);
  return (
    <InfoCard title={t("jobs.JobPage.successRate")}>
      <Text fz={30} fw={700} lh={1.2} c={rate === null ? "dimmed" : rate >= 95 ? "teal" : rate >= 80 ? "yellow" : "red"}>
        {rate === null ? "—" : `${rate}%`}
      </Text>
      <Text size="xs" c="dimmed" mb="xs">
        {rate === null
          ? t("jobs.JobPage.noRunSucceededOr", { windowName: windowName(hours) })
          : t("jobs.JobPage.ofTheRunsThat", { value: succeeded + failed, windowName: windowName(hours) })}
      </Text>
      <Group gap="md">
        <Count label={t("jobs.JobPage.count_succeeded")} n={succeeded} color="teal" />
        <Count label={t("jobs.JobPage.count_failed")} n={failed} color="red" />
        <Count label={t("jobs.JobPage.count_stopped")} n={stopped} color="orange" />
        <Count label={t("jobs.JobPage.count_canceled")} n={canceled} color="gray" />
      </Group>
    </InfoCard>
  );
}

function Count({ label, n, color }: { label: string; n: number; color: string }) {
  return (
    <Text size="sm" c={n > 0 ? color : "dimmed"}>
      {n} {label}
    </Text>
  );
}

function AlarmCard({ app, job }: { app: string; job: Job }) {
  const { rules, channels } = job.alarm;
  return (
    <InfoCard title={t("jobs.JobPage.alarm")}>
      {rules.length === 0 || channels.length === 0 ? (
        <Text size="sm" c="dimmed">
          {rules.length === 0 ? t("jobs.JobPage.noAlarmNobodyIs") : t("jobs.JobPage.setToGoOff")}
        </Text>
      ) : (
        <Stack gap={4}>
          <Text size="sm">{t("jobs.JobPage.whenTell", { join: rules.map((r) => ruleLabels[r.type].toLowerCase()).join("; or ") })}</Text>
          <List size="sm" spacing={2}>
            {channels.map((c, i) => (
              <List.Item key={i} style={{ overflowWrap: "anywhere" }}>
                {channelLabels[c.type]}: {shownTarget(c.target)}
              </List.Item>
            ))}
          </List>
        </Stack>
      )}
      <Anchor component={Link} to={appPath(app, "jobs", job.id, "alarms")} size="xs">{t("jobs.JobPage.alarmHistoryAndTest")}</Anchor>
    </InfoCard>
  );
}
