package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// TestRunJobIdempotent: on a real server over PostgreSQL, 20 concurrent
// runJob calls with one idempotencyKey create exactly one instance and all
// return its id; the schema is served as SDL at /graphql/schema.graphql
// without a login.
func TestRunJobIdempotent(t *testing.T) {
	t.Parallel()
	srv := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbtest.NewSchema(t)})
	admin := srv.Client()
	if _, _, err := admin.CreateApp("orders"); err != nil {
		t.Fatal(err)
	}
	jobID, err := admin.CreateJob(map[string]any{"app": "orders", "name": "charge", "scheduleType": "API",
		"processorType": "SHELL", "processor": "true"})
	if err != nil {
		t.Fatal(err)
	}
	const callers = 20
	ids := make([]string, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out struct{ RunJob struct{ ID string } }
			if err := admin.Do(`mutation($id: ID!, $k: String) { runJob(id: $id, idempotencyKey: $k) { id } }`,
				map[string]any{"id": jobID, "k": "charge-2026-11-26"}, &out); err != nil {
				t.Errorf("caller %d: %v", i, err)
			}
			ids[i] = out.RunJob.ID
		}()
	}
	wg.Wait()
	for i := range callers {
		if ids[i] == "" || ids[i] != ids[0] {
			t.Fatalf("caller %d got instance %q, caller 0 %q", i, ids[i], ids[0])
		}
	}
	list, err := admin.Instances("orders", jobID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != ids[0] {
		t.Fatalf("instances of the job: %+v; want exactly %s", list, ids[0])
	}

	resp, err := http.Get(srv.URL + "/graphql/schema.graphql")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "idempotencyKey: String") {
		t.Fatalf("GET /graphql/schema.graphql: %d\n%.300s", resp.StatusCode, body)
	}
}

// TestJobsDeclaredInCode: with each worker SDK — the agent (Go: its
// JOBWHEEL_JOBS_FILE, read into worker.Config.Jobs), the Python SDK's
// example worker (the same file, read into Worker(job_set=, jobs=)) and the
// Java SDK's (the same file, read by JobsFile.read into WorkerConfig) — a
// job declared in code appears on connect, managed by its set; connecting
// again with a change updates it (a new CODE version by the worker); a
// declaration the server refuses fails the handshake with BAD_FRAME naming
// the field, which the worker logs as a failed connect and retries, and
// changes nothing; connecting without the declaration disables the job and
// keeps it.
func TestJobsDeclaredInCode(t *testing.T) {
	t.Parallel()
	srv := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbtest.NewSchema(t)})
	for _, sdk := range []struct {
		name  string
		start func(t *testing.T, opts harness.AgentOptions) *harness.Process
	}{
		{"go", func(t *testing.T, opts harness.AgentOptions) *harness.Process { return harness.StartAgent(t, opts) }},
		{"python", func(t *testing.T, opts harness.AgentOptions) *harness.Process {
			return harness.StartPythonWorker(t, opts)
		}},
		{"java", func(t *testing.T, opts harness.AgentOptions) *harness.Process {
			return harness.StartJavaWorker(t, opts)
		}},
	} {
		t.Run(sdk.name, func(t *testing.T) {
			t.Parallel()
			declaredInCode(t, srv, "billing-"+sdk.name, sdk.start)
		})
	}
}

func declaredInCode(t *testing.T, srv *harness.Server, app string, start func(*testing.T, harness.AgentOptions) *harness.Process) {
	admin := srv.Client()
	_, secret, err := admin.CreateApp(app)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "jobs.json")
	declare := func(jobs string) {
		if err := os.WriteFile(file, []byte(`{"set": "billing-service", "jobs": [`+jobs+`]}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	type job struct {
		Name, ManagedBy string
		Enabled         bool
		TimeoutMs       int
		Versions        []struct{ Change, Author string }
	}
	read := func() []job {
		var out struct {
			Jobs struct{ Edges []struct{ Node job } }
		}
		if err := admin.Do(`query($a: String!) { jobs(app: $a) { edges { node { name managedBy enabled timeoutMs versions { change author } } } } }`,
			map[string]any{"a": app}, &out); err != nil {
			t.Fatal(err)
		}
		list := make([]job, 0, len(out.Jobs.Edges))
		for _, e := range out.Jobs.Edges {
			list = append(list, e.Node)
		}
		return list
	}
	worker := func() *harness.Process {
		return start(t, harness.AgentOptions{Servers: []string{srv.URL}, App: app, Secret: secret,
			Env: []string{"JOBWHEEL_JOBS_FILE=" + file}})
	}
	stop := func(p *harness.Process) {
		t.Helper()
		if err := p.Stop(harness.StopTimeout); err != nil {
			t.Fatalf("stopping the worker: %v\noutput:\n%s", err, p.Output())
		}
	}
	invoices := func(timeoutMs int, schedule string) string {
		return fmt.Sprintf(`{"name": "invoices", "scheduleType": "CRON", "scheduleExpression": %q, "timeZone": "Europe/Berlin",
			"processor": "example.sleep", "maxInstances": 2, "timeoutMs": %d}`, schedule, timeoutMs)
	}

	// Created.
	declare(invoices(60000, "0 0 3 * * ?"))
	w := worker()
	var got []job
	testkit.Eventually(t, "the declared job appears", func() bool { got = read(); return len(got) == 1 })
	if j := got[0]; j.Name != "invoices" || j.ManagedBy != "billing-service" || !j.Enabled || j.TimeoutMs != 60000 || len(j.Versions) != 1 ||
		j.Versions[0].Change != "CODE" || !strings.HasPrefix(j.Versions[0].Author, "worker ") {
		t.Fatalf("declared job: %+v\nworker output:\n%s", j, w.Output())
	}
	stop(w)

	// Updated on the next connect, with a change.
	declare(invoices(120000, "0 0 3 * * ?"))
	w = worker()
	testkit.Eventually(t, "the changed declaration updates the job", func() bool { got = read(); return len(got) == 1 && got[0].TimeoutMs == 120000 })
	if j := got[0]; j.ManagedBy != "billing-service" || !j.Enabled || len(j.Versions) != 2 || j.Versions[0].Change != "CODE" ||
		!strings.HasPrefix(j.Versions[0].Author, "worker ") {
		t.Fatalf("updated job: %+v; want a second CODE version by the worker", j)
	}
	stop(w)

	// Refused: the server's BAD_FRAME names the field; the worker logs it
	// and retries; nothing changes.
	declare(invoices(30000, "every day"))
	w = worker()
	const refused = "server error BAD_FRAME: hello: jobs[0].scheduleExpression: "
	if !testkit.Poll(settle, func() bool { return strings.Count(w.Output(), refused) >= 2 }) {
		t.Fatalf("the worker did not log the refused declaration twice (%q: once, then again after retrying)\noutput:\n%s", refused, w.Output())
	}
	if got = read(); len(got) != 1 || got[0].TimeoutMs != 120000 || len(got[0].Versions) != 2 || !got[0].Enabled {
		t.Fatalf("after a refused declaration: %+v; want the job unchanged", got)
	}
	stop(w)

	// Disabled once no longer declared, and kept.
	declare(``)
	worker()
	testkit.Eventually(t, "the job no longer declared is disabled", func() bool { got = read(); return len(got) == 1 && !got[0].Enabled })
	if j := got[0]; j.ManagedBy != "billing-service" || len(j.Versions) != 3 {
		t.Fatalf("disabled job: %+v; want it kept, managed, with its history", j)
	}
}
