import { useState } from "react";
import { Button, Group, Stack, Title } from "@mantine/core";
import { Link } from "react-router";
import { useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { useCanEdit } from "../apps/useAppRole";
import { ConnectionPager, useCursorPages } from "../components/CursorPager";
import { ListSearchField, NoneFound, useListSearch } from "../components/ListSearch";
import { QueryView } from "../components/QueryView";
import type { JobRowFragment } from "../graphql/graphql";
import { useInstanceChanges } from "../instances/useInstanceChanges";
import { BulkBar } from "./BulkBar";
import { DeleteJobDialog } from "./DeleteJobDialog";
import { JobsTable } from "./JobsTable";
import { RunJobDialog } from "./RunJobDialog";
import { JobsQuery } from "./operations";
import { t } from "../i18n";

const pageSize = 25;
/** At most one re-read of the page per this while instances change. */
const lastRunRefreshMs = 3_000;
/** How often the page is re-read while the websocket is down. */
const lastRunFallbackMs = 10_000;
// The document cache refetches the list after a mutation that returns a
// Job; an empty list holds none, so it names the type up front.
const context = { additionalTypenames: ["Job"] };

export function JobsPage() {
  const app = useAppName();
  const canEdit = useCanEdit();
  const { search, typed, onType } = useListSearch();
  const pages = useCursorPages();
  const [running, setRunning] = useState<JobRowFragment | null>(null);
  const [deleting, setDeleting] = useState<JobRowFragment | null>(null);
  // Jobs chosen for a bulk action, by id (those of the page shown).
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());

  const [result, reexecute] = useQuery({
    query: JobsQuery,
    variables: { app, first: pageSize, after: pages.after, search: search || null },
    context,
  });
  // The last-run column follows the app's instances: each change re-reads
  // the page, at most once per window.
  useInstanceChanges({
    app,
    refresh: () => reexecute({ requestPolicy: "network-only" }),
    windowMs: lastRunRefreshMs,
    fallbackMs: lastRunFallbackMs,
  });

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t("jobs.JobsPage.jobs")}</Title>
        {canEdit && (
          <Button component={Link} to={appPath(app, "jobs", "new")}>{t("jobs.JobsPage.newJob")}</Button>
        )}
      </Group>
      <ListSearchField label={t("jobs.JobsPage.searchJobs")} placeholder={t("jobs.JobsPage.partOfAJob")} typed={typed} onType={onType} />
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("jobs.JobsPage.loadingJobs")}
        isEmpty={(data) => data.jobs.edges.length === 0}
        empty={<NoneFound app={app} kind="job" search={search} createPath={canEdit ? appPath(app, "jobs", "new") : null} />}
      >
        {(data) => {
          const jobs = data.jobs.edges.map((e) => e.node);
          return (
            <Stack>
              {canEdit && (
                <BulkBar
                  jobs={jobs}
                  selected={jobs.filter((j) => selected.has(j.id))}
                  onSelect={(ids) => setSelected(new Set(ids))}
                  onDone={() => reexecute({ requestPolicy: "network-only" })}
                />
              )}
              <JobsTable
                app={app}
                jobs={jobs}
                canEdit={canEdit}
                onRun={setRunning}
                onDelete={setDeleting}
                selected={selected}
                onSelect={(ids) => setSelected(new Set(ids))}
              />
              <ConnectionPager pages={pages} pageInfo={data.jobs.pageInfo} />
            </Stack>
          );
        }}
      </QueryView>
      {/* Keyed by job, so one job's outcome never shows for another. */}
      {canEdit && (
        <>
          <RunJobDialog key={`run-${running?.id ?? ""}`} app={app} job={running} onClose={() => setRunning(null)} />
          <DeleteJobDialog key={`delete-${deleting?.id ?? ""}`} job={deleting} onClose={() => setDeleting(null)} />
        </>
      )}
    </Stack>
  );
}
