package live_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/live"
)

// run records a workflow of one JOB node and a RUNNING run of it with the
// node's row WAITING.
func (e *env) run(t *testing.T) (*db.WorkflowInstance, *db.WorkflowNodeRun) {
	t.Helper()
	ctx := context.Background()
	w := &db.Workflow{AppID: e.app.ID}
	w.Apply(db.WorkflowSpec{Name: "wf", Enabled: true, ScheduleType: db.ScheduleAPI, TimeZone: "UTC", MaxInstances: 1,
		OverlapPolicy: db.OverlapCancel, MisfirePolicy: db.MisfireFireOnce,
		Graph: db.WorkflowGraph{Nodes: []db.WorkflowNode{{Key: "a", Type: db.NodeJob, JobID: e.jobID, Enabled: true}}}})
	if err := e.d.WorkflowCreate(ctx, w, "admin"); err != nil {
		t.Fatal(err)
	}
	r := &db.WorkflowInstance{AppID: e.app.ID, WorkflowID: w.ID, Version: 1, Status: db.WorkflowRunning, TriggerType: db.TriggerAPI,
		TriggerAt: db.Now(), Graph: w.Graph}
	if _, err := e.d.WorkflowInstanceCreate(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := e.d.WorkflowNodeRunCreateMany(ctx, []db.WorkflowNodeRun{{WorkflowInstanceID: r.ID, NodeKey: "a", NodeType: db.NodeJob, Status: db.NodeWaiting}}); err != nil {
		t.Fatal(err)
	}
	n, err := e.d.WorkflowNodeRunGet(ctx, r.ID, "a")
	if err != nil {
		t.Fatal(err)
	}
	return r, n
}

// TestWorkflowInstanceUpdated: a run's subscriber gets its state at once,
// then each node transition as it is hinted (the timer's re-read is an
// hour away here) and, when the run is deleted, the end of the stream with
// NOT_FOUND. A finished run's stream stays open.
func TestWorkflowInstanceUpdated(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d, live.Config{PollEvery: time.Hour})
		ctx := context.Background()
		r, node := e.run(t)
		s, err := e.hub.WorkflowInstanceUpdated(e.ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := recv(t, s); got.ID != r.ID || got.Status != db.WorkflowRunning {
			t.Fatalf("first value %+v", got)
		}
		if _, err := e.hub.WorkflowInstanceUpdated(e.ctx, r.ID+1000); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("a run that does not exist: %v", err)
		}
		// A node transition, hinted.
		if ok, err := d.WorkflowNodeRunTransition(ctx, db.WorkflowNodeRunTransition{ID: node.ID, From: []string{db.NodeWaiting}, Generation: 1, To: db.NodeRunning}, nil); !ok || err != nil {
			t.Fatalf("move: %v %v", ok, err)
		}
		e.hub.WorkflowInstancesChanged(e.app.ID, []int64{r.ID})
		recv(t, s)
		// The run finishes; a hint for the whole app wakes it too.
		if ok, err := d.WorkflowInstanceTransition(ctx, db.WorkflowInstanceTransition{ID: r.ID, From: []string{db.WorkflowRunning}, To: db.WorkflowSucceeded}); !ok || err != nil {
			t.Fatalf("finish: %v %v", ok, err)
		}
		e.hub.WorkflowInstancesChanged(e.app.ID, nil)
		if got := recv(t, s); got.Status != db.WorkflowSucceeded {
			t.Fatalf("after the run finished: %+v", got)
		}
		// Deleted with its workflow: the stream ends saying so.
		if err := d.WorkflowDelete(ctx, r.WorkflowID); err != nil {
			t.Fatal(err)
		}
		e.hub.WorkflowInstancesChanged(e.app.ID, nil)
		for range s.C {
		}
		if !errors.Is(s.Err(), fault.ErrNotFound) {
			t.Fatalf("after the run was deleted: %v; want NOT_FOUND", s.Err())
		}
	})
}

// TestWorkflowInstanceUpdatedWithoutHints: a transition nobody hinted
// (a lost NOTIFY) arrives by the timer's re-read.
func TestWorkflowInstanceUpdatedWithoutHints(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dbtest.Open(t, db.SQLite), live.Config{PollEvery: 20 * time.Millisecond})
	r, node := e.run(t)
	s, err := e.hub.WorkflowInstanceUpdated(e.ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	recv(t, s)
	if ok, err := e.d.WorkflowNodeRunTransition(context.Background(), db.WorkflowNodeRunTransition{ID: node.ID, From: []string{db.NodeWaiting}, Generation: 1,
		To: db.NodeAwaitingApproval}, nil); !ok || err != nil {
		t.Fatalf("move: %v %v", ok, err)
	}
	recv(t, s)
	n, err := e.d.WorkflowNodeRunGet(context.Background(), r.ID, "a")
	if err != nil || n.Status != db.NodeAwaitingApproval {
		t.Fatalf("node %+v, %v", n, err)
	}
}
