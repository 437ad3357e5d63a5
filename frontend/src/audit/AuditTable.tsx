import { Badge, Code, Table, Text } from "@mantine/core";
import { Link } from "react-router";
import type { AuditRowFragment } from "../graphql/graphql";
import { locale, t } from "../i18n";

/** A value as the log shows it: JSON, shortened when long. */
export function showValue(v: unknown): string {
  if (v === null || v === undefined) return "—";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > 120 ? s.slice(0, 117) + "…" : s;
}

/** Where the object of an entry is shown in the console, when it is. */
function objectLink(app: string, e: AuditRowFragment): string | null {
  if (!e.objectId) return null;
  switch (e.objectType) {
    case "job":
      return e.action === "deleteJob" ? null : `/apps/${encodeURIComponent(app)}/jobs/${e.objectId}`;
    case "instance":
      return `/apps/${encodeURIComponent(app)}/instances/${e.objectId}`;
    default:
      return null;
  }
}

function Changes({ entry }: { entry: AuditRowFragment }) {
  if (entry.changes.length === 0) return <Text c="dimmed">—</Text>;
  return (
    <div>
      {entry.changes.map((c) => (
        <Text key={c.field} size="xs">
          <Code>{c.field}</Code> {c.before !== null && c.before !== undefined && <>{showValue(c.before)} → </>}
          {showValue(c.after)}
        </Text>
      ))}
    </div>
  );
}

export function AuditTable({ app, entries }: { app: string; entries: AuditRowFragment[] }) {
  return (
    // Long names and values wrap in their cells; on a narrow screen the table scrolls, never the page.
    <Table.ScrollContainer minWidth={720}>
      <Table striped verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t("audit.AuditTable.when")}</Table.Th>
            <Table.Th>{t("audit.AuditTable.who")}</Table.Th>
            <Table.Th>{t("audit.AuditTable.action")}</Table.Th>
            <Table.Th>{t("audit.AuditTable.object")}</Table.Th>
            <Table.Th>{t("audit.AuditTable.outcome")}</Table.Th>
            <Table.Th>{t("audit.AuditTable.changes")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {entries.map((e) => {
            const link = objectLink(app, e);
            const name = e.objectName || e.objectId;
            return (
              <Table.Tr key={e.id}>
                <Table.Td>
                  <Text size="sm">{new Date(e.time).toLocaleString(locale())}</Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{e.actor || t("common.anonymous")}</Text>
                  {e.tokenName && (
                    <Text size="xs" c="dimmed">{t("audit.AuditTable.token", { tokenName: e.tokenName })}</Text>
                  )}
                  {e.clientAddress && (
                    <Text size="xs" c="dimmed">
                      {e.clientAddress}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  <Code>{e.action}</Code>
                </Table.Td>
                <Table.Td maw={240} style={{ overflowWrap: "anywhere" }}>
                  <Text size="sm">
                    {e.objectType && <>{e.objectType.replace("_", " ")} </>}
                    {link ? <Link to={link}>{name}</Link> : name}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Badge color={e.outcome === "OK" ? "green" : "red"} variant="light">
                    {e.outcome}
                  </Badge>
                  {/* Why it was refused, as its caller was told. */}
                  {e.error && (
                    <Text size="xs" c="red" mt={4} maw={320} style={{ overflowWrap: "anywhere" }} data-testid="audit-error">
                      {e.error}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td maw={380} style={{ overflowWrap: "anywhere" }}>
                  <Changes entry={e} />
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
