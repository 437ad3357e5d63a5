import { Anchor, Button, Group, Stack, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import type { ReactNode } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { useMutation, useQuery } from "urql";
import { appPath, useAppName } from "../apps/currentApp";
import { canEdit, useAppRole } from "../apps/useAppRole";
import { QueryView } from "../components/QueryView";
import type { JobInput } from "../graphql/graphql";
import { JobForm } from "./JobForm";
import { jobValues, newJobValues, type JobFormValues } from "./jobForm";
import { CreateJobMutation, JobQuery, UpdateJobMutation } from "./operations";

function BackToJobs({ app }: { app: string }) {
  return (
    <Anchor component={Link} to={appPath(app, "jobs")} size="sm">
      ← Jobs
    </Anchor>
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
      notifications.show({ color: "teal", message: `Created job ${result.data.createJob.name}.` });
      await navigate(appPath(app, "jobs"));
    }
    return result;
  }

  const form = (initialValues: JobFormValues) => (
    <JobForm
      app={app}
      initialValues={initialValues}
      submitLabel="Create job"
      onSave={save}
      onCancel={() => void navigate(appPath(app, "jobs"))}
    />
  );

  return (
    <Stack>
      <BackToJobs app={app} />
      <Title order={2}>New job</Title>
      {!canEdit(role) ? (
        <Text>
          Your role on app {app} is {role ?? "none"}: it lets you see the jobs, not create them.
        </Text>
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
      loading="Loading the job to copy"
      isEmpty={(data) => !data.job || data.job.app.name !== app}
      empty={<>There is no job {jobId} in app {app} to copy.</>}
    >
      {({ job }) =>
        job && (
          <Stack>
            <Text size="sm" c="dimmed">
              A copy of job {job.name}: change what differs, and give it a name of its own.
            </Text>
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

/** /apps/:app/jobs/:jobId/edit */
export function EditJobPage() {
  const app = useAppName();
  const { jobId = "" } = useParams();
  const role = useAppRole();
  const readOnly = !canEdit(role);
  const navigate = useNavigate();
  // Edit what the server has now, not what a list cached a while ago.
  const [result, reexecute] = useQuery({ query: JobQuery, variables: { id: jobId }, requestPolicy: "network-only" });
  const [, updateJob] = useMutation(UpdateJobMutation);

  async function save(input: JobInput) {
    const out = await updateJob({ id: jobId, input });
    if (out.data) {
      notifications.show({ color: "teal", message: `Saved job ${out.data.updateJob.name}.` });
      await navigate(appPath(app, "jobs"));
    }
    return out;
  }

  return (
    <Stack>
      <BackToJobs app={app} />
      <QueryView
        result={result}
        onRetry={() => reexecute({ requestPolicy: "network-only" })}
        loading="Loading the job"
        isEmpty={(data) => !data.job || data.job.app.name !== app}
        empty={<>There is no job {jobId} in app {app}.</>}
      >
        {({ job }) =>
          job && (
            <Stack>
              <Group justify="space-between" align="flex-end">
                <div>
                  <Title order={2}>{readOnly ? `Job ${job.name}` : `Edit job ${job.name}`}</Title>
                  <Text size="sm" c="dimmed">
                    {readOnly
                      ? `Your role on app ${app} is ${role ?? "none"}: you can see this job, not change or run it.`
                      : "Saving replaces the job's definition; its next fire is computed afresh."}
                  </Text>
                </div>
                <Group gap="xs">
                  {!readOnly && (
                    <Button variant="default" component={Link} to={appPath(app, "jobs", "new") + `?from=${job.id}`}>
                      Duplicate
                    </Button>
                  )}
                  <Button variant="default" component={Link} to={appPath(app, "instances") + `?job=${job.id}`}>
                    Instances
                  </Button>
                </Group>
              </Group>
              {/* Keyed by version, so a reload starts from what was saved. */}
              <JobForm
                key={job.updatedAt}
                app={app}
                initialValues={jobValues(job)}
                submitLabel="Save job"
                onSave={save}
                onCancel={() => void navigate(appPath(app, "jobs"))}
                readOnly={readOnly}
              />
            </Stack>
          )
        }
      </QueryView>
    </Stack>
  );
}
