package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/e2e/harness"
)

// TestFoundationAPI starts a real server on each database and checks what a
// newcomer meets first: anonymous calls are refused, a wrong password is
// refused, the admin logs in, creates an app once, and sees the server.
func TestFoundationAPI(t *testing.T) {
	t.Parallel()
	dialects(t, func(t *testing.T, dbURL string) {
		srv := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbURL})

		anon := harness.NewClient(srv.URL)
		err := anon.Do(`{ apps { name } }`, nil, nil)
		if errs, ok := errors.AsType[harness.Errors](err); !ok || errs.Code() != "UNAUTHENTICATED" {
			t.Fatalf("anonymous apps: got %v, want UNAUTHENTICATED", err)
		}
		err = anon.Login("admin", "wrong password")
		if errs, ok := errors.AsType[harness.Errors](err); !ok || errs.Code() != "UNAUTHENTICATED" || !strings.Contains(errs[0].Message, "wrong username or password") {
			t.Fatalf("wrong password: got %v", err)
		}

		c := srv.Client()
		id, secret, err := c.CreateApp("orders")
		if err != nil || id == "" || !strings.HasPrefix(secret, "jwa_") {
			t.Fatalf("createApp: id=%q secret=%q err=%v", id, secret, err)
		}
		_, _, err = c.CreateApp("orders")
		if errs, ok := errors.AsType[harness.Errors](err); !ok || errs.Code() != "BAD_INPUT" || errs[0].Field() != "name" {
			t.Fatalf("duplicate app: got %v, want BAD_INPUT on name", err)
		}
		_, _, err = c.CreateApp("Not A Name")
		if errs, ok := errors.AsType[harness.Errors](err); !ok || errs.Code() != "BAD_INPUT" || errs[0].Field() != "name" {
			t.Fatalf("bad app name: got %v, want BAD_INPUT on name", err)
		}

		var out struct {
			Me struct {
				Username string
				Admin    bool
			}
			Apps    []struct{ Name, MyRole string }
			Servers []struct {
				AdvertiseURL string `json:"advertiseUrl"`
				Alive        bool
			}
		}
		if err := c.Do(`{ me { username admin } apps { name myRole } servers { advertiseUrl alive } }`, nil, &out); err != nil {
			t.Fatal(err)
		}
		if out.Me.Username != "admin" || !out.Me.Admin {
			t.Fatalf("me = %+v", out.Me)
		}
		if len(out.Apps) != 1 || out.Apps[0].Name != "orders" || out.Apps[0].MyRole != "OWNER" {
			t.Fatalf("apps = %+v", out.Apps)
		}
		if len(out.Servers) != 1 || out.Servers[0].AdvertiseURL != srv.URL || !out.Servers[0].Alive {
			t.Fatalf("servers = %+v", out.Servers)
		}

		// A graceful stop deregisters the server and exits 0.
		if err := srv.Stop(harness.StopTimeout); err != nil {
			t.Fatalf("SIGTERM: %v\n%s", err, srv.Output())
		}
	})
}

// TestFoundationBrowser drives Debian's Chromium through playwright-core:
// log in, create an app, see its secret once.
func TestFoundationBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	srv := harness.StartServer(t, harness.ServerOptions{})
	runBrowserTest(t, "foundation.test.mjs", chromium, srv)
}

// runBrowserTest runs a playwright-core script from e2e/browser against srv.
func runBrowserTest(t *testing.T, script, chromium string, srv *harness.Server, env ...string) {
	t.Helper()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "e2e", "browser")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core")); err != nil {
		t.Fatalf("playwright-core is not installed for e2e/browser: run `make deps` (it installs the console's packages, playwright-core among them, and links e2e/browser/node_modules to frontend/node_modules)")
	}
	out := harness.OutputDir(t, t.Name())
	cmd := exec.Command("node", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append([]string{
		"BASE_URL=" + srv.URL,
		"ADMIN_PASSWORD=" + srv.AdminPassword,
		"OUTPUT_DIR=" + out,
		"CHROMIUM=" + chromium,
	}, env...)...)
	b, err := cmd.CombinedOutput()
	t.Logf("%s:\n%s", script, b)
	if err != nil {
		t.Fatalf("browser test %s failed: %v\nserver output:\n%s", script, err, srv.Output())
	}
	t.Logf("screenshots in %s", out)
}

// TestConsoleBrowser drives the console's job screens in Chromium against a
// real server and agent: create a job with a schedule preview, see a bad
// cron's field error, run a job and watch its log lines arrive live.
func TestConsoleBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	cl := newCluster(t, "", 1)
	runBrowserTest(t, "console.test.mjs", chromium, cl.srv, "APP="+cl.app)
}
