package e2e

import (
	"testing"

	"github.com/jobwheel/jobwheel/e2e/harness"
)

// TestConsoleChineseBrowser switches the console to Chinese (zh-CN) in
// Chromium from the top bar and checks that the navigation, the jobs table,
// a job page, an instance and status names read in Chinese, that the choice
// survives a reload, and that English comes back (issue 28 item 14).
func TestConsoleChineseBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	cl := newCluster(t, "", 1)
	runBrowserTest(t, "console-i18n.test.mjs", chromium, cl.srv, "APP="+cl.app)
}
