import type { ComponentType } from "react";
import { AppsPage } from "./apps/AppsPage";
import { AuditPage } from "./audit/AuditPage";
import { CalendarsPage } from "./calendars/CalendarsPage";
import { DashboardPage } from "./dashboard/DashboardPage";
import { InstancePage } from "./instances/InstancePage";
import { InstancesPage } from "./instances/InstancesPage";
import { PoolsPage } from "./pools/PoolsPage";
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
  { path: "apps", label: "Apps", Component: AppsPage },
  // The first per-app screen is where /apps/:app and the app picker lead.
  { path: "dashboard", label: "Dashboard", Component: DashboardPage, perApp: true },
  {
    path: "jobs",
    label: "Jobs",
    Component: JobsPage,
    perApp: true,
    pages: [
      { path: "new", title: "New job", Component: NewJobPage },
      { path: ":jobId", title: "Job", Component: JobPage },
      { path: ":jobId/edit", title: "Edit job", Component: EditJobPage },
      { path: ":jobId/versions", title: "Job versions", Component: JobVersionsPage },
      { path: ":jobId/alarms", title: "Job alarms", Component: JobAlarmsPage },
    ],
  },
  {
    path: "instances",
    label: "Instances",
    Component: InstancesPage,
    perApp: true,
    pages: [{ path: ":instanceId", title: "Instance", Component: InstancePage }],
  },
  {
    path: "workflows",
    label: "Workflows",
    Component: WorkflowsPage,
    perApp: true,
    pages: [
      { path: "new", title: "New workflow", Component: NewWorkflowPage },
      { path: ":workflowId", title: "Workflow", Component: WorkflowPage },
    ],
  },
  {
    // Its own URL, so alarms and other tools can link to a run.
    path: "workflow-instances",
    label: "Workflow runs",
    Component: WorkflowRunsPage,
    perApp: true,
    navUnder: "workflows",
    pages: [{ path: ":runId", title: "Workflow run", Component: WorkflowRunPage }],
  },
  { path: "calendars", label: "Calendars", Component: CalendarsPage, perApp: true },
  { path: "pools", label: "Pools", Component: PoolsPage, perApp: true },
  { path: "workers", label: "Workers", Component: WorkersPage, perApp: true },
  { path: "settings", label: "Settings", Component: AppSettingsPage, perApp: true },
  { path: "audit", label: "Audit", Component: AuditPage, perApp: true },
  { path: "servers", label: "Servers", Component: ServersPage },
  { path: "users", label: "Users", Component: UsersPage, adminOnly: true },
  { path: "tokens", label: "API tokens", Component: ApiTokensPage },
];
