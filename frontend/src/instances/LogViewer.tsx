import { Fragment, useEffect, useMemo, useRef, useState } from "react";
import {
  Alert,
  Badge,
  Button,
  Chip,
  Divider,
  Group,
  Highlight,
  Loader,
  ScrollArea,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
} from "@mantine/core";
import { useId } from "@mantine/hooks";
import type { CombinedError } from "urql";
import { errorMessage } from "../api/errors";
import { downloadLog } from "./logFile";
import type { LogLine } from "./useInstanceLogs";
import { locale, t } from "../i18n";

export const logLevels = ["DEBUG", "INFO", "WARN", "ERROR"] as const;

const levelColors: Record<string, string> = { DEBUG: "gray", INFO: "blue", WARN: "yellow", ERROR: "red" };

/** How close to the end (px) still counts as at the end, for following. */
const endSlack = 24;

const timeFormat = new Intl.DateTimeFormat(locale(), {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  fractionalSecondDigits: 3,
  hour12: false,
});

interface LogViewerProps {
  lines: LogLine[];
  /** More lines may come (the instance is unfinished). */
  live: boolean;
  loaded: boolean;
  error: CombinedError | null;
  /** The downloaded file's name, e.g. "instance-42.log". */
  fileName: string;
}

/**
 * An instance's log: seq, time, level, worker and text per line. Lines can
 * be narrowed by level and by text; while following, the view stays at the
 * newest line (scrolling up pauses it).
 */
export function LogViewer({ lines, live, loaded, error, fileName }: LogViewerProps) {
  const levelsId = useId();
  const [levels, setLevels] = useState<string[]>([...logLevels]);
  const [search, setSearch] = useState("");
  const [follow, setFollow] = useState(true);
  // How many lines there were when following was paused, to count new ones.
  const [seenCount, setSeenCount] = useState(lines.length);
  const viewport = useRef<HTMLDivElement>(null);

  const needle = search.trim().toLowerCase();
  const shown = useMemo(
    () =>
      lines.filter(
        (l) =>
          // Levels outside the four known ones always show.
          (levels.includes(l.level) || !(logLevels as readonly string[]).includes(l.level)) &&
          (needle === "" || l.text.toLowerCase().includes(needle) || (l.worker ?? "").toLowerCase().includes(needle)),
      ),
    [lines, levels, needle],
  );

  // A retried instance's lines are separated by attempt, once there is more
  // than the first (lines stored before attempts were recorded say 0).
  const separated = lines.some((l) => l.attempt > 1);

  useEffect(() => {
    const el = viewport.current;
    if (follow && el) el.scrollTop = el.scrollHeight;
  }, [follow, shown.length]);

  function setFollowing(on: boolean) {
    setFollow(on);
    if (!on) setSeenCount(lines.length);
  }

  function onScroll({ y }: { y: number }) {
    const el = viewport.current;
    if (!el || !follow) return;
    if (el.scrollHeight - el.clientHeight - y > endSlack) setFollowing(false);
  }

  const unseen = follow ? 0 : lines.length - seenCount;

  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end" gap="sm">
        <Group align="flex-end" gap="md">
          <div role="group" aria-labelledby={levelsId}>
            <Text size="sm" fw={500} id={levelsId} mb={4}>{t("instances.LogViewer.levels")}</Text>
            <Chip.Group multiple value={levels} onChange={setLevels}>
              <Group gap={6}>
                {logLevels.map((level) => (
                  <Chip key={level} value={level} size="xs" color={levelColors[level]} variant="light">
                    {level}
                  </Chip>
                ))}
              </Group>
            </Chip.Group>
          </div>
          <TextInput
            label={t("instances.LogViewer.searchTheLog")}
            placeholder={t("instances.LogViewer.textOrWorker")}
            type="search"
            size="xs"
            w={240}
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
          />
        </Group>
        <Group gap="md" align="center">
          {live && (
            <Badge color="blue" variant="dot">{t("instances.LogViewer.live")}</Badge>
          )}
          <Switch label={t("instances.LogViewer.follow")} checked={follow} onChange={(e) => setFollowing(e.currentTarget.checked)} />
          <Button size="xs" variant="default" disabled={lines.length === 0} onClick={() => downloadLog(fileName, lines)}>{t("instances.LogViewer.downloadLog")}</Button>
        </Group>
      </Group>

      {error && (
        <Alert color="red" role="alert" title={t("instances.LogViewer.couldNotReadThe")}>
          <Text size="sm">{t("instances.LogViewer.itIsTriedAgain", { errorMessage: errorMessage(error) })}</Text>
        </Alert>
      )}

      <ScrollArea.Autosize
        mah={520}
        viewportRef={viewport}
        onScrollPositionChange={onScroll}
        type="auto"
        style={{ border: "1px solid var(--mantine-color-default-border)", borderRadius: "var(--mantine-radius-sm)" }}
      >
        {!loaded ? (
          <Group p="md" gap="sm" role="status">
            <Loader size="xs" />
            <Text size="sm" c="dimmed">{t("instances.LogViewer.loadingTheLog")}</Text>
          </Group>
        ) : shown.length === 0 ? (
          <Text size="sm" c="dimmed" p="md">
            {lines.length === 0
              ? live
                ? t("instances.LogViewer.noLogLinesYet")
                : t("instances.LogViewer.thisInstanceWroteNo")
              : t("instances.LogViewer.noLineMatchesThe")}
          </Text>
        ) : (
          <Table
            fz="xs"
            ff="monospace"
            verticalSpacing={1}
            horizontalSpacing="xs"
            withRowBorders={false}
            highlightOnHover
            aria-label={t("instances.LogViewer.logLines")}
            data-testid="log-lines"
          >
            <Table.Thead>
              <Table.Tr>
                <Table.Th ta="right">{t("instances.LogViewer.seq")}</Table.Th>
                <Table.Th>{t("instances.LogViewer.time")}</Table.Th>
                <Table.Th>{t("instances.LogViewer.level")}</Table.Th>
                <Table.Th>{t("instances.LogViewer.worker")}</Table.Th>
                <Table.Th w="100%">{t("instances.LogViewer.text")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.map((l, i) => (
                <Fragment key={l.seq}>
                {separated && l.attempt > 0 && l.attempt !== shown[i - 1]?.attempt && (
                  <Table.Tr data-testid="attempt-separator" data-attempt={l.attempt}>
                    <Table.Td colSpan={5} py={4}>
                      <Divider
                        label={t("instances.LogViewer.attempt", { attempt: l.attempt })}
                        labelPosition="left"
                        color="blue"
                        styles={{ label: { fontWeight: 600, color: "var(--mantine-color-blue-text)" } }}
                      />
                    </Table.Td>
                  </Table.Tr>
                )}
                <Table.Tr data-level={l.level}>
                  <Table.Td ta="right" c="dimmed">
                    {l.seq}
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: "nowrap" }}>
                    <time dateTime={l.time} title={l.time}>
                      {timeFormat.format(new Date(l.time))}
                    </time>
                  </Table.Td>
                  <Table.Td c={levelColors[l.level] ?? "dimmed"} fw={600}>
                    {l.level}
                  </Table.Td>
                  <Table.Td c="dimmed" style={{ whiteSpace: "nowrap" }}>
                    {l.worker ?? t("common.server")}
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: "pre-wrap", wordBreak: "break-word" }}>
                    {needle ? (
                      <Highlight highlight={search.trim()} fz="xs" ff="monospace" component="span">
                        {l.text}
                      </Highlight>
                    ) : (
                      l.text
                    )}
                  </Table.Td>
                </Table.Tr>
                </Fragment>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </ScrollArea.Autosize>

      <Group justify="space-between">
        <Text size="xs" c="dimmed" aria-live="polite">
          {shown.length === lines.length
            ? t("instances.LogViewer.lines", { count: lines.length })
            : t("instances.LogViewer.ofLines", { length: shown.length, length2: lines.length })}
        </Text>
        {unseen > 0 && (
          <Button size="compact-xs" variant="light" onClick={() => setFollowing(true)}>{t("instances.LogViewer.newFollow", { count: unseen })}</Button>
        )}
      </Group>
    </Stack>
  );
}
