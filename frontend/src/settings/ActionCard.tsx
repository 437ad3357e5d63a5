import type { ReactNode } from "react";
import { Button, Card, Group, Text, Title } from "@mantine/core";

interface ActionCardProps {
  /** Names the section; the heading's id is `${id}-title`. */
  id: string;
  title: string;
  /** What the action does, in a sentence or two. */
  description: ReactNode;
  /** The button's label, e.g. "Rotate secret". */
  action: string;
  onAction: () => void;
  /** Its dialogs. */
  children?: ReactNode;
}

/** A settings section with one consequential action, its button in red. */
export function ActionCard({ id, title, description, action, onAction, children }: ActionCardProps) {
  return (
    <Card withBorder radius="md" component="section" aria-labelledby={`${id}-title`}>
      <Group justify="space-between" align="center" wrap="nowrap">
        <div>
          <Title order={3} size="h4" id={`${id}-title`}>
            {title}
          </Title>
          <Text size="sm" c="dimmed">
            {description}
          </Text>
        </div>
        <Button color="red" variant="light" style={{ flexShrink: 0 }} onClick={onAction}>
          {action}
        </Button>
      </Group>
      {children}
    </Card>
  );
}
