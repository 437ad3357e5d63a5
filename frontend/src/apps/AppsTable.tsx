import { Anchor, Badge, Table, Text } from "@mantine/core";
import { Link } from "react-router";
import { Timestamp } from "../components/Timestamp";
import type { AppsQuery } from "../graphql/graphql";
import { appPath } from "./currentApp";
import { t } from "../i18n";

type App = AppsQuery["apps"][number];

export function AppsTable({ apps }: { apps: App[] }) {
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped highlightOnHover verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t("apps.AppsTable.name")}</Table.Th>
            <Table.Th scope="col">{t("apps.AppsTable.description")}</Table.Th>
            <Table.Th scope="col">{t("apps.AppsTable.yourRole")}</Table.Th>
            <Table.Th scope="col">{t("apps.AppsTable.created")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {apps.map((app) => (
            <Table.Tr key={app.id}>
              <Table.Th scope="row">
                <Anchor component={Link} to={appPath(app.name, "dashboard")} fw={600}>
                  {app.name}
                </Anchor>
              </Table.Th>
              <Table.Td>{app.description || <Text c="dimmed">—</Text>}</Table.Td>
              <Table.Td>{app.myRole ? <Badge variant="light">{app.myRole}</Badge> : <Text c="dimmed">—</Text>}</Table.Td>
              <Table.Td>
                <Timestamp value={app.createdAt} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
