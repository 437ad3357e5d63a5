import { Table, Text } from "@mantine/core";
import { Elapsed } from "../components/Elapsed";
import { Timestamp } from "../components/Timestamp";
import type { InstanceFieldsFragment } from "../graphql/graphql";
import { StatusBadge } from "./StatusBadge";
import { t } from "../i18n";

type Attempt = InstanceFieldsFragment["attempts"][number];

function Dash() {
  return (
    <Text size="sm" c="dimmed">
      —
    </Text>
  );
}

/**
 * Every attempt of an instance: its worker, status, reason, result (the
 * current attempt's is under Result, not repeated) and times; and, while a failed attempt waits for its retry, when the next one
 * is due (nextAttemptAt, after the job's retry back-off).
 */
export function AttemptsTable({
  attempts,
  nextAttemptAt,
  current,
}: {
  attempts: Attempt[];
  nextAttemptAt?: string | null;
  /** The instance's current attempt and result: its result shows under Result, not again here. */
  current?: { attempt: number; result: string };
}) {
  if (attempts.length === 0) {
    return (
      <Text size="sm" c="dimmed">{t("instances.AttemptsTable.noAttemptHasStarted")}</Text>
    );
  }
  const next = nextAttemptAt ? Math.max(...attempts.map((a) => a.attempt)) + 1 : null;
  return (
    <Table.ScrollContainer minWidth={800}>
      <Table verticalSpacing="xs" striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t("instances.AttemptsTable.attempt")}</Table.Th>
            <Table.Th scope="col">{t("instances.AttemptsTable.worker")}</Table.Th>
            <Table.Th scope="col">{t("instances.AttemptsTable.status")}</Table.Th>
            <Table.Th scope="col">{t("instances.AttemptsTable.reason")}</Table.Th>
            <Table.Th scope="col">{t("instances.AttemptsTable.result")}</Table.Th>
            <Table.Th scope="col">{t("instances.AttemptsTable.started")}</Table.Th>
            <Table.Th scope="col">{t("instances.AttemptsTable.finished")}</Table.Th>
            <Table.Th scope="col">{t("instances.AttemptsTable.took")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {attempts.map((a) => (
            <Table.Tr key={a.attempt}>
              <Table.Th scope="row">{a.attempt}</Table.Th>
              <Table.Td>{a.worker ?? <Dash />}</Table.Td>
              <Table.Td>
                <StatusBadge status={a.status} size="sm" />
              </Table.Td>
              <Table.Td>{a.reason || <Dash />}</Table.Td>
              <Table.Td maw={360}>
                {a.result && current?.attempt === a.attempt && a.result === current.result ? (
                  <Text size="sm" c="dimmed" fs="italic">{t("instances.AttemptsTable.underResult")}</Text>
                ) : a.result ? (
                  <Text size="sm" lineClamp={3} title={a.result}>
                    {a.result}
                  </Text>
                ) : (
                  <Dash />
                )}
              </Table.Td>
              <Table.Td>{a.startedTime ? <Timestamp value={a.startedTime} compact /> : <Dash />}</Table.Td>
              <Table.Td>{a.finishedTime ? <Timestamp value={a.finishedTime} compact /> : <Dash />}</Table.Td>
              <Table.Td style={{ whiteSpace: "nowrap" }}>
                <Elapsed start={a.startedTime} end={a.finishedTime} />
              </Table.Td>
            </Table.Tr>
          ))}
          {next !== null && nextAttemptAt && (
            <Table.Tr>
              <Table.Th scope="row">{next}</Table.Th>
              <Table.Td colSpan={7}>
                <Text size="sm" c="dimmed">{t("instances.AttemptsTable.due")}{" "}<Timestamp value={nextAttemptAt} />{" "}{t("instances.AttemptsTable.retryBackOff")}</Text>
              </Table.Td>
            </Table.Tr>
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
