package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

func newWorkflow(t *testing.T, d *db.DB, appID int64, name string) *db.Workflow {
	t.Helper()
	w := &db.Workflow{AppID: appID}
	w.Apply(db.WorkflowSpec{Name: name, Enabled: true, ScheduleType: db.ScheduleAPI, TimeZone: "UTC", MaxInstances: 1,
		OverlapPolicy: db.OverlapCancel, MisfirePolicy: db.MisfireFireOnce,
		Graph: db.WorkflowGraph{Nodes: []db.WorkflowNode{{Key: "a", Type: db.NodeJob, JobID: 1, Enabled: true, Params: new("x=1")},
			{Key: "b", Type: db.NodeDecision, Expression: "true", Enabled: true}},
			Edges: []db.WorkflowEdge{{From: "a", To: "b"}}}})
	if err := d.WorkflowCreate(context.Background(), w, "alice"); err != nil {
		t.Fatal(err)
	}
	return w
}

// Every save is a version; a save from an outdated version is refused.
func TestWorkflowVersions(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		w := newWorkflow(t, d, app.ID, "etl")
		if w.Version != 1 || w.ID == 0 {
			t.Fatalf("created: version %d id %d", w.Version, w.ID)
		}
		w.Description = "v2"
		w.Graph.Nodes[0].Params = new("x=2")
		if err := d.WorkflowUpdate(ctx, w, 1, "bob"); err != nil {
			t.Fatal(err)
		}
		stale := *w
		stale.Description = "lost"
		if err := d.WorkflowUpdate(ctx, &stale, 1, "carol"); !errors.Is(err, db.ErrConflict) {
			t.Fatalf("save from version 1 after version 2: %v; want ErrConflict", err)
		}
		got, err := d.WorkflowGet(ctx, w.ID)
		if err != nil || got.Version != 2 || got.Description != "v2" || *got.Graph.Nodes[0].Params != "x=2" {
			t.Fatalf("after the save: %+v, %v", got, err)
		}
		versions, err := d.WorkflowVersionList(ctx, w.ID)
		if err != nil || len(versions) != 2 || versions[0].Version != 2 || versions[1].CreatedBy != "alice" {
			t.Fatalf("versions %+v, %v", versions, err)
		}
		v1, err := d.WorkflowVersionGet(ctx, w.ID, 1)
		if err != nil || *v1.Spec.Graph.Nodes[0].Params != "x=1" || v1.Spec.Name != "etl" {
			t.Fatalf("version 1: %+v, %v", v1, err)
		}
		list, more, err := d.WorkflowList(ctx, db.WorkflowFilter{AppID: app.ID, Search: "ET", Limit: 10})
		if err != nil || more || len(list) != 1 {
			t.Fatalf("list: %d, %v, %v", len(list), more, err)
		}
	})
}

// Runs: one per workflow and expected time; node rows move by
// compare-and-set on status and generation, fenced by the lease epoch.
func TestWorkflowInstancesAndNodeMoves(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		w := newWorkflow(t, d, app.ID, "etl")
		at := db.Now().Truncate(time.Second)
		mk := func() (*db.WorkflowInstance, bool) {
			r := &db.WorkflowInstance{AppID: app.ID, WorkflowID: w.ID, Version: 1, Status: db.WorkflowWaiting, TriggerType: db.TriggerSchedule,
				ExpectedTriggerAt: &at, TriggerAt: at, Graph: w.Graph, Context: map[string]any{"region": "eu"}}
			created, err := d.WorkflowInstanceCreate(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			return r, created
		}
		wi, created := mk()
		if !created || wi.ID == 0 {
			t.Fatalf("first run: created %v id %d", created, wi.ID)
		}
		if _, created := mk(); created {
			t.Fatal("a second run for the same expected time was created")
		}
		started := db.Now()
		if ok, err := d.WorkflowInstanceTransition(ctx, db.WorkflowInstanceTransition{ID: wi.ID, From: []string{db.WorkflowWaiting}, To: db.WorkflowRunning, StartedAt: &started}); !ok || err != nil {
			t.Fatalf("start: %v %v", ok, err)
		}
		if ok, _ := d.WorkflowInstanceTransition(ctx, db.WorkflowInstanceTransition{ID: wi.ID, From: []string{db.WorkflowWaiting}, To: db.WorkflowRunning}); ok {
			t.Fatal("a second start from WAITING succeeded")
		}
		if n, _ := d.WorkflowCountActive(ctx, w.ID); n != 1 {
			t.Fatalf("%d active runs; want 1", n)
		}
		if err := d.WorkflowNodeRunCreateMany(ctx, []db.WorkflowNodeRun{
			{WorkflowInstanceID: wi.ID, NodeKey: "a", NodeType: db.NodeJob, Status: db.NodeWaiting},
			{WorkflowInstanceID: wi.ID, NodeKey: "b", NodeType: db.NodeDecision, Status: db.NodeWaiting},
		}); err != nil {
			t.Fatal(err)
		}
		nodes, err := d.WorkflowNodeRunListByInstances(ctx, []int64{wi.ID})
		if err != nil || len(nodes) != 2 || nodes[0].Generation != 1 {
			t.Fatalf("nodes %+v, %v", nodes, err)
		}
		a := nodes[0]
		if _, _, err := d.LeaseAcquire(ctx, app.ID, "s1", time.Minute, db.Now()); err != nil {
			t.Fatal(err)
		}
		lease, _, _ := d.LeaseGet(ctx, app.ID, db.Now())
		fence := &db.Fence{AppID: app.ID, ServerID: "s1", Epoch: lease.Epoch}
		in := &db.Instance{AppID: app.ID, JobID: newJob(t, d, app.ID, "j", nil).ID, Status: db.StatusWaiting, TriggerType: db.TriggerWorkflow,
			TriggerAt: db.Now(), WorkflowInstanceID: &wi.ID, WorkflowNodeID: new("a"), WorkflowGeneration: new(1),
			WorkflowInput: &db.WorkflowTaskInput{Context: map[string]any{"region": "eu"}, Upstream: map[string]string{}}, TimeoutMs: new(int64(5000))}
		if err := d.InstanceCreate(ctx, in); err != nil {
			t.Fatal(err)
		}
		ok, err := d.WorkflowNodeRunTransition(ctx, db.WorkflowNodeRunTransition{ID: a.ID, From: []string{db.NodeWaiting}, Generation: 1, To: db.NodeRunning,
			InstanceID: &in.ID, StartedAt: &started}, fence)
		if !ok || err != nil {
			t.Fatalf("start node a: %v %v", ok, err)
		}
		// The same move again finds it RUNNING: refused, without error.
		if ok, err := d.WorkflowNodeRunTransition(ctx, db.WorkflowNodeRunTransition{ID: a.ID, From: []string{db.NodeWaiting}, Generation: 1, To: db.NodeRunning}, fence); ok || err != nil {
			t.Fatalf("second start: %v %v; want refused", ok, err)
		}
		out := map[string]any{"rows": float64(10)}
		ok, err = d.WorkflowNodeRunTransition(ctx, db.WorkflowNodeRunTransition{ID: a.ID, From: []string{db.NodeRunning}, Generation: 1, To: db.NodeSucceeded,
			Result: new("10 rows"), Output: out, FinishSeq: new(int64(1)), FinishedAt: &started}, fence)
		if !ok || err != nil {
			t.Fatalf("finish node a: %v %v", ok, err)
		}
		got, err := d.WorkflowNodeRunGet(ctx, wi.ID, "a")
		if err != nil || got.Output["rows"] != float64(10) || got.Result != "10 rows" || *got.InstanceID != in.ID {
			t.Fatalf("node a: %+v, %v", got, err)
		}
		// A rerun bumps the generation and clears what the node had.
		ok, err = d.WorkflowNodeRunTransition(ctx, db.WorkflowNodeRunTransition{ID: a.ID, From: []string{db.NodeSucceeded}, Generation: 1, To: db.NodeWaiting,
			NextGeneration: new(2), Reset: true}, nil)
		if !ok || err != nil {
			t.Fatalf("rerun: %v %v", ok, err)
		}
		got, _ = d.WorkflowNodeRunGet(ctx, wi.ID, "a")
		if got.Generation != 2 || got.Output != nil || got.InstanceID != nil || got.Result != "" {
			t.Fatalf("after rerun: %+v", got)
		}
		// Another server takes the lease: the old fence refuses.
		if err := d.LeaseRelease(ctx, "s1", []int64{app.ID}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := d.LeaseAcquire(ctx, app.ID, "s2", time.Minute, db.Now()); err != nil {
			t.Fatal(err)
		}
		ok, err = d.WorkflowNodeRunTransition(ctx, db.WorkflowNodeRunTransition{ID: a.ID, From: []string{db.NodeWaiting}, Generation: 2, To: db.NodeRunning}, fence)
		if ok || !errors.Is(err, db.ErrFenced) {
			t.Fatalf("move under a lost lease: %v %v; want ErrFenced", ok, err)
		}
		// The instance kept its workflow fields.
		ins, err := d.InstanceListByWorkflowInstances(ctx, []int64{wi.ID})
		if err != nil || len(ins) != 1 || ins[0].WorkflowInput.Context["region"] != "eu" || *ins[0].TimeoutMs != 5000 || *ins[0].WorkflowGeneration != 1 {
			t.Fatalf("instances of the run: %+v, %v", ins, err)
		}
		if seq, err := d.WorkflowNodeRunNextFinishSeq(ctx, wi.ID); err != nil || seq != 1 {
			t.Fatalf("next finish seq %d, %v; want 1 (a's was cleared)", seq, err)
		}
	})
}
