import {
  Anchor,
  Badge,
  Card,
  Code,
  Grid,
  Group,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from "@mantine/core";
import { useState } from "react";
import { useId } from "@mantine/hooks";
import { Link, useParams } from "react-router";
import { useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { useCanEdit } from "../apps/useAppRole";
import { QueryView } from "../components/QueryView";
import { useKeptData } from "../components/useKeptData";
import { Timestamp } from "../components/Timestamp";
import { TruncatedLink } from "../components/Truncated";
import type { InstanceFieldsFragment } from "../graphql/graphql";
import { AttemptsTable } from "./AttemptsTable";
import { InstanceActions } from "./InstanceActions";
import { InstanceTimeline } from "./InstanceTimeline";
import { LogViewer } from "./LogViewer";
import { InstanceQuery } from "./operations";
import { isLaterState, isUnfinished } from "./status";
import { StatusBadge } from "./StatusBadge";
import { TaskSummary } from "./TaskSummary";
import { TasksSection } from "./TasksSection";
import { UnqualifiedWorkersSection } from "./UnqualifiedWorkersTable";
import { useInstanceChanges, type LiveInstanceChange } from "./useInstanceChanges";
import { useInstanceLogs, type LogLine } from "./useInstanceLogs";
import { useTaskSummary } from "./useTaskSummary";
import { t } from "../i18n";

/** How often an unfinished instance is re-read while the websocket is down. */
export const instanceFallbackMs = 2_000;

/** /apps/:app/instances/:instanceId */
export function InstancePage() {
  const app = useAppName();
  const { instanceId = "" } = useParams();
  // Keyed, so another instance's page starts afresh (its log too).
  return <InstanceView key={instanceId} app={app} instanceId={instanceId} />;
}

function InstanceView({ app, instanceId }: { app: string; instanceId: string }) {
  const [fetched, reexecute] = useQuery({ query: InstanceQuery, variables: { id: instanceId } });
  const kept = useKeptData(fetched);
  const read = kept.data?.instance;
  // The latest state the server pushed of this instance.
  const [pushed, setPushed] = useState<LiveInstanceChange | null>(null);
  const instance = read && pushed && isLaterState(pushed, read) ? { ...read, ...pushed } : read;
  const result = instance && kept.data ? { ...kept, data: { ...kept.data, instance } } : kept;
  const live = instance ? isUnfinished(instance.status) : false;
  // Its status, attempt, worker and times show as the server pushes them;
  // the rest is read afresh whenever the server says it changed (it can be
  // retried after it finished, so also then); poll only without a websocket.
  useInstanceChanges({
    app,
    jobId: read?.job?.id,
    enabled: read !== undefined && read !== null,
    matters: (change) => change.id === instanceId,
    onPush: (change) => {
      if (change.id === instanceId) setPushed(change);
    },
    refresh: () => reexecute({ requestPolicy: "network-only" }),
    fallbackMs: instanceFallbackMs,
    fallback: live,
  });

  return (
    <Stack>
      <Anchor component={Link} to={appPath(app, "instances")} size="sm">{t("instances.InstancePage.instances")}</Anchor>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("instances.InstancePage.loadingTheInstance")}
        isEmpty={(data) => !data.instance}
        empty={<>{t("instances.InstancePage.thereIsNoInstance", { instanceId: instanceId })}</>}
      >
        {(data) =>
          data.instance && (
            <InstanceDetails
              app={app}
              instance={data.instance}
              live={live}
              traceUrl={traceUrl(data.traceUrlTemplate, data.instance.traceId)}
            />
          )
        }
      </QueryView>
    </Stack>
  );
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text component="div" size="sm">
        {children}
      </Text>
    </div>
  );
}

/**
 * The instance's trace in the tracing system (JOBWHEEL_TRACE_URL with its
 * {traceId}); undefined when either is missing.
 */
export function traceUrl(template: string | null | undefined, traceId: string | null | undefined): string | undefined {
  if (!template || !traceId) return undefined;
  return template.replaceAll("{traceId}", encodeURIComponent(traceId));
}

function InstanceDetails({
  app,
  instance,
  live,
  traceUrl,
}: {
  app: string;
  instance: InstanceFieldsFragment;
  live: boolean;
  traceUrl?: string;
}) {
  const logs = useInstanceLogs(instance.id, live, instance.attempt);
  const canEdit = useCanEdit();
  const worker = instance.worker;
  const mode = instance.job?.executionMode;
  // A STANDALONE instance's one task moves with the instance, which
  // instanceUpdated already follows: only the others' counts are re-read.
  const tasks = useTaskSummary(instance, live && mode !== undefined && mode !== "STANDALONE");
  const outcome = (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      <Stack gap={4}>
        <Title order={3} size="h5">{t("instances.InstancePage.parameters")}</Title>
        {instance.params ? (
          <Code block>{instance.params}</Code>
        ) : (
          <Text size="sm" c="dimmed">{t("instances.InstancePage.noneTheJobS")}</Text>
        )}
      </Stack>
      <ResultSection instance={instance} live={live} logTexts={currentAttemptTexts(logs.lines, instance.attempt)} />
    </SimpleGrid>
  );
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={4} miw={0}>
          <Group gap="sm">
            <Title order={2}>{t("instances.InstancePage.instance", { id: instance.id })}</Title>
            <StatusBadge status={instance.status} size="lg" />
          </Group>
          {instance.job ? (
            <Group gap={4} wrap="nowrap" miw={0}>
              <Text size="sm" c="dimmed" style={{ flexShrink: 0 }}>{t("instances.InstancePage.ofJob")}</Text>
              <TruncatedLink text={instance.job.name} to={appPath(app, "jobs", instance.job.id)} size="sm" miw={0} />
              <Text size="sm" c="dimmed" style={{ flexShrink: 0 }}>
                ·
              </Text>
              <Anchor
                component={Link}
                to={appPath(app, "instances") + `?job=${instance.job.id}`}
                size="sm"
                style={{ flexShrink: 0 }}
              >{t("instances.InstancePage.itsInstances")}</Anchor>
            </Group>
          ) : (
            <Text size="sm" c="dimmed">{t("instances.InstancePage.ofADeletedJob")}</Text>
          )}
        </Stack>
        {canEdit && <InstanceActions instance={instance} />}
      </Group>

      <Grid>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Card withBorder h="100%">
            <Title order={3} size="h5" mb="sm">{t("instances.InstancePage.timeline")}</Title>
            <InstanceTimeline instance={instance} />
          </Card>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Card withBorder h="100%">
            <Title order={3} size="h5" mb="sm">{t("instances.InstancePage.details")}</Title>
            <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
              <Field label={t("instances.InstancePage.trigger")}>{instance.triggerType}</Field>
              <Field label={t("instances.InstancePage.attempt")}>{instance.attempt}</Field>
              <Field label={t("instances.InstancePage.reason")}>{instance.reason || "—"}</Field>
              {traceUrl && (
                <Field label={t("instances.InstancePage.trace")}>
                  <Anchor href={traceUrl} target="_blank" rel="noreferrer">{t("instances.InstancePage.openTrace", { slice: instance.traceId?.slice(0, 8) ?? "" })}</Anchor>
                </Field>
              )}
              {instance.nextAttemptAt && (
                <Field label={t("instances.InstancePage.nextAttemptDue")}>
                  <Timestamp value={instance.nextAttemptAt} />
                </Field>
              )}
              <Field label={t("instances.InstancePage.worker")}>
                {worker ? (
                  <Group gap={6}>
                    <span>{worker.host}</span>
                    <Badge size="xs" color={worker.alive ? "teal" : "gray"} variant={worker.alive ? "light" : "outline"}>
                      {worker.alive ? t("common.alive") : t("common.gone")}
                    </Badge>
                    <Badge size="xs" variant="dot">
                      {worker.health}
                    </Badge>
                    <Text span size="xs" c="dimmed">{t("instances.InstancePage.heartbeat")}{" "}<Timestamp value={worker.lastHeartbeat} relative />
                    </Text>
                  </Group>
                ) : (
                  "—"
                )}
              </Field>
            </SimpleGrid>
            <Title order={4} size="h6" mt="md" mb={6}>{t("instances.InstancePage.tasks")}</Title>
            <TaskSummary tasks={tasks} mode={mode} />
          </Card>
        </Grid.Col>
      </Grid>

      {/* The log is where a live instance's output is: first then, under what it returned once it finished.
          It keeps its place among the children either way, so it stays mounted (its filters, its scroll). */}
      {!live && outcome}
      <Stack gap="xs">
        <Title order={3} size="h5">{t("instances.InstancePage.log")}</Title>
        <LogViewer
          lines={logs.lines}
          live={live && !logs.complete}
          loaded={logs.loaded}
          error={logs.error}
          fileName={`instance-${instance.id}.log`}
        />
      </Stack>
      {live && outcome}

      {/* A STANDALONE instance's one task is the instance itself, shown above. */}
      {mode !== undefined && mode !== "STANDALONE" && (
        <TasksSection instanceId={instance.id} counts={tasks} live={live} />
      )}

      <UnqualifiedWorkersSection instance={instance} />

      {/* One attempt is the instance itself, told above; a retried one lists each. */}
      {(instance.attempts.length > 1 || instance.nextAttemptAt) && (
        <Stack gap="xs">
          <Title order={3} size="h5">{t("instances.InstancePage.attempts")}</Title>
          <AttemptsTable
            attempts={instance.attempts}
            nextAttemptAt={instance.nextAttemptAt}
            current={{ attempt: instance.attempt, result: instance.result }}
          />
        </Stack>
      )}
    </Stack>
  );
}

/** Why an instance that has finished holds no result, and where its output is instead. */
function noResult(instance: InstanceFieldsFragment, live: boolean): string {
  const inLog = t("instances.InstancePage.everythingItPrintedIs");
  if (live) return t("instances.InstancePage.notYetTheProcessor");
  const reason = instance.reason && instance.reason !== instance.status ? ` (${instance.reason})` : "";
  switch (instance.status) {
    case "STOPPED":
      return t("instances.InstancePage.noneItWasStopped", { inLog: inLog });
    case "FAILED":
      return t("instances.InstancePage.noneItFailedBefore", { reason: reason, inLog: inLog });
    case "CANCELED":
      return t("instances.InstancePage.noneItNeverRan", { reason: reason });
    default:
      return t("instances.InstancePage.noneTheProcessorReturned", { inLog: inLog });
  }
}

/** The texts of the log lines of the instance's current attempt (all, for lines that do not say). */
function currentAttemptTexts(lines: LogLine[], attempt: number): string[] {
  return lines.filter((l) => l.attempt === attempt || l.attempt === 0).map((l) => l.text);
}

/**
 * How a result repeats the log: a script's result is its last lines (after
 * a line such as "exit status 3"); `lines` of it are the log's last lines,
 * after what only the result holds (`head`). Null when it does not end with
 * the log.
 */
export function resultInLog(result: string, logTexts: string[]): { head: string; lines: number } | null {
  const r = result.replace(/\n+$/, "").split("\n");
  let k = 0;
  while (k < r.length && k < logTexts.length && r[r.length - 1 - k] === logTexts[logTexts.length - 1 - k]) k++;
  if (k === 0) return null;
  return { head: r.slice(0, r.length - k).join("\n"), lines: k };
}

/** The instance's result, with what a result is: it is not the whole output. What the log shows is not repeated. */
function ResultSection({ instance, live, logTexts }: { instance: InstanceFieldsFragment; live: boolean; logTexts: string[] }) {
  const id = useId();
  const reduce = instance.job?.executionMode === "MAP_REDUCE";
  // A reduce's result is the work's answer: shown whole, whatever the log says.
  const inLog = instance.result && !live && !reduce ? resultInLog(instance.result, logTexts) : null;
  return (
    <Stack gap={4} component="section" aria-labelledby={id}>
      <Title order={3} size="h5" id={id}>
        {reduce ? t("instances.InstancePage.resultOfTheReduce") : t("instances.InstancePage.result")}
      </Title>
      <Text size="xs" c="dimmed">
        {reduce ? (
          <>{t("instances.InstancePage.whatTheReduceTask")}</>
        ) : (
          <>{t("instances.InstancePage.whatTheProcessorReturned")}</>
        )}
      </Text>
      {inLog ? (
        <>
          {inLog.head && (
            <Code block style={{ whiteSpace: "pre-wrap", wordBreak: "break-word" }}>
              {inLog.head}
            </Code>
          )}
          <Text size="sm" c="dimmed" data-testid="result-in-log">
            {inLog.head
              ? t("instances.InstancePage.thenItsLastLines", { count: inLog.lines })
              : t("instances.InstancePage.itsLastLines", { count: inLog.lines })}
          </Text>
        </>
      ) : instance.result ? (
        <Code block style={{ whiteSpace: "pre-wrap", wordBreak: "break-word" }}>
          {instance.result}
        </Code>
      ) : (
        <Text size="sm" c="dimmed">
          {noResult(instance, live)}
        </Text>
      )}
    </Stack>
  );
}
