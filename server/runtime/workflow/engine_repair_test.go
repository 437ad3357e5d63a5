package workflow

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// Issue 26, item 1: A→B→C and A→X, with a ONE_FAILED cleanup after B. B
// fails: C is skipped, cleanup runs, the instance ends FAILED. Rerunning B
// alone, B succeeds: C (skipped for B's failure) runs and cleanup (run for
// it) is decided again, and skipped — the instance ends SUCCEEDED only once
// C has. Today C stayed SKIPPED and the instance ended SUCCEEDED at once.
func TestRerunAloneDecidesAgainWhatTheFailureDecided(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		w := b.workflow("repair", db.WorkflowGraph{
			Nodes: []db.WorkflowNode{jobNode("a", b.job), jobNode("b", b.job), jobNode("c", b.job), jobNode("x", b.job),
				jobNode("cleanup", b.job, func(n *db.WorkflowNode) { n.TriggerRule = db.RuleOneFailed })},
			Edges: []db.WorkflowEdge{{From: "a", To: "b"}, {From: "b", To: "c"}, {From: "a", To: "x"}, {From: "b", To: "cleanup"}}})
		wi := b.start(w, nil)
		b.finish(wi, "a", db.StatusSucceeded, "", nil)
		b.finish(wi, "x", db.StatusSucceeded, "", nil)
		b.finish(wi, "b", db.StatusFailed, "boom", nil)
		b.finish(wi, "cleanup", db.StatusSucceeded, "cleaned", nil)
		b.waitWorkflowInstance(wi, db.WorkflowFailed)
		if n := b.node(wi, "c"); n.Status != db.NodeSkipped || n.Reason != db.NodeReasonUpstreamFailed {
			t.Fatalf("c %s %s; want SKIPPED UPSTREAM_FAILED", n.Status, n.Reason)
		}
		if err := b.ops.Rerun(context.Background(), wi, "b", false, "alice"); err != nil {
			t.Fatal(err)
		}
		b.engine.WorkflowInstancesChanged([]int64{wi})
		b.finish(wi, "b", db.StatusSucceeded, "ok", nil)
		b.waitNode(wi, "c", db.NodeRunning)
		if n := b.waitNode(wi, "cleanup", db.NodeSkipped); n.Reason != db.NodeReasonTriggerRule {
			t.Fatalf("cleanup skipped %s; want TRIGGER_RULE (b no longer failed)", n.Reason)
		}
		if r := b.waitWorkflowInstance(wi, db.WorkflowRunning); r.Status != db.WorkflowRunning {
			t.Fatal(r.Status)
		}
		b.finish(wi, "c", db.StatusSucceeded, "", nil)
		b.waitWorkflowInstance(wi, db.WorkflowSucceeded)
	})
}

// Issue 26, item 2: an operation on a nested instance is refused, naming
// its parent, which is where repairs are made; retrying the parent retries
// the nested instance in place (item 10): its succeeded node does not run
// again, its failed one does, and the parent follows.
func TestNestedInstancesAreRepairedThroughTheirParent(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		inner := b.workflow("inner", db.WorkflowGraph{Nodes: []db.WorkflowNode{jobNode("ok", b.job), jobNode("flaky", b.job)}})
		top := b.workflow("top", db.WorkflowGraph{Nodes: []db.WorkflowNode{{Key: "nested", Type: db.NodeNested, WorkflowID: inner.ID, Enabled: true},
			jobNode("after", b.job)}, Edges: []db.WorkflowEdge{{From: "nested", To: "after"}}})
		wi := b.start(top, nil)
		child := *b.waitNode(wi, "nested", db.NodeRunning).ChildInstanceID
		b.finish(child, "ok", db.StatusSucceeded, "", nil)
		b.finish(child, "flaky", db.StatusFailed, "boom", nil)
		b.waitWorkflowInstance(wi, db.WorkflowFailed)
		okBefore := b.instances(child, "ok")
		ctx := context.Background()
		for name, op := range map[string]func() error{
			"retry": func() error { return b.ops.Retry(ctx, child, "alice") },
			"stop":  func() error { return b.ops.Stop(ctx, child, "alice") },
			"rerun": func() error { return b.ops.Rerun(ctx, child, "ok", false, "alice") },
			"mark":  func() error { return b.ops.MarkSucceeded(ctx, child, "flaky", "alice") },
		} {
			err := op()
			if !errors.Is(err, fault.ErrConflict) || !strings.Contains(err.Error(), "nested in run") {
				t.Fatalf("%s on the nested instance: %v; want CONFLICT naming its parent", name, err)
			}
		}
		if err := b.ops.Retry(ctx, wi, "alice"); err != nil {
			t.Fatal(err)
		}
		b.engine.WorkflowInstancesChanged([]int64{wi, child})
		if n := b.waitNode(wi, "nested", db.NodeRunning); *n.ChildInstanceID != child {
			t.Fatalf("nested runs instance %d; want %d retried in place", *n.ChildInstanceID, child)
		}
		b.finish(child, "flaky", db.StatusSucceeded, "", nil)
		b.finish(wi, "after", db.StatusSucceeded, "", nil)
		b.waitWorkflowInstance(wi, db.WorkflowSucceeded)
		if okAfter := b.instances(child, "ok"); len(okAfter) != len(okBefore) || okAfter[0].ID != okBefore[0].ID {
			t.Fatalf("ok ran %d times after the retry; want its one succeeded run kept", len(okAfter))
		}
	})
}

// Issue 26, item 10: retrying a FOREACH runs again only the elements that
// did not succeed; the result still lists every element's, in order.
func TestRetryRunsOnlyTheFailedElements(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		w := b.workflow("each", db.WorkflowGraph{Nodes: []db.WorkflowNode{
			{Key: "each", Type: db.NodeForeach, JobID: b.job, Expression: `1..5`, Parallelism: 5, Enabled: true}}})
		wi := b.start(w, nil)
		testkit.Eventually(t, "the elements to be made", func() bool { return len(b.instances(wi, "each")) == 5 })
		for _, in := range b.instances(wi, "each") {
			status := db.StatusSucceeded
			if item := deref(in.WorkflowItem); item == 1 || item == 3 {
				status = db.StatusFailed
			}
			b.end(wi, in, status, `"r`+itoa(int64(deref(in.WorkflowItem)))+`"`)
		}
		b.waitWorkflowInstance(wi, db.WorkflowFailed)
		if err := b.ops.Retry(context.Background(), wi, "alice"); err != nil {
			t.Fatal(err)
		}
		b.engine.WorkflowInstancesChanged([]int64{wi})
		testkit.Eventually(t, "the failed elements to be made again", func() bool { return len(b.instances(wi, "each")) == 7 })
		for _, in := range b.instances(wi, "each") {
			if !db.IsFinal(in.Status) {
				b.end(wi, in, db.StatusSucceeded, `"again`+itoa(int64(deref(in.WorkflowItem)))+`"`)
			}
		}
		n := b.waitNode(wi, "each", db.NodeSucceeded)
		if n.Result != `["r0","again1","r2","again3","r4"]` {
			t.Fatalf("result %s; want the kept and the new results in element order", n.Result)
		}
	})
}

// Issue 26, item 11: pausing an instance pauses its nested instances too,
// and resuming resumes them.
func TestPauseReachesNestedInstances(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		inner := b.workflow("inner", db.WorkflowGraph{Nodes: []db.WorkflowNode{jobNode("first", b.job), jobNode("second", b.job)},
			Edges: []db.WorkflowEdge{{From: "first", To: "second"}}})
		top := b.workflow("top", db.WorkflowGraph{Nodes: []db.WorkflowNode{{Key: "nested", Type: db.NodeNested, WorkflowID: inner.ID, Enabled: true}}})
		wi := b.start(top, nil)
		child := *b.waitNode(wi, "nested", db.NodeRunning).ChildInstanceID
		b.waitNode(child, "first", db.NodeRunning)
		ctx := context.Background()
		if err := b.ops.Pause(ctx, wi, "alice"); err != nil {
			t.Fatal(err)
		}
		b.waitWorkflowInstance(child, db.WorkflowPaused)
		// A paused nested instance starts nothing: its running node ends,
		// the next waits.
		b.finish(child, "first", db.StatusSucceeded, "", nil)
		b.engine.WorkflowInstancesChanged([]int64{child})
		b.waitNode(child, "first", db.NodeSucceeded)
		if n := b.node(child, "second"); n.Status != db.NodeWaiting {
			t.Fatalf("second %s while paused; want WAITING", n.Status)
		}
		if err := b.ops.Resume(ctx, wi, "alice"); err != nil {
			t.Fatal(err)
		}
		b.engine.WorkflowInstancesChanged([]int64{wi, child})
		b.waitWorkflowInstance(child, db.WorkflowRunning)
		b.finish(child, "second", db.StatusSucceeded, "", nil)
		b.waitWorkflowInstance(wi, db.WorkflowSucceeded)
	})
}

// end ends one given job instance as a worker's report would.
func (b *bundle) end(wi int64, in db.Instance, status, result string) {
	b.t.Helper()
	now := db.Now()
	if _, err := b.d.InstanceTransitionMany(context.Background(), []db.InstanceTransition{{ID: in.ID, From: in.Status, To: status,
		Result: &result, FinishedAt: &now}}); err != nil {
		b.t.Fatal(err)
	}
	b.engine.WorkflowInstancesChanged([]int64{wi})
}
