package db_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// Rows written by the bulk statements (on PostgreSQL one JSON parameter
// read by json_to_recordset) read back exactly as given: text with
// quotes, backslashes, control characters and non-ASCII, empty strings
// apart from NULLs, times to the millisecond, JSON columns, and the ids
// returned in the order of the rows.
func TestBulkStatementsKeepEveryValue(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		j := newJob(t, d, app.ID, "bulk", nil)
		now := db.Now()
		later := now.Add(1500 * time.Millisecond)
		odd := "a \"quoted\" \\ back\\slash\nnew line\ttab \x01 ünïcödé 日本 {} [] ' ,"
		worker := "w-1"
		ins := []*db.Instance{
			{AppID: app.ID, JobID: j.ID, Status: db.StatusWaiting, TriggerType: db.TriggerAPI, TriggerAt: now, Params: odd},
			{AppID: app.ID, JobID: j.ID, Status: db.StatusRunning, TriggerType: db.TriggerAPI, TriggerAt: later, Params: "",
				StartedAt: &later, WorkerID: &worker, WorkflowOutput: map[string]any{"k": odd, "n": 2.5},
				NoWorker: &db.NoWorker{At: now, Workers: []db.WorkerVerdict{}}},
		}
		if err := d.InstanceCreateMany(ctx, ins); err != nil {
			t.Fatal(err)
		}
		if ins[0].ID == 0 || ins[1].ID <= ins[0].ID {
			t.Fatalf("ids %d, %d: want increasing in the order given", ins[0].ID, ins[1].ID)
		}
		for _, want := range ins {
			got, err := d.InstanceGet(ctx, want.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Params != want.Params || !got.TriggerAt.Equal(want.TriggerAt) || !reflect.DeepEqual(got.WorkerID, want.WorkerID) ||
				(got.StartedAt == nil) != (want.StartedAt == nil) || (got.StartedAt != nil && !got.StartedAt.Equal(*want.StartedAt)) ||
				!reflect.DeepEqual(got.WorkflowOutput, want.WorkflowOutput) || (got.NoWorker == nil) != (want.NoWorker == nil) ||
				got.ActualTriggerAt != nil || got.WorkflowInput != nil {
				t.Errorf("instance %d read back as %+v; want %+v", want.ID, got, want)
			}
		}

		tasks := []db.Task{
			{InstanceID: ins[0].ID, Name: odd, Kind: "MAP", Status: db.StatusWaiting, Payload: odd, InstanceAttempt: 1},
			{InstanceID: ins[0].ID, Name: "", Kind: "MAP", Status: db.StatusWaiting, Payload: "", InstanceAttempt: 1, NotBefore: &later},
		}
		if err := d.TaskCreateMany(ctx, tasks); err != nil {
			t.Fatal(err)
		}
		if tasks[1].ID <= tasks[0].ID {
			t.Fatalf("task ids %d, %d: want increasing in the order given", tasks[0].ID, tasks[1].ID)
		}
		res := odd + "!"
		moved, err := d.TaskTransitionMany(ctx, []db.TaskTransition{
			{ID: tasks[0].ID, InstanceID: tasks[0].InstanceID, From: db.StatusWaiting, To: db.StatusSucceeded, WorkerID: &worker, Result: &res, FinishedAt: &later},
			{ID: tasks[1].ID, InstanceID: tasks[1].InstanceID, From: db.StatusRunning, To: db.StatusSucceeded}, // not RUNNING: does not move
		})
		if err != nil || len(moved) != 1 || moved[0] != tasks[0].ID {
			t.Fatalf("moved %v, %v; want only the first task", moved, err)
		}
		got, err := d.TaskListResults(ctx, ins[0].ID, 1, []string{"MAP"})
		if err != nil || len(got) != 2 || got[0].Result != res || got[0].Name != odd || got[1].Result != "" || got[1].Status != db.StatusWaiting {
			t.Fatalf("tasks read back %+v, %v", got, err)
		}

		reason := "R"
		if moved, err := d.InstanceTransitionMany(ctx, []db.InstanceTransition{
			{ID: ins[1].ID, From: db.StatusRunning, To: db.StatusFailed, FinishedAt: &later, Result: &res, Reason: &reason},
			{ID: ins[0].ID, From: db.StatusRunning, To: db.StatusFailed}, // WAITING: does not move
		}); err != nil || len(moved) != 1 || moved[0] != ins[1].ID {
			t.Fatalf("instances moved %v, %v; want only the second", moved, err)
		}
		back, err := d.InstanceGet(ctx, ins[1].ID)
		if err != nil || back.Status != db.StatusFailed || back.Result != res || back.Reason != reason || !back.StartedAt.Equal(later) ||
			*back.WorkerID != worker {
			t.Fatalf("moved instance read back %+v, %v", back, err)
		}

		if err := d.AuditCreateMany(ctx, []*db.AuditEntry{{At: now, Actor: odd, Action: "runJob", Outcome: "OK",
			Changes: []db.AuditChange{{Field: "params", After: odd}}}}); err != nil {
			t.Fatal(err)
		}
	})
}
