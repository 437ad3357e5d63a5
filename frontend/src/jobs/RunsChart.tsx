// Loaded with the job's page only, after the core styles (as @mantine/charts asks).
import "@mantine/charts/styles.css";
import { BarChart } from "@mantine/charts";
import { Card, Text, Title } from "@mantine/core";
import { useId } from "@mantine/hooks";
import { formatDuration } from "../components/format";
import type { InstanceRowFragment } from "../graphql/graphql";
import { runRows, runSeries } from "./runs";
import { t } from "../i18n";

/**
 * The job's latest finished runs, oldest first: one bar per run, as tall
 * as it took and coloured by how it ended, so the duration trend and the
 * outcomes read together.
 */
export default function RunsChart({ runs }: { runs: InstanceRowFragment[] }) {
  const titleId = useId();
  const rows = runRows(runs);
  // Of finished runs only: a running one's time so far is no duration yet.
  const durations = rows.map((r) => r.succeeded + r.failed + r.stopped).sort((a, b) => a - b);
  const median = durations.length > 0 ? durations[Math.floor((durations.length - 1) / 2)] : undefined;
  const longest = durations.at(-1);
  const summary =
    median === undefined || longest === undefined
      ? t("jobs.RunsChart.noRunHasFinished")
      : t("jobs.RunsChart.finishedRunsMedianLongest", { length: rows.length, formatDuration: formatDuration(median), formatDuration2: formatDuration(longest) });

  return (
    <Card withBorder radius="md" padding="md" component="section" aria-labelledby={titleId}>
      <Title order={3} size="h5" id={titleId}>{t("jobs.RunsChart.latestRunsDurationAnd")}</Title>
      <Text size="xs" c="dimmed" mb="sm">
        {summary}
      </Text>
      {rows.length === 0 ? (
        <Text c="dimmed" ta="center" py="xl" data-testid="runs-empty">{t("jobs.RunsChart.runsShowHereAs")}</Text>
      ) : (
        <div role="img" aria-label={t("jobs.RunsChart.latestRuns", { summary: summary })} data-testid="runs-chart">
          <BarChart
            h={220}
            data={rows}
            dataKey="run"
            type="stacked"
            series={runSeries.map((s) => ({ ...s }))}
            withLegend
            legendProps={{ verticalAlign: "bottom", height: 40, itemSorter: null }}
            maxBarWidth={24}
            valueFormatter={(ms) => (ms > 0 ? formatDuration(ms) : "")}
            xAxisProps={{ interval: "preserveStartEnd", minTickGap: 16 }}
            yAxisProps={{ width: 64, tickFormatter: (ms: number) => formatDuration(ms) }}
            tooltipAnimationDuration={0}
          />
        </div>
      )}
    </Card>
  );
}
