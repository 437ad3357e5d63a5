import { Group, Stack, Text, Title, UnstyledButton } from "@mantine/core";
import { formatDuration } from "../components/format";
import { statusLabel } from "../components/statusLabel";
import { useNow } from "../components/useNow";
import type { WorkflowRunFieldsFragment } from "../graphql/graphql";
import { locale, t } from "../i18n";
import { StateLegend, stateStyle } from "./StateLegend";
import { isRunActive } from "./status";
import { gantt, type GanttBar } from "./timeline";

type Run = Pick<WorkflowRunFieldsFragment, "status" | "startedTime" | "finishedTime" | "nodes" | "edges">;

const clock = new Intl.DateTimeFormat(locale(), { hour: "2-digit", minute: "2-digit", second: "2-digit" });
/** The viewer's zone, which every time here is shown in. */
const zone = new Intl.DateTimeFormat().resolvedOptions().timeZone;
/** At most this many times under the chart, at least a second apart (they show whole seconds). */
const maxTicks = 5;
const labelWidth = 180;
const rowHeight = 24;

/** A time of day in the viewer's zone. */
function at(ms: number): string {
  return clock.format(new Date(ms));
}

/** A share as a CSS percentage, to a thousandth of a percent. */
function percent(share: number): string {
  return `${Number((share * 100).toFixed(3))}%`;
}

/** Hatching for the time a node waited (to be handed to a worker, or for its approval). */
const waitingFill = "repeating-linear-gradient(135deg, var(--mantine-color-gray-4) 0 4px, transparent 4px 8px)";

/**
 * A Gantt chart of a run's nodes over time: a row per node (topological
 * order), its bar from when it started to when it ended — hatched while it
 * waited (for a worker to start its job, or for its approval), solid while
 * it ran — and, while the run goes on, running bars grow each second.
 * Times are the viewer's, in their zone. A bar chooses its node.
 */
export function RunGantt({ run, onSelect, selected }: { run: Run; onSelect?: (key: string) => void; selected?: string | null }) {
  const now = useNow(isRunActive(run.status) ? 1_000 : null);
  const chart = gantt(run, now);
  const span = chart.to - chart.from;
  const pct = (ms: number) => percent((ms - chart.from) / span);
  const width = (a: number, b: number) => percent((b - a) / span);
  const ticks = Math.max(2, Math.min(maxTicks, Math.floor(span / 1000) + 1));

  return (
    <Stack gap={6} data-testid="run-gantt">
      <Group justify="space-between" align="baseline">
        <Title order={3} size="h6">{t("workflows.RunGantt.title")}</Title>
        <Text size="xs" c="dimmed">{t("workflows.RunGantt.timesIn", { zone })}</Text>
      </Group>
      {!run.startedTime && chart.rows.every((r) => !r.bar) ? (
        <Text size="sm" c="dimmed">{t("workflows.RunGantt.notStarted")}</Text>
      ) : (
        <div role="list" aria-label={t("workflows.RunGantt.label")}>
          {chart.rows.map((row) => (
            <div key={row.key} role="listitem" style={{ display: "flex", alignItems: "center", height: rowHeight }}>
              <Text size="sm" truncate="end" style={{ width: labelWidth, flex: "none", paddingRight: 8 }} title={row.key}>
                {row.name || row.key}
              </Text>
              <div style={{ position: "relative", flex: 1, height: rowHeight - 6, background: "var(--mantine-color-default-hover)", borderRadius: 3 }}>
                {row.bar ? (
                  <Bar
                    bar={row.bar}
                    left={pct(row.bar.start)}
                    width={width(row.bar.start, row.bar.end)}
                    waitedShare={row.bar.end > row.bar.start ? (row.bar.runFrom - row.bar.start) / (row.bar.end - row.bar.start) : 0}
                    selected={selected === row.key}
                    onSelect={onSelect}
                  />
                ) : (
                  <Text size="xs" c="dimmed" pl={6} style={{ lineHeight: `${rowHeight - 6}px` }} data-testid={`gantt-none-${row.key}`}>
                    {t("workflows.RunGantt.noBar", { status: statusLabel(row.status) })}
                  </Text>
                )}
              </div>
            </div>
          ))}
          <div style={{ display: "flex" }} aria-hidden>
            <div style={{ width: labelWidth, flex: "none" }} />
            <div style={{ position: "relative", flex: 1, height: 18 }}>
              {Array.from({ length: ticks }, (_, i) => {
                const ms = chart.from + (span * i) / (ticks - 1);
                return (
                  <Text
                    key={i}
                    size="xs"
                    c="dimmed"
                    data-testid="gantt-tick"
                    style={{
                      position: "absolute",
                      left: pct(ms),
                      transform: i === 0 ? undefined : i === ticks - 1 ? "translateX(-100%)" : "translateX(-50%)",
                      whiteSpace: "nowrap",
                    }}
                  >
                    {at(ms)}
                  </Text>
                );
              })}
            </div>
          </div>
        </div>
      )}
      <StateLegend
        extra={
          <Group gap={4} wrap="nowrap" role="listitem">
            <span aria-hidden style={{ display: "inline-block", width: 14, height: 14, borderRadius: 3, background: waitingFill, border: "1px solid var(--mantine-color-gray-5)" }} />
            <Text size="xs">{t("workflows.RunGantt.waiting")}</Text>
          </Group>
        }
      />
    </Stack>
  );
}

function Bar({
  bar,
  left,
  width,
  waitedShare,
  selected,
  onSelect,
}: {
  bar: GanttBar;
  left: string;
  width: string;
  waitedShare: number;
  selected: boolean;
  onSelect?: (key: string) => void;
}) {
  const name = bar.name || bar.key;
  const values = {
    node: name,
    status: statusLabel(bar.status),
    waited: formatDuration(bar.runFrom - bar.start),
    ran: formatDuration(bar.end - bar.runFrom),
    start: at(bar.start),
    end: at(bar.end),
  };
  const label = bar.open ? t("workflows.RunGantt.barOpen", values) : t("workflows.RunGantt.bar", values);
  return (
    <UnstyledButton
      aria-label={label}
      title={label}
      onClick={() => onSelect?.(bar.key)}
      data-testid={`gantt-bar-${bar.key}`}
      data-status={bar.status}
      data-open={bar.open ? "true" : undefined}
      data-start={bar.start}
      data-end={bar.end}
      style={{
        position: "absolute",
        top: 0,
        bottom: 0,
        left,
        width,
        minWidth: 3,
        borderRadius: 3,
        overflow: "hidden",
        display: "flex",
        boxShadow: selected ? "0 0 0 2px var(--mantine-color-blue-4)" : undefined,
        ...(bar.status === "SKIPPED" || bar.status === "WAITING" ? stateStyle(bar.status) : {}),
      }}
    >
      <span data-testid={`gantt-wait-${bar.key}`} style={{ width: waitedShare > 0 ? percent(waitedShare) : 0, background: waitingFill, flex: "none" }} />
      <span style={{ flex: 1, ...stateStyle(bar.status), border: "none" }} />
    </UnstyledButton>
  );
}
