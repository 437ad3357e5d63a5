import { Badge, Code, Drawer, Group, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "urql";
import { formatBytes } from "../components/format";
import { QueryView } from "../components/QueryView";
import { Timestamp } from "../components/Timestamp";
import { useKeptData } from "../components/useKeptData";
import { usePolling } from "../components/usePolling";
import { InstanceTaskQuery } from "./operations";
import { StatusBadge } from "./StatusBadge";
import { taskPollMs } from "./useTaskSummary";
import { locale, t } from "../i18n";

interface TaskDrawerProps {
  instanceId: string;
  /** The task shown; null: the drawer is closed. */
  taskId: string | null;
  /** Re-read the task while the instance runs. */
  live: boolean;
  onClose: () => void;
}

/** One task of an instance: its payload, result, worker, attempts and times. */
export function TaskDrawer({ instanceId, taskId, live, onClose }: TaskDrawerProps) {
  return (
    <Drawer
      opened={taskId !== null}
      onClose={onClose}
      position="right"
      size="lg"
      title={t("instances.TaskDrawer.task", { taskId: taskId ?? "" })}
    >
      {taskId !== null && <TaskDetails key={taskId} instanceId={instanceId} taskId={taskId} live={live} />}
    </Drawer>
  );
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text component="div" size="sm">
        {children}
      </Text>
    </div>
  );
}

function Time({ value }: { value: string | null }) {
  return value ? <Timestamp value={value} /> : <>—</>;
}

const encoder = new TextEncoder();

/**
 * A payload or result as the API gives it: the first 4,096 characters,
 * with the whole size, and a word when what shows is not all of it.
 */
export function Preview({ label, text, size, none }: { label: string; text: string; size: number; none: string }) {
  const cut = encoder.encode(text).length < size;
  return (
    <Stack gap={4} component="section" aria-label={label}>
      <Group gap="xs">
        <Title order={4} size="h6">
          {label}
        </Title>
        <Text size="xs" c="dimmed">
          {formatBytes(size)}
        </Text>
      </Group>
      {size === 0 ? (
        <Text size="sm" c="dimmed">
          {none}
        </Text>
      ) : (
        <>
          <Code block style={{ whiteSpace: "pre-wrap", wordBreak: "break-word", maxHeight: 320, overflow: "auto" }}>
            {text}
          </Code>
          {cut && (
            <Text size="xs" c="dimmed">{t("instances.TaskDrawer.theFirstCharactersOf", { format: new Intl.NumberFormat(locale()).format(text.length), formatBytes: formatBytes(size) })}</Text>
          )}
        </>
      )}
    </Stack>
  );
}

function TaskDetails({ instanceId, taskId, live }: { instanceId: string; taskId: string; live: boolean }) {
  const [fetched, reexecute] = useQuery({ query: InstanceTaskQuery, variables: { id: instanceId, taskId } });
  const result = useKeptData(fetched);
  const unfinished = (s: string) => s === "WAITING" || s === "DISPATCHED" || s === "RUNNING";
  const task = result.data?.instance?.task;
  usePolling(
    () => {
      if (!fetched.fetching) reexecute({ requestPolicy: "network-only" });
    },
    taskPollMs,
    live && task !== undefined && task !== null && unfinished(task.status),
  );
  return (
    <QueryView
      result={result}
      onRetry={() => reexecute({ requestPolicy: "network-only" })}
      loading={t("instances.TaskDrawer.loadingTheTask")}
      isEmpty={(data) => !data.instance?.task}
      empty={<>{t("instances.TaskDrawer.thisInstanceHasNo", { taskId: taskId })}</>}
    >
      {(data) => {
        const task = data.instance?.task;
        if (!task) return null;
        return (
          <Stack gap="md">
            <Group gap="sm">
              <StatusBadge status={task.status} />
              <Badge variant="outline">{task.kind}</Badge>
              <Text size="sm" fw={600} style={{ overflowWrap: "anywhere" }}>
                {task.name}
              </Text>
            </Group>
            <SimpleGrid cols={2} spacing="md">
              <Field label={t("instances.TaskDrawer.worker")}>
                {task.workerId ? (
                  <Group gap={6}>
                    <span style={{ overflowWrap: "anywhere" }}>{task.worker?.host ?? task.workerId}</span>
                    {task.worker && (
                      <Badge
                        size="xs"
                        color={task.worker.alive ? "teal" : "gray"}
                        variant={task.worker.alive ? "light" : "outline"}
                      >
                        {task.worker.alive ? t("common.alive") : t("common.gone")}
                      </Badge>
                    )}
                  </Group>
                ) : (
                  t("instances.TaskDrawer.notOnAWorker")
                )}
              </Field>
              <Field label={t("instances.TaskDrawer.attempt")}>
                {task.attempt}
                <Text span size="xs" c="dimmed">{" "}{t("instances.TaskDrawer.ofInstanceAttempt", { instanceAttempt: task.instanceAttempt })}</Text>
              </Field>
              <Field label={t("instances.TaskDrawer.created")}>
                <Time value={task.createdTime} />
              </Field>
              <Field label={t("instances.TaskDrawer.dispatched")}>
                <Time value={task.dispatchedTime} />
              </Field>
              <Field label={t("instances.TaskDrawer.finished")}>
                <Time value={task.finishedTime} />
              </Field>
              <Field label={t("instances.TaskDrawer.lastChange")}>
                <Time value={task.updatedTime} />
              </Field>
              <Field label={t("instances.TaskDrawer.mappedFrom")}>{task.parentId ? t("instances.TaskDrawer.task2", { parentId: task.parentId }) : "—"}</Field>
            </SimpleGrid>
            <Preview label={t("instances.TaskDrawer.payload")} text={task.payload} size={task.payloadSize} none={t("instances.TaskDrawer.none")} />
            <Preview
              label={t("instances.TaskDrawer.result")}
              text={task.result}
              size={task.resultSize}
              none={unfinished(task.status) ? t("instances.TaskDrawer.notYetItHas") : t("instances.TaskDrawer.noneTheProcessorReturned")}
            />
          </Stack>
        );
      }}
    </QueryView>
  );
}
