package e2e

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
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
