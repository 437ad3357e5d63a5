import { Badge, Button, Stack, Table, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "urql";
import { useIsAdmin } from "../auth/useMe";
import { PageHeader } from "../components/PageHeader";
import { QueryView } from "../components/QueryView";
import { Timestamp } from "../components/Timestamp";
import { CreateUserDialog } from "./CreateUserDialog";
import { UsersQuery } from "./operations";
import { t } from "../i18n";

// A new user is a User the list holds none of while it is empty.
const context = { additionalTypenames: ["User"] };

/** /users: every user (administrators only). */
export function UsersPage() {
  const admin = useIsAdmin();
  return (
    <Stack>
      {admin ? (
        <Users />
      ) : (
        <>
          <Title order={2}>{t("users.UsersPage.users")}</Title>
          <Text>{t("users.UsersPage.onlyAdministratorsCanSee")}</Text>
        </>
      )}
    </Stack>
  );
}

function Users() {
  const [result, reexecute] = useQuery({ query: UsersQuery, context });
  const [creating, { open, close }] = useDisclosure(false);
  return (
    <>
      <PageHeader
        title={t("users.UsersPage.users")}
        description={t("users.UsersPage.everyoneWhoCanLog")}
      >
        <Button onClick={open} style={{ flexShrink: 0 }}>{t("users.UsersPage.createUser")}</Button>
      </PageHeader>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("users.UsersPage.loadingUsers")}
        isEmpty={(data) => data.users.length === 0}
        empty={t("users.UsersPage.noUsersYet")}
      >
        {(data) => (
          <Table.ScrollContainer minWidth={480}>
            <Table striped highlightOnHover verticalSpacing="sm" aria-label={t("users.UsersPage.users")}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">{t("users.UsersPage.username")}</Table.Th>
                  <Table.Th scope="col">{t("users.UsersPage.kind")}</Table.Th>
                  <Table.Th scope="col">{t("users.UsersPage.created")}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.users.map((u) => (
                  <Table.Tr key={u.id}>
                    <Table.Th scope="row" fw={600}>
                      {u.username}
                    </Table.Th>
                    <Table.Td>
                      {u.admin ? (
                        <Badge color="grape" variant="light">{t("users.UsersPage.administrator")}</Badge>
                      ) : (
                        <Text size="sm">{t("users.UsersPage.user")}</Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Timestamp value={u.createdAt} />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </QueryView>
      <CreateUserDialog opened={creating} onClose={close} />
    </>
  );
}
