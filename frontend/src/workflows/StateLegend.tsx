import { Group, Text } from "@mantine/core";
import { statusLabel } from "../components/statusLabel";
import { t } from "../i18n";
import { nodeStatusColors, type NodeShownStatus } from "./status";

/** The node states in the order a run goes through them. */
export const shownStates: readonly NodeShownStatus[] = [
  "WAITING",
  "PAUSED",
  "RUNNING",
  "AWAITING_APPROVAL",
  "SUCCEEDED",
  "FAILED",
  "STOPPED",
  "SKIPPED",
];

/**
 * A mark per state, so a state reads without its colour (colour-blind
 * readers, a grey-scale print): the cell carries it beside its colour.
 */
export const stateMarks: Record<NodeShownStatus, string> = {
  WAITING: "",
  PAUSED: "‖",
  RUNNING: "▶",
  AWAITING_APPROVAL: "?",
  SUCCEEDED: "✓",
  FAILED: "✗",
  STOPPED: "■",
  SKIPPED: "–",
};

/** How a state fills a cell: its colour, outlined only while nothing happened yet. */
export function stateStyle(status: NodeShownStatus): React.CSSProperties {
  const color = nodeStatusColors[status];
  switch (status) {
    case "WAITING":
      return { background: "var(--mantine-color-body)", border: "1px solid var(--mantine-color-gray-5)", color: "var(--mantine-color-dimmed)" };
    case "SKIPPED":
      return { background: "var(--mantine-color-gray-3)", border: "1px dashed var(--mantine-color-gray-6)", color: "var(--mantine-color-gray-8)" };
    default:
      return { background: `var(--mantine-color-${color}-6)`, border: `1px solid var(--mantine-color-${color}-7)`, color: "white" };
  }
}

/** A swatch of a state, as a cell draws it. */
export function StateSwatch({ status, size = 14 }: { status: NodeShownStatus; size?: number }) {
  return (
    <span
      aria-hidden
      style={{
        ...stateStyle(status),
        display: "inline-flex",
        alignItems: "center",
        justifyContent: "center",
        width: size,
        height: size,
        borderRadius: 3,
        fontSize: size * 0.7,
        lineHeight: 1,
        boxSizing: "border-box",
      }}
    >
      {stateMarks[status]}
    </span>
  );
}

/** What each colour means; `extra`: more items of the list (each a role="listitem"). */
export function StateLegend({ extra }: { extra?: React.ReactNode }) {
  return (
    <Group gap="sm" role="list" aria-label={t("workflows.StateLegend.legend")}>
      {shownStates.map((s) => (
        <Group key={s} gap={4} wrap="nowrap" role="listitem">
          <StateSwatch status={s} />
          <Text size="xs">{statusLabel(s)}</Text>
        </Group>
      ))}
      {extra}
    </Group>
  );
}
