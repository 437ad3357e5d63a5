import { Anchor, Stack, Title } from "@mantine/core";
import { Link } from "react-router";
import { appPath, useAppName } from "../apps/currentApp";
import { WorkflowRuns } from "./WorkflowRuns";

/** /apps/:app/workflow-instances: the app's top-level workflow runs. */
export function WorkflowRunsPage() {
  const app = useAppName();
  return (
    <Stack>
      <Anchor component={Link} to={appPath(app, "workflows")} size="sm">
        ← Workflows
      </Anchor>
      <Title order={2}>Workflow runs</Title>
      <WorkflowRuns app={app} />
    </Stack>
  );
}
