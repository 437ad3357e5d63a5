package workflow

import (
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// Issue 26, item 7: a run past its workflow's timeout stops its running
// nodes (their job instances too), skips what has not started, and fails
// with reason TIMEOUT.
func TestRunTimeout(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		w := b.workflow("slow", db.WorkflowGraph{Nodes: []db.WorkflowNode{jobNode("a", b.job), jobNode("b", b.job)},
			Edges: []db.WorkflowEdge{{From: "a", To: "b"}}}, func(s *db.WorkflowSpec) { s.TimeoutMs = new(int64(300)) })
		wi := b.start(w, nil)
		r := b.waitWorkflowInstance(wi, db.WorkflowFailed)
		if r.Reason != db.NodeReasonTimeout || !strings.Contains(r.Result, "timed out") {
			t.Fatalf("run failed %s %q; want TIMEOUT", r.Reason, r.Result)
		}
		if n := b.node(wi, "a"); n.Status != db.NodeStopped || n.Reason != db.NodeReasonTimeout {
			t.Fatalf("a %s %s; want STOPPED TIMEOUT", n.Status, n.Reason)
		}
		if n := b.node(wi, "b"); n.Status != db.NodeSkipped || n.Reason != db.NodeReasonTimeout {
			t.Fatalf("b %s %s; want SKIPPED TIMEOUT", n.Status, n.Reason)
		}
		if in := b.instances(wi, "a")[0]; in.Status != db.StatusStopped {
			t.Fatalf("a's instance %s; want STOPPED", in.Status)
		}
	})
}

// Issue 26, item 7: a NESTED node past its timeoutMs stops its nested run
// and fails with reason TIMEOUT; the parent goes on as with any failure.
func TestNestedNodeTimeout(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		inner := b.workflow("inner", db.WorkflowGraph{Nodes: []db.WorkflowNode{jobNode("long", b.job)}})
		top := b.workflow("top", db.WorkflowGraph{Nodes: []db.WorkflowNode{
			{Key: "nested", Type: db.NodeNested, WorkflowID: inner.ID, Enabled: true, TimeoutMs: new(int64(300))},
			jobNode("cleanup", b.job, func(n *db.WorkflowNode) { n.TriggerRule = db.RuleAllDone })},
			Edges: []db.WorkflowEdge{{From: "nested", To: "cleanup"}}})
		wi := b.start(top, nil)
		child := *b.waitNode(wi, "nested", db.NodeRunning).ChildInstanceID
		n := b.waitNode(wi, "nested", db.NodeFailed)
		if n.Reason != db.NodeReasonTimeout {
			t.Fatalf("nested failed %s %q; want TIMEOUT", n.Reason, n.Message)
		}
		b.waitWorkflowInstance(child, db.WorkflowStopped)
		b.finish(wi, "cleanup", db.StatusSucceeded, "", nil)
		b.waitWorkflowInstance(wi, db.WorkflowFailed)
	})
}

// Issue 26, item 8: with REPLACE, a run over maxInstances stops the oldest
// running one and starts.
func TestReplaceOverlapPolicy(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		w := b.workflow("replaced", db.WorkflowGraph{Nodes: []db.WorkflowNode{jobNode("a", b.job)}}, func(s *db.WorkflowSpec) {
			s.MaxInstances, s.OverlapPolicy = 1, db.OverlapReplace
		})
		first := b.start(w, nil)
		b.waitNode(first, "a", db.NodeRunning)
		second := b.start(w, nil)
		r := b.waitWorkflowInstance(first, db.WorkflowStopped)
		if !strings.Contains(r.Result, "replaced by run") {
			t.Fatalf("first stopped with %q; want it to say it was replaced", r.Result)
		}
		if in := b.instances(first, "a")[0]; in.Status != db.StatusStopped {
			t.Fatalf("the first run's instance is %s; want STOPPED", in.Status)
		}
		b.finish(second, "a", db.StatusSucceeded, "", nil)
		b.waitWorkflowInstance(second, db.WorkflowSucceeded)
	})
}
