import { Badge, Stack, Table, Text, Title } from "@mantine/core";
import { useId } from "@mantine/hooks";
import { Timestamp } from "../components/Timestamp";
import type { InstanceFieldsFragment } from "../graphql/graphql";
import { t } from "../i18n";

type Unqualified = Pick<InstanceFieldsFragment, "unqualifiedAt" | "unqualifiedWorkers">;

/** What each filter means, for the badge's tooltip. */
const filterMeaning: Record<string, string> = {
  PROCESSOR: t("instances.UnqualifiedWorkersTable.doesNotServeThe"),
  DESIGNATED: t("instances.UnqualifiedWorkersTable.notAmongTheJob"),
  TAG: t("instances.UnqualifiedWorkersTable.lacksATagThe"),
  CPU: t("instances.UnqualifiedWorkersTable.fewerCpuCoresThan"),
  MEMORY: t("instances.UnqualifiedWorkersTable.lessFreeMemoryThan"),
  DISK: t("instances.UnqualifiedWorkersTable.lessFreeDiskThan"),
  DRAINING: t("instances.UnqualifiedWorkersTable.stoppingGracefullyTakesNo"),
  FULL: t("instances.UnqualifiedWorkersTable.noFreeSlot"),
  TASK_LIMIT: t("instances.UnqualifiedWorkersTable.alreadyRunsTheJob"),
  MAX_WORKERS: t("instances.UnqualifiedWorkersTable.theInstanceAlreadyRuns"),
};

/**
 * "Why no worker?": when the scheduler could not dispatch the instance, each
 * worker of the app connected then and the filter that ruled it out.
 * Nothing when that never happened.
 */
export function UnqualifiedWorkersSection({ instance }: { instance: Unqualified }) {
  const id = useId();
  if (!instance.unqualifiedAt) return null;
  const workers = instance.unqualifiedWorkers;
  return (
    <Stack gap="xs" component="section" aria-labelledby={id}>
      <Title order={3} size="h5" id={id}>{t("instances.UnqualifiedWorkersTable.whyNoWorker")}</Title>
      <Text size="xs" c="dimmed">{t("instances.UnqualifiedWorkersTable.at")}{" "}<Timestamp value={instance.unqualifiedAt} compact />{" "}{workers.length > 0 ? t("instances.UnqualifiedWorkersTable.noWorkerEach") : t("instances.UnqualifiedWorkersTable.noWorker")}</Text>
      {workers.length === 0 ? (
        <Text size="sm">{t("instances.UnqualifiedWorkersTable.noWorkerOfThe")}</Text>
      ) : (
        <Table.ScrollContainer minWidth={600}>
          <Table verticalSpacing="xs" striped aria-labelledby={id}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t("instances.UnqualifiedWorkersTable.worker")}</Table.Th>
                <Table.Th scope="col">{t("instances.UnqualifiedWorkersTable.host")}</Table.Th>
                <Table.Th scope="col">{t("instances.UnqualifiedWorkersTable.filter")}</Table.Th>
                <Table.Th scope="col">{t("instances.UnqualifiedWorkersTable.reason")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {workers.map((w) => (
                <Table.Tr key={w.worker}>
                  <Table.Th scope="row" style={{ fontWeight: "normal", wordBreak: "break-all" }}>
                    {w.worker}
                  </Table.Th>
                  <Table.Td>{w.host}</Table.Td>
                  <Table.Td>
                    <Badge size="sm" variant="light" color="orange" title={filterMeaning[w.filter] ?? w.filter}>
                      {w.filter}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{w.reason}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
