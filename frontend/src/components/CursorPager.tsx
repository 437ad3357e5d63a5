import { useCallback } from "react";
import { Button, Group, Text } from "@mantine/core";
import { useSearchParams } from "react-router";
import { t } from "../i18n";

/** The query parameter that holds the cursors of the pages walked so far, one per page after the first. */
export const cursorParam = "cursor";

/** Removes the page from a query string: for a change (a search, a filter) that starts again at page 1. */
export function withoutCursor(params: URLSearchParams): URLSearchParams {
  params.delete(cursorParam);
  return params;
}

/**
 * Pages of a Relay connection, walked forward with `after` cursors, kept in
 * the URL (?cursor=…&cursor=…: the `after` of each page past the first), so
 * a page can be linked, reloaded and gone back to. The cursors of the
 * pages before the current one are kept so Previous needs no `before`.
 */
export function useCursorPages() {
  const [params, setParams] = useSearchParams();
  const cursors = params.getAll(cursorParam).filter((c) => c !== "");
  const page = cursors.length + 1;
  const set = useCallback(
    (change: (cursors: string[]) => string[]) =>
      setParams((p) => {
        const next = change(p.getAll(cursorParam));
        p.delete(cursorParam);
        for (const c of next) p.append(cursorParam, c);
        return p;
      }),
    [setParams],
  );
  return {
    /** The `after` argument for the current page. */
    after: cursors.at(-1) ?? null,
    page,
    next: (endCursor: string) => set((c) => [...c, endCursor]),
    previous: () => set((c) => c.slice(0, -1)),
    /** Back to the first page. */
    first: () => set(() => []),
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
    <Group justify="flex-end" gap="sm" component="nav" aria-label={t("components.CursorPager.pages")}>
      <Button variant="default" size="xs" disabled={page === 1} onClick={onPrevious}>{t("components.CursorPager.previous")}</Button>
      <Text size="sm" c="dimmed" aria-live="polite">{pageCount !== undefined && pageCount >= page ? t("components.CursorPager.pageOf", { page, pageCount }) : t("components.CursorPager.page", { page })}</Text>
      <Button variant="default" size="xs" disabled={!hasNextPage} onClick={onNext}>{t("components.CursorPager.next")}</Button>
    </Group>
  );
}

interface ConnectionPagerProps {
  /** The list's pages, from useCursorPages. */
  pages: ReturnType<typeof useCursorPages>;
  /** The connection's pageInfo. */
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
  pageCount?: number;
}

/** A CursorPager for a Relay connection walked with useCursorPages. */
export function ConnectionPager({ pages, pageInfo, pageCount }: ConnectionPagerProps) {
  return (
    <CursorPager
      page={pages.page}
      pageCount={pageCount}
      hasNextPage={pageInfo.hasNextPage}
      onPrevious={pages.previous}
      onNext={() => {
        if (pageInfo.endCursor) pages.next(pageInfo.endCursor);
      }}
    />
  );
}
