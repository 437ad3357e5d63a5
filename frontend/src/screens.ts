import type { ComponentType } from "react";
import { AppsPage } from "./apps/AppsPage";
import { AuditPage } from "./audit/AuditPage";
import { CalendarsPage } from "./calendars/CalendarsPage";
import { DashboardPage } from "./dashboard/DashboardPage";
import { InstancePage } from "./instances/InstancePage";
import { InstancesPage } from "./instances/InstancesPage";
import { PoolsPage } from "./pools/PoolsPage";
import { OverviewPage } from "./reports/OverviewPage";
import { ReportsPage } from "./reports/ReportsPage";
import { EditJobPage, NewJobPage } from "./jobs/JobFormPage";
import { JobPage } from "./jobs/JobPage";
import { JobAlarmsPage } from "./jobs/JobAlarmsPage";
import { JobVersionsPage } from "./jobs/JobVersionsPage";
import { JobsPage } from "./jobs/JobsPage";
import { ServersPage } from "./servers/ServersPage";
import { AppSettingsPage } from "./settings/AppSettingsPage";
import { ApiTokensPage } from "./tokens/ApiTokensPage";
import { UsersPage } from "./users/UsersPage";
import { WorkersPage } from "./workers/WorkersPage";
import { WorkflowsPage } from "./workflows/WorkflowsPage";
import { NewWorkflowPage, WorkflowPage } from "./workflows/WorkflowPage";
import { WorkflowRunPage } from "./workflows/WorkflowRunPage";
import { WorkflowRunsPage } from "./workflows/WorkflowRunsPage";
import { t } from "./i18n";

/** A page below a screen, e.g. a job's edit page below Jobs. */
export interface Page {
  /** The path under the screen's, e.g. ":jobId/edit". */
  path: string;
  title: string;
  Component: ComponentType;
}

/** A console screen: its route, its navbar entry and its page title. */
export interface Screen {
  /** The URL path under the root (or under /apps/:app), which is also its deep link. */
  path: string;
  label: string;
  Component: ComponentType;
  /**
   * A screen of one app, at /apps/:app/<path>. Its navbar link opens the
   * app chosen in the header; /<path> goes to the app chosen last.
   */
  perApp?: boolean;
  /** Listed in the navbar for global administrators only (the page itself says so to others). */
  adminOnly?: boolean;
  /**
   * Not in the navbar but reached from the screen at this path, whose entry
   * it lights (its deep links work all the same): workflow runs from Workflows.
   */
  navUnder?: string;
  pages?: readonly Page[];
}

/**
 * The console's screens, in navbar order; the first is the home screen.
 * Adding a screen is adding its entry here. Only screens that exist are
 * listed, so the navbar never leads anywhere empty.
 */
export const screens: readonly [Screen, ...Screen[]] = [
  { path: "apps", label: t("app.screens.apps"), Component: AppsPage },
  // Across apps, for people who look after many.
  { path: "overview", label: t("app.screens.overview"), Component: OverviewPage },
  { path: "reports", label: t("app.screens.reports"), Component: ReportsPage },
  // The first per-app screen is where /apps/:app and the app picker lead.
  { path: "dashboard", label: t("app.screens.dashboard"), Component: DashboardPage, perApp: true },
  {
    path: "jobs",
    label: t("app.screens.jobs"),
    Component: JobsPage,
    perApp: true,
    pages: [
      { path: "new", title: t("app.screens.newJob"), Component: NewJobPage },
      { path: ":jobId", title: t("app.screens.job"), Component: JobPage },
      { path: ":jobId/edit", title: t("app.screens.editJob"), Component: EditJobPage },
      { path: ":jobId/versions", title: t("app.screens.jobVersions"), Component: JobVersionsPage },
      { path: ":jobId/alarms", title: t("app.screens.jobAlarms"), Component: JobAlarmsPage },
    ],
  },
  {
    path: "instances",
    label: t("app.screens.instances"),
    Component: InstancesPage,
    perApp: true,
    pages: [{ path: ":instanceId", title: t("app.screens.instance"), Component: InstancePage }],
  },
  {
    path: "workflows",
    label: t("app.screens.workflows"),
    Component: WorkflowsPage,
    perApp: true,
    pages: [
      { path: "new", title: t("app.screens.newWorkflow"), Component: NewWorkflowPage },
      { path: ":workflowId", title: t("app.screens.workflow"), Component: WorkflowPage },
    ],
  },
  {
    // Its own URL, so alarms and other tools can link to a run.
    path: "workflow-instances",
    label: t("app.screens.workflowRuns"),
    Component: WorkflowRunsPage,
    perApp: true,
    navUnder: "workflows",
    pages: [{ path: ":runId", title: t("app.screens.workflowRun"), Component: WorkflowRunPage }],
  },
  { path: "calendars", label: t("app.screens.calendars"), Component: CalendarsPage, perApp: true },
  { path: "pools", label: t("app.screens.pools"), Component: PoolsPage, perApp: true },
  { path: "workers", label: t("app.screens.workers"), Component: WorkersPage, perApp: true },
  { path: "settings", label: t("app.screens.settings"), Component: AppSettingsPage, perApp: true },
  { path: "audit", label: t("app.screens.audit"), Component: AuditPage, perApp: true },
  { path: "servers", label: t("app.screens.servers"), Component: ServersPage },
  { path: "users", label: t("app.screens.users"), Component: UsersPage, adminOnly: true },
  { path: "tokens", label: t("app.screens.apiTokens"), Component: ApiTokensPage },
];
