// The parts of an Alarms page a job and a workflow share: the settings in
// words, the test alarm with each channel's answer, and a page of the
// alarm history (README "Alarms").
import { useState, type ReactNode } from "react";
import { Alert, Anchor, Badge, Button, Code, Group, List, Stack, Table, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import { useMutation, type UseQueryState } from "urql";
import { errorMessage } from "../api/errors";
import { appPath } from "../apps/currentApp";
import { QueryView } from "../components/QueryView";
import type {
  AlarmChannelType,
  AlarmRecordFieldsFragment,
  AlarmRuleType,
  SendTestAlarmMutation as TestResult,
  SendTestAlarmMutationVariables,
} from "../graphql/graphql";
import { channelLabels, ruleLabels, shownTarget } from "./alarmForm";
import { SendTestAlarmMutation } from "./operations";
import { locale, t } from "../i18n";

/** How many history entries a page adds; the server gives at most 200 at once. */
export const alarmHistoryPageSize = 20;
const historyMax = 200;
const outcomeColors: Record<string, string> = { SENT: "teal", SILENCED: "gray", FAILED: "red" };

interface AlarmLike {
  rules: readonly { type: AlarmRuleType; threshold: number; silenceSec: number }[];
  channels: readonly { type: AlarmChannelType; target: string }[];
}

/**
 * The rules and channels, in words (a chat URL's key hidden); with none,
 * what is missing and `setIt`, a link to where it is set.
 */
export function AlarmSummary({
  alarm,
  labels = ruleLabels,
  setIt,
}: {
  alarm: AlarmLike;
  labels?: Record<AlarmRuleType, string>;
  setIt?: ReactNode;
}) {
  const { rules, channels } = alarm;
  if (rules.length === 0 || channels.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {rules.length === 0 ? t("jobs.AlarmSections.noAlarmRuleNobody") : t("jobs.AlarmSections.rulesAreSetBut")}
        {setIt && <> {setIt}.</>}
      </Text>
    );
  }
  return (
    <Group align="flex-start" gap="xl">
      <Stack gap={4}>
        <Text size="sm" fw={600}>{t("jobs.AlarmSections.alarmWhen")}</Text>
        <List size="sm" spacing={2}>
          {rules.map((r) => (
            <List.Item key={r.type}>
              {labels[r.type]}
              {r.type === "CONSECUTIVE_FAILURES" && ` (N = ${r.threshold})`}
              {r.type === "START_LATE" && t("jobs.AlarmSections.byMoreThanMs", { threshold: r.threshold })}
              {r.silenceSec > 0 && t("jobs.AlarmSections.thenQuietForS", { silenceSec: r.silenceSec })}
            </List.Item>
          ))}
        </List>
      </Stack>
      <Stack gap={4}>
        <Text size="sm" fw={600}>{t("jobs.AlarmSections.tell")}</Text>
        <List size="sm" spacing={2}>
          {channels.map((c, i) => (
            <List.Item key={i} style={{ overflowWrap: "anywhere" }}>
              {channelLabels[c.type]}: {shownTarget(c.target)}
            </List.Item>
          ))}
        </List>
      </Stack>
    </Group>
  );
}

/**
 * "Send test alarm" for a job's or a workflow's saved channels (`subject`:
 * { jobId } or { workflowId }), and each channel's answer; `onSent` after
 * (the history has new entries). For editors only.
 */
export function TestAlarm({
  subject,
  disabled,
  onSent,
}: {
  subject: SendTestAlarmMutationVariables;
  disabled: boolean;
  onSent: () => void;
}) {
  const [testing, sendTest] = useMutation(SendTestAlarmMutation);
  const [answers, setAnswers] = useState<TestResult["sendTestAlarm"] | null>(null);

  async function test() {
    const out = await sendTest(subject);
    if (out.data) {
      setAnswers(out.data.sendTestAlarm);
      onSent();
    }
  }

  return (
    <Stack gap="xs" component="section" aria-label={t("jobs.AlarmSections.testAlarm")}>
      <Group>
        <Button onClick={() => void test()} loading={testing.fetching} disabled={disabled}>{t("jobs.AlarmSections.sendTestAlarm")}</Button>
        <Text size="sm" c="dimmed">{t("jobs.AlarmSections.sendsATestMessage")}</Text>
      </Group>
      {testing.error && (
        <Alert color="red" title={t("jobs.AlarmSections.couldNotSendThe")} role="alert">
          {errorMessage(testing.error)}
        </Alert>
      )}
      {answers && (
        <Table aria-label={t("jobs.AlarmSections.testAlarmAnswers")}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t("jobs.AlarmSections.channel")}</Table.Th>
              <Table.Th>{t("jobs.AlarmSections.to")}</Table.Th>
              <Table.Th>{t("jobs.AlarmSections.result")}</Table.Th>
              <Table.Th>{t("jobs.AlarmSections.answer")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {answers.map((a, i) => (
              <Table.Tr key={i}>
                <Table.Td>{channelLabels[a.channel]}</Table.Td>
                <Table.Td style={{ overflowWrap: "anywhere" }}>{a.target}</Table.Td>
                <Table.Td>
                  <Badge color={a.ok ? "teal" : "red"}>{a.ok ? t("common.delivered") : t("common.failed")}</Badge>{" "}
                  {a.statusCode != null && <Code>{a.statusCode}</Code>}
                </Table.Td>
                <Table.Td style={{ overflowWrap: "anywhere" }}>{a.answer}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

interface HistoryPage {
  totalCount: number;
  pageInfo: { hasNextPage: boolean };
  edges: readonly { node: AlarmRecordFieldsFragment }[];
}

/**
 * The entries of an alarm history shown so far (`pages` pages of
 * alarmHistoryPageSize), with "Show more" while more follow. Each links the
 * job instance or the workflow run it concerns.
 */
export function AlarmHistoryTable({
  app,
  history,
  pages,
  onMore,
}: {
  app: string;
  history: HistoryPage;
  pages: number;
  onMore: () => void;
}) {
  return (
    <Stack gap="xs">
      <Table striped aria-label={t("jobs.AlarmSections.alarmHistory")}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t("jobs.AlarmSections.when")}</Table.Th>
            <Table.Th>{t("jobs.AlarmSections.event")}</Table.Th>
            <Table.Th>{t("jobs.AlarmSections.outcome")}</Table.Th>
            <Table.Th>{t("jobs.AlarmSections.channel")}</Table.Th>
            <Table.Th>{t("jobs.AlarmSections.answer")}</Table.Th>
            <Table.Th>{t("jobs.AlarmSections.concerns")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {history.edges.map(({ node: r }) => (
            <Table.Tr key={r.id}>
              <Table.Td>{new Date(r.time).toLocaleString(locale())}</Table.Td>
              <Table.Td>
                <Code>{r.event}</Code>
                {r.rule && (
                  <Text size="xs" c="dimmed">
                    {r.rule}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <Badge color={outcomeColors[r.outcome] ?? "gray"}>{r.outcome}</Badge>
              </Table.Td>
              <Table.Td style={{ overflowWrap: "anywhere" }}>
                {r.channel ? `${channelLabels[r.channel]} ${r.target}` : "—"}
              </Table.Td>
              <Table.Td style={{ overflowWrap: "anywhere" }}>
                {r.statusCode != null && <Code mr={4}>{r.statusCode}</Code>}
                {r.outcome === "SILENCED" ? r.summary : r.answer}
                {r.attempts > 1 && (
                  <Text size="xs" c="dimmed">{t("jobs.AlarmSections.attempts", { attempts: r.attempts })}</Text>
                )}
              </Table.Td>
              <Table.Td>
                {!r.workflowInstanceId && !r.instanceId && "—"}
                {r.instanceId && (
                  <Anchor component={Link} to={appPath(app, "instances", r.instanceId)} size="sm" display="block">{t("jobs.AlarmSections.instance", { instanceId: r.instanceId })}</Anchor>
                )}
                {r.workflowInstanceId && (
                  <Anchor component={Link} to={appPath(app, "workflow-instances", r.workflowInstanceId)} size="sm" display="block">{t("jobs.AlarmSections.run", { workflowInstanceId: r.workflowInstanceId })}</Anchor>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Group justify="space-between">
        <Text size="sm" c="dimmed">{t("jobs.AlarmSections.of", { length: history.edges.length, totalCount: history.totalCount })}</Text>
        {history.pageInfo.hasNextPage && pages * alarmHistoryPageSize < historyMax && (
          <Button variant="default" size="xs" onClick={onMore}>{t("jobs.AlarmSections.showMore")}</Button>
        )}
      </Group>
    </Stack>
  );
}

/**
 * The "Alarm history" heading and its paged table for a job or a workflow:
 * `history` picks the page out of the query's data (undefined while the
 * subject is missing), `subject` names it in the empty state.
 */
export function AlarmHistorySection<Data>({
  app,
  result,
  onRetry,
  history,
  subject,
  pages,
  onMore,
}: {
  app: string;
  result: UseQueryState<Data>;
  onRetry: () => void;
  history: (data: Data) => HistoryPage | null | undefined;
  subject: string;
  pages: number;
  onMore: () => void;
}) {
  return (
    <>
      <Title order={3} size="h4">{t("jobs.AlarmSections.alarmHistory")}</Title>
      <QueryView
        result={result}
        onRetry={onRetry}
        loading={t("jobs.AlarmSections.loadingTheAlarmHistory")}
        isEmpty={(d) => (history(d)?.edges.length ?? 0) === 0}
        empty={<>{t("jobs.AlarmSections.noAlarmYetNone", { subject: subject })}</>}
      >
        {(d) => {
          const page = history(d);
          return page && <AlarmHistoryTable app={app} history={page} pages={pages} onMore={onMore} />;
        }}
      </QueryView>
    </>
  );
}
