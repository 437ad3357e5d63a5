import { useState } from "react";
import { Anchor, Button, Code, Group, Stack, Table, Text, VisuallyHidden } from "@mantine/core";
import { Link } from "react-router";
import { useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { useCanEdit } from "../apps/useAppRole";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { PageHeader } from "../components/PageHeader";
import { QueryView } from "../components/QueryView";
import { Timestamp } from "../components/Timestamp";
import { useConfirmed } from "../components/useConfirmed";
import type { CalendarFieldsFragment } from "../graphql/graphql";
import { CalendarDialog, type CalendarDialogTarget } from "./CalendarDialog";
import { today, upcoming } from "./dates";
import { AppCalendarsQuery, DeleteCalendarMutation } from "./operations";
import { t } from "../i18n";

// A new calendar is a Calendar the list holds none of while it is empty.
const context = { additionalTypenames: ["Calendar"] };

/** How many of a calendar's next dates its row shows. */
const nextShown = 3;

/** /apps/:app/calendars: the app's calendars of excluded dates; editors create, change and delete them. */
export function CalendarsPage() {
  const app = useAppName();
  const canEdit = useCanEdit();
  const [result, reexecute] = useQuery({ query: AppCalendarsQuery, variables: { app }, context });
  const refetch = () => reexecute({ requestPolicy: "network-only" });
  const [target, setTarget] = useState<CalendarDialogTarget | null>(null);
  const deleting = useConfirmed(
    DeleteCalendarMutation,
    (c: CalendarFieldsFragment) => ({ id: c.id }),
    (c) => t("calendars.CalendarsPage.deletedCalendar", { name: c.name }),
    refetch,
  );

  return (
    <Stack>
      <PageHeader
        title={t("calendars.CalendarsPage.calendars")}
        description={t("calendars.CalendarsPage.datesOnWhichThe")}
      >
        {canEdit && (
          <Button onClick={() => setTarget({ kind: "new" })} style={{ flexShrink: 0 }}>{t("calendars.CalendarsPage.newCalendar")}</Button>
        )}
      </PageHeader>
      <QueryView
        result={result}
        onRetry={refetch}
        loading={t("calendars.CalendarsPage.loadingCalendars")}
        isEmpty={(data) => data.calendars.length === 0}
        empty={t("calendars.CalendarsPage.appHasNoCalendars", { app: app })}
      >
        {(data) => (
          <CalendarsTable
            app={app}
            calendars={data.calendars}
            canEdit={canEdit}
            onOpen={(calendar) => setTarget({ kind: "edit", calendar })}
            onDelete={deleting.ask}
          />
        )}
      </QueryView>
      <CalendarDialog app={app} target={target} readOnly={!canEdit} onClose={() => setTarget(null)} />
      <ConfirmDialog title={t("calendars.CalendarsPage.deleteCalendar")} confirmLabel={t("calendars.CalendarsPage.deleteCalendar")} danger {...deleting.dialog}>{t("calendars.CalendarsPage.deleteCalendar")}{" "}<strong>{deleting.item?.name}</strong>{t("calendars.CalendarsPage.aCalendarThatJobs")}</ConfirmDialog>
    </Stack>
  );
}

interface CalendarsTableProps {
  app: string;
  calendars: CalendarFieldsFragment[];
  canEdit: boolean;
  onOpen: (c: CalendarFieldsFragment) => void;
  onDelete: (c: CalendarFieldsFragment) => void;
}

function CalendarsTable({ app, calendars, canEdit, onOpen, onDelete }: CalendarsTableProps) {
  const from = today();
  return (
    <Table.ScrollContainer minWidth={800}>
      <Table striped highlightOnHover verticalSpacing="sm" aria-label={t("calendars.CalendarsPage.calendars")}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t("calendars.CalendarsPage.name")}</Table.Th>
            <Table.Th scope="col">{t("calendars.CalendarsPage.dates")}</Table.Th>
            <Table.Th scope="col">{t("calendars.CalendarsPage.nextDates")}</Table.Th>
            <Table.Th scope="col">{t("calendars.CalendarsPage.usedBy")}</Table.Th>
            <Table.Th scope="col">{t("calendars.CalendarsPage.changed")}</Table.Th>
            <Table.Th scope="col">
              <VisuallyHidden>{t("calendars.CalendarsPage.actions")}</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {calendars.map((c) => {
            const next = upcoming(c.dates, from, nextShown);
            return (
              <Table.Tr key={c.id}>
                <Table.Th scope="row" fw={400}>
                  <Stack gap={2} maw={280}>
                    <Text fw={600} size="sm">
                      {c.name}
                    </Text>
                    {c.description && (
                      <Text size="xs" c="dimmed" lineClamp={2}>
                        {c.description}
                      </Text>
                    )}
                  </Stack>
                </Table.Th>
                <Table.Td>{c.dates.length}</Table.Td>
                <Table.Td>
                  {next.length > 0 ? (
                    <Group gap={4}>
                      {next.map((d) => (
                        <Code key={d}>{d}</Code>
                      ))}
                    </Group>
                  ) : (
                    <Text size="sm" c="dimmed">{t("calendars.CalendarsPage.noneAhead")}</Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {c.jobs.length > 0 ? (
                    <Group gap={8}>
                      {c.jobs.map((j) => (
                        <Anchor key={j.id} component={Link} to={appPath(app, "jobs", j.id)} size="sm">
                          {j.name}
                        </Anchor>
                      ))}
                    </Group>
                  ) : (
                    <Text size="sm" c="dimmed">{t("calendars.CalendarsPage.noJob")}</Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Timestamp value={c.updatedAt} compact />
                </Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap" justify="flex-end">
                    <Button
                      size="xs"
                      variant="light"
                      onClick={() => onOpen(c)}
                      aria-label={canEdit ? t("calendars.CalendarsPage.edit", { name: c.name }) : t("calendars.CalendarsPage.show", { name: c.name })}
                    >
                      {canEdit ? t("calendars.CalendarsPage.edit2") : t("calendars.CalendarsPage.show2")}
                    </Button>
                    {canEdit && (
                      <Button size="xs" variant="subtle" color="red" onClick={() => onDelete(c)} aria-label={t("calendars.CalendarsPage.delete2", { name: c.name })}>{t("calendars.CalendarsPage.delete")}</Button>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
