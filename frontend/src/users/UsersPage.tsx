import { Badge, Button, Stack, Table, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "urql";
import { useIsAdmin } from "../auth/useMe";
import { PageHeader } from "../components/PageHeader";
import { QueryView } from "../components/QueryView";
import { Timestamp } from "../components/Timestamp";
import { CreateUserDialog } from "./CreateUserDialog";
import { UsersQuery } from "./operations";

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
          <Title order={2}>Users</Title>
          <Text>Only administrators can see and create users.</Text>
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
        title="Users"
        description="Everyone who can log in. Roles on an app are given in the app’s settings; administrators may do anything."
      >
        <Button onClick={open} style={{ flexShrink: 0 }}>
          Create user
        </Button>
      </PageHeader>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading="Loading users"
        isEmpty={(data) => data.users.length === 0}
        empty="No users yet."
      >
        {(data) => (
          <Table.ScrollContainer minWidth={480}>
            <Table striped highlightOnHover verticalSpacing="sm" aria-label="Users">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Username</Table.Th>
                  <Table.Th scope="col">Kind</Table.Th>
                  <Table.Th scope="col">Created</Table.Th>
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
                        <Badge color="grape" variant="light">
                          Administrator
                        </Badge>
                      ) : (
                        <Text size="sm">User</Text>
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
