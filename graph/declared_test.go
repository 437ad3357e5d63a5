package graph

import (
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// TestDeclaredJobsAdoptOnlyWhatTheyManage (issue 25, item 7): a worker
// declaring a job whose name an EDITOR's job has does not take it over:
// that job is REFUSED with the reason (the worker's welcome says so), left
// as it was, and the clash is in the app's audit log; the rest of the set
// is applied. Once an EDITOR hands the job to the set (setJobManagedBy,
// audited), the next declaration adopts it.
func TestDeclaredJobsAdoptOnlyWhatTheyManage(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		appID := api.createApp(t, admin, "orders")
		editor := api.createUser(t, admin, "eve")
		api.setRole(t, admin, "orders", "eve", "EDITOR")
		var created struct{ CreateJob struct{ ID string } }
		api.must(t, editor, `mutation($in: JobInput!) { createJob(input: $in) { id } }`, map[string]any{"in": map[string]any{
			"app": "orders", "name": "sync", "scheduleType": "API", "processorType": "SHELL", "processor": "echo mine"}}, &created)
		id := created.CreateJob.ID

		hello := &protocol.Hello{JobSet: "svc", Jobs: []protocol.DeclaredJob{
			{Name: "sync", ScheduleType: "FIXED_RATE", ScheduleExpression: "1s", Processor: "takeover"},
			{Name: "fresh", ScheduleType: "API", Processor: "p"}}}
		changes, err := api.jobs.Declare(t.Context(), appID, "w1", hello)
		if err != nil {
			t.Fatal(err)
		}
		if len(changes) != 2 || changes[0].Action != protocol.JobRefused || !strings.Contains(changes[0].Error, "setJobManagedBy") ||
			changes[1].Action != protocol.JobCreate {
			t.Fatalf("declared: %+v; want sync REFUSED with the reason, fresh CREATE", changes)
		}
		j, err := d.JobGet(t.Context(), mustInt(t, id))
		if err != nil {
			t.Fatal(err)
		}
		if j.ProcessorType != "SHELL" || j.Processor != "echo mine" || j.ManagedBy != nil || j.Version != 1 {
			t.Fatalf("the EDITOR's job was changed: %+v", j)
		}
		var page auditPage
		api.must(t, editor, auditQuery, map[string]any{"app": "orders", "t": "job", "o": id}, &page)
		if e := page.AuditLog.Edges; len(e) == 0 || e[0].Node.Action != "declareJob" || e[0].Node.Outcome != "REFUSED" ||
			e[0].Node.Actor != "worker w1" || e[0].Node.ObjectName != "sync" {
			t.Fatalf("the clash is not in the job's audit log: %+v", e)
		}

		// Handed over: audited, and adopted by the next declaration.
		api.must(t, editor, `mutation($id: ID!) { setJobManagedBy(id: $id, set: "svc") { managedBy } }`, map[string]any{"id": id}, nil)
		api.must(t, admin, auditQuery, map[string]any{"app": "orders", "t": "job", "o": id}, &page)
		if e := page.AuditLog.Edges[0].Node; e.Action != "setJobManagedBy" || e.Actor != "eve" || len(changesOf(e, "managedBy")) != 1 {
			t.Fatalf("setJobManagedBy entry: %+v", e)
		}
		if changes, err = api.jobs.Declare(t.Context(), appID, "w1", hello); err != nil {
			t.Fatal(err)
		}
		if changes[0].Action != protocol.JobUpdate {
			t.Fatalf("after the hand-over: %+v; want sync UPDATE", changes)
		}
		if j, _ = d.JobGet(t.Context(), mustInt(t, id)); j.ProcessorType != "GO" || j.Processor != "takeover" {
			t.Fatalf("the handed-over job was not adopted: %+v", j)
		}

		// Another set may not take it either.
		changes, err = api.jobs.Declare(t.Context(), appID, "w2", &protocol.Hello{JobSet: "other", Jobs: hello.Jobs[:1]})
		if err != nil || changes[0].Action != protocol.JobRefused || !strings.Contains(changes[0].Error, `set "svc"`) {
			t.Fatalf("another set declaring svc's job: %+v, %v", changes, err)
		}
		// Handed back to people, the set no longer adopts it.
		api.must(t, editor, `mutation($id: ID!) { setJobManagedBy(id: $id, set: null) { managedBy } }`, map[string]any{"id": id}, nil)
		if changes, _ = api.jobs.Declare(t.Context(), appID, "w1", hello); changes[0].Action != protocol.JobRefused {
			t.Fatalf("after handing it back: %+v", changes)
		}
	})
}
