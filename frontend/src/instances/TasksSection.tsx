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
import { locale, t } from "../i18n";

/** Tasks per page of the table. */
export const taskPageSize = 20;

/** The URL parameters of the section: the filter, and the task whose drawer is open. */
export const taskFilterParam = "taskStatus";
export const taskParam = "task";

const number = new Intl.NumberFormat(locale());

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
    <Stack gap="xs" component="section" aria-label={t("instances.TasksSection.tasks")}>
      <Title order={3} size="h5">{t("instances.TasksSection.tasks")}</Title>
      <SegmentedControl
        aria-label={t("instances.TasksSection.taskStatus")}
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
        loading={t("instances.TasksSection.loadingTheTasks")}
        isEmpty={(data) => (data.instance?.taskList.edges.length ?? 0) === 0}
        empty={filter.key === "all" ? <>{t("instances.TasksSection.noTasksYet")}</> : <>{t("instances.TasksSection.noTasks", { toLowerCase: filter.label.toLowerCase() })}</>}
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
      <Table striped highlightOnHover verticalSpacing="xs" aria-label={t("instances.TasksSection.tasksOfThisPage")}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t("instances.TasksSection.id")}</Table.Th>
            <Table.Th scope="col">{t("instances.TasksSection.name")}</Table.Th>
            <Table.Th scope="col">{t("instances.TasksSection.kind")}</Table.Th>
            <Table.Th scope="col">{t("instances.TasksSection.status")}</Table.Th>
            <Table.Th scope="col">{t("instances.TasksSection.worker")}</Table.Th>
            <Table.Th scope="col">{t("instances.TasksSection.attempt")}</Table.Th>
            <Table.Th scope="col">{t("instances.TasksSection.finished")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {tasks.map((task) => (
            // The whole row opens the task; its id is the button for keyboards.
            <Table.Tr key={task.id} onClick={() => onOpen(task.id)} style={{ cursor: "pointer" }}>
              <Table.Th scope="row">
                <Anchor
                  component="button"
                  type="button"
                  fw={600}
                  size="sm"
                  aria-label={t("instances.TasksSection.task", { id: task.id })}
                  onClick={(e) => {
                    e.stopPropagation();
                    onOpen(task.id);
                  }}
                >
                  #{task.id}
                </Anchor>
              </Table.Th>
              <Table.Td maw={240}>
                <Truncated text={task.name} size="sm" />
              </Table.Td>
              <Table.Td>
                <Badge variant="outline" size="sm">
                  {task.kind}
                </Badge>
              </Table.Td>
              <Table.Td>
                <StatusBadge status={task.status} size="sm" />
              </Table.Td>
              <Table.Td maw={200}>
                {task.workerId ? <Truncated text={task.workerId} size="sm" /> : <Text size="sm">—</Text>}
              </Table.Td>
              <Table.Td>{task.attempt}</Table.Td>
              <Table.Td>
                {task.finishedTime ? (
                  <Timestamp value={task.finishedTime} compact />
                ) : task.nextAttemptAt ? (
                  <Text size="sm" c="dimmed">{t("instances.TasksSection.retryDue")}{" "}<Timestamp value={task.nextAttemptAt} compact />
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
