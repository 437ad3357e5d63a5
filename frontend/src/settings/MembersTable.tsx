import { useState } from "react";
import { Alert, Badge, Button, Select, Table, Text, VisuallyHidden } from "@mantine/core";
import { useId } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { useMutation, type CombinedError } from "urql";
import { errorMessage } from "../api/errors";
import { appRoles } from "../apps/useAppRole";
import { ConfirmDialog } from "../components/ConfirmDialog";
import type { AppRole, AppSettingsQuery } from "../graphql/graphql";
import { SetAppRoleMutation } from "./operations";
import { t } from "../i18n";

type Member = AppSettingsQuery["apps"][number]["members"][number];

interface MembersTableProps {
  app: string;
  members: Member[];
  /** Whether the caller may change roles and remove members (OWNER). */
  editable: boolean;
}

/**
 * The app's members and their roles, administrators marked (they may do
 * everything on every app, listed or not). An OWNER changes a role in place and
 * removes a member after confirming; the server refuses to leave the app
 * without an OWNER (CONFLICT), and that refusal shows where it was asked.
 */
export function MembersTable({ app, members, editable }: MembersTableProps) {
  const id = useId();
  const [{ fetching }, setRole] = useMutation(SetAppRoleMutation);
  // The failure of the last role change, with whose it was.
  const [changeError, setChangeError] = useState<{ username: string; error: CombinedError } | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [removeError, setRemoveError] = useState<CombinedError | undefined>(undefined);

  async function change(member: Member, role: AppRole) {
    if (role === member.role) return;
    setChangeError(null);
    const result = await setRole({ app, username: member.username, role });
    if (result.error) setChangeError({ username: member.username, error: result.error });
    else notifications.show({ color: "teal", message: t("settings.MembersTable.isNowOfApp", { username: member.username, role: role, app: app }) });
  }

  async function remove() {
    if (!removing) return;
    const result = await setRole({ app, username: removing.username, role: null });
    setRemoveError(result.error);
    if (!result.error) {
      notifications.show({ color: "teal", message: t("settings.MembersTable.removedFromApp", { username: removing.username, app: app }) });
      setRemoving(null);
    }
  }

  if (members.length === 0) {
    return (
      <Text size="sm" c="dimmed">{t("settings.MembersTable.nobodyIsListedOnly")}</Text>
    );
  }

  return (
    <>
      {changeError && (
        <Alert color="red" role="alert" title={t("settings.MembersTable.couldNotChangeThe", { username: changeError.username })}>
          <Text size="sm" style={{ whiteSpace: "pre-line" }}>
            {errorMessage(changeError.error)}
          </Text>
        </Alert>
      )}
      <Table.ScrollContainer minWidth={480}>
        <Table verticalSpacing="xs" striped aria-label={t("settings.MembersTable.members")}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t("settings.MembersTable.user")}</Table.Th>
              <Table.Th scope="col" id={`${id}-role`}>{t("settings.MembersTable.role")}</Table.Th>
              {editable && (
                <Table.Th scope="col">
                  <VisuallyHidden>{t("settings.MembersTable.actions")}</VisuallyHidden>
                </Table.Th>
              )}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {members.map((m) => (
              <Table.Tr key={m.userId}>
                <Table.Th scope="row" fw={600} id={`${id}-user-${m.userId}`}>
                  {m.username}
                  {m.admin && (
                    <Badge ml="xs" size="xs" variant="outline" color="grape" title={t("settings.MembersTable.adminMayDoAnything")}>
                      {t("settings.MembersTable.administrator")}
                    </Badge>
                  )}
                </Table.Th>
                <Table.Td>
                  {editable ? (
                    <Select
                      // Labelled by what shows: the member's name and the column's heading.
                      aria-labelledby={`${id}-user-${m.userId} ${id}-role`}
                      data={appRoles.map((r) => ({ value: r.value, label: r.label }))}
                      value={m.role}
                      onChange={(value) => {
                        if (value) void change(m, value as AppRole);
                      }}
                      allowDeselect={false}
                      disabled={fetching}
                      size="xs"
                      w={140}
                      comboboxProps={{ withinPortal: true }}
                    />
                  ) : (
                    <Badge variant="light">{m.role}</Badge>
                  )}
                </Table.Td>
                {editable && (
                  <Table.Td ta="right">
                    <Button
                      size="xs"
                      variant="subtle"
                      color="red"
                      aria-label={t("settings.MembersTable.remove2", { username: m.username })}
                      onClick={() => {
                        setRemoveError(undefined);
                        setRemoving(m);
                      }}
                    >{t("settings.MembersTable.remove")}</Button>
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {editable && (
        <ConfirmDialog
          opened={removing !== null}
          title={t("settings.MembersTable.removeMember")}
          confirmLabel={t("settings.MembersTable.removeMember")}
          danger
          busy={fetching}
          error={removeError}
          onConfirm={() => void remove()}
          onClose={() => setRemoving(null)}
        >{t("settings.MembersTable.remove")}{" "}<strong>{removing?.username}</strong>{" "}{removing?.admin
            ? t("settings.MembersTable.fromAppAdminKeeps", { app: app, role: removing.role })
            : t("settings.MembersTable.fromAppTheyLose", { app: app, role: removing?.role ?? "" })}</ConfirmDialog>
      )}
    </>
  );
}
