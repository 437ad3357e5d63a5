import { Anchor, Stack, Title } from "@mantine/core";
import { Link } from "react-router";
import { appPath, useAppName } from "../apps/currentApp";
import { WorkflowRuns } from "./WorkflowRuns";
import { t } from "../i18n";

/** /apps/:app/workflow-instances: the app's top-level workflow runs. */
export function WorkflowRunsPage() {
  const app = useAppName();
  return (
    <Stack>
      <Anchor component={Link} to={appPath(app, "workflows")} size="sm">{t("workflows.WorkflowRunsPage.workflows")}</Anchor>
      <Title order={2}>{t("workflows.WorkflowRunsPage.workflowRuns")}</Title>
      <WorkflowRuns app={app} />
    </Stack>
  );
}
