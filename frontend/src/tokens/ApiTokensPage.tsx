import { Badge, Button, Group, Stack, Table, Text, VisuallyHidden } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQuery } from "urql";
import { useIsAdmin } from "../auth/useMe";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { PageHeader } from "../components/PageHeader";
import { QueryView } from "../components/QueryView";
import { Timestamp } from "../components/Timestamp";
import { useConfirmed } from "../components/useConfirmed";
import type { ApiTokenFieldsFragment } from "../graphql/graphql";
import { CreateTokenDialog } from "./CreateTokenDialog";
import { ApiTokensQuery, RevokeApiTokenMutation } from "./operations";

// A new token is an ApiToken the list holds none of while it is empty.
const context = { additionalTypenames: ["ApiToken"] };

function Dash() {
  return (
    <Text size="sm" c="dimmed">
      —
    </Text>
  );
}

/** /tokens: the caller's API tokens (an administrator's: everyone's); create and revoke. */
export function ApiTokensPage() {
  const admin = useIsAdmin();
  const [result, reexecute] = useQuery({ query: ApiTokensQuery, context });
  const [creating, { open, close }] = useDisclosure(false);
  const refetch = () => reexecute({ requestPolicy: "network-only" });
  const revoking = useConfirmed(
    RevokeApiTokenMutation,
    (t: ApiTokenFieldsFragment) => ({ id: t.id }),
    (t) => `Revoked token ${t.name}.`,
    refetch,
  );

  return (
    <Stack>
      <PageHeader
        title="API tokens"
        description={
          <>
            {admin ? "Every user’s tokens. " : "Your tokens. "}A token lets another service call the API as its
            creator (Authorization: Bearer …), narrowed to one app and a role if you choose.
          </>
        }
      >
        <Button onClick={open} style={{ flexShrink: 0 }}>
          Create token
        </Button>
      </PageHeader>
      <QueryView
        result={result}
        onRetry={refetch}
        loading="Loading API tokens"
        isEmpty={(data) => data.apiTokens.length === 0}
        empty="No API tokens yet."
      >
        {(data) => (
          <Table.ScrollContainer minWidth={admin ? 900 : 800}>
            <Table striped highlightOnHover verticalSpacing="sm" aria-label="API tokens">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Name</Table.Th>
                  {admin && <Table.Th scope="col">User</Table.Th>}
                  <Table.Th scope="col">App</Table.Th>
                  <Table.Th scope="col">Role</Table.Th>
                  <Table.Th scope="col">Created</Table.Th>
                  <Table.Th scope="col">Last used</Table.Th>
                  <Table.Th scope="col">Status</Table.Th>
                  <Table.Th scope="col">
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.apiTokens.map((t) => (
                  <Table.Tr key={t.id} c={t.revokedAt ? "dimmed" : undefined}>
                    <Table.Th scope="row" fw={600}>
                      {t.name}
                    </Table.Th>
                    {admin && <Table.Td>{t.user.username}</Table.Td>}
                    <Table.Td>{t.app?.name ?? <Text size="sm">Every app</Text>}</Table.Td>
                    <Table.Td>
                      {t.role ? <Badge variant="light">{t.role}</Badge> : <Text size="sm">Creator’s role</Text>}
                    </Table.Td>
                    <Table.Td>
                      <Timestamp value={t.createdAt} compact />
                    </Table.Td>
                    <Table.Td>{t.lastUsedAt ? <Timestamp value={t.lastUsedAt} relative /> : <Dash />}</Table.Td>
                    <Table.Td>
                      {t.revokedAt ? (
                        <Group gap={6} wrap="nowrap">
                          <Badge color="gray" variant="outline">
                            Revoked
                          </Badge>
                          <Timestamp value={t.revokedAt} compact />
                        </Group>
                      ) : (
                        <Badge color="teal" variant="light">
                          Active
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td ta="right">
                      {!t.revokedAt && (
                        <Button
                          size="xs"
                          variant="subtle"
                          color="red"
                          aria-label={`Revoke ${t.name}`}
                          onClick={() => revoking.ask(t)}
                        >
                          Revoke
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </QueryView>
      <CreateTokenDialog opened={creating} onClose={close} />
      <ConfirmDialog title="Revoke API token" confirmLabel="Revoke token" danger {...revoking.dialog}>
        Revoke <strong>{revoking.item?.name}</strong>? It stops working at once, for every service that uses it. This cannot
        be undone.
      </ConfirmDialog>
    </Stack>
  );
}
