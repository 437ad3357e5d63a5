package e2e

import (
	"testing"

	"github.com/jobwheel/jobwheel/e2e/harness"
)

// TestConsoleWorkflowGridBrowser drives the workflow grid and the run's
// Gantt chart in Chromium (issue 26, item 17) with a real server and agent:
// a 4-node workflow run three times; the grid (runs × nodes, topological
// order) follows a new run live, a cell opens its run at that node, the
// Gantt chart draws each node's bar in the viewer's zone, and a running
// node's bar grows while the page is open.
func TestConsoleWorkflowGridBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	cl := newCluster(t, "", 1)
	runBrowserTest(t, "console-workflow-grid.test.mjs", chromium, cl.srv, "APP="+cl.app)
}
