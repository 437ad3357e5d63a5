import { Stack, Text, Title } from "@mantine/core";
import { useQuery } from "urql";
import { useAppName } from "../apps/currentApp";
import { CursorPager, useCursorPages } from "../components/CursorPager";
import { QueryView } from "../components/QueryView";
import { useKeptData } from "../components/useKeptData";
import { AuditTable } from "./AuditTable";
import { AuditLogQuery } from "./operations";
import { t } from "../i18n";

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
        <Title order={2}>{t("audit.AuditPage.auditLog")}</Title>
        <Text c="dimmed" size="sm">{t("audit.AuditPage.everyChangeMadeTo", { app: app })}</Text>
      </div>
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading={t("audit.AuditPage.loadingTheAuditLog")}
        isEmpty={(data) => data.auditLog.edges.length === 0}
        empty={<>{t("audit.AuditPage.nothingHasBeenChanged", { app: app })}</>}
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
