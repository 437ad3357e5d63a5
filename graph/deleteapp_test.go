package graph

import (
	"context"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestDeleteApp: only an administrator deletes an app, never one whose
// workers are connected, and the deletion takes everything the app held and
// nothing of other apps.
func TestDeleteApp(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		appID := api.createApp(t, admin, "orders")
		keepID := api.createApp(t, admin, "keep")
		olga := api.createUser(t, admin, "olga")
		if r := api.setRole(t, admin, "orders", "olga", "OWNER"); len(r.Errors) > 0 {
			t.Fatal(r.Errors)
		}
		var tok struct{ CreateApiToken struct{ Secret string } }
		api.must(t, olga, `mutation { createApiToken(name: "ci", app: "orders", role: EDITOR) { secret } }`, nil, &tok)
		jobs := map[int64]int64{}
		for _, app := range []struct {
			name string
			id   int64
		}{{"orders", appID}, {"keep", keepID}} {
			job := mustInt(t, api.createJob(t, admin, app.name, "sync"))
			jobs[app.id] = job
			in := &db.Instance{AppID: app.id, JobID: job, Status: db.StatusSucceeded, TriggerType: "API", TriggerAt: db.Now()}
			if err := d.InstanceCreate(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		now := db.Now()
		worker := &db.Worker{AppID: appID, ID: "w1", ServerID: "s1", Host: "host-a", Tags: []string{}, Processors: []string{},
			Slots: 4, ConnectedAt: now, LastHeartbeat: now}
		if err := d.WorkerUpsert(ctx, worker); err != nil {
			t.Fatal(err)
		}

		const del = `mutation($a: String!) { deleteApp(app: $a) }`
		if r := api.do(t, olga, del, map[string]any{"a": "orders"}, nil); r.code() != CodeForbidden {
			t.Fatalf("an app OWNER who is not an administrator deletes it: %+v", r.Errors)
		}
		r := api.do(t, admin, del, map[string]any{"a": "orders"}, nil)
		if r.code() != CodeConflict || !strings.Contains(r.Errors[0].Message, "host-a") {
			t.Fatalf("deleting an app with a connected worker: %+v; want CONFLICT naming host-a", r.Errors)
		}
		if r := api.do(t, admin, del, map[string]any{"a": "nope"}, nil); r.code() != CodeNotFound {
			t.Fatalf("deleting an unknown app: %+v", r.Errors)
		}

		if err := d.WorkerDisconnected(ctx, appID, "w1", "s1", db.Now()); err != nil {
			t.Fatal(err)
		}
		var out struct{ DeleteApp bool }
		api.must(t, admin, del, map[string]any{"a": "orders"}, &out)
		if !out.DeleteApp {
			t.Fatal("deleteApp returned false")
		}

		var apps struct{ Apps []struct{ Name string } }
		api.must(t, admin, `{ apps { name } }`, nil, &apps)
		if len(apps.Apps) != 1 || apps.Apps[0].Name != "keep" {
			t.Errorf("apps after the deletion: %+v; want only keep", apps.Apps)
		}
		if r := api.do(t, admin, `{ jobs(app: "orders") { edges { cursor } } }`, nil, nil); r.code() != CodeNotFound {
			t.Errorf("jobs of the deleted app: %+v; want NOT_FOUND", r.Errors)
		}
		if r := api.do(t, tok.CreateApiToken.Secret, `{ apps { name } }`, nil, nil); r.code() != CodeUnauthenticated {
			t.Errorf("a token scoped to the deleted app still works: %+v", r.Errors)
		}
		if _, err := d.JobGet(ctx, jobs[appID]); err == nil {
			t.Error("the deleted app's job is still stored")
		}
		for id, want := range map[int64]int{appID: 0, keepID: 1} {
			n, err := d.InstanceCount(ctx, db.InstanceFilter{AppID: id})
			if err != nil || n != want {
				t.Errorf("app %d: %d instances stored, %v; want %d", id, n, err, want)
			}
		}
		if _, err := d.JobGet(ctx, jobs[keepID]); err != nil {
			t.Errorf("the other app's job: %v", err)
		}
		if r := api.do(t, admin, del, map[string]any{"a": "orders"}, nil); r.code() != CodeNotFound {
			t.Errorf("deleting it again: %+v; want NOT_FOUND", r.Errors)
		}
	})
}
