package graph

import (
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/graph/generated"
	"github.com/jobwheel/jobwheel/server/api/audit"
)

// TestEveryMutationIsAudited: each mutation of the schema is either
// recorded in the log of the app it changes, or listed as global with the
// reason it changes no app. A new mutation fails here until it is one or
// the other.
func TestEveryMutationIsAudited(t *testing.T) {
	t.Parallel()
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	if len(schema.Mutation.Fields) < 40 {
		t.Fatalf("only %d mutations in the schema", len(schema.Mutation.Fields))
	}
	for _, f := range schema.Mutation.Fields {
		if f.Name == "__typename" {
			continue
		}
		scoped, reason := audit.AppScoped(f.Name), audit.Global[f.Name]
		switch {
		case scoped && reason != "":
			t.Errorf("%s is both recorded with its app and listed as global", f.Name)
		case !scoped && reason == "":
			t.Errorf("%s is neither recorded in its app's audit log nor listed as global with a reason", f.Name)
		}
	}
}

// TestMutationsLandInTheirAppsLog: the mutations that used to be stored
// with no app and no object (restoring a job's version, calendars, pools,
// a test alarm) are in the app's log, named, for its members to read.
func TestMutationsLandInTheirAppsLog(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{})
	admin := api.admin(t)
	api.createApp(t, admin, "orders")
	editor := api.createUser(t, admin, "eve")
	viewer := api.createUser(t, admin, "vera")
	api.setRole(t, admin, "orders", "eve", "EDITOR")
	api.setRole(t, admin, "orders", "vera", "VIEWER")

	job := api.createJob(t, editor, "orders", "nightly")
	api.must(t, editor, `mutation($id: ID!, $in: JobInput!) { updateJob(id: $id, input: $in) { id } }`, map[string]any{"id": job, "in": map[string]any{
		"app": "orders", "name": "nightly", "scheduleType": "API", "processorType": "SHELL", "processor": "echo changed"}}, nil)
	api.must(t, editor, `mutation($id: ID!) { restoreJobVersion(id: $id, version: 1) { id } }`, map[string]any{"id": job}, nil)

	var cal struct{ CreateCalendar struct{ ID string } }
	calIn := map[string]any{"app": "orders", "name": "holidays", "dates": []string{"2026-12-25"}}
	api.must(t, editor, `mutation($in: CalendarInput!) { createCalendar(input: $in) { id } }`, map[string]any{"in": calIn}, &cal)
	calIn["dates"] = []string{"2026-12-25", "2027-01-01"}
	api.must(t, editor, `mutation($id: ID!, $in: CalendarInput!) { updateCalendar(id: $id, input: $in) { id } }`,
		map[string]any{"id": cal.CreateCalendar.ID, "in": calIn}, nil)
	api.must(t, editor, `mutation($id: ID!) { deleteCalendar(id: $id) }`, map[string]any{"id": cal.CreateCalendar.ID}, nil)

	var pool struct{ CreatePool struct{ ID string } }
	poolIn := map[string]any{"app": "orders", "name": "db", "slots": 2}
	api.must(t, editor, `mutation($in: PoolInput!) { createPool(input: $in) { id } }`, map[string]any{"in": poolIn}, &pool)
	poolIn["slots"] = 3
	api.must(t, editor, `mutation($id: ID!, $in: PoolInput!) { updatePool(id: $id, input: $in) { id } }`,
		map[string]any{"id": pool.CreatePool.ID, "in": poolIn}, nil)
	api.must(t, editor, `mutation($id: ID!) { deletePool(id: $id) }`, map[string]any{"id": pool.CreatePool.ID}, nil)

	// The job has no channels: the test alarm is refused, and the refusal
	// is on the job's record all the same.
	testAlarm := api.do(t, editor, `mutation($id: ID!) { sendTestAlarm(jobId: $id) { ok } }`, map[string]any{"id": job}, nil)

	var page auditPage
	api.must(t, viewer, auditQuery, map[string]any{"app": "orders", "first": 100}, &page)
	byAction := map[string][]auditNode{}
	for _, e := range page.AuditLog.Edges {
		byAction[e.Node.Action] = append(byAction[e.Node.Action], e.Node)
	}
	for _, want := range []struct{ action, kind, id, name string }{
		{"restoreJobVersion", "job", job, "nightly"},
		{"createCalendar", "calendar", cal.CreateCalendar.ID, "holidays"},
		{"updateCalendar", "calendar", cal.CreateCalendar.ID, "holidays"},
		{"deleteCalendar", "calendar", cal.CreateCalendar.ID, "holidays"},
		{"createPool", "pool", pool.CreatePool.ID, "db"},
		{"updatePool", "pool", pool.CreatePool.ID, "db"},
		{"deletePool", "pool", pool.CreatePool.ID, "db"},
		{"sendTestAlarm", "job", job, "nightly"},
	} {
		got := byAction[want.action]
		if len(got) != 1 {
			t.Errorf("%s: %d entries in orders' log, want 1", want.action, len(got))
			continue
		}
		e := got[0]
		if e.App == nil || *e.App != "orders" || e.ObjectType != want.kind || e.ObjectID != want.id || e.ObjectName != want.name || e.Actor != "eve" {
			t.Errorf("%s entry: %+v; want app orders, %s %s %q by eve", want.action, e, want.kind, want.id, want.name)
		}
	}
	if e := byAction["sendTestAlarm"]; len(e) == 1 && e[0].Outcome != testAlarm.code() && !(testAlarm.code() == "" && e[0].Outcome == "OK") {
		t.Errorf("sendTestAlarm outcome %s, answered %+v", e[0].Outcome, testAlarm.Errors)
	}
	if e := byAction["updateCalendar"]; len(e) == 1 {
		if c := changesOf(e[0], "dates"); len(c) != 1 {
			t.Errorf("updateCalendar recorded %+v, want the dates before and after", e[0].Changes)
		}
	}
	if e := byAction["updatePool"]; len(e) == 1 {
		if c := changesOf(e[0], "slots"); len(c) != 1 || c[0].Before != float64(2) || c[0].After != float64(3) {
			t.Errorf("updatePool recorded %+v, want slots 2 → 3", e[0].Changes)
		}
	}
}
