import { lazy, Suspense } from "react";
import { Button, Center, Group, Loader, Select, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { DatePickerInput } from "@mantine/dates";
import { useSearchParams } from "react-router";
import { useQuery } from "urql";
import { useApps } from "../apps/useApps";
import { QueryView } from "../components/QueryView";
import { StatCard } from "./StatCard";
import { ReportTables } from "./ReportTables";
import { RunReportQuery } from "./operations";
import { dayTotals, isDateString, lastDays, localMidnight, maxDays, rangeInstants, successRate, viewerTimeZone } from "./report";
import { t } from "../i18n";

// The chart library is most of the page's weight: loaded with the chart only.
const ReportChart = lazy(() => import("./ReportChart"));

/** The ranges offered with one click, in days ending today. */
const presets = [7, 30, 92] as const;

/** The app, range and zone the URL asks for (the last 7 days of every app by default). */
function reportParams(params: URLSearchParams) {
  const fallback = lastDays(7);
  const from = params.get("from");
  const to = params.get("to");
  const valid = isDateString(from) && isDateString(to) && from <= to;
  return {
    app: params.get("app") || null,
    from: valid ? from : fallback.from,
    to: valid ? to : fallback.to,
  };
}

/**
 * /reports: runs, outcomes and durations per day and per job over a date
 * range, for one app or every app the viewer sees (xxl-job's report page).
 * The days are the viewer's; the app and range live in the URL.
 */
export function ReportsPage() {
  const [params, setParams] = useSearchParams();
  const { app, from, to } = reportParams(params);
  const [apps] = useApps();
  const timeZone = viewerTimeZone();
  const range = rangeInstants(from, to);
  const [result, reexecute] = useQuery({
    query: RunReportQuery,
    variables: { app, from: range.from, to: range.to, timeZone },
  });

  const set = (next: { app?: string | null; from?: string; to?: string }) =>
    setParams(
      (p) => {
        if (next.app !== undefined) {
          if (next.app) p.set("app", next.app);
          else p.delete("app");
        }
        if (next.from) p.set("from", next.from);
        if (next.to) p.set("to", next.to);
        return p;
      },
      { replace: true },
    );

  const appChoices = [
    { value: "", label: t("reports.ReportsPage.allApps") },
    ...(apps.data?.apps ?? []).map((a) => ({ value: a.name, label: a.name })),
  ];

  return (
    <Stack>
      <div>
        <Title order={2}>{t("reports.ReportsPage.reports")}</Title>
        <Text c="dimmed" size="sm">{t("reports.ReportsPage.intro", { timeZone })}</Text>
      </div>
      <Group align="flex-end" gap="sm">
        <Select
          label={t("reports.ReportsPage.app")}
          data={appChoices}
          value={app ?? ""}
          onChange={(value) => set({ app: value || null })}
          allowDeselect={false}
          searchable
          w={220}
        />
        <DatePickerInput
          type="range"
          label={t("reports.ReportsPage.dates")}
          value={[from, to]}
          onChange={([start, end]) => {
            if (start && end) set({ from: start, to: end });
          }}
          maxDate={new Date()}
          valueFormat="YYYY-MM-DD"
          allowSingleDateInRange
          w={240}
        />
        <Group gap={4}>
          {presets.map((days) => {
            const preset = lastDays(days);
            const active = preset.from === from && preset.to === to;
            return (
              <Button key={days} size="sm" variant={active ? "filled" : "default"} onClick={() => set(preset)} aria-pressed={active}>
                {t("reports.ReportsPage.lastDays", { count: days })}
              </Button>
            );
          })}
        </Group>
      </Group>
      {localMidnight(to, 1).getTime() - localMidnight(from).getTime() > maxDays * 86_400_000 + 3_600_000 && (
        <Text size="sm" c="orange">{t("reports.ReportsPage.tooLong", { count: maxDays })}</Text>
      )}
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("reports.ReportsPage.loading")}
        isEmpty={() => false}
        empty={null}
      >
        {({ runReport: report }) => {
          const sum = dayTotals(report.days);
          const rate = successRate(sum.succeeded, sum.failed);
          return (
            <Stack>
              <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }}>
                <StatCard label={t("reports.ReportsPage.runs")} value={sum.runs} testId="report-runs" />
                <StatCard label={t("reports.ReportsPage.succeeded")} value={sum.succeeded} color="teal" testId="report-succeeded" />
                <StatCard label={t("reports.ReportsPage.failed")} value={sum.failed} color={sum.failed > 0 ? "red" : undefined} testId="report-failed" />
                <StatCard label={t("reports.ReportsPage.stoppedOrCanceled")} value={sum.stopped + sum.canceled} testId="report-other" />
                <StatCard
                  label={t("reports.ReportsPage.successRate")}
                  value={rate === null ? "—" : t("reports.ReportsPage.percent", { value: rate })}
                  testId="report-rate"
                />
              </SimpleGrid>
              {sum.runs === 0 ? (
                <Text c="dimmed" ta="center" py="xl" data-testid="report-empty">
                  {t("reports.ReportsPage.noRuns")}
                </Text>
              ) : (
                <>
                  <Suspense
                    fallback={
                      <Center h={300}>
                        <Loader size="sm" aria-label={t("reports.ReportsPage.loadingChart")} />
                      </Center>
                    }
                  >
                    <ReportChart days={report.days} />
                  </Suspense>
                  <ReportTables days={report.days} rows={report.rows} showApp={!app} />
                </>
              )}
            </Stack>
          );
        }}
      </QueryView>
    </Stack>
  );
}
