import { useState } from "react";
import { Anchor, Stack, Title } from "@mantine/core";
import { Link, useParams } from "react-router";
import { useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { canEdit, useAppRole } from "../apps/useAppRole";
import { QueryView } from "../components/QueryView";
import { AlarmHistoryTable, AlarmSummary, TestAlarm, alarmHistoryPageSize } from "./AlarmSections";
import { JobHeader } from "./JobHeader";
import { JobAlarmHistoryQuery, JobQuery } from "./operations";

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
            <Anchor component={Link} to={appPath(app, "jobs", job.id, "edit")} inherit>
              Set its alarm
            </Anchor>
          }
        />
      )}
      {job && editor && <TestAlarm subject={{ jobId }} disabled={job.alarm.channels.length === 0} onSent={refresh} />}
      <Title order={3} size="h4">
        Alarm history
      </Title>
      <QueryView
        result={result}
        onRetry={refresh}
        loading="Loading the alarm history"
        isEmpty={(d) => !d.job || d.job.alarmHistory.edges.length === 0}
        empty={<>No alarm yet: none was sent, silenced or failed for this job.</>}
      >
        {(d) =>
          d.job && (
            <AlarmHistoryTable app={app} history={d.job.alarmHistory} pages={pages} onMore={() => setPages((p) => p + 1)} />
          )
        }
      </QueryView>
    </Stack>
  );
}
