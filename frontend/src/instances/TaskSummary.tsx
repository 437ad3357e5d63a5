import { Group, Progress, Stack, Text } from "@mantine/core";
import type { InstanceFieldsFragment } from "../graphql/graphql";

type Tasks = InstanceFieldsFragment["tasks"];

const parts = [
  { key: "succeeded", label: "succeeded", color: "teal" },
  { key: "failed", label: "failed", color: "red" },
  { key: "stopped", label: "stopped", color: "orange" },
  { key: "running", label: "running", color: "blue" },
  { key: "waiting", label: "waiting", color: "gray" },
] as const;

/** An instance's tasks by status, as counts and a bar. */
export function TaskSummary({ tasks }: { tasks: Tasks }) {
  if (tasks.total === 0) {
    return (
      <Text size="sm" c="dimmed">
        No tasks yet.
      </Text>
    );
  }
  return (
    <Stack gap={6}>
      <Progress.Root size="lg" aria-label="Tasks by status">
        {parts.map(
          (p) =>
            tasks[p.key] > 0 && (
              <Progress.Section key={p.key} value={(tasks[p.key] / tasks.total) * 100} color={p.color}>
                <Progress.Label>{tasks[p.key]}</Progress.Label>
              </Progress.Section>
            ),
        )}
      </Progress.Root>
      <Group gap="md">
        <Text size="sm" fw={600}>
          {tasks.total} {tasks.total === 1 ? "task" : "tasks"}
        </Text>
        {parts.map((p) => (
          <Text key={p.key} size="sm" c={tasks[p.key] > 0 ? p.color : "dimmed"}>
            {tasks[p.key]} {p.label}
          </Text>
        ))}
      </Group>
    </Stack>
  );
}
