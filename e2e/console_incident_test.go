package e2e

import (
	"testing"

	"github.com/jobwheel/jobwheel/e2e/harness"
)

// TestConsoleIncidentBrowser drives in Chromium what an operator relies on
// mid-incident (issue 28): a failed instance retried from its page has its
// log follow the new attempt live, under a separator per attempt; the Run
// now dialog follows the instance it started to its end, and a running
// instance's page shows its status and worker live with its log first; the
// job form describes a cron expression in words, in English and Chinese.
func TestConsoleIncidentBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	cl := newCluster(t, "", 1)
	runBrowserTest(t, "console-incident.test.mjs", chromium, cl.srv, "APP="+cl.app)
}
