import { useEffect, useMemo, useRef, useState } from "react";
import {
  Alert,
  Badge,
  Button,
  Chip,
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

export const logLevels = ["DEBUG", "INFO", "WARN", "ERROR"] as const;

const levelColors: Record<string, string> = { DEBUG: "gray", INFO: "blue", WARN: "yellow", ERROR: "red" };

/** How close to the end (px) still counts as at the end, for following. */
const endSlack = 24;

const timeFormat = new Intl.DateTimeFormat(undefined, {
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
            <Text size="sm" fw={500} id={levelsId} mb={4}>
              Levels
            </Text>
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
            label="Search the log"
            placeholder="Text or worker"
            type="search"
            size="xs"
            w={240}
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
          />
        </Group>
        <Group gap="md" align="center">
          {live && (
            <Badge color="blue" variant="dot">
              live
            </Badge>
          )}
          <Switch label="Follow" checked={follow} onChange={(e) => setFollowing(e.currentTarget.checked)} />
          <Button size="xs" variant="default" disabled={lines.length === 0} onClick={() => downloadLog(fileName, lines)}>
            Download .log
          </Button>
        </Group>
      </Group>

      {error && (
        <Alert color="red" role="alert" title="Could not read the log">
          <Text size="sm">{errorMessage(error)} It is tried again shortly.</Text>
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
            <Text size="sm" c="dimmed">
              Loading the log…
            </Text>
          </Group>
        ) : shown.length === 0 ? (
          <Text size="sm" c="dimmed" p="md">
            {lines.length === 0
              ? live
                ? "No log lines yet; they show here as the instance writes them."
                : "This instance wrote no log lines."
              : "No line matches the filters."}
          </Text>
        ) : (
          <Table
            fz="xs"
            ff="monospace"
            verticalSpacing={1}
            horizontalSpacing="xs"
            withRowBorders={false}
            highlightOnHover
            aria-label="Log lines"
            data-testid="log-lines"
          >
            <Table.Thead>
              <Table.Tr>
                <Table.Th ta="right">Seq</Table.Th>
                <Table.Th>Time</Table.Th>
                <Table.Th>Level</Table.Th>
                <Table.Th>Worker</Table.Th>
                <Table.Th w="100%">Text</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.map((l) => (
                <Table.Tr key={l.seq} data-level={l.level}>
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
                    {l.worker ?? "server"}
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
              ))}
            </Table.Tbody>
          </Table>
        )}
      </ScrollArea.Autosize>

      <Group justify="space-between">
        <Text size="xs" c="dimmed" aria-live="polite">
          {shown.length === lines.length
            ? `${lines.length} ${lines.length === 1 ? "line" : "lines"}`
            : `${shown.length} of ${lines.length} lines`}
        </Text>
        {unseen > 0 && (
          <Button size="compact-xs" variant="light" onClick={() => setFollowing(true)}>
            {unseen} new {unseen === 1 ? "line" : "lines"} — follow
          </Button>
        )}
      </Group>
    </Stack>
  );
}
