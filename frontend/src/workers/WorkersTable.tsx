import { Badge, Code, Group, Stack, Table, Text } from "@mantine/core";
import { formatMegabytes } from "../components/format";
import { Timestamp } from "../components/Timestamp";
import type { WorkerRowFragment } from "../graphql/graphql";
import { t } from "../i18n";

type Worker = WorkerRowFragment;

const healthColors: Record<string, string> = { HEALTHY: "teal", BUSY: "yellow", DRAINING: "orange", LOST: "red" };

function Badges({ values, color }: { values: string[]; color?: string }) {
  if (values.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  }
  return (
    <Group gap={4}>
      {values.map((v) => (
        <Badge key={v} variant="outline" color={color} size="sm" tt="none">
          {v}
        </Badge>
      ))}
    </Group>
  );
}

function Metric({ label, value }: { label: string; value: string }) {
  return (
    <Text size="sm" style={{ whiteSpace: "nowrap" }}>
      <Text span size="xs" c="dimmed">
        {label}
      </Text>{" "}
      {value}
    </Text>
  );
}

export function WorkersTable({ workers }: { workers: Worker[] }) {
  return (
    <Table.ScrollContainer minWidth={960}>
      <Table striped highlightOnHover verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t("workers.WorkersTable.host")}</Table.Th>
            <Table.Th scope="col">{t("workers.WorkersTable.status")}</Table.Th>
            <Table.Th scope="col">{t("workers.WorkersTable.tags")}</Table.Th>
            <Table.Th scope="col">{t("workers.WorkersTable.processors")}</Table.Th>
            <Table.Th scope="col">{t("workers.WorkersTable.slots")}</Table.Th>
            <Table.Th scope="col">{t("workers.WorkersTable.metrics")}</Table.Th>
            <Table.Th scope="col">{t("workers.WorkersTable.lastHeartbeat")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {workers.map((w) => (
            <Table.Tr key={w.id}>
              <Table.Th scope="row" fw={400}>
                <Stack gap={2}>
                  <Text fw={600} size="sm">
                    {w.host}
                  </Text>
                  <Code fz="xs" w="fit-content" style={{ whiteSpace: "nowrap" }}>
                    {w.id}
                  </Code>
                </Stack>
              </Table.Th>
              <Table.Td>
                <Stack gap={4} align="flex-start">
                  <Badge color={w.alive ? "teal" : "gray"} variant={w.alive ? "light" : "outline"}>
                    {w.alive ? t("common.alive") : t("common.gone")}
                  </Badge>
                  <Badge color={healthColors[w.health] ?? "gray"} variant="dot" title={t("workers.WorkersTable.health")}>
                    {w.health}
                  </Badge>
                </Stack>
              </Table.Td>
              <Table.Td maw={200}>
                <Badges values={w.tags} />
              </Table.Td>
              <Table.Td maw={320}>
                <Badges values={w.processors} color="grape" />
              </Table.Td>
              <Table.Td>{w.slots}</Table.Td>
              <Table.Td>
                <Metric label={t("workers.WorkersTable.cores")} value={String(w.metrics.cpuCores)} />
                <Metric label={t("workers.WorkersTable.load")} value={w.metrics.load1.toFixed(2)} />
                <Metric label={t("workers.WorkersTable.freeMemory")} value={formatMegabytes(w.metrics.freeMemoryMB)} />
                <Metric label={t("workers.WorkersTable.freeDisk")} value={formatMegabytes(w.metrics.freeDiskMB)} />
              </Table.Td>
              <Table.Td>
                <Timestamp value={w.lastHeartbeat} relative />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
