// Loaded with the chart, after the core styles (as @mantine/charts asks).
import "@mantine/charts/styles.css";
import { useMemo, useState } from "react";
import { BarChart } from "@mantine/charts";
import { Card, Group, SegmentedControl, Table, Text, Title } from "@mantine/core";
import { useId } from "@mantine/hooks";
import { hourLabel, hourRows, outcomeSeries, totals, type HourRow, type OutcomeBucket } from "./outcomes";
import { locale, t } from "../i18n";

interface OutcomesChartProps {
  outcomes: OutcomeBucket[];
  /** The window, in hours. */
  hours: number;
  /** The time now, in ms: the window ends with its hour. */
  now: number;
}

const dateAndHour = new Intl.DateTimeFormat(locale(), {
  weekday: "short",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hour12: false,
});

/**
 * How the app's instances ended, per hour of the window: a stacked bar
 * chart (recharts through @mantine/charts), or the same numbers as a table.
 */
export default function OutcomesChart({ outcomes, hours, now }: OutcomesChartProps) {
  const [view, setView] = useState<"chart" | "table">("chart");
  const viewLabelId = useId();
  const rows = useMemo(() => hourRows(outcomes, hours, now, hourLabel(hours)), [outcomes, hours, now]);
  const sum = totals(outcomes);
  const finished = sum.succeeded + sum.failed + sum.stopped + sum.canceled;
  const summary = t("dashboard.OutcomesChart.summary", sum);

  return (
    <Card withBorder radius="md" padding="md" component="section" aria-labelledby={`${viewLabelId}-title`}>
      <Group justify="space-between" align="center" mb="sm">
        <div>
          <Title order={3} size="h5" id={`${viewLabelId}-title`}>{t("dashboard.OutcomesChart.outcomesPerHour")}</Title>
          <Text size="xs" c="dimmed">
            {finished === 0 ? t("dashboard.OutcomesChart.noInstanceFinishedIn") : summary}
          </Text>
        </div>
        {finished > 0 && (
          <Group gap="xs">
            <Text size="sm" fw={500} id={viewLabelId}>{t("dashboard.OutcomesChart.showAs")}</Text>
            <div role="radiogroup" aria-labelledby={viewLabelId}>
              <SegmentedControl
                size="xs"
                value={view}
                onChange={(v) => setView(v === "table" ? "table" : "chart")}
                data={[
                  { value: "chart", label: t("dashboard.OutcomesChart.chart") },
                  { value: "table", label: t("dashboard.OutcomesChart.table") },
                ]}
              />
            </div>
          </Group>
        )}
      </Group>
      {finished === 0 ? (
        <Text c="dimmed" ta="center" py="xl" data-testid="outcomes-empty">{(hours === 168 ? t("dashboard.OutcomesChart.noInstanceIn7Days") : t("dashboard.OutcomesChart.noInstanceInHours", { hours }))}</Text>
      ) : view === "chart" ? (
        <div role="img" aria-label={t("dashboard.OutcomesChart.outcomesPerHour2", { summary: summary })} data-testid="outcomes-chart">
          <BarChart
            h={260}
            data={rows}
            dataKey="hour"
            type="stacked"
            series={outcomeSeries.map((s) => ({ ...s }))}
            withLegend
            // In the order they stack, not alphabetical.
            legendProps={{ verticalAlign: "bottom", height: 40, itemSorter: null }}
            maxBarWidth={28}
            xAxisProps={{ interval: "preserveStartEnd", minTickGap: 24 }}
            yAxisProps={{ allowDecimals: false, width: 40 }}
            tooltipAnimationDuration={0}
            tooltipProps={{
              labelFormatter: (_label, payload) => {
                const row = (payload[0] as { payload?: Partial<HourRow> } | undefined)?.payload;
                return row?.start ? dateAndHour.format(new Date(row.start)) : "";
              },
            }}
          />
        </div>
      ) : (
        <Table.ScrollContainer minWidth={480} mah={320}>
          <Table striped verticalSpacing={4} aria-label={t("dashboard.OutcomesChart.outcomesPerHour")} data-testid="outcomes-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">{t("dashboard.OutcomesChart.hour")}</Table.Th>
                {outcomeSeries.map((s) => (
                  <Table.Th key={s.name} scope="col" ta="right">
                    {s.label}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows
                .filter((r) => r.succeeded + r.failed + r.stopped + r.canceled > 0)
                .map((r) => (
                  <Table.Tr key={r.start}>
                    <Table.Th scope="row" fw={400}>
                      <time dateTime={r.start}>{dateAndHour.format(new Date(r.start))}</time>
                    </Table.Th>
                    {outcomeSeries.map((s) => (
                      <Table.Td key={s.name} ta="right">
                        {r[s.name]}
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}
