package e2e

import (
	"testing"

	"github.com/jobwheel/jobwheel/e2e/harness"
)

// TestConsoleLiveBrowser drives the console's live screens in Chromium
// against a real server and agent: the dashboard's counts and outcomes
// chart after some runs, an instance's log lines arriving through the
// instanceLogs subscription while it is RUNNING, the Instances list
// following instanceUpdated, a 1024×768 window and dark mode.
func TestConsoleLiveBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	cl := newCluster(t, "", 1)
	runBrowserTest(t, "console-live.test.mjs", chromium, cl.srv, "APP="+cl.app)
}

// TestConsoleViewerBrowser creates a VIEWER of the app through the API,
// logs in as them in Chromium, and checks that the Dashboard, Jobs, a job,
// an instance and the app's Settings show no button that changes anything.
func TestConsoleViewerBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	cl := newCluster(t, "", 1)
	runBrowserTest(t, "console-viewer.test.mjs", chromium, cl.srv, "APP="+cl.app)
}

// TestConsoleAdminBrowser drives the administration screens in Chromium:
// create a user, create an API token (its secret shown once) and revoke
// it, manage the app's members and rotate its secret, change the password.
func TestConsoleAdminBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	cl := newCluster(t, "", 1)
	runBrowserTest(t, "console-admin.test.mjs", chromium, cl.srv, "APP="+cl.app)
}

// TestConsoleFirstDayBrowser drives in Chromium what a new operator met on
// the first day (issue 16): landing on the only app's dashboard, a
// 128-character job name in the jobs table and the delete dialog, the job
// form's errors all at once, a job's overview page, a stopped instance,
// ticking heartbeat ages, and the GraphQL explorer with no internet.
func TestConsoleFirstDayBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	// The job's alarm names a loopback webhook (nothing listens there):
	// webhooks reach only public addresses unless the server allows more.
	cl := newClusterWith(t, harness.ServerOptions{Env: []string{"JOBWHEEL_ALARM_ALLOW_NETWORKS=127.0.0.1/32"}}, 1)
	runBrowserTest(t, "console-firstday.test.mjs", chromium, cl.srv, "APP="+cl.app)
}

// TestConsoleWorkflowsBrowser drives the workflows console in Chromium
// (issue 13): build a 4-node DAG in the editor, see the server's error on
// its node, save, run it with a context and watch the nodes change colour
// live (the branch not taken SKIPPED), open a node's log, fail a node with
// a broken job, fix it and retry the failed nodes; a VIEWER sees workflows
// and runs with no editing control.
func TestConsoleWorkflowsBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	cl := newCluster(t, "", 1)
	runBrowserTest(t, "console-workflows.test.mjs", chromium, cl.srv, "APP="+cl.app)
}

// TestConsoleCalendarsBrowser drives the Calendars screen in Chromium
// (issue 17): create a calendar with a holiday, pick it for a CRON job in
// the job form and see the schedule preview (previewSchedule) skip the
// date, see the job under the calendar and the server refuse deleting it
// while in use; a VIEWER sees the dates with nothing to change them.
func TestConsoleCalendarsBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	cl := newCluster(t, "", 0)
	runBrowserTest(t, "console-calendars.test.mjs", chromium, cl.srv, "APP="+cl.app)
}

// TestConsoleReportsBrowser opens the run report and the cross-app overview
// in Chromium after a real agent ran jobs that succeeded and failed: the
// report's figures, chart and tables per job, day and both, for the app and
// for all apps; the overview's health of each app; both in Chinese too
// (issue 28 item 15).
func TestConsoleReportsBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	cl := newCluster(t, "", 1)
	runBrowserTest(t, "console-reports.test.mjs", chromium, cl.srv, "APP="+cl.app)
}

// TestConsoleNarrowBrowser looks at the console in an 800 px window in
// Chromium: the navigation collapses behind a burger, the jobs table keeps
// its key columns on screen, a job's 128-character name wraps whole in its
// heading, a workflow run fits; at 1,100 px schedule badges are not cut
// (issue 28 defect 4); a refusal in the audit log and a failed alarm
// delivery show their outcome whole, the refusal with its error (defect 5).
func TestConsoleNarrowBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	// Loopback alarms allowed: one to a port nothing listens on fails.
	cl := newClusterWith(t, harness.ServerOptions{Env: []string{"JOBWHEEL_ALARM_ALLOW_NETWORKS=127.0.0.1/32"}}, 1)
	runBrowserTest(t, "console-narrow.test.mjs", chromium, cl.srv, "APP="+cl.app)
}
