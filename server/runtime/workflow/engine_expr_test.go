package workflow

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/server/runtime/workflow/wfexpr"
)

// poison is issue 25's DECISION: accepted at save (the range is small), it
// would pin a core for minutes.
const poison = `let r = 1..40000; all(r, all(r, true))`

// Issue 25, item 1: a DECISION over its CPU budget fails its node with
// EXPRESSION_TIMEOUT, and the run ends FAILED; today it ran inside the
// engine's transaction until it finished, minutes later.
func TestExpressionOverItsBudgetFailsTheNode(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		w := b.workflow("poisoned", db.WorkflowGraph{Nodes: []db.WorkflowNode{
			{Key: "loop", Type: db.NodeDecision, Expression: poison, Enabled: true}, jobNode("after", b.job)},
			Edges: []db.WorkflowEdge{{From: "loop", To: "after", Label: "true"}}})
		wi := b.start(w, nil)
		n := b.waitNode(wi, "loop", db.NodeFailed)
		if n.Reason != db.NodeReasonExpressionTimeout || !strings.Contains(n.Message, "CPU") {
			t.Fatalf("loop failed %s %q; want EXPRESSION_TIMEOUT saying the CPU budget was used", n.Reason, n.Message)
		}
		b.waitWorkflowInstance(wi, db.WorkflowFailed)
	})
}

// Issue 25, item 1: while one instance's expression is evaluated (here
// with a budget of an hour), the app's other instances go on, stopping the
// evaluating instance works at once, and its evaluation is stopped.
func TestExpressionNeverBlocksTheApp(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		b.engine.Stop()
		b.eval = NewEvaluator(EvaluatorConfig{Workers: 2, Limits: wfexpr.Limits{CPU: time.Hour}})
		if err := b.eval.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.eval.Stop)
		b.crash("s2")
		slow := b.workflow("slow", db.WorkflowGraph{Nodes: []db.WorkflowNode{{Key: "loop", Type: db.NodeDecision, Expression: poison, Enabled: true}}})
		quick := b.workflow("quick", db.WorkflowGraph{Nodes: []db.WorkflowNode{
			{Key: "check", Type: db.NodeDecision, Expression: `context.n > 1`, Enabled: true}, jobNode("work", b.job)},
			Edges: []db.WorkflowEdge{{From: "check", To: "work", Label: "true"}}})
		stuck := b.start(slow, nil)
		b.waitNode(stuck, "loop", db.NodeRunning)
		wi := b.start(quick, map[string]any{"n": 2})
		b.finish(wi, "work", db.StatusSucceeded, "done", nil)
		b.waitWorkflowInstance(wi, db.WorkflowSucceeded)
		if n := b.node(stuck, "loop"); n.Status != db.NodeRunning {
			t.Fatalf("the slow decision is %s; want it still evaluating", n.Status)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := b.ops.Stop(ctx, stuck, "alice"); err != nil {
			t.Fatalf("stopping the instance while its expression runs: %v", err)
		}
		b.engine.WorkflowInstancesChanged([]int64{stuck})
		if n := b.node(stuck, "loop"); n.Status != db.NodeStopped {
			t.Fatalf("loop %s; want STOPPED", n.Status)
		}
		// The evaluation itself was stopped: with another slow one taking
		// the second worker, a quick one still finds a worker free.
		b.waitNode(b.start(slow, nil), "loop", db.NodeRunning)
		again := b.start(quick, map[string]any{"n": 2})
		b.finish(again, "work", db.StatusSucceeded, "done", nil)
		b.waitWorkflowInstance(again, db.WorkflowSucceeded)
	})
}

// Issue 25, item 1: an evaluation the server never finishes (it stops
// during it, every time) is begun again by the next owner, counted, and the
// node fails after maxEvalAttempts instead of pinning each new owner.
func TestPoisonedEvaluationIsNotBegunForever(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		b.engine.Stop()
		b.eval = NewEvaluator(EvaluatorConfig{Workers: 1, Limits: wfexpr.Limits{CPU: time.Hour}})
		if err := b.eval.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.eval.Stop)
		b.crash("s2")
		w := b.workflow("slow", db.WorkflowGraph{Nodes: []db.WorkflowNode{{Key: "loop", Type: db.NodeDecision, Expression: poison, Enabled: true}}})
		wi := b.start(w, nil)
		servers := []string{"s3", "s4", "s5"}
		for i, next := range servers {
			testkit.Eventually(t, "the evaluation to be begun", func() bool {
				n, err := d.WorkflowNodeRunGet(context.Background(), wi, "loop")
				return err == nil && n.Attempts == i+1
			})
			b.crash(next)
		}
		n := b.waitNode(wi, "loop", db.NodeFailed)
		if n.Reason != db.NodeReasonExpressionTimeout || n.Attempts != maxEvalAttempts {
			t.Fatalf("loop failed %s after %d attempts (%q); want EXPRESSION_TIMEOUT after %d", n.Reason, n.Attempts, n.Message, maxEvalAttempts)
		}
	})
}
