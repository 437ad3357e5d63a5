import { Anchor, Card, Table, Tabs, Text } from "@mantine/core";
import { Link } from "react-router";
import { appPath } from "../apps/currentApp";
import { TruncatedLink } from "../components/Truncated";
import { dayLabel, durationLabel } from "./labels";
import { jobTotals, successRate, type ReportDay, type ReportRow } from "./report";
import { t } from "../i18n";

interface ReportTablesProps {
  days: readonly ReportDay[];
  rows: readonly ReportRow[];
  /** Name each job's app (a report over every app). */
  showApp: boolean;
}

function rateLabel(succeeded: number, failed: number): string {
  const rate = successRate(succeeded, failed);
  return rate === null ? "—" : t("reports.ReportsPage.percent", { value: rate });
}

/** The report's figures as tables: per job over the range, per day, per day and job. */
export function ReportTables({ days, rows, showApp }: ReportTablesProps) {
  return (
    <Card withBorder radius="md" padding="md">
      <Tabs defaultValue="jobs" keepMounted={false}>
        <Tabs.List mb="sm">
          <Tabs.Tab value="jobs">{t("reports.ReportTables.perJob")}</Tabs.Tab>
          <Tabs.Tab value="days">{t("reports.ReportTables.perDay")}</Tabs.Tab>
          <Tabs.Tab value="rows">{t("reports.ReportTables.perDayAndJob")}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="jobs">
          <JobsTable rows={rows} showApp={showApp} />
        </Tabs.Panel>
        <Tabs.Panel value="days">
          <DaysTable days={days} />
        </Tabs.Panel>
        <Tabs.Panel value="rows">
          <RowsTable rows={rows} showApp={showApp} />
        </Tabs.Panel>
      </Tabs>
    </Card>
  );
}

function CountHeads() {
  return (
    <>
      <Table.Th scope="col" ta="right">{t("reports.ReportsPage.runs")}</Table.Th>
      <Table.Th scope="col" ta="right">{t("reports.ReportsPage.succeeded")}</Table.Th>
      <Table.Th scope="col" ta="right">{t("reports.ReportsPage.failed")}</Table.Th>
      <Table.Th scope="col" ta="right">{t("reports.ReportTables.stopped")}</Table.Th>
      <Table.Th scope="col" ta="right">{t("reports.ReportTables.canceled")}</Table.Th>
      <Table.Th scope="col" ta="right">{t("reports.ReportsPage.successRate")}</Table.Th>
    </>
  );
}

function CountCells({ r }: { r: { runs: number; succeeded: number; failed: number; stopped: number; canceled: number } }) {
  return (
    <>
      <Table.Td ta="right">{r.runs}</Table.Td>
      <Table.Td ta="right">{r.succeeded}</Table.Td>
      <Table.Td ta="right" c={r.failed > 0 ? "red" : undefined}>{r.failed}</Table.Td>
      <Table.Td ta="right">{r.stopped}</Table.Td>
      <Table.Td ta="right">{r.canceled}</Table.Td>
      <Table.Td ta="right">{rateLabel(r.succeeded, r.failed)}</Table.Td>
    </>
  );
}

function JobCell({ job, showApp }: { job: ReportRow["job"]; showApp: boolean }) {
  return (
    <Table.Th scope="row" fw={400} maw={280}>
      <TruncatedLink text={job.name} to={appPath(job.app.name, "jobs", job.id)} fw={600} />
      {showApp && (
        <Anchor component={Link} to={appPath(job.app.name, "dashboard")} size="xs" c="dimmed">
          {job.app.name}
        </Anchor>
      )}
    </Table.Th>
  );
}

function JobsTable({ rows, showApp }: { rows: readonly ReportRow[]; showApp: boolean }) {
  const totals = jobTotals(rows);
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table striped verticalSpacing={6} aria-label={t("reports.ReportTables.perJob")} data-testid="report-jobs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t("reports.ReportTables.job")}</Table.Th>
            <CountHeads />
            <Table.Th scope="col" ta="right">{t("reports.ReportTables.worstP95")}</Table.Th>
            <Table.Th scope="col" ta="right">{t("reports.ReportTables.longest")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {totals.map((total) => (
            <Table.Tr key={total.job.id}>
              <JobCell job={total.job} showApp={showApp} />
              <CountCells r={total} />
              <Table.Td ta="right">{durationLabel(total.durationP95Ms)}</Table.Td>
              <Table.Td ta="right">{durationLabel(total.durationMaxMs)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function DaysTable({ days }: { days: readonly ReportDay[] }) {
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped verticalSpacing={6} aria-label={t("reports.ReportTables.perDay")} data-testid="report-days">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t("reports.ReportTables.day")}</Table.Th>
            <CountHeads />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {days.map((d) => (
            <Table.Tr key={d.date}>
              <Table.Th scope="row" fw={400}>
                <time dateTime={d.date}>{dayLabel(d.date)}</time>
              </Table.Th>
              <CountCells r={d} />
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function RowsTable({ rows, showApp }: { rows: readonly ReportRow[]; showApp: boolean }) {
  if (rows.length === 0) return <Text c="dimmed">{t("reports.ReportsPage.noRuns")}</Text>;
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table striped verticalSpacing={6} aria-label={t("reports.ReportTables.perDayAndJob")} data-testid="report-rows">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{t("reports.ReportTables.day")}</Table.Th>
            <Table.Th scope="col">{t("reports.ReportTables.job")}</Table.Th>
            <CountHeads />
            <Table.Th scope="col" ta="right">{t("reports.ReportTables.p50")}</Table.Th>
            <Table.Th scope="col" ta="right">{t("reports.ReportTables.p95")}</Table.Th>
            <Table.Th scope="col" ta="right">{t("reports.ReportTables.longest")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={`${r.date}-${r.job.id}`}>
              <Table.Td>
                <time dateTime={r.date}>{dayLabel(r.date)}</time>
              </Table.Td>
              <JobCell job={r.job} showApp={showApp} />
              <CountCells r={r} />
              <Table.Td ta="right">{durationLabel(r.durationP50Ms)}</Table.Td>
              <Table.Td ta="right">{durationLabel(r.durationP95Ms)}</Table.Td>
              <Table.Td ta="right">{durationLabel(r.durationMaxMs)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
