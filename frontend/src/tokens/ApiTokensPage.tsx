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
import { t } from "../i18n";

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
    (token: ApiTokenFieldsFragment) => ({ id: token.id }),
    (token) => t("tokens.ApiTokensPage.revokedToken", { name: token.name }),
    refetch,
  );

  return (
    <Stack>
      <PageHeader
        title={t("tokens.ApiTokensPage.apiTokens")}
        description={
          <>{(admin ? t("tokens.ApiTokensPage.everyUsersTokens") : t("tokens.ApiTokensPage.yourTokens"))}</>
        }
      >
        <Button onClick={open} style={{ flexShrink: 0 }}>{t("tokens.ApiTokensPage.createToken")}</Button>
      </PageHeader>
      <QueryView
        result={result}
        onRetry={refetch}
        loading={t("tokens.ApiTokensPage.loadingApiTokens")}
        isEmpty={(data) => data.apiTokens.length === 0}
        empty={t("tokens.ApiTokensPage.noApiTokensYet")}
      >
        {(data) => (
          <Table.ScrollContainer minWidth={admin ? 900 : 800}>
            <Table striped highlightOnHover verticalSpacing="sm" aria-label={t("tokens.ApiTokensPage.apiTokens")}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">{t("tokens.ApiTokensPage.name")}</Table.Th>
                  {admin && <Table.Th scope="col">{t("tokens.ApiTokensPage.user")}</Table.Th>}
                  <Table.Th scope="col">{t("tokens.ApiTokensPage.app")}</Table.Th>
                  <Table.Th scope="col">{t("tokens.ApiTokensPage.role")}</Table.Th>
                  <Table.Th scope="col">{t("tokens.ApiTokensPage.created")}</Table.Th>
                  <Table.Th scope="col">{t("tokens.ApiTokensPage.lastUsed")}</Table.Th>
                  <Table.Th scope="col">{t("tokens.ApiTokensPage.status")}</Table.Th>
                  <Table.Th scope="col">
                    <VisuallyHidden>{t("tokens.ApiTokensPage.actions")}</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.apiTokens.map((token) => (
                  <Table.Tr key={token.id} c={token.revokedAt ? "dimmed" : undefined}>
                    <Table.Th scope="row" fw={600}>
                      {token.name}
                    </Table.Th>
                    {admin && <Table.Td>{token.user.username}</Table.Td>}
                    <Table.Td>{token.app?.name ?? <Text size="sm">{t("tokens.ApiTokensPage.everyApp")}</Text>}</Table.Td>
                    <Table.Td>
                      {token.role ? <Badge variant="light">{token.role}</Badge> : <Text size="sm">{t("tokens.ApiTokensPage.creatorSRole")}</Text>}
                    </Table.Td>
                    <Table.Td>
                      <Timestamp value={token.createdAt} compact />
                    </Table.Td>
                    <Table.Td>{token.lastUsedAt ? <Timestamp value={token.lastUsedAt} relative /> : <Dash />}</Table.Td>
                    <Table.Td>
                      {token.revokedAt ? (
                        <Group gap={6} wrap="nowrap">
                          <Badge color="gray" variant="outline">{t("tokens.ApiTokensPage.revoked")}</Badge>
                          <Timestamp value={token.revokedAt} compact />
                        </Group>
                      ) : (
                        <Badge color="teal" variant="light">{t("tokens.ApiTokensPage.active")}</Badge>
                      )}
                    </Table.Td>
                    <Table.Td ta="right">
                      {!token.revokedAt && (
                        <Button
                          size="xs"
                          variant="subtle"
                          color="red"
                          aria-label={t("tokens.ApiTokensPage.revoke2", { name: token.name })}
                          onClick={() => revoking.ask(token)}
                        >{t("tokens.ApiTokensPage.revoke")}</Button>
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
      <ConfirmDialog title={t("tokens.ApiTokensPage.revokeApiToken")} confirmLabel={t("tokens.ApiTokensPage.revokeToken")} danger {...revoking.dialog}>{t("tokens.ApiTokensPage.revoke")}{" "}<strong>{revoking.item?.name}</strong>{t("tokens.ApiTokensPage.itStopsWorkingAt")}</ConfirmDialog>
    </Stack>
  );
}
