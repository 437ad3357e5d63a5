import { useState } from "react";
import { Anchor, Button, Group, Table, Text, VisuallyHidden } from "@mantine/core";
import { Link, useNavigate } from "react-router";
import { appPath } from "../apps/currentApp";
import { Elapsed } from "../components/Elapsed";
import { Timestamp } from "../components/Timestamp";
import { Truncated } from "../components/Truncated";
import type { InstanceRowFragment } from "../graphql/graphql";
import { useCanEdit } from "../apps/useAppRole";
import { InstanceActions } from "./InstanceActions";
import { LogDrawer } from "./LogDrawer";
import { StatusBadge } from "./StatusBadge";
import { t } from "../i18n";

function Time({ value }: { value: string | null }) {
  return value ? (
    <Timestamp value={value} compact />
  ) : (
    <Text size="sm" c="dimmed">
      —
    </Text>
  );
}

interface InstancesTableProps {
  app: string;
  instances: InstanceRowFragment[];
  /** Show the Job column (not on one job's page, where every row is of that job). */
  withJob?: boolean;
}

export function InstancesTable({ app, instances, withJob = true }: InstancesTableProps) {
  const navigate = useNavigate();
  const canEdit = useCanEdit();
  const [logOf, setLogOf] = useState<InstanceRowFragment | null>(null);
  return (
    <>
      <Table.ScrollContainer minWidth={1000}>
        <Table striped highlightOnHover verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">{t("instances.InstancesTable.id")}</Table.Th>
              {withJob && <Table.Th scope="col">{t("instances.InstancesTable.job")}</Table.Th>}
              <Table.Th scope="col">{t("instances.InstancesTable.status")}</Table.Th>
              <Table.Th scope="col">{t("instances.InstancesTable.trigger")}</Table.Th>
              <Table.Th scope="col">{t("instances.InstancesTable.expected")}</Table.Th>
              <Table.Th scope="col">{t("instances.InstancesTable.triggered")}</Table.Th>
              <Table.Th scope="col">{t("instances.InstancesTable.duration")}</Table.Th>
              <Table.Th scope="col">{t("instances.InstancesTable.attempt")}</Table.Th>
              <Table.Th scope="col">{t("instances.InstancesTable.worker")}</Table.Th>
              <Table.Th scope="col">
                <VisuallyHidden>{t("instances.InstancesTable.actions")}</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {instances.map((i) => {
              // eslint-disable-next-line i18next/no-literal-string -- a route segment, not text a user reads
              const to = appPath(app, "instances", i.id);
              return (
                // The whole row opens the instance; its id is the link for keyboards.
                <Table.Tr key={i.id} onClick={() => void navigate(to)} style={{ cursor: "pointer" }}>
                  <Table.Th scope="row">
                    <Anchor component={Link} to={to} fw={600} onClick={(e) => e.stopPropagation()}>
                      #{i.id}
                    </Anchor>
                  </Table.Th>
                  {withJob && (
                    <Table.Td maw={240}>
                      {i.job ? <Truncated text={i.job.name} size="sm" /> : <Text c="dimmed">{t("instances.InstancesTable.deleted")}</Text>}
                    </Table.Td>
                  )}
                  <Table.Td>
                    <StatusBadge status={i.status} size="sm" />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{i.triggerType}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Time value={i.expectedTriggerTime} />
                  </Table.Td>
                  <Table.Td>
                    <Time value={i.actualTriggerTime} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" style={{ whiteSpace: "nowrap" }}>
                      <Elapsed start={i.startedTime} end={i.finishedTime} />
                    </Text>
                  </Table.Td>
                  <Table.Td>{i.attempt}</Table.Td>
                  <Table.Td>
                    <Text size="sm">{i.worker?.host ?? "—"}</Text>
                  </Table.Td>
                  {/* Its own clicks (and its dialogs', which React bubbles through) do not open the row. */}
                  <Table.Td onClick={(e) => e.stopPropagation()}>
                    <Group gap={4} wrap="nowrap" justify="flex-end">
                      <Button size="xs" variant="default" onClick={() => setLogOf(i)} aria-label={t("instances.InstancesTable.logOf", { id: i.id })}>
                        {t("instances.InstancesTable.log")}
                      </Button>
                      {canEdit && <InstanceActions instance={i} size="xs" />}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <LogDrawer app={app} instance={logOf && (instances.find((i) => i.id === logOf.id) ?? logOf)} onClose={() => setLogOf(null)} />
    </>
  );
}
