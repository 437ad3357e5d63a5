package e2e

import (
	"testing"

	"github.com/jobwheel/jobwheel/e2e/harness"
)

// TestConsolePoolsBrowser drives the Pools screen in Chromium (issue 26
// item 14): create a one-slot pool, then — live, without a reload — see
// one run of a job naming it hold the slot and another wait first in the
// queue, the waiter take the slot when the holder ends, and the pool empty
// once both ended.
func TestConsolePoolsBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	cl := newCluster(t, "", 1)
	runBrowserTest(t, "console-pools.test.mjs", chromium, cl.srv, "APP="+cl.app)
}
