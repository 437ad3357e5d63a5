import { useEffect } from "react";
import { Anchor, Chip, Group, Stack, Table, Text } from "@mantine/core";
import { Link, useSearchParams } from "react-router";
import { useQuery } from "urql";
import { appPath } from "../apps/currentApp";
import { CursorPager, useCursorPages, withoutCursor } from "../components/CursorPager";
import { QueryView } from "../components/QueryView";
import { Timestamp } from "../components/Timestamp";
import { WorkflowRunsQuery } from "./operations";
import { RunStatusBadge } from "./RunStatusBadge";
import { isRunStatus, runStatuses } from "./status";
import { t } from "../i18n";

const pageSize = 25;
const context = { additionalTypenames: ["WorkflowInstance"] };

/**
 * Workflow runs, newest first: of one workflow (nested runs too), or the
 * app's top-level runs. The status filter and the page are in the URL.
 * `changes`: a count the page raises when it learns the runs changed.
 */
export function WorkflowRuns({ app, workflowId, changes = 0 }: { app: string; workflowId?: string; changes?: number }) {
  const [params, setParams] = useSearchParams();
  const status = params.getAll("status").filter(isRunStatus);
  const pages = useCursorPages();
  const [result, reexecute] = useQuery({
    query: WorkflowRunsQuery,
    variables: { app, workflowId: workflowId ?? null, status: status.length > 0 ? status : null, first: pageSize, after: pages.after },
    context,
    requestPolicy: "cache-and-network",
  });

  // Each change the page was told of (the workflow's grid sees them live) reads the list afresh.
  useEffect(() => {
    if (changes > 0) reexecute({ requestPolicy: "network-only" });
  }, [changes, reexecute]);

  function setStatus(next: string[]) {
    setParams((p) => {
      withoutCursor(p);
      p.delete("status");
      for (const s of next) p.append("status", s);
      return p;
    });
  }

  return (
    <Stack>
      <div role="group" aria-label={t("workflows.WorkflowRuns.statusFilter")}>
        <Chip.Group multiple value={status} onChange={setStatus}>
          <Group gap={6}>
            {runStatuses.map((s) => (
              <Chip key={s} value={s} size="xs" variant="light">
                {s}
              </Chip>
            ))}
          </Group>
        </Chip.Group>
      </div>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("workflows.WorkflowRuns.loadingRuns")}
        isEmpty={(data) => data.workflowInstances.edges.length === 0}
        empty={status.length > 0 ? <>{t("workflows.WorkflowRuns.noRunIs", { join: status.join(" or ") })}</> : <>{t("workflows.WorkflowRuns.noRunsYet")}</>}
      >
        {(data) => (
          <Stack>
            <Text size="sm" c="dimmed" data-testid="runs-total">
              {t("workflows.WorkflowRuns.runs", { count: data.workflowInstances.totalCount })}
            </Text>
            <Table.ScrollContainer minWidth={760}>
              <Table striped highlightOnHover aria-label={t("workflows.WorkflowRuns.workflowRuns")}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">{t("workflows.WorkflowRuns.run")}</Table.Th>
                    {!workflowId && <Table.Th scope="col">{t("workflows.WorkflowRuns.workflow")}</Table.Th>}
                    <Table.Th scope="col">{t("workflows.WorkflowRuns.status")}</Table.Th>
                    <Table.Th scope="col">{t("workflows.WorkflowRuns.trigger")}</Table.Th>
                    <Table.Th scope="col">{t("workflows.WorkflowRuns.due")}</Table.Th>
                    <Table.Th scope="col">{t("workflows.WorkflowRuns.started")}</Table.Th>
                    <Table.Th scope="col">{t("workflows.WorkflowRuns.finished")}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.workflowInstances.edges.map(({ node: r }) => (
                    <Table.Tr key={r.id}>
                      <Table.Th scope="row">
                        <Anchor component={Link} to={appPath(app, "workflow-instances", r.id)}>
                          #{r.id}
                        </Anchor>
                        <Text size="xs" c="dimmed">{r.parentNodeKey ? t("workflows.WorkflowRuns.versionNested", { version: r.version, parentNodeKey: r.parentNodeKey }) : t("workflows.WorkflowRuns.version", { version: r.version })}</Text>
                      </Table.Th>
                      {!workflowId && (
                        <Table.Td>
                          <Anchor component={Link} to={appPath(app, "workflows", r.workflow.id)} size="sm">
                            {r.workflow.name}
                          </Anchor>
                        </Table.Td>
                      )}
                      <Table.Td>
                        <RunStatusBadge status={r.status} size="sm" />
                        {r.reason && (
                          <Text size="xs" c="dimmed">
                            {r.reason}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{r.triggerType}</Text>
                      </Table.Td>
                      <Table.Td>
                        <Timestamp value={r.triggerTime} compact />
                      </Table.Td>
                      <Table.Td>{r.startedTime ? <Timestamp value={r.startedTime} compact /> : "—"}</Table.Td>
                      <Table.Td>{r.finishedTime ? <Timestamp value={r.finishedTime} compact /> : "—"}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            <CursorPager
              page={pages.page}
              pageCount={Math.ceil(data.workflowInstances.totalCount / pageSize)}
              hasNextPage={data.workflowInstances.pageInfo.hasNextPage}
              onPrevious={pages.previous}
              onNext={() => {
                const cursor = data.workflowInstances.pageInfo.endCursor;
                if (cursor) pages.next(cursor);
              }}
            />
          </Stack>
        )}
      </QueryView>
    </Stack>
  );
}

