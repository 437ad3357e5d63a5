import { useState } from "react";
import { Anchor, Badge, Button, Card, Group, Progress, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import { useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { useCanEdit } from "../apps/useAppRole";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Elapsed } from "../components/Elapsed";
import { PageHeader } from "../components/PageHeader";
import { QueryView } from "../components/QueryView";
import { useConfirmed } from "../components/useConfirmed";
import { useKeptData } from "../components/useKeptData";
import type { PoolFieldsFragment, PoolInstanceFieldsFragment } from "../graphql/graphql";
import { useInstanceChanges } from "../instances/useInstanceChanges";
import { PoolDialog, type PoolDialogTarget } from "./PoolDialog";
import { AppPoolsQuery, DeletePoolMutation } from "./operations";
import { poolText as text } from "./strings";
import { t } from "../i18n";
import { statusLabel } from "../components/statusLabel";

// A new pool is a Pool the list holds none of while it is empty.
const context = { additionalTypenames: ["Pool"] };

/** How often the pools are re-read while the websocket is down. */
export const poolsFallbackMs = 5_000;

/**
 * /apps/:app/pools: the app's pools with what holds each and what waits
 * for it, in order, kept live by the app's instance changes (an instance
 * starting, ending or starting to wait moves a pool); editors create,
 * resize and delete them.
 */
export function PoolsPage() {
  const app = useAppName();
  const canEdit = useCanEdit();
  const [fetched, reexecute] = useQuery({ query: AppPoolsQuery, variables: { app }, context });
  const result = useKeptData(fetched);
  const refetch = () => reexecute({ requestPolicy: "network-only" });
  const { live } = useInstanceChanges({ app, refresh: refetch, fallbackMs: poolsFallbackMs });
  const [target, setTarget] = useState<PoolDialogTarget | null>(null);
  const deleting = useConfirmed(
    DeletePoolMutation,
    (p: PoolFieldsFragment) => ({ id: p.id }),
    (p) => text.deleted(p.name),
    refetch,
  );

  return (
    <Stack>
      <PageHeader title={text.title} description={text.description}>
        {canEdit && (
          <Button onClick={() => setTarget({ kind: "new" })} style={{ flexShrink: 0 }}>
            {text.newPool}
          </Button>
        )}
      </PageHeader>
      {!live && (
        <Badge color="yellow" variant="light" w="fit-content">
          {text.liveDown(poolsFallbackMs / 1000)}
        </Badge>
      )}
      <QueryView
        result={result}
        onRetry={refetch}
        loading={text.loading}
        isEmpty={(data) => data.pools.length === 0}
        empty={text.empty(app)}
      >
        {(data) => (
          <SimpleGrid cols={{ base: 1, lg: 2 }}>
            {data.pools.map((p) => (
              <PoolCard
                key={p.id}
                app={app}
                pool={p}
                canEdit={canEdit}
                onOpen={() => setTarget({ kind: "edit", pool: p })}
                onDelete={() => deleting.ask(p)}
              />
            ))}
          </SimpleGrid>
        )}
      </QueryView>
      <PoolDialog
        app={app}
        target={target}
        readOnly={!canEdit}
        onClose={() => setTarget(null)}
        onSaved={refetch}
      />
      <ConfirmDialog title={text.deleteTitle} confirmLabel={text.deleteConfirm} danger {...deleting.dialog}>
        {text.deleteTitle} <strong>{deleting.item?.name}</strong>? {text.deleteBody}
      </ConfirmDialog>
    </Stack>
  );
}

interface PoolCardProps {
  app: string;
  pool: PoolFieldsFragment;
  canEdit: boolean;
  onOpen: () => void;
  onDelete: () => void;
}

function PoolCard({ app, pool, canEdit, onOpen, onDelete }: PoolCardProps) {
  const full = pool.usedSlots >= pool.slots;
  return (
    <Card withBorder padding="md" data-testid="pool" data-pool={pool.name} aria-label={t("pools.PoolsPage.pool", { name: pool.name })} component="section">
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Stack gap={2}>
            <Group gap="xs">
              <Title order={3} size="h4">
                {pool.name}
              </Title>
              {pool.slots === 1 && (
                <Badge size="sm" variant="light">
                  {text.mutex}
                </Badge>
              )}
            </Group>
            {pool.description && (
              <Text size="sm" c="dimmed">
                {pool.description}
              </Text>
            )}
          </Stack>
          <Group gap="xs" wrap="nowrap">
            <Button size="xs" variant="light" onClick={onOpen} aria-label={canEdit ? text.editLabel(pool.name) : text.showLabel(pool.name)}>
              {canEdit ? text.edit : text.show}
            </Button>
            {canEdit && (
              <Button size="xs" variant="subtle" color="red" onClick={onDelete} aria-label={text.deleteLabel(pool.name)}>
                {text.delete}
              </Button>
            )}
          </Group>
        </Group>
        <Stack gap={4}>
          <Text size="sm" data-testid="pool-usage">
            {text.used(pool.usedSlots, pool.slots)}
          </Text>
          <Progress
            value={pool.slots > 0 ? Math.min(100, (100 * pool.usedSlots) / pool.slots) : 0}
            color={full ? "orange" : "teal"}
            aria-label={text.used(pool.usedSlots, pool.slots)}
          />
        </Stack>
        <InstanceTable app={app} label={text.holders} empty={text.noHolders} instances={pool.holders} testId="pool-holders" />
        <InstanceTable app={app} label={text.queue} empty={text.noQueue} instances={pool.queue} testId="pool-queue" queued />
        <Group gap={8}>
          <Text size="sm" c="dimmed">
            {text.namedBy}
          </Text>
          {pool.jobs.length > 0 ? (
            pool.jobs.map((j) => (
              <Anchor key={j.id} component={Link} to={appPath(app, "jobs", j.id)} size="sm">
                {j.name} ({text.slotsTaken(j.poolSlots)})
              </Anchor>
            ))
          ) : (
            <Text size="sm" c="dimmed">
              {text.noJob}
            </Text>
          )}
        </Group>
      </Stack>
    </Card>
  );
}

interface InstanceTableProps {
  app: string;
  label: string;
  empty: string;
  instances: PoolInstanceFieldsFragment[];
  testId: string;
  queued?: boolean;
}

function InstanceTable({ app, label, empty, instances, testId, queued = false }: InstanceTableProps) {
  return (
    <Stack gap={4} data-testid={testId}>
      <Text size="sm" fw={600}>
        {label} ({instances.length})
      </Text>
      {instances.length === 0 ? (
        <Text size="sm" c="dimmed">
          {empty}
        </Text>
      ) : (
        <Table verticalSpacing={4} aria-label={label}>
          <Table.Tbody>
            {instances.map((i) => (
              <InstanceRow key={i.id} app={app} instance={i} queued={queued} />
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

function InstanceRow({ app, instance: i, queued }: { app: string; instance: PoolInstanceFieldsFragment; queued: boolean }) {
  return (
    <Table.Tr data-instance={i.id}>
      {queued && <Table.Td w={48}>{i.poolPosition != null ? text.position(i.poolPosition) : ""}</Table.Td>}
      <Table.Td>
        <Anchor component={Link} to={appPath(app, "instances", i.id)} size="sm">
          {text.instance(i.id)}
        </Anchor>
      </Table.Td>
      <Table.Td>
        <Text size="sm">{i.job?.name ?? ""}</Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm" c="dimmed">
          {text.slotsTaken(i.poolSlots)}
        </Text>
      </Table.Td>
      <Table.Td>
        {/* a div: the badges are divs, which a <p> may not hold */}
        <Text size="sm" c="dimmed" component="div">
          {queued ? (
            <Badge size="xs" variant="light" color="orange">
              {statusLabel(i.status)}
            </Badge>
          ) : (
            <>
              <Badge size="xs" variant="light">
                {statusLabel(i.status)}
              </Badge>{" "}
              <Elapsed start={i.startedTime ?? i.actualTriggerTime ?? null} end={null} />
            </>
          )}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}
