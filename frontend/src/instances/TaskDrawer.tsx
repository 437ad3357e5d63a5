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
      title={<Title order={3}>Task #{taskId}</Title>}
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
            <Text size="xs" c="dimmed">
              The first {new Intl.NumberFormat().format(text.length)} characters of {formatBytes(size)}.
            </Text>
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
      loading="Loading the task"
      isEmpty={(data) => !data.instance?.task}
      empty={<>This instance has no task {taskId}.</>}
    >
      {(data) => {
        const t = data.instance?.task;
        if (!t) return null;
        return (
          <Stack gap="md">
            <Group gap="sm">
              <StatusBadge status={t.status} />
              <Badge variant="outline">{t.kind}</Badge>
              <Text size="sm" fw={600} style={{ overflowWrap: "anywhere" }}>
                {t.name}
              </Text>
            </Group>
            <SimpleGrid cols={2} spacing="md">
              <Field label="Worker">
                {t.workerId ? (
                  <Group gap={6}>
                    <span style={{ overflowWrap: "anywhere" }}>{t.worker?.host ?? t.workerId}</span>
                    {t.worker && (
                      <Badge
                        size="xs"
                        color={t.worker.alive ? "teal" : "gray"}
                        variant={t.worker.alive ? "light" : "outline"}
                      >
                        {t.worker.alive ? "alive" : "gone"}
                      </Badge>
                    )}
                  </Group>
                ) : (
                  "— (not on a worker)"
                )}
              </Field>
              <Field label="Attempt">
                {t.attempt}
                <Text span size="xs" c="dimmed">
                  {" "}
                  (of instance attempt {t.instanceAttempt})
                </Text>
              </Field>
              <Field label="Created">
                <Time value={t.createdTime} />
              </Field>
              <Field label="Dispatched">
                <Time value={t.dispatchedTime} />
              </Field>
              <Field label="Finished">
                <Time value={t.finishedTime} />
              </Field>
              <Field label="Last change">
                <Time value={t.updatedTime} />
              </Field>
              <Field label="Mapped from">{t.parentId ? `task #${t.parentId}` : "—"}</Field>
            </SimpleGrid>
            <Preview label="Payload" text={t.payload} size={t.payloadSize} none="None." />
            <Preview
              label="Result"
              text={t.result}
              size={t.resultSize}
              none={unfinished(t.status) ? "Not yet: it has not finished." : "None: the processor returned nothing."}
            />
          </Stack>
        );
      }}
    </QueryView>
  );
}
