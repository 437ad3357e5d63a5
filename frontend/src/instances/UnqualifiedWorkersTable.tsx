import { Badge, Stack, Table, Text, Title } from "@mantine/core";
import { useId } from "@mantine/hooks";
import { Timestamp } from "../components/Timestamp";
import type { InstanceFieldsFragment } from "../graphql/graphql";

type Unqualified = Pick<InstanceFieldsFragment, "unqualifiedAt" | "unqualifiedWorkers">;

/** What each filter means, for the badge's tooltip. */
const filterMeaning: Record<string, string> = {
  PROCESSOR: "does not serve the job's processor",
  DESIGNATED: "not among the job's designated workers",
  TAG: "lacks a tag the job requires",
  CPU: "fewer CPU cores than the job's minimum",
  MEMORY: "less free memory than the job's minimum",
  DISK: "less free disk than the job's minimum",
  DRAINING: "stopping gracefully: takes no new tasks",
  FULL: "no free slot",
  TASK_LIMIT: "already runs the job's taskConcurrency tasks of this instance",
  MAX_WORKERS: "the instance already runs on the job's maxWorkers others",
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
      <Title order={3} size="h5" id={id}>
        Why no worker
      </Title>
      <Text size="xs" c="dimmed">
        At <Timestamp value={instance.unqualifiedAt} compact /> no connected worker could take this instance
        {workers.length > 0 ? "; each worker of the app and the filter that ruled it out:" : "."}
      </Text>
      {workers.length === 0 ? (
        <Text size="sm">No worker of the app was connected.</Text>
      ) : (
        <Table.ScrollContainer minWidth={600}>
          <Table verticalSpacing="xs" striped aria-labelledby={id}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Worker</Table.Th>
                <Table.Th scope="col">Host</Table.Th>
                <Table.Th scope="col">Filter</Table.Th>
                <Table.Th scope="col">Reason</Table.Th>
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
