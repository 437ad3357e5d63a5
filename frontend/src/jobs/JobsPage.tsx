import { useState } from "react";
import { Button, Group, Stack, Text, TextInput, Title } from "@mantine/core";
import { useDebouncedCallback } from "@mantine/hooks";
import { Link, useSearchParams } from "react-router";
import { useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { useCanEdit } from "../apps/useAppRole";
import { CursorPager, useCursorPages, withoutCursor } from "../components/CursorPager";
import { QueryView } from "../components/QueryView";
import type { JobRowFragment } from "../graphql/graphql";
import { useInstanceChanges } from "../instances/useInstanceChanges";
import { DeleteJobDialog } from "./DeleteJobDialog";
import { JobsTable } from "./JobsTable";
import { RunJobDialog } from "./RunJobDialog";
import { JobsQuery } from "./operations";

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
  const [params, setParams] = useSearchParams();
  const search = params.get("q") ?? "";
  const [typed, setTyped] = useState(search);
  const pages = useCursorPages();
  const [running, setRunning] = useState<JobRowFragment | null>(null);
  const [deleting, setDeleting] = useState<JobRowFragment | null>(null);

  // The search goes to the server (and the URL) once typing pauses.
  const applySearch = useDebouncedCallback((value: string) => {
    setParams(
      (p) => {
        // A new search starts again at the first page.
        withoutCursor(p);
        if (value.trim()) p.set("q", value.trim());
        else p.delete("q");
        return p;
      },
      { replace: true },
    );
  }, 300);

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
        <Title order={2}>Jobs</Title>
        {canEdit && (
          <Button component={Link} to={appPath(app, "jobs", "new")}>
            New job
          </Button>
        )}
      </Group>
      <TextInput
        label="Search jobs"
        placeholder="Part of a job's name"
        type="search"
        maw={360}
        value={typed}
        onChange={(e) => {
          setTyped(e.currentTarget.value);
          applySearch(e.currentTarget.value);
        }}
      />
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading="Loading jobs"
        isEmpty={(data) => data.jobs.edges.length === 0}
        empty={
          search ? (
            <>No job’s name contains “{search}”.</>
          ) : (
            <>
              App {app} has no jobs yet.
              {canEdit && (
                <>
                  {" "}
                  <Text component={Link} to={appPath(app, "jobs", "new")} c="blue" inherit>
                    Create one
                  </Text>
                  .
                </>
              )}
            </>
          )
        }
      >
        {(data) => (
          <Stack>
            <JobsTable
              app={app}
              jobs={data.jobs.edges.map((e) => e.node)}
              canEdit={canEdit}
              onRun={setRunning}
              onDelete={setDeleting}
            />
            <CursorPager
              page={pages.page}
              hasNextPage={data.jobs.pageInfo.hasNextPage}
              onPrevious={pages.previous}
              onNext={() => {
                const cursor = data.jobs.pageInfo.endCursor;
                if (cursor) pages.next(cursor);
              }}
            />
          </Stack>
        )}
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
