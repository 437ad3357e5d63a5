// Loaded with the chart, after the core styles (as @mantine/charts asks).
import "@mantine/charts/styles.css";
import { BarChart } from "@mantine/charts";
import { Card, Title } from "@mantine/core";
import { useId } from "@mantine/hooks";
import { outcomeSeries } from "../dashboard/outcomes";
import { dayLabel } from "./labels";
import { dayTotals, type ReportDay } from "./report";
import { t } from "../i18n";

/** The report's outcomes per day, stacked (recharts through @mantine/charts). */
export default function ReportChart({ days }: { days: readonly ReportDay[] }) {
  const titleId = useId();
  const data = days.map((d) => ({
    day: dayLabel(d.date),
    succeeded: d.succeeded,
    failed: d.failed,
    stopped: d.stopped,
    canceled: d.canceled,
  }));
  const sum = dayTotals(days);
  return (
    <Card withBorder radius="md" padding="md" component="section" aria-labelledby={titleId}>
      <Title order={3} size="h5" id={titleId} mb="sm">
        {t("reports.ReportChart.runsPerDay")}
      </Title>
      <div
        role="img"
        aria-label={t("reports.ReportChart.summary", { runs: sum.runs, succeeded: sum.succeeded, failed: sum.failed })}
        data-testid="report-chart"
      >
        <BarChart
          h={260}
          data={data}
          dataKey="day"
          type="stacked"
          series={outcomeSeries.map((s) => ({ ...s }))}
          withLegend
          legendProps={{ verticalAlign: "bottom", height: 40, itemSorter: null }}
          maxBarWidth={36}
          xAxisProps={{ interval: "preserveStartEnd", minTickGap: 16 }}
          yAxisProps={{ allowDecimals: false, width: 40 }}
          tooltipAnimationDuration={0}
        />
      </div>
    </Card>
  );
}
