import { Anchor, Badge, SegmentedControl, Stack, Table, Text, Title } from "@mantine/core";
import { useSearchParams } from "react-router";
import { useQuery } from "urql";
import { CursorPager, useCursorPages, withoutCursor } from "../components/CursorPager";
import { QueryView } from "../components/QueryView";
import { Timestamp } from "../components/Timestamp";
import { Truncated } from "../components/Truncated";
import { useKeptData } from "../components/useKeptData";
import { usePolling } from "../components/usePolling";
import type { InstanceFieldsFragment, TaskRowFragment } from "../graphql/graphql";
import { InstanceTasksQuery } from "./operations";
import { StatusBadge } from "./StatusBadge";
import { TaskDrawer } from "./TaskDrawer";
import { taskFilterOf, taskFilters } from "./taskStatus";
import { taskPollMs } from "./useTaskSummary";

/** Tasks per page of the table. */
export const taskPageSize = 20;

/** The URL parameters of the section: the filter, and the task whose drawer is open. */
export const taskFilterParam = "taskStatus";
export const taskParam = "task";

const number = new Intl.NumberFormat();

interface TasksSectionProps {
  instanceId: string;
  /** The summary's counts, which are the filters' counts. */
  counts: InstanceFieldsFragment["tasks"];
  /** Re-read the page while the instance runs. */
  live: boolean;
}

/**
 * An instance's tasks: a filter by status, a page of the table, and a
 * drawer for one task. The filter, the page and the open task are in the
 * URL, so a view of a task can be linked and survives a reload.
 */
export function TasksSection({ instanceId, counts, live }: TasksSectionProps) {
  const [params, setParams] = useSearchParams();
  const filter = taskFilterOf(params.get(taskFilterParam));
  const pages = useCursorPages();
  const [fetched, reexecute] = useQuery({
    query: InstanceTasksQuery,
    variables: {
      id: instanceId,
      status: filter.statuses ? [...filter.statuses] : null,
      first: taskPageSize,
      after: pages.after,
    },
  });
  const result = useKeptData(fetched);
  usePolling(
    () => {
      if (!fetched.fetching) reexecute({ requestPolicy: "network-only" });
    },
    taskPollMs,
    live,
  );
  const openTask = params.get(taskParam);
  const setOpenTask = (id: string | null) =>
    setParams((p) => {
      if (id === null) p.delete(taskParam);
      else p.set(taskParam, id);
      return p;
    });
  const matching = filter.count(counts);

  return (
    <Stack gap="xs" component="section" aria-label="Tasks">
      <Title order={3} size="h5">
        Tasks
      </Title>
      <SegmentedControl
        aria-label="Task status"
        value={filter.key}
        onChange={(key) =>
          setParams((p) => {
            withoutCursor(p);
            if (key === "all") p.delete(taskFilterParam);
            else p.set(taskFilterParam, key);
            return p;
          })
        }
        data={taskFilters.map((f) => ({ value: f.key, label: `${f.label} (${number.format(f.count(counts))})` }))}
        style={{ alignSelf: "flex-start" }}
      />
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading="Loading the tasks"
        isEmpty={(data) => (data.instance?.taskList.edges.length ?? 0) === 0}
        empty={filter.key === "all" ? <>No tasks yet.</> : <>No {filter.label.toLowerCase()} tasks.</>}
      >
        {(data) =>
          data.instance && (
            <Stack gap="xs">
              <TaskTable tasks={data.instance.taskList.edges.map((e) => e.node)} onOpen={setOpenTask} />
              <CursorPager
                page={pages.page}
                pageCount={Math.max(1, Math.ceil(matching / taskPageSize))}
                hasNextPage={data.instance.taskList.pageInfo.hasNextPage}
                onPrevious={pages.previous}
                onNext={() => {
                  const end = data.instance?.taskList.pageInfo.endCursor;
                  if (end) pages.next(end);
                }}
              />
            </Stack>
          )
        }
      </QueryView>
      <TaskDrawer instanceId={instanceId} taskId={openTask} live={live} onClose={() => setOpenTask(null)} />
    </Stack>
  );
}

function TaskTable({ tasks, onOpen }: { tasks: TaskRowFragment[]; onOpen: (id: string) => void }) {
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table striped highlightOnHover verticalSpacing="xs" aria-label="Tasks of this page">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">ID</Table.Th>
            <Table.Th scope="col">Name</Table.Th>
            <Table.Th scope="col">Kind</Table.Th>
            <Table.Th scope="col">Status</Table.Th>
            <Table.Th scope="col">Worker</Table.Th>
            <Table.Th scope="col">Attempt</Table.Th>
            <Table.Th scope="col">Finished</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tasks.map((t) => (
            // The whole row opens the task; its id is the button for keyboards.
            <Table.Tr key={t.id} onClick={() => onOpen(t.id)} style={{ cursor: "pointer" }}>
              <Table.Th scope="row">
                <Anchor
                  component="button"
                  type="button"
                  fw={600}
                  size="sm"
                  aria-label={`Task #${t.id}`}
                  onClick={(e) => {
                    e.stopPropagation();
                    onOpen(t.id);
                  }}
                >
                  #{t.id}
                </Anchor>
              </Table.Th>
              <Table.Td maw={240}>
                <Truncated text={t.name} size="sm" />
              </Table.Td>
              <Table.Td>
                <Badge variant="outline" size="sm">
                  {t.kind}
                </Badge>
              </Table.Td>
              <Table.Td>
                <StatusBadge status={t.status} size="sm" />
              </Table.Td>
              <Table.Td maw={200}>
                {t.workerId ? <Truncated text={t.workerId} size="sm" /> : <Text size="sm">—</Text>}
              </Table.Td>
              <Table.Td>{t.attempt}</Table.Td>
              <Table.Td>
                {t.finishedTime ? (
                  <Timestamp value={t.finishedTime} compact />
                ) : t.nextAttemptAt ? (
                  <Text size="sm" c="dimmed">
                    retry due <Timestamp value={t.nextAttemptAt} compact />
                  </Text>
                ) : (
                  <Text size="sm" c="dimmed">
                    —
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
