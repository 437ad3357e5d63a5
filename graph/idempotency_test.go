package graph

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestRunJobIdempotencyKey: 20 concurrent runJob calls with one key
// create exactly one instance and all get its id; another key, or the same
// key on another job, runs again; bad keys are BAD_INPUT naming
// idempotencyKey; a key older than 24 hours names its instance no longer.
func TestRunJobIdempotencyKey(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		job, other := api.createJob(t, admin, "orders", "report"), api.createJob(t, admin, "orders", "other")
		runQ := `mutation($id: ID!, $p: String, $key: String) { runJob(id: $id, params: $p, idempotencyKey: $key) { id idempotencyKey } }`
		run := func(t *testing.T, id, key string) string {
			t.Helper()
			var out struct{ RunJob struct{ ID string } }
			api.must(t, admin, runQ, map[string]any{"id": id, "key": key}, &out)
			return out.RunJob.ID
		}

		const callers = 20
		ids := make([]string, callers)
		var wg sync.WaitGroup
		for i := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var out struct {
					RunJob struct {
						ID             string
						IdempotencyKey *string
					}
				}
				if r := api.do(t, admin, runQ, map[string]any{"id": job, "p": "n=" + string(rune('a'+i)), "key": "order-42"}, &out); len(r.Errors) > 0 {
					t.Errorf("caller %d: %+v", i, r.Errors)
				}
				if k := out.RunJob.IdempotencyKey; k == nil || *k != "order-42" {
					t.Errorf("caller %d: idempotencyKey %v", i, k)
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
		count := func() int {
			n, err := d.InstanceCount(context.Background(), db.InstanceFilter{AppID: jobApp(t, d, job), JobID: mustInt(t, job)})
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := count(); n != 1 {
			t.Fatalf("%d instances after 20 keyed calls; want 1", n)
		}
		if again := run(t, job, "order-43"); again == ids[0] {
			t.Fatal("another key returned the same instance")
		}
		if elsewhere := run(t, other, "order-42"); elsewhere == ids[0] {
			t.Fatal("the same key on another job returned the first job's instance")
		}
		if n := count(); n != 2 {
			t.Fatalf("%d instances; want 2", n)
		}

		for _, key := range []string{"", strings.Repeat("k", 129), "a\nb"} {
			if r := api.do(t, admin, runQ, map[string]any{"id": job, "key": key}, nil); r.code() != CodeBadInput || r.Errors[0].field() != "idempotencyKey" {
				t.Errorf("key %q: %+v; want BAD_INPUT on idempotencyKey", key, r.Errors)
			}
		}

		// After the window the key is released from the old instance and a
		// new run is recorded: since is what jobs.Service passes (now − 24 h),
		// here a moment after the first instance was created.
		ctx := context.Background()
		key := "order-42"
		first, err := d.InstanceGet(ctx, mustInt(t, ids[0]))
		if err != nil {
			t.Fatal(err)
		}
		fresh := &db.Instance{AppID: first.AppID, JobID: first.JobID, Status: db.StatusWaiting, TriggerType: db.TriggerAPI,
			TriggerAt: db.Now(), IdempotencyKey: &key}
		got, created, err := d.InstanceCreateIdempotent(ctx, fresh, first.CreatedAt.Add(time.Millisecond))
		if err != nil || !created || got.ID == first.ID {
			t.Fatalf("after the window: %+v created=%v err=%v; want a new instance", got, created, err)
		}
		if old, _ := d.InstanceGet(ctx, first.ID); old.IdempotencyKey != nil {
			t.Fatalf("the expired instance kept its key %q", *old.IdempotencyKey)
		}
		if again := run(t, job, key); again != strconv.FormatInt(got.ID, 10) {
			t.Fatalf("the key now names instance %s; want the new one %d", again, got.ID)
		}
	})
}

func jobApp(t *testing.T, d *db.DB, id string) int64 {
	t.Helper()
	j, err := d.JobGet(context.Background(), mustInt(t, id))
	if err != nil {
		t.Fatal(err)
	}
	return j.AppID
}

// TestSchemaSDL: GET /graphql/schema.graphql serves the executed schema as
// SDL that parses back with every root operation and runJob's
// idempotencyKey, with an ETag a client can revalidate against.
func TestSchemaSDL(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(SchemaHandler())
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/graphql") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	schema, gerr := gqlparser.LoadSchema(&ast.Source{Name: "schema.graphql", Input: string(body)})
	if gerr != nil {
		t.Fatalf("the SDL does not parse: %v", gerr)
	}
	for _, root := range []*ast.Definition{schema.Query, schema.Mutation, schema.Subscription} {
		if root == nil || len(root.Fields) == 0 {
			t.Fatalf("a root type is missing or empty: %v", root)
		}
	}
	runJob := schema.Mutation.Fields.ForName("runJob")
	if runJob == nil || runJob.Arguments.ForName("idempotencyKey") == nil || runJob.Description == "" {
		t.Fatalf("runJob in the SDL: %+v", runJob)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
	again, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = again.Body.Close()
	if again.StatusCode != http.StatusNotModified {
		t.Fatalf("revalidating with the ETag: %d, want 304", again.StatusCode)
	}
}
