package node

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/internal/tracing"
	"github.com/jobwheel/jobwheel/server/api/sso"
	"github.com/jobwheel/jobwheel/worker"
)

// The whole server starts, runs a job on a worker and stops, twice in one
// process, on each database; afterwards no goroutine of it is left: every
// service stops what it started.
func TestStartStopTwiceLeavesNoGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			var url string
			if dialect == db.Postgres {
				url = dbtest.NewSchema(t)
			} else {
				url = dbtest.NewSQLite(t)
			}
			for round := 1; round <= 2; round++ {
				runOnce(t, url, round)
			}
		})
	}
}

func runOnce(t *testing.T, dbURL string, round int) {
	t.Helper()
	ctx := context.Background()
	cfg := &Config{DatabaseURL: dbURL, HTTPAddr: "127.0.0.1:0", AdminPassword: "admin-password",
		ServerID: fmt.Sprintf("leak-%d", round), LeaseTTL: 3 * time.Second, DebugAddr: "127.0.0.1:0"}
	if round == 2 {
		// Tracing (its exporter's goroutines) and single sign-on on: they
		// stop with the server too. Nothing listens at either address.
		cfg.Tracing = tracing.Config{Endpoint: "http://127.0.0.1:9", Sample: 1}
		cfg.SSO = sso.Config{Issuer: "http://127.0.0.1:9/idp", ClientID: "c", ClientSecret: "s",
			RedirectURL: "http://127.0.0.1:7700/auth/sso/callback"}
		// Metrics and health on a listener of their own (issue 25, info).
		cfg.MetricsAddr = "127.0.0.1:0"
	}
	var stdout strings.Builder
	n, err := Start(ctx, cfg, &stdout, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("round %d: starting: %v", round, err)
	}
	base := "http://" + n.http.listener.Addr().String()
	// It prints the address it really listens on.
	if want := "console and API at " + base + " "; !strings.Contains(stdout.String(), want) {
		t.Errorf("round %d: the server printed %q; want %q", round, stdout.String(), want)
	}
	api := &gql{t: t, url: base + "/graphql"}
	api.token = api.do(`mutation { login(username: "admin", password: "admin-password") { token } }`, nil).
		get("login", "token")
	appName := fmt.Sprintf("leak%d", round)
	secret := api.do(`mutation($n: String!) { createApp(name: $n) { secret } }`, map[string]any{"n": appName}).get("createApp", "secret")
	jobID := api.do(`mutation($a: String!) { createJob(input: {app: $a, name: "noop", scheduleType: API, processorType: GO, processor: "noop"}) { id } }`,
		map[string]any{"a": appName}).get("createJob", "id")

	w := worker.New(worker.Config{App: appName, Secret: secret, Servers: []string{base}, Slots: 2,
		Logger: slog.New(slog.DiscardHandler)})
	w.Register("noop", worker.Func(func(worker.TaskContext) (worker.Result, error) { return worker.Result{Message: "ok"}, nil }))
	wctx, stopWorker := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- w.Run(wctx) }()

	testkit.Eventually(t, "the worker connected", func() bool {
		r := api.do(`query($a: String!) { workers(app: $a) { id } }`, map[string]any{"a": appName})
		var d struct{ Workers []struct{ ID string } }
		_ = json.Unmarshal(r.Data, &d)
		return len(d.Workers) == 1
	})
	id := api.do(`mutation($j: ID!) { runJob(id: $j) { id } }`, map[string]any{"j": jobID}).get("runJob", "id")
	testkit.Eventually(t, "the run to succeed", func() bool {
		return api.do(`query($i: ID!) { instance(id: $i) { status } }`, map[string]any{"i": id}).get("instance", "status") == "SUCCEEDED"
	})

	// Profiles are served on the debug listener (a CPU profile of a
	// second, as the benchmarks take them), and not on the API's.
	debugBase := "http://" + n.debug.listener.Addr().String()
	if body := httpGet(t, debugBase+"/debug/pprof/profile?seconds=1"); len(body) == 0 {
		t.Errorf("round %d: empty CPU profile", round)
	}
	if body := httpGet(t, debugBase+"/debug/pprof/heap?debug=1"); !bytes.Contains(body, []byte("heap profile")) {
		t.Errorf("round %d: /debug/pprof/heap on the debug listener: %.200s", round, body)
	}
	// (The API's listener answers with the console, or with a page saying
	// how to build it.)
	if resp, err := http.Get(base + "/debug/pprof/heap?debug=1"); err != nil {
		t.Errorf("round %d: %v", round, err)
	} else {
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if bytes.Contains(body, []byte("heap profile")) {
			t.Errorf("round %d: the API listener serves profiles", round)
		}
	}

	// /metrics names every app without a login: with JOBWHEEL_METRICS_ADDR
	// it is served there, with /healthz and /readyz, and not on the API's
	// listener; without it, on the API's.
	if round == 2 {
		side := "http://" + n.MetricsAddr().String()
		if body := httpGet(t, side+"/metrics"); !bytes.Contains(body, []byte("jobwheel_")) {
			t.Errorf("/metrics on the metrics listener serves no jobwheel series: %.300s", body)
		}
		httpGet(t, side+"/healthz")
		httpGet(t, side+"/readyz")
		httpGet(t, base+"/healthz")
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || bytes.Contains(body, []byte("jobwheel_")) {
			t.Errorf("/metrics on the API's listener with a metrics listener: %d %.200s", resp.StatusCode, body)
		}
	} else if body := httpGet(t, base+"/metrics"); !bytes.Contains(body, []byte("jobwheel_")) {
		t.Errorf("/metrics on the API listener serves no jobwheel series: %.300s", body)
	}

	stopWorker()
	if err := <-ran; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("round %d: worker: %v", round, err)
	}
	if err := n.Shutdown(); err != nil {
		t.Fatalf("round %d: shutdown: %v", round, err)
	}
}

// httpGet returns the body of a GET that answered 200, or fails the test.
func httpGet(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, %v", url, resp.StatusCode, err)
	}
	return body
}

type gql struct {
	t     *testing.T
	url   string
	token string
}

type gqlResponse struct {
	t      *testing.T
	Data   json.RawMessage `json:"data"`
	Errors []struct{ Message string }
}

func (g *gql) do(query string, vars map[string]any) *gqlResponse {
	g.t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, g.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if g.token != "" {
		req.Header.Set("Authorization", "Bearer "+g.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		g.t.Fatalf("graphql: %v", err)
	}
	defer resp.Body.Close()
	out := &gqlResponse{t: g.t}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		g.t.Fatalf("graphql: decoding: %v", err)
	}
	if len(out.Errors) > 0 {
		g.t.Fatalf("graphql: %s: %s", query, out.Errors[0].Message)
	}
	return out
}

// get returns data.<a>.<b> as a string.
func (r *gqlResponse) get(a, b string) string {
	var d map[string]map[string]any
	if err := json.Unmarshal(r.Data, &d); err != nil {
		r.t.Fatalf("graphql: %v", err)
	}
	return fmt.Sprint(d[a][b])
}
