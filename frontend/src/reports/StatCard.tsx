import { Paper, Text } from "@mantine/core";

interface StatCardProps {
  label: string;
  value: number | string;
  color?: string | undefined;
  testId: string;
}

/** One figure of a report, with what it is. */
export function StatCard({ label, value, color, testId }: StatCardProps) {
  return (
    <Paper withBorder p="md" radius="md" data-testid={testId}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text fz={28} fw={700} lh={1.2} c={color} data-testid={`${testId}-value`}>
        {value}
      </Text>
    </Paper>
  );
}
