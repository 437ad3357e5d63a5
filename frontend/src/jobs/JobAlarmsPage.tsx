import { useState } from "react";
import { Anchor, Stack } from "@mantine/core";
import { Link, useParams } from "react-router";
import { useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { canEdit, useAppRole } from "../apps/useAppRole";
import { AlarmHistorySection, AlarmSummary, TestAlarm, alarmHistoryPageSize } from "./AlarmSections";
import { JobHeader } from "./JobHeader";
import { JobAlarmHistoryQuery, JobQuery } from "./operations";
import { t } from "../i18n";

/** /apps/:app/jobs/:jobId/alarms: the job's alarm rules and channels, a test alarm, and the alarm history. */
export function JobAlarmsPage() {
  const app = useAppName();
  const { jobId = "" } = useParams();
  const editor = canEdit(useAppRole());
  const [header] = useQuery({ query: JobQuery, variables: { id: jobId } });
  const [pages, setPages] = useState(1);
  const [result, reexecute] = useQuery({
    query: JobAlarmHistoryQuery,
    variables: { id: jobId, first: alarmHistoryPageSize * pages },
    requestPolicy: "cache-and-network",
  });
  const refresh = () => reexecute({ requestPolicy: "network-only" });
  const job = header.data?.job;

  return (
    <Stack>
      {job && <JobHeader app={app} job={job} tab="alarms" />}
      {job && (
        <AlarmSummary
          alarm={job.alarm}
          setIt={
            <Anchor component={Link} to={appPath(app, "jobs", job.id, "edit")} inherit>{t("jobs.JobAlarmsPage.setItsAlarm")}</Anchor>
          }
        />
      )}
      {job && editor && <TestAlarm subject={{ jobId }} disabled={job.alarm.channels.length === 0} onSent={refresh} />}
      <AlarmHistorySection
        app={app}
        result={result}
        onRetry={refresh}
        history={(d) => d.job?.alarmHistory}
        subject="job"
        pages={pages}
        onMore={() => setPages((p) => p + 1)}
      />
    </Stack>
  );
}
