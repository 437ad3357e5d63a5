package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/e2e/harness"
)

// The configuration files the CLI test applies: a directory "shop-config"
// (so the set is named after it) of app shop's calendar, jobs and a
// workflow running two of them.
var shopFiles = map[string]string{
	"calendars.yaml": `apiVersion: jobwheel.io/v1
kind: Calendar
metadata: {app: shop, name: holidays}
spec:
  dates: ["2026-12-25", "2027-01-01"]
`,
	"jobs.yaml": `apiVersion: jobwheel.io/v1
kind: Job
metadata:
  app: shop
  name: greet
spec:
  scheduleType: API
  processorType: SHELL
  processor: |
    echo "hello from greet"
    echo "second line"
---
apiVersion: jobwheel.io/v1
kind: Job
metadata:
  app: shop
  name: broken
spec:
  scheduleType: API
  processorType: SHELL
  processor: |
    echo "about to fail"
    exit 3
---
apiVersion: jobwheel.io/v1
kind: Job
metadata:
  app: shop
  name: extract
spec:
  description: nightly extract, not on holidays
  scheduleType: CRON
  scheduleExpression: "0 0 2 * * ?"
  timeZone: Europe/Berlin
  calendar: holidays
  processorType: SHELL
  processor: echo extracted
  maxInstances: 1
  alarm:
    rules:
      - {type: CONSECUTIVE_FAILURES, threshold: 3}
`,
	"obsolete.yaml": `apiVersion: jobwheel.io/v1
kind: Job
metadata: {app: shop, name: obsolete}
spec: {scheduleType: API, processorType: SHELL, processor: "true"}
`,
	"workflows/pipeline.yaml": `apiVersion: jobwheel.io/v1
kind: Workflow
metadata: {app: shop, name: pipeline}
spec:
  scheduleType: API
  nodes:
    - {key: extract, type: JOB, job: extract}
    - {key: greet, type: JOB, job: greet}
  edges:
    - {from: extract, to: greet}
`,
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCLI drives the real jobwheel binary against a real server and
// agent (issue 29): login with an API token; apply a directory of jobs, a
// calendar and a workflow; diff shows nothing after it; export then apply
// changes nothing; prune removes a job deleted from the files and nothing
// else; run --follow streams the log and exits with the instance's outcome
// for a succeeding and a failing job; workflow run --watch exits with the
// run's; bad YAML, and a document the server refuses, are named by file,
// document and field, and nothing of their set is applied.
func TestCLI(t *testing.T) {
	t.Parallel()
	srv := harness.StartServer(t, harness.ServerOptions{})
	admin := srv.Client()
	_, secret, err := admin.CreateApp("shop")
	if err != nil {
		t.Fatal(err)
	}
	harness.StartAgent(t, harness.AgentOptions{Servers: []string{srv.URL}, App: "shop", Secret: secret})
	var tok struct{ CreateApiToken struct{ Secret string } }
	if err := admin.Do(`mutation { createApiToken(name: "ci", app: "shop", role: EDITOR) { secret } }`, nil, &tok); err != nil {
		t.Fatal(err)
	}
	cli := harness.NewCLI(t)

	// Login with an API token, kept in a file only its owner reads.
	if r := cli.Run(tok.CreateApiToken.Secret+"\n", "login", srv.URL, "--token-stdin", "--name", "e2e", "--app", "shop"); r.Code != 0 ||
		!strings.Contains(r.Stderr, "Logged in to "+srv.URL+" as admin") {
		t.Fatalf("login: %+v", r)
	}
	st, err := os.Stat(filepath.Join(cli.Home, "jobwheel", "config.yaml"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v, mode %v; want 0600", err, st.Mode())
	}
	if r := cli.Run("", "apps"); r.Code != 0 || !strings.Contains(r.Stdout, "shop") {
		t.Fatalf("apps: %+v", r)
	}
	if r := cli.Run("", "login", srv.URL, "--token", "not-a-token"); r.Code != 1 || !strings.Contains(r.Stderr, "refused the token") {
		t.Fatalf("a wrong token: %+v", r)
	}

	// Apply a directory: everything is created, managed by its set.
	dir := filepath.Join(t.TempDir(), "shop-config")
	writeFiles(t, dir, shopFiles)
	r := cli.Run("", "apply", "-f", dir)
	if r.Code != 0 || !strings.Contains(r.Stderr, `applied set "shop-config": 6 created, 0 updated, 0 deleted, 0 unchanged`) {
		t.Fatalf("apply: %+v", r)
	}
	for _, line := range []string{"calendar shop/holidays created", "job shop/extract created", "workflow shop/pipeline created"} {
		if !strings.Contains(r.Stdout, line) {
			t.Errorf("apply's output lacks %q", line)
		}
	}
	var jobs struct {
		Jobs struct {
			Edges []struct {
				Node struct {
					Name, ManagedBy, ManagedSource string
					Version                        int
				}
			}
		}
	}
	readJobs := func() map[string]int {
		t.Helper()
		if err := admin.Do(`{ jobs(app: "shop") { edges { node { name managedBy managedSource version } } } }`, nil, &jobs); err != nil {
			t.Fatal(err)
		}
		versions := map[string]int{}
		for _, e := range jobs.Jobs.Edges {
			versions[e.Node.Name] = e.Node.Version
			if e.Node.ManagedBy != "shop-config" || e.Node.ManagedSource != "FILES" {
				t.Errorf("job %s is managed by %q (%s); want shop-config (FILES)", e.Node.Name, e.Node.ManagedBy, e.Node.ManagedSource)
			}
		}
		return versions
	}
	if v := readJobs(); len(v) != 4 {
		t.Fatalf("jobs after apply: %v", v)
	}

	// Nothing to change: diff is silent and exits 0.
	if r := cli.Run("", "diff", "-f", dir); r.Code != 0 || r.Stdout != "" {
		t.Fatalf("diff after apply: %+v", r)
	}

	// Export then apply is a no-op: nothing is written, no new version.
	exported := filepath.Join(t.TempDir(), "exported.yaml")
	r = cli.Run("", "export", "--set", "shop-config")
	if r.Code != 0 || !strings.Contains(r.Stdout, "jobwheel.io/set: shop-config") || strings.Contains(r.Stdout, "maxInstances") {
		t.Fatalf("export: %+v", r)
	}
	if err := os.WriteFile(exported, []byte(r.Stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	before := readJobs()
	if r := cli.Run("", "apply", "-f", exported); r.Code != 0 || r.Stdout != "" ||
		!strings.Contains(r.Stderr, "0 created, 0 updated, 0 deleted, 6 unchanged") {
		t.Fatalf("applying the export: %+v", r)
	}
	if r := cli.Run("", "diff", "-f", exported); r.Code != 0 || r.Stdout != "" {
		t.Fatalf("diff of the export: %+v", r)
	}
	if after := readJobs(); !mapsEqual(before, after) {
		t.Fatalf("applying the export saved new versions: %v, then %v", before, after)
	}

	// A change shows as a unified diff of that object only.
	writeFiles(t, dir, map[string]string{"obsolete.yaml": strings.Replace(shopFiles["obsolete.yaml"], `"true"`, `"false"`, 1)})
	r = cli.Run("", "diff", "-f", dir)
	if r.Code != 5 || !strings.Contains(r.Stdout, "--- server: Job shop/obsolete") || !strings.Contains(r.Stdout, "-  processor: \"true\"") ||
		!strings.Contains(r.Stdout, "+  processor: \"false\"") || strings.Contains(r.Stdout, "greet") {
		t.Fatalf("diff of a change: %+v", r)
	}

	// Prune: a job deleted from the files is deleted, and nothing else.
	if err := os.Remove(filepath.Join(dir, "obsolete.yaml")); err != nil {
		t.Fatal(err)
	}
	admin.CreateJob(map[string]any{"app": "shop", "name": "hand-made", "scheduleType": "API", "processorType": "SHELL", "processor": "true"})
	if r := cli.Run("", "diff", "-f", dir, "--prune"); r.Code != 5 || !strings.Contains(r.Stdout, "+++ (deleted)") {
		t.Fatalf("diff --prune: %+v", r)
	}
	if r := cli.Run("", "apply", "-f", dir, "--prune"); r.Code != 0 || strings.TrimSpace(r.Stdout) != "job shop/obsolete deleted" {
		t.Fatalf("apply --prune: %+v", r)
	}
	if err := admin.Do(`{ jobs(app: "shop") { edges { node { name managedBy managedSource version } } } }`, nil, &jobs); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range jobs.Jobs.Edges {
		names = append(names, e.Node.Name)
	}
	if strings.Join(names, ",") != "hand-made,extract,broken,greet" {
		t.Fatalf("jobs after prune: %v", names)
	}

	// run --follow streams the log and exits with the outcome.
	r = cli.Run("", "run", "greet", "--follow")
	if r.Code != 0 || r.Stdout != "hello from greet\nsecond line\n" || !strings.Contains(r.Stderr, "SUCCEEDED") {
		t.Fatalf("run --follow of a succeeding job: %+v", r)
	}
	r = cli.Run("", "run", "broken", "--follow")
	if r.Code != 3 || !strings.Contains(r.Stdout, "about to fail") || !strings.Contains(r.Stderr, "FAILED") {
		t.Fatalf("run --follow of a failing job: %+v", r)
	}
	id := strings.TrimSpace(cli.Run("", "run", "greet").Stdout)
	if !regexp.MustCompile(`^\d+$`).MatchString(id) {
		t.Fatalf("run printed %q; want the instance's id", id)
	}
	if r := cli.Run("", "logs", id, "--follow"); r.Code != 0 || r.Stdout != "hello from greet\nsecond line\n" {
		t.Fatalf("logs --follow: %+v", r)
	}
	if r := cli.Run("", "instances", "--job", "broken", "-o", "json"); r.Code != 0 || !strings.Contains(r.Stdout, `"status": "FAILED"`) {
		t.Fatalf("instances: %+v", r)
	}

	// workflow run --watch shows the nodes and exits with the run's outcome.
	r = cli.Run("", "workflow", "run", "pipeline", "--watch")
	if r.Code != 0 || !strings.Contains(r.Stdout, "greet") || !strings.Contains(r.Stdout, "SUCCEEDED") {
		t.Fatalf("workflow run --watch: %+v", r)
	}
	if r := cli.Run("", "runs", "--workflow", "pipeline", "-o", "json"); r.Code != 0 || !strings.Contains(r.Stdout, `"status": "SUCCEEDED"`) {
		t.Fatalf("runs: %+v", r)
	}
	if r := cli.Run("", "workers"); r.Code != 0 || strings.Count(r.Stdout, "\n") != 2 || !strings.Contains(r.Stdout, "LAST HEARTBEAT") {
		t.Fatalf("workers: %+v", r)
	}
	if r := cli.Run("", "workflows"); r.Code != 0 || !strings.Contains(r.Stdout, "shop-config (files)") {
		t.Fatalf("workflows: %+v", r)
	}

	// Acting on instances: a delayed run is stopped, then retried.
	id = strings.TrimSpace(cli.Run("", "run", "greet", "--delay", "1h").Stdout)
	if r := cli.Run("", "stop", id); r.Code != 0 || strings.TrimSpace(r.Stdout) != id+" STOPPED" {
		t.Fatalf("stop: %+v", r)
	}
	if r := cli.Run("", "retry", id); r.Code != 0 || !strings.HasPrefix(r.Stdout, id+" ") {
		t.Fatalf("retry: %+v", r)
	}
	// A job disabled by hand differs from its file until enabled again.
	if r := cli.Run("", "disable", "greet"); r.Code != 0 {
		t.Fatalf("disable: %+v", r)
	}
	if r := cli.Run("", "diff", "-f", dir); r.Code != 5 || !strings.Contains(r.Stdout, "+++ "+filepath.Join(dir, "jobs.yaml")+": document 1: Job shop/greet") ||
		!strings.Contains(r.Stdout, "-  enabled: false") {
		t.Fatalf("diff of a disabled job: %+v", r)
	}
	if r := cli.Run("", "enable", "greet"); r.Code != 0 {
		t.Fatalf("enable: %+v", r)
	}
	if r := cli.Run("", "diff", "-f", dir); r.Code != 0 {
		t.Fatalf("diff after enable: %+v", r)
	}

	// export --dir writes one file per object, which applies as a no-op.
	exportDir := filepath.Join(t.TempDir(), "out")
	if r := cli.Run("", "export", "--set", "shop-config", "--dir", exportDir); r.Code != 0 {
		t.Fatalf("export --dir: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(exportDir, "workflows", "pipeline.yaml")); err != nil {
		t.Fatal(err)
	}
	if r := cli.Run("", "apply", "-f", exportDir); r.Code != 0 || r.Stdout != "" {
		t.Fatalf("applying export --dir: %+v", r)
	}

	// A password login adds a second context; contexts switch.
	if r := cli.Run(srv.AdminPassword+"\n", "login", srv.URL, "--name", "as-admin", "-u", "admin", "--password-stdin"); r.Code != 0 ||
		!strings.Contains(r.Stderr, "as admin until ") {
		t.Fatalf("password login: %+v", r)
	}
	if r := cli.Run("", "context", "use", "e2e"); r.Code != 0 {
		t.Fatalf("context use: %+v", r)
	}
	if r := cli.Run("", "context", "-o", "json"); r.Code != 0 || !strings.Contains(r.Stdout, `"name": "as-admin"`) ||
		!regexp.MustCompile(`"name": "e2e",\s*"current": true`).MatchString(r.Stdout) {
		t.Fatalf("context list: %+v", r)
	}
	if r := cli.Run("", "logout", "--context", "as-admin"); r.Code != 0 {
		t.Fatalf("logout: %+v", r)
	}

	// Bad YAML: refused with the file, document, line and field named;
	// the good document beside it is not applied either.
	bad := filepath.Join(t.TempDir(), "bad")
	writeFiles(t, bad, map[string]string{"jobs.yaml": `apiVersion: jobwheel.io/v1
kind: Job
metadata: {app: shop, name: newcomer}
spec: {scheduleType: API, processorType: SHELL, processor: "true"}
---
apiVersion: jobwheel.io/v1
kind: Job
metadata: {app: shop, name: typo}
spec:
  scheduleType: API
  procesorType: SHELL
  processor: "true"
`})
	r = cli.Run("", "apply", "-f", bad)
	if r.Code != 1 || !strings.Contains(r.Stderr, filepath.Join(bad, "jobs.yaml")+":11: document 2 (Job shop/typo): spec.procesorType: unknown field; did you mean processorType?") ||
		!strings.Contains(r.Stderr, "nothing was applied") {
		t.Fatalf("bad YAML: %+v", r)
	}
	// A document only the server can refuse (a bad cron expression): the
	// same, and the good documents before it are not half-applied.
	writeFiles(t, bad, map[string]string{"jobs.yaml": `apiVersion: jobwheel.io/v1
kind: Job
metadata: {app: shop, name: newcomer}
spec: {scheduleType: API, processorType: SHELL, processor: "true"}
---
apiVersion: jobwheel.io/v1
kind: Job
metadata: {app: shop, name: late}
spec:
  scheduleType: CRON
  scheduleExpression: "0 0 25 * * ?"
  processorType: SHELL
  processor: "true"
`})
	r = cli.Run("", "apply", "-f", bad)
	if r.Code != 1 || !strings.Contains(r.Stderr, filepath.Join(bad, "jobs.yaml")+":11: document 2 (Job shop/late): spec.scheduleExpression: ") ||
		!strings.Contains(r.Stderr, "nothing was applied") {
		t.Fatalf("a document the server refuses: %+v", r)
	}
	if err := admin.Do(`{ jobs(app: "shop", search: "newcomer") { edges { node { name } } } }`, nil, &jobs); err != nil || len(jobs.Jobs.Edges) != 0 {
		t.Fatalf("a refused set was half-applied: %+v, %v", jobs.Jobs.Edges, err)
	}

	// Without a login, the tool says what to do.
	other := harness.NewCLI(t)
	if r := other.Run("", "jobs", "--app", "shop"); r.Code != 1 || !strings.Contains(r.Stderr, "jobwheel login") {
		t.Fatalf("no login: %+v", r)
	}
	other.Env = []string{"JOBWHEEL_SERVER=" + srv.URL, "JOBWHEEL_TOKEN=" + tok.CreateApiToken.Secret}
	if r := other.Run("", "jobs", "--app", "shop", "-o", "yaml"); r.Code != 0 || !strings.Contains(r.Stdout, "name: greet") {
		t.Fatalf("JOBWHEEL_SERVER and JOBWHEEL_TOKEN: %+v", r)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
