import { Alert, Anchor, Stack, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import type { ReactNode } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { useMutation, useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { canEdit, useAppRole } from "../apps/useAppRole";
import { QueryView } from "../components/QueryView";
import { Truncated } from "../components/Truncated";
import type { JobInput } from "../graphql/graphql";
import { JobForm } from "./JobForm";
import { JobHeader } from "./JobHeader";
import { jobValues, newJobValues, type JobFormValues } from "./jobForm";
import { CreateJobMutation, JobQuery, UpdateJobMutation } from "./operations";
import { t } from "../i18n";

function BackToJobs({ app }: { app: string }) {
  return (
    <Anchor component={Link} to={appPath(app, "jobs")} size="sm">{t("jobs.JobFormPage.jobs")}</Anchor>
  );
}

/** /apps/:app/jobs/new, or ?from=<job id> to start from a copy of that job. */
export function NewJobPage() {
  const app = useAppName();
  const role = useAppRole();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const from = params.get("from");
  const [, createJob] = useMutation(CreateJobMutation);

  async function save(input: JobInput) {
    const result = await createJob({ input });
    if (result.data) {
      notifications.show({ color: "teal", message: t("jobs.JobFormPage.createdTheJob"), title: <Truncated text={result.data.createJob.name} /> });
      await navigate(appPath(app, "jobs"));
    }
    return result;
  }

  const form = (initialValues: JobFormValues) => (
    <JobForm
      app={app}
      initialValues={initialValues}
      submitLabel={t("jobs.JobFormPage.createJob")}
      onSave={save}
      onCancel={() => void navigate(appPath(app, "jobs"))}
    />
  );

  return (
    <Stack>
      <BackToJobs app={app} />
      <Title order={2}>{t("jobs.JobFormPage.newJob")}</Title>
      {!canEdit(role) ? (
        <Text>{t("jobs.JobFormPage.yourRoleOnApp", { app: app, value: role ?? t("common.none") })}</Text>
      ) : from ? (
        <CopyOf app={app} jobId={from}>
          {form}
        </CopyOf>
      ) : (
        form(newJobValues())
      )}
    </Stack>
  );
}

/** Loads the job a new one copies and hands its values, renamed, to children. */
function CopyOf({
  app,
  jobId,
  children,
}: {
  app: string;
  jobId: string;
  children: (values: JobFormValues) => ReactNode;
}) {
  const [result, reexecute] = useQuery({ query: JobQuery, variables: { id: jobId } });
  return (
    <QueryView
      result={result}
      onRetry={() => reexecute({ requestPolicy: "network-only" })}
      loading={t("jobs.JobFormPage.loadingTheJobTo")}
      isEmpty={(data) => !data.job || data.job.app.name !== app}
      empty={<>{t("jobs.JobFormPage.thereIsNoJob", { jobId: jobId, app: app })}</>}
    >
      {({ job }) =>
        job && (
          <Stack>
            <Text size="sm" c="dimmed" style={{ overflowWrap: "anywhere" }}>{t("jobs.JobFormPage.aCopyOfJob", { name: job.name })}</Text>
            {children({ ...jobValues(job), name: copyName(job.name) })}
          </Stack>
        )
      }
    </QueryView>
  );
}

/** "nightly" → "nightly-copy", kept within the 128 characters a name may have. */
export function copyName(name: string): string {
  return `${name.slice(0, 128 - "-copy".length)}-copy`;
}

/** /apps/:app/jobs/:jobId/edit: the job's Edit tab (Definition, read-only, for a VIEWER). */
export function EditJobPage() {
  const app = useAppName();
  const { jobId = "" } = useParams();
  const role = useAppRole();
  const readOnly = !canEdit(role);
  const navigate = useNavigate();
  // Edit what the server has now, not what a list cached a while ago.
  const [result, reexecute] = useQuery({ query: JobQuery, variables: { id: jobId }, requestPolicy: "network-only" });
  const [, updateJob] = useMutation(UpdateJobMutation);
  const overview = appPath(app, "jobs", jobId);

  async function save(input: JobInput) {
    const out = await updateJob({ id: jobId, input });
    if (out.data) {
      notifications.show({ color: "teal", message: t("jobs.JobFormPage.savedTheJob"), title: <Truncated text={out.data.updateJob.name} /> });
      await navigate(overview);
    }
    return out;
  }

  return (
    <QueryView
      result={result}
      onRetry={() => reexecute({ requestPolicy: "network-only" })}
      loading={t("jobs.JobFormPage.loadingTheJob")}
      isEmpty={(data) => !data.job || data.job.app.name !== app}
      empty={<>{t("jobs.JobFormPage.thereIsNoJob2", { jobId: jobId, app: app })}</>}
    >
      {({ job }) =>
        job && (
          <Stack>
            <JobHeader app={app} job={job} tab="edit" />
            {!readOnly && job.managedBy && job.managedSource === "FILES" && (
              <Alert color="yellow" title={t("jobs.JobFormPage.thisJobIsManaged")} role="alert">{t("jobs.JobFormPage.itIsAppliedFrom", { managedBy: job.managedBy })}</Alert>
            )}
            {!readOnly && job.managedBy && job.managedSource !== "FILES" && (
              <Alert color="yellow" title={t("jobs.JobFormPage.thisJobIsManaged2")} role="alert">{t("jobs.JobFormPage.itIsDeclaredIn", { managedBy: job.managedBy })}</Alert>
            )}
            {!readOnly && (
              <Text size="sm" c="dimmed">{t("jobs.JobFormPage.savingReplacesTheJob")}</Text>
            )}
            {/* Keyed by version, so a reload starts from what was saved. */}
            <JobForm
              key={job.updatedAt}
              app={app}
              initialValues={jobValues(job)}
              submitLabel={t("jobs.JobFormPage.saveJob")}
              onSave={save}
              onCancel={() => void navigate(overview)}
              readOnly={readOnly}
            />
          </Stack>
        )
      }
    </QueryView>
  );
}
