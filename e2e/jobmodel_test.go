package e2e

import (
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

// TestJobsDeclaredInCode: an agent declaring a job in code (its
// -jobs-file, read into worker.Config.Jobs) makes the job appear on
// connect, managed by its set; connecting again without the declaration
// disables the job and keeps it.
func TestJobsDeclaredInCode(t *testing.T) {
	t.Parallel()
	srv := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbtest.NewSchema(t)})
	admin := srv.Client()
	_, secret, err := admin.CreateApp("billing")
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
		Versions        []struct{ Change, Author string }
	}
	read := func() []job {
		var out struct {
			Jobs struct{ Edges []struct{ Node job } }
		}
		if err := admin.Do(`{ jobs(app: "billing") { edges { node { name managedBy enabled versions { change author } } } } }`, nil, &out); err != nil {
			t.Fatal(err)
		}
		list := make([]job, 0, len(out.Jobs.Edges))
		for _, e := range out.Jobs.Edges {
			list = append(list, e.Node)
		}
		return list
	}
	agent := func() *harness.Process {
		return harness.StartAgent(t, harness.AgentOptions{Servers: []string{srv.URL}, App: "billing", Secret: secret,
			Env: []string{"JOBWHEEL_JOBS_FILE=" + file}})
	}

	declare(`{"name": "invoices", "scheduleType": "CRON", "scheduleExpression": "0 0 3 * * ?", "timeZone": "Europe/Berlin",
		"processor": "example.sleep", "maxInstances": 2, "timeoutMs": 60000}`)
	a := agent()
	var got []job
	testkit.Eventually(t, "the declared job appears", func() bool { got = read(); return len(got) == 1 })
	if j := got[0]; j.Name != "invoices" || j.ManagedBy != "billing-service" || !j.Enabled || len(j.Versions) != 1 || j.Versions[0].Change != "CODE" ||
		!strings.HasPrefix(j.Versions[0].Author, "worker ") {
		t.Fatalf("declared job: %+v", j)
	}
	if err := a.Stop(harness.StopTimeout); err != nil {
		t.Fatal(err)
	}

	declare(``)
	agent()
	testkit.Eventually(t, "the job no longer declared is disabled", func() bool { got = read(); return len(got) == 1 && !got[0].Enabled })
	if j := got[0]; j.ManagedBy != "billing-service" || len(j.Versions) != 2 {
		t.Fatalf("disabled job: %+v; want it kept, managed, with its history", j)
	}
}
