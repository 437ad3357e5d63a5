import { useState } from "react";
import { Alert, Badge, Button, Code, Group, Paper, Select, Stack, Table, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useParams } from "react-router";
import { useMutation, useQuery } from "urql";
import { errorMessage } from "../api/errors";
import { useAppName } from "../apps/currentApp";
import { canEdit, useAppRole } from "../apps/useAppRole";
import { QueryView } from "../components/QueryView";
import type { JobVersionsQuery } from "../graphql/graphql";
import { JobHeader } from "./JobHeader";
import { showValue } from "../audit/AuditTable";
import { changedValues, lineDiff } from "./lineDiff";
import { JobQuery, JobVersionsQuery as VersionsQuery, RestoreJobVersionMutation } from "./operations";
import { locale, t } from "../i18n";

type Version = NonNullable<JobVersionsQuery["job"]>["versions"][number];

const colors = { same: undefined, removed: "var(--mantine-color-red-light)", added: "var(--mantine-color-teal-light)" };
const marks = { same: " ", removed: "-", added: "+" };

/** The script (or processor) diff of two versions, line by line. */
export function ScriptDiff({ before, after }: { before: string; after: string }) {
  const lines = lineDiff(before, after);
  if (before === after) {
    return (
      <Text size="sm" c="dimmed">{t("jobs.JobVersionsPage.theProcessorIsThe")}</Text>
    );
  }
  return (
    <Paper withBorder radius="sm" p={0} style={{ overflowX: "auto" }} aria-label={t("jobs.JobVersionsPage.processorDiff")} role="region">
      <pre style={{ margin: 0, fontSize: 12, fontFamily: "var(--mantine-font-family-monospace)" }}>
        {lines.map((l, i) => (
          <div key={i} data-kind={l.kind} style={{ background: colors[l.kind], padding: "0 8px" }}>
            {marks[l.kind]} {l.text}
          </div>
        ))}
      </pre>
    </Paper>
  );
}

/** Each value that differs between two versions, before and after, as the audit log shows a change. */
function ChangedValues({ before, after, from, to }: { before: Record<string, unknown>; after: Record<string, unknown>; from: number; to: number }) {
  const changes = changedValues(before, after);
  if (changes.length === 0) {
    return (
      <Text size="sm" c="dimmed">{t("jobs.JobVersionsPage.noFieldDiffers")}</Text>
    );
  }
  return (
    <Table withTableBorder verticalSpacing={4} fz="sm" aria-label={t("jobs.JobVersionsPage.changedFields")}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t("jobs.JobVersionsPage.field")}</Table.Th>
          <Table.Th>{t("jobs.JobVersionsPage.inVersion", { version: from })}</Table.Th>
          <Table.Th>{t("jobs.JobVersionsPage.inVersion", { version: to })}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {changes.map((c) => (
          <Table.Tr key={c.field}>
            <Table.Td>
              <Code>{c.field}</Code>
            </Table.Td>
            {c.field === "processor" ? (
              <Table.Td colSpan={2} c="dimmed">{t("jobs.JobVersionsPage.seeTheDiffBelow")}</Table.Td>
            ) : (
              <>
                <Table.Td ff="monospace" c="red" style={{ wordBreak: "break-word" }}>
                  {showValue(c.before)}
                </Table.Td>
                <Table.Td ff="monospace" c="teal" style={{ wordBreak: "break-word" }}>
                  {showValue(c.after)}
                </Table.Td>
              </>
            )}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** /apps/:app/jobs/:jobId/versions: the job's versions, a diff between two, and restore. */
export function JobVersionsPage() {
  const app = useAppName();
  const { jobId = "" } = useParams();
  const editor = canEdit(useAppRole());
  const [header] = useQuery({ query: JobQuery, variables: { id: jobId } });
  const [result, reexecute] = useQuery({ query: VersionsQuery, variables: { id: jobId }, requestPolicy: "network-only" });
  const [restoring, restore] = useMutation(RestoreJobVersionMutation);
  const [picked, setPicked] = useState<{ from: string | null; to: string | null }>({ from: null, to: null });

  async function doRestore(v: Version) {
    const out = await restore({ id: jobId, version: v.version });
    if (out.data) {
      notifications.show({ color: "teal", message: t("jobs.JobVersionsPage.restoredVersionAsVersion", { version: v.version, version2: out.data.restoreJobVersion.version }) });
      reexecute({ requestPolicy: "network-only" });
    }
  }

  return (
    <Stack>
      {header.data?.job && <JobHeader app={app} job={header.data.job} tab="versions" />}
      <QueryView result={result} onRetry={() => reexecute({ requestPolicy: "network-only" })} loading={t("jobs.JobVersionsPage.loadingTheVersions")} isEmpty={(d) => !d.job} empty={<>{t("jobs.JobVersionsPage.thereIsNoJob", { jobId: jobId })}</>}>
        {({ job }) => {
          if (!job) return null;
          const versions = job.versions;
          const byNumber = (s: string | null) => versions.find((v) => String(v.version) === s);
          const to = byNumber(picked.to) ?? versions[0];
          const from = byNumber(picked.from) ?? versions.find((v) => to && v.version < to.version);
          const options = versions.map((v) => ({ value: String(v.version), label: t("jobs.JobVersionsPage.version", { version: v.version }) }));
          return (
            <Stack>
              {restoring.error && (
                <Alert color="red" title={t("jobs.JobVersionsPage.couldNotRestoreThe")} role="alert">
                  {errorMessage(restoring.error)}
                </Alert>
              )}
              <Table striped aria-label={t("jobs.JobVersionsPage.versions")}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t("jobs.JobVersionsPage.version2")}</Table.Th>
                    <Table.Th>{t("jobs.JobVersionsPage.change")}</Table.Th>
                    <Table.Th>{t("jobs.JobVersionsPage.by")}</Table.Th>
                    <Table.Th>{t("jobs.JobVersionsPage.when")}</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {versions.map((v) => (
                    <Table.Tr key={v.version}>
                      <Table.Td>
                        {v.version} {v.version === job.version && <Badge size="xs">{t("jobs.JobVersionsPage.current")}</Badge>}
                      </Table.Td>
                      <Table.Td>{v.change}</Table.Td>
                      <Table.Td>{v.author || "—"}</Table.Td>
                      <Table.Td>{new Date(v.createdAt).toLocaleString(locale())}</Table.Td>
                      <Table.Td>
                        {editor && v.version !== job.version && (
                          <Button size="xs" variant="default" loading={restoring.fetching} onClick={() => void doRestore(v)} aria-label={t("jobs.JobVersionsPage.restoreVersion", { version: v.version })}>{t("jobs.JobVersionsPage.restore")}</Button>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
              {from && to && (
                <Stack gap="xs">
                  <Group>
                    <Select label={t("jobs.JobVersionsPage.compare")} data={options} value={String(from.version)} onChange={(v) => setPicked((p) => ({ ...p, from: v }))} allowDeselect={false} w={160} />
                    <Select label={t("jobs.JobVersionsPage.with")} data={options} value={String(to.version)} onChange={(v) => setPicked((p) => ({ ...p, to: v }))} allowDeselect={false} w={160} />
                  </Group>
                  <ChangedValues
                    before={from.definition as Record<string, unknown>}
                    after={to.definition as Record<string, unknown>}
                    from={from.version}
                    to={to.version}
                  />
                  <ScriptDiff before={from.processor} after={to.processor} />
                </Stack>
              )}
            </Stack>
          );
        }}
      </QueryView>
    </Stack>
  );
}
