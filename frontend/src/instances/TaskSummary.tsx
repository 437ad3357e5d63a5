import { Group, Progress, Stack, Text } from "@mantine/core";
import type { ExecutionMode, InstanceFieldsFragment } from "../graphql/graphql";
import { locale, t } from "../i18n";

type Tasks = InstanceFieldsFragment["tasks"];

const parts = [
  { key: "succeeded", label: "succeeded", color: "teal" },
  { key: "failed", label: "failed", color: "red" },
  { key: "stopped", label: "stopped", color: "orange" },
  { key: "running", label: "running", color: "blue" },
  { key: "waiting", label: "waiting", color: "gray" },
] as const;

const number = new Intl.NumberFormat(locale());

/** The share of tasks that finished, in whole percent, never 100 before all have. */
export function donePercent(tasks: Tasks): number {
  if (tasks.total === 0) return 0;
  const done = tasks.succeeded + tasks.failed + tasks.stopped;
  const pct = Math.floor((done / tasks.total) * 100);
  return done < tasks.total ? Math.min(pct, 99) : 100;
}

/**
 * An instance's tasks by status, as counts and a bar; for MAP and
 * MAP_REDUCE, whose tasks are the work itself, how far it has got.
 */
export function TaskSummary({ tasks, mode }: { tasks: Tasks; mode?: ExecutionMode }) {
  if (tasks.total === 0) {
    return (
      <Text size="sm" c="dimmed">{t("instances.TaskSummary.noTasksYet")}</Text>
    );
  }
  const mapped = mode === "MAP" || mode === "MAP_REDUCE";
  const done = tasks.succeeded + tasks.failed + tasks.stopped;
  return (
    <Stack gap={6}>
      {mapped && (
        <Text size="sm" aria-live="polite">
          <Text span fw={600}>{t("instances.TaskSummary.done", { donePercent: donePercent(tasks) })}</Text>{" "}
          <Text span c="dimmed">{t("instances.TaskSummary.ofTasksFinished", { format: number.format(done), format2: number.format(tasks.total) })}</Text>
        </Text>
      )}
      <Progress.Root size="lg" aria-label={t("instances.TaskSummary.tasksByStatus")}>
        {parts.map(
          (p) =>
            tasks[p.key] > 0 && (
              <Progress.Section key={p.key} value={(tasks[p.key] / tasks.total) * 100} color={p.color}>
                <Progress.Label>{number.format(tasks[p.key])}</Progress.Label>
              </Progress.Section>
            ),
        )}
      </Progress.Root>
      <Group gap="md">
        <Text size="sm" fw={600}>
          {t("instances.TaskSummary.tasks", { count: tasks.total })}
        </Text>
        {parts.map((p) => (
          <Text key={p.key} size="sm" c={tasks[p.key] > 0 ? p.color : "dimmed"}>
            {number.format(tasks[p.key])} {p.label}
          </Text>
        ))}
      </Group>
    </Stack>
  );
}
