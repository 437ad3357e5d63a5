import type { ReactNode } from "react";
import { Group, Text, Title } from "@mantine/core";

/** A screen's title with a line on what it is for, and its main action (e.g. a create button) at the right. */
export function PageHeader({ title, description, children }: { title: string; description: ReactNode; children?: ReactNode }) {
  return (
    <Group justify="space-between" align="flex-end" wrap="nowrap">
      <div>
        <Title order={2}>{title}</Title>
        <Text c="dimmed" size="sm">
          {description}
        </Text>
      </div>
      {children}
    </Group>
  );
}
