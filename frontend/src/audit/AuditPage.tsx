import { Stack, Text, Title } from "@mantine/core";
import { useQuery } from "urql";
import { useAppName } from "../apps/currentApp";
import { CursorPager, useCursorPages } from "../components/CursorPager";
import { QueryView } from "../components/QueryView";
import { useKeptData } from "../components/useKeptData";
import { AuditTable } from "./AuditTable";
import { AuditLogQuery } from "./operations";

export const auditPageSize = 50;

/** The app's audit log: every change made through the API, newest first. */
export function AuditPage() {
  const app = useAppName();
  const pages = useCursorPages();
  const [fetched, reexecute] = useQuery({
    query: AuditLogQuery,
    variables: { app, first: auditPageSize, after: pages.after },
    requestPolicy: "cache-and-network",
  });
  const result = useKeptData(fetched);
  return (
    <Stack>
      <div>
        <Title order={2}>Audit log</Title>
        <Text c="dimmed" size="sm">
          Every change made to app {app} through the console or the API: who made it, when, and the fields it changed
          (secrets are never recorded). Refused attempts are listed with their error.
        </Text>
      </div>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading="Loading the audit log"
        isEmpty={(data) => data.auditLog.edges.length === 0}
        empty={<>Nothing has been changed in app {app} yet.</>}
      >
        {(data) => (
          <>
            <AuditTable app={app} entries={data.auditLog.edges.map((e) => e.node)} />
            <CursorPager
              page={pages.page}
              pageCount={Math.max(1, Math.ceil(data.auditLog.totalCount / auditPageSize))}
              hasNextPage={data.auditLog.pageInfo.hasNextPage}
              onPrevious={pages.previous}
              onNext={() => {
                const cursor = data.auditLog.pageInfo.endCursor;
                if (cursor) pages.next(cursor);
              }}
            />
          </>
        )}
      </QueryView>
    </Stack>
  );
}
