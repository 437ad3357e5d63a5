import { useState } from "react";
import { Button, Group, Text } from "@mantine/core";

/**
 * Pages of a Relay connection, walked forward with `after` cursors. The
 * cursors of the pages already seen are kept so Previous needs no `before`.
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const page = cursors.length;
  return {
    /** The `after` argument for the current page. */
    after: cursors[page - 1] ?? null,
    page,
    next: (endCursor: string) => setCursors((c) => [...c, endCursor]),
    previous: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
    reset: () => setCursors((c) => (c.length === 1 ? c : [null])),
  };
}

interface CursorPagerProps {
  page: number;
  /** How many pages there are, when the list is counted. */
  pageCount?: number;
  hasNextPage: boolean;
  onPrevious: () => void;
  onNext: () => void;
}

export function CursorPager({ page, pageCount, hasNextPage, onPrevious, onNext }: CursorPagerProps) {
  if (page === 1 && !hasNextPage) return null;
  return (
    <Group justify="flex-end" gap="sm" component="nav" aria-label="Pages">
      <Button variant="default" size="xs" disabled={page === 1} onClick={onPrevious}>
        Previous
      </Button>
      <Text size="sm" c="dimmed" aria-live="polite">
        Page {page}
        {pageCount !== undefined && pageCount >= page ? ` of ${pageCount}` : ""}
      </Text>
      <Button variant="default" size="xs" disabled={!hasNextPage} onClick={onNext}>
        Next
      </Button>
    </Group>
  );
}
