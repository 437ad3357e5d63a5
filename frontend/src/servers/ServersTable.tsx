import { Badge, Code, Table } from "@mantine/core";
import { Timestamp } from "../components/Timestamp";
import type { ServersQuery } from "../graphql/graphql";
import { t } from "../i18n";

type Server = ServersQuery["servers"][number];

export function ServersTable({ servers }: { servers: Server[] }) {
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table striped highlightOnHover verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t("servers.ServersTable.id")}</Table.Th>
            <Table.Th scope="col">{t("servers.ServersTable.advertiseUrl")}</Table.Th>
            <Table.Th scope="col">{t("servers.ServersTable.status")}</Table.Th>
            <Table.Th scope="col">{t("servers.ServersTable.started")}</Table.Th>
            <Table.Th scope="col">{t("servers.ServersTable.lastHeartbeat")}</Table.Th>
            <Table.Th scope="col">{t("servers.ServersTable.version")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {servers.map((server) => (
            <Table.Tr key={server.id}>
              <Table.Th scope="row" fw={600}>
                {server.id}
              </Table.Th>
              <Table.Td>
                <Code>{server.advertiseUrl}</Code>
              </Table.Td>
              <Table.Td>
                <Badge color={server.alive ? "teal" : "gray"} variant={server.alive ? "light" : "outline"}>
                  {server.alive ? t("common.alive") : t("common.down")}
                </Badge>
              </Table.Td>
              <Table.Td>
                <Timestamp value={server.startedAt} />
              </Table.Td>
              <Table.Td>
                <Timestamp value={server.heartbeatAt} relative />
              </Table.Td>
              <Table.Td>{server.version}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
