import { useState } from "react";
import { Anchor, Badge, Button, Group, Stack, Tabs, Text, Title } from "@mantine/core";
import { Link, useNavigate } from "react-router";
import { appPath } from "../apps/currentApp";
import { canEdit, useAppRole } from "../apps/useAppRole";
import { ManagedBadge } from "../components/ManagedBadge";
import type { JobFieldsFragment } from "../graphql/graphql";
import { DeleteJobDialog } from "./DeleteJobDialog";
import { EnabledSwitch } from "./EnabledSwitch";
import { RunJobDialog } from "./RunJobDialog";
import { t } from "../i18n";

export type JobTab = "overview" | "edit" | "versions" | "alarms";

interface JobHeaderProps {
  app: string;
  job: Pick<JobFieldsFragment, "id" | "name" | "enabled" | "description" | "scheduleType"> &
    Partial<Pick<JobFieldsFragment, "managedBy" | "managedSource">>;
  tab: JobTab;
}

/**
 * What every page of one job starts with: its name, what may be done with
 * it (run now, enable or disable, duplicate, delete, for editors), and the
 * tabs Overview and Edit (Definition, read-only, for viewers).
 */
export function JobHeader({ app, job, tab }: JobHeaderProps) {
  const role = useAppRole();
  const editor = canEdit(role);
  const navigate = useNavigate();
  const [running, setRunning] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const overview = appPath(app, "jobs", job.id);

  return (
    <Stack gap="sm">
      <Anchor component={Link} to={appPath(app, "jobs")} size="sm" w="fit-content">{t("jobs.JobHeader.jobs")}</Anchor>
      {/* On a narrow screen the actions go below the name, which wraps whole: the page always says which job it is. */}
      <Group justify="space-between" align="flex-start" gap="md">
        <Stack gap={4} miw={0} style={{ flex: "1 1 420px" }}>
          <Group gap="sm" wrap="nowrap" miw={0} align="flex-start">
            <Title order={2} miw={0} style={{ overflowWrap: "anywhere" }}>
              {t("jobs.JobHeader.title", { name: job.name })}
            </Title>
            {editor ? (
              <EnabledSwitch job={job} label />
            ) : (
              <Badge variant="outline" color={job.enabled ? "teal" : "gray"} style={{ flexShrink: 0 }}>
                {job.enabled ? t("jobs.JobHeader.enabled") : t("jobs.JobHeader.disabled")}
              </Badge>
            )}
          </Group>
          <ManagedBadge managedBy={job.managedBy} managedSource={job.managedSource} />
          {job.description && (
            <Text size="sm" c="dimmed" lineClamp={2} title={job.description}>
              {job.description}
            </Text>
          )}
          {!editor && (
            <Text size="sm" c="dimmed">{t("jobs.JobHeader.yourRoleOnApp", { app: app, value: role ?? t("common.none") })}</Text>
          )}
        </Stack>
        <Group gap="xs" style={{ flexShrink: 0 }}>
          {editor && job.scheduleType !== "WORKFLOW" && (
            <Button onClick={() => setRunning(true)} aria-label={t("jobs.JobHeader.runNow2", { name: job.name })}>{t("jobs.JobHeader.runNow")}</Button>
          )}
          <Button variant="default" component={Link} to={appPath(app, "instances") + `?job=${job.id}`}>{t("jobs.JobHeader.instances")}</Button>
          {editor && (
            <>
              <Button variant="default" component={Link} to={appPath(app, "jobs", "new") + `?from=${job.id}`}>{t("jobs.JobHeader.duplicate")}</Button>
              <Button variant="subtle" color="red" onClick={() => setDeleting(true)} aria-label={t("jobs.JobHeader.delete2", { name: job.name })}>{t("jobs.JobHeader.delete")}</Button>
            </>
          )}
        </Group>
      </Group>
      <Tabs
        value={tab}
        onChange={(value) =>
          void navigate(value === "overview" ? overview : appPath(app, "jobs", job.id, value ?? "edit"))
        }
      >
        <Tabs.List>
          <Tabs.Tab value="overview">{t("jobs.JobHeader.overview")}</Tabs.Tab>
          <Tabs.Tab value="edit">{editor ? t("jobs.JobHeader.edit") : t("jobs.JobHeader.definition")}</Tabs.Tab>
          <Tabs.Tab value="versions">{t("jobs.JobHeader.versions")}</Tabs.Tab>
          <Tabs.Tab value="alarms">{t("jobs.JobHeader.alarms")}</Tabs.Tab>
        </Tabs.List>
      </Tabs>
      {editor && (
        <>
          <RunJobDialog key={`run-${String(running)}`} app={app} job={running ? job : null} onClose={() => setRunning(false)} />
          <DeleteJobDialog
            job={deleting ? job : null}
            onClose={() => setDeleting(false)}
            onDeleted={() => void navigate(appPath(app, "jobs"))}
          />
        </>
      )}
    </Stack>
  );
}
