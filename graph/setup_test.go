package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/server/api/alarm"
	"github.com/jobwheel/jobwheel/server/api/apply"
	"github.com/jobwheel/jobwheel/server/api/apps"
	"github.com/jobwheel/jobwheel/server/api/audit"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/api/backfills"
	"github.com/jobwheel/jobwheel/server/api/jobs"
	"github.com/jobwheel/jobwheel/server/api/workflows"
	"github.com/jobwheel/jobwheel/server/platform/bus"
	"github.com/jobwheel/jobwheel/server/platform/live"
	"github.com/jobwheel/jobwheel/server/platform/logs"
	"github.com/jobwheel/jobwheel/server/runtime/cluster"
)

const adminPassword = "admin-password"

// testAPI is the GraphQL endpoint over real services and a real database,
// in process.
type testAPI struct {
	handler http.Handler
	db      *db.DB
	srv     *httptest.Server
	url     string
	live    *live.Feeds
	auth    *auth.Service
	apps    *apps.Service
	logs    *logs.Service
	jobs    *jobs.Service
	// ops records the workflow run operations the API hands on.
	ops *recordedOps
}

type nopOwner struct{}

func (nopOwner) JobsChanged(int64)            {}
func (nopOwner) InstancesChanged(int64)       {}
func (nopOwner) InstanceCreated(*db.Instance) {}

type apiOptions struct {
	live         live.Config
	noEngine     bool // no workflow engine: the run operations are not available
	pingInterval time.Duration
	writeTimeout time.Duration
	recheckEvery time.Duration
	log          *slog.Logger   // default: discarded (JOBWHEEL_TEST_LOG=1 prints it)
	proxies      []netip.Prefix // trusted proxies
	limits       auth.LoginLimits
	origins      []string
	// maxSockets, maxOps: the per-user websocket bounds (0: defaults).
	maxSockets, maxOps int
}

func newAPI(t testing.TB, d *db.DB, opts apiOptions) *testAPI {
	t.Helper()
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	if opts.log != nil {
		log = opts.log
	} else if os.Getenv("JOBWHEEL_TEST_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	authSvc := auth.New(auth.Config{LoginLimits: opts.limits}, d, log)
	if _, err := authSvc.EnsureAdmin(ctx, adminPassword); err != nil {
		t.Fatal(err)
	}
	appSvc := apps.New(d, authSvc, nil)
	var busDB *bun.DB
	if d.Dialect() == db.Postgres {
		busDB = d.Bun()
	}
	b := bus.New("test", d.Namespace(), busDB, log)
	hub := live.New(opts.live, d, b, authSvc, appSvc, log)
	jobSvc := jobs.New(jobs.Deps{Store: d, Auth: authSvc, Apps: appSvc, Notifier: hub.Jobs(nopOwner{})})
	logSvc := logs.New(d, hub, nil, log)
	ops := &recordedOps{}
	var runOps workflows.RunOps = ops
	if opts.noEngine {
		runOps = nil
	}
	wfSvc := workflows.New(workflows.Deps{Store: d, Auth: authSvc, Apps: appSvc, Notifier: hub.Jobs(nopOwner{}), Feed: hub, RunOps: runOps})
	var services lifecycle.Group
	services.Add("bus", b)
	services.Add("subscriptions", hub)
	services.Add("log writer", logSvc)
	if err := services.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(services.Stop)
	alarms, err := alarm.New(alarm.Config{}, d, log)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHandler(HandlerConfig{
		Resolver: NewResolver(Services{Auth: authSvc, Apps: appSvc, Cluster: cluster.New(cluster.Config{ID: "test"}, d, log), Jobs: jobSvc,
			Workflows: wfSvc, Logs: logSvc, Live: hub, Backfills: backfills.New(backfills.Config{}, d, authSvc, appSvc, wfSvc, jobSvc, b),
			Apply: apply.New(apply.Deps{Store: d, Apps: appSvc, Jobs: jobSvc, Workflows: wfSvc, Notifier: hub.Jobs(nopOwner{})}), Alarms: alarms, Audit: audit.New(d, authSvc, appSvc, log, nil), Log: log}),
		Log: log, PingInterval: opts.pingInterval, WriteTimeout: opts.writeTimeout,
		AuthChanges:          func(fn func()) { b.Subscribe(live.TopicAuth, func(string, string) { fn() }) },
		RecheckEvery:         opts.recheckEvery,
		TrustedProxies:       opts.proxies,
		OriginPatterns:       opts.origins,
		MaxSocketsPerUser:    opts.maxSockets,
		MaxOperationsPerUser: opts.maxOps,
	})
	mux := http.NewServeMux()
	mux.Handle("/graphql", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &testAPI{handler: h, db: d, srv: srv, url: srv.URL + "/graphql", live: hub, auth: authSvc, apps: appSvc, logs: logSvc, jobs: jobSvc, ops: ops}
}

// gqlError is one error of a response.
type gqlError struct {
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions"`
}

func (e gqlError) code() string  { s, _ := e.Extensions["code"].(string); return s }
func (e gqlError) field() string { s, _ := e.Extensions["field"].(string); return s }

type response struct {
	status int
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
}

func (r *response) code() string {
	if len(r.Errors) == 0 {
		return ""
	}
	return r.Errors[0].code()
}

// postRaw posts a body as it is.
func (a *testAPI) postRaw(t testing.TB, token, contentType string, body []byte) *response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, a.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := &response{status: resp.StatusCode}
	if err := json.Unmarshal(raw, r); err != nil {
		t.Fatalf("status %d, body %q is not a GraphQL response: %v", resp.StatusCode, raw, err)
	}
	return r
}

// do runs a query; out (if not nil) receives data.
func (a *testAPI) do(t testing.TB, token, query string, vars map[string]any, out any) *response {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	r := a.postRaw(t, token, "application/json", body)
	if out != nil && len(r.Data) > 0 {
		if err := json.Unmarshal(r.Data, out); err != nil {
			t.Fatalf("decoding %s: %v", r.Data, err)
		}
	}
	return r
}

// must runs a query that must succeed.
func (a *testAPI) must(t testing.TB, token, query string, vars map[string]any, out any) {
	t.Helper()
	if r := a.do(t, token, query, vars, out); len(r.Errors) > 0 {
		t.Fatalf("%s: %+v", query, r.Errors)
	}
}

func (a *testAPI) login(t testing.TB, user, password string) string {
	t.Helper()
	var out struct{ Login struct{ Token string } }
	a.must(t, "", `mutation($u: String!, $p: String!) { login(username: $u, password: $p) { token } }`,
		map[string]any{"u": user, "p": password}, &out)
	return out.Login.Token
}

func (a *testAPI) admin(t testing.TB) string { return a.login(t, auth.AdminUsername, adminPassword) }

// createUser makes a user and returns a session token for them.
func (a *testAPI) createUser(t *testing.T, admin, name string) string {
	t.Helper()
	a.must(t, admin, `mutation($u: String!) { createUser(username: $u, password: "password-1") { id } }`, map[string]any{"u": name}, nil)
	return a.login(t, name, "password-1")
}

// createApp makes an app and returns its id.
func (a *testAPI) createApp(t testing.TB, admin, name string) int64 {
	t.Helper()
	var out struct {
		CreateApp struct{ App struct{ ID string } }
	}
	a.must(t, admin, `mutation($n: String!) { createApp(name: $n) { app { id } } }`, map[string]any{"n": name}, &out)
	return mustInt(t, out.CreateApp.App.ID)
}

func (a *testAPI) setRole(t *testing.T, token, app, user string, role any) *response {
	t.Helper()
	return a.do(t, token, `mutation($a: String!, $u: String!, $r: AppRole) { setAppRole(app: $a, username: $u, role: $r) { name } }`,
		map[string]any{"a": app, "u": user, "r": role}, nil)
}

// createJob makes an API-triggered SHELL job and returns its id.
func (a *testAPI) createJob(t *testing.T, token, app, name string) string {
	t.Helper()
	var out struct{ CreateJob struct{ ID string } }
	a.must(t, token, `mutation($in: JobInput!) { createJob(input: $in) { id } }`, map[string]any{"in": map[string]any{
		"app": app, "name": name, "scheduleType": "API", "processorType": "SHELL", "processor": "echo hi"}}, &out)
	return out.CreateJob.ID
}

func mustInt(t testing.TB, s string) int64 {
	t.Helper()
	var n int64
	if err := json.Unmarshal([]byte(s), &n); err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}
