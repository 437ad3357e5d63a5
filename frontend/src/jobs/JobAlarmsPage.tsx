import { useState } from "react";
import { Alert, Anchor, Badge, Button, Code, Group, List, Stack, Table, Text, Title } from "@mantine/core";
import { Link, useParams } from "react-router";
import { useMutation, useQuery } from "urql";
import { errorMessage } from "../api/errors";
import { appPath, useAppName } from "../apps/currentApp";
import { canEdit, useAppRole } from "../apps/useAppRole";
import { QueryView } from "../components/QueryView";
import type { JobFieldsFragment, SendTestAlarmMutation as TestResult } from "../graphql/graphql";
import { channelLabels, ruleLabels, shownTarget } from "./alarmForm";
import { JobHeader } from "./JobHeader";
import { JobAlarmHistoryQuery, JobQuery, SendTestAlarmMutation } from "./operations";

const pageSize = 20;
const outcomeColors: Record<string, string> = { SENT: "teal", SILENCED: "gray", FAILED: "red" };

/** /apps/:app/jobs/:jobId/alarms: the job's alarm rules and channels, a test alarm, and the alarm history. */
export function JobAlarmsPage() {
  const app = useAppName();
  const { jobId = "" } = useParams();
  const editor = canEdit(useAppRole());
  const [header] = useQuery({ query: JobQuery, variables: { id: jobId } });
  const [pages, setPages] = useState(1);
  const [result, reexecute] = useQuery({
    query: JobAlarmHistoryQuery,
    variables: { id: jobId, first: pageSize * pages },
    requestPolicy: "cache-and-network",
  });
  const refresh = () => reexecute({ requestPolicy: "network-only" });
  const [testing, sendTest] = useMutation(SendTestAlarmMutation);
  const [answers, setAnswers] = useState<TestResult["sendTestAlarm"] | null>(null);
  const job = header.data?.job;

  async function test() {
    const out = await sendTest({ jobId });
    if (out.data) {
      setAnswers(out.data.sendTestAlarm);
      refresh();
    }
  }

  return (
    <Stack>
      {job && <JobHeader app={app} job={job} tab="alarms" />}
      {job && <AlarmSettings app={app} job={job} />}
      {job && editor && (
        <Stack gap="xs" component="section" aria-label="Test alarm">
          <Group>
            <Button onClick={() => void test()} loading={testing.fetching} disabled={job.alarm.channels.length === 0}>
              Send test alarm
            </Button>
            <Text size="sm" c="dimmed">
              Sends a test message to each channel now and shows what each answered.
            </Text>
          </Group>
          {testing.error && (
            <Alert color="red" title="Could not send the test alarm" role="alert">
              {errorMessage(testing.error)}
            </Alert>
          )}
          {answers && (
            <Table aria-label="Test alarm answers">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Channel</Table.Th>
                  <Table.Th>To</Table.Th>
                  <Table.Th>Result</Table.Th>
                  <Table.Th>Answer</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {answers.map((a, i) => (
                  <Table.Tr key={i}>
                    <Table.Td>{channelLabels[a.channel]}</Table.Td>
                    <Table.Td style={{ overflowWrap: "anywhere" }}>{a.target}</Table.Td>
                    <Table.Td>
                      <Badge color={a.ok ? "teal" : "red"}>{a.ok ? "delivered" : "failed"}</Badge>{" "}
                      {a.statusCode != null && <Code>{a.statusCode}</Code>}
                    </Table.Td>
                    <Table.Td style={{ overflowWrap: "anywhere" }}>{a.answer}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      )}
      <Title order={3} size="h4">
        Alarm history
      </Title>
      <QueryView
        result={result}
        onRetry={refresh}
        loading="Loading the alarm history"
        isEmpty={(d) => !d.job || d.job.alarmHistory.edges.length === 0}
        empty={<>No alarm yet: none was sent, silenced or failed for this job.</>}
      >
        {(d) => {
          const h = d.job?.alarmHistory;
          if (!h) return null;
          return (
            <Stack gap="xs">
              <Table striped aria-label="Alarm history">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>When</Table.Th>
                    <Table.Th>Event</Table.Th>
                    <Table.Th>Outcome</Table.Th>
                    <Table.Th>Channel</Table.Th>
                    <Table.Th>Answer</Table.Th>
                    <Table.Th>Instance</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {h.edges.map(({ node: r }) => (
                    <Table.Tr key={r.id}>
                      <Table.Td>{new Date(r.time).toLocaleString()}</Table.Td>
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
                          <Text size="xs" c="dimmed">
                            {r.attempts} attempts
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        {r.instanceId ? (
                          <Anchor component={Link} to={appPath(app, "instances", r.instanceId)} size="sm">
                            {r.instanceId}
                          </Anchor>
                        ) : (
                          "—"
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
              <Group justify="space-between">
                <Text size="sm" c="dimmed">
                  {h.edges.length} of {h.totalCount}
                </Text>
                {h.pageInfo.hasNextPage && pages * pageSize < 200 && (
                  <Button variant="default" size="xs" onClick={() => setPages((p) => p + 1)}>
                    Show more
                  </Button>
                )}
              </Group>
            </Stack>
          );
        }}
      </QueryView>
    </Stack>
  );
}

/** The job's rules and channels, in words. */
function AlarmSettings({ app, job }: { app: string; job: Pick<JobFieldsFragment, "id" | "alarm"> }) {
  const { rules, channels } = job.alarm;
  if (rules.length === 0 || channels.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        {rules.length === 0 ? "No alarm rule: nobody is told when it fails." : "Rules are set, but no channel to tell."}{" "}
        <Anchor component={Link} to={appPath(app, "jobs", job.id, "edit")} inherit>
          Set its alarm
        </Anchor>
        .
      </Text>
    );
  }
  return (
    <Group align="flex-start" gap="xl">
      <Stack gap={4}>
        <Text size="sm" fw={600}>
          Alarm when
        </Text>
        <List size="sm" spacing={2}>
          {rules.map((r) => (
            <List.Item key={r.type}>
              {ruleLabels[r.type]}
              {r.type === "CONSECUTIVE_FAILURES" && ` (N = ${r.threshold})`}
              {r.type === "START_LATE" && ` (by more than ${r.threshold} ms)`}
              {r.silenceSec > 0 && `; then quiet for ${r.silenceSec} s`}
            </List.Item>
          ))}
        </List>
      </Stack>
      <Stack gap={4}>
        <Text size="sm" fw={600}>
          Tell
        </Text>
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
