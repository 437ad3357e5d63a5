package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/e2e/harness"
)

// TestSSOBrowser signs in through a real OpenID Connect provider (Dex, on
// loopback) in Chromium (browser/sso.test.mjs): the login page offers
// "Sign in with Dex", the provider's login form sends the browser back
// signed in, with the role the provider's group maps to (EDITOR on
// payments: a run is allowed, rotating the app secret is refused); the
// user is moved to another group in the provider and the very next
// request has the new role (VIEWER: the run is refused); removed from
// every allowed group, the open console is sent to the login page by its
// websocket's re-check, without a reload. The audit log names the
// provider's subject.
func TestSSOBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	addr := harness.FreeAddr(t)
	dex := harness.StartDex(t, "http://"+addr+"/auth/sso/callback", []harness.DexUser{{
		Email: "ada@example.com", Password: "ada-password-1", Username: "ada",
		UserID: "7d3b6c2e-1b7e-4c1e-9d55-5b0f2a8e9c01", Groups: []string{"payments-dev"},
	}})
	srv := harness.StartServer(t, harness.ServerOptions{Addr: addr, Env: []string{
		"JOBWHEEL_SSO_ISSUER=" + dex.Issuer,
		"JOBWHEEL_SSO_CLIENT_ID=" + dex.ClientID,
		"JOBWHEEL_SSO_CLIENT_SECRET=" + dex.ClientSecret,
		"JOBWHEEL_SSO_NAME=Dex",
		// Dex puts groups in ID tokens asked for with the scope "groups".
		"JOBWHEEL_SSO_SCOPES=groups",
		"JOBWHEEL_SSO_ALLOWED_GROUPS=payments-dev,payments-viewers",
		`JOBWHEEL_SSO_GROUP_ROLES={"payments-dev": ["payments:EDITOR"], "payments-viewers": ["payments:VIEWER"]}`,
		// Every request checks the groups with the provider.
		"JOBWHEEL_SSO_RECHECK=0s",
	}})
	c := srv.Client()
	if _, _, err := c.CreateApp("payments"); err != nil {
		t.Fatal(err)
	}
	jobID, err := c.CreateJob(map[string]any{"app": "payments", "name": "settle", "scheduleType": "API",
		"processorType": "SHELL", "processor": "echo settled"})
	if err != nil {
		t.Fatal(err)
	}
	// The browser script asks for the provider's changes here.
	control := http.NewServeMux()
	control.HandleFunc("POST /groups/{groups}", func(w http.ResponseWriter, r *http.Request) {
		var groups []string
		if g := r.PathValue("groups"); g != "none" {
			groups = strings.Split(g, ",")
		}
		dex.SetGroups("ada@example.com", groups)
		fmt.Fprintln(w, "ok")
	})
	ctl := httptest.NewServer(control)
	defer ctl.Close()

	runBrowserTest(t, "sso.test.mjs", chromium, srv, "CONTROL_URL="+ctl.URL, "APP=payments", "JOB_ID="+jobID)

	var audit struct {
		AuditLog struct {
			Edges []struct {
				Node struct{ Action, Actor, Outcome, ActorSubject string }
			}
		}
	}
	if err := c.Do(`{ auditLog(app: "payments", first: 50) { edges { node { action actor outcome actorSubject } } } }`, nil, &audit); err != nil {
		t.Fatal(err)
	}
	var ran bool
	for _, e := range audit.AuditLog.Edges {
		n := e.Node
		if n.Action == "runJob" && n.Actor == "ada@example.com" && n.Outcome == "OK" {
			ran = true
			if !strings.HasPrefix(n.ActorSubject, dex.Issuer+"#") || len(n.ActorSubject) <= len(dex.Issuer)+1 {
				t.Errorf("ada's run is recorded with the subject %q; want %s#<subject>", n.ActorSubject, dex.Issuer)
			}
		}
	}
	if !ran {
		t.Errorf("no audit entry of ada's run; entries: %+v", audit.AuditLog.Edges)
	}
}
