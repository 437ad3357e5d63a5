package workflow

import (
	"context"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// Issue 26, item 9: a FOREACH over a nested workflow runs one nested run
// per element, the element in its context, at most its parallelism at
// once; its result lists what each run added, in element order, and a
// retry runs again only the runs that failed, in place.
func TestForeachOverANestedWorkflow(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		inner := b.workflow("inner", db.WorkflowGraph{Nodes: []db.WorkflowNode{jobNode("work", b.job)}})
		w := b.workflow("each", db.WorkflowGraph{Nodes: []db.WorkflowNode{
			{Key: "each", Type: db.NodeForeach, WorkflowID: inner.ID, Expression: `["a", "b", "c"]`, Parallelism: 2, Enabled: true}}})
		wi := b.start(w, map[string]any{"region": "eu"})
		runs := func() []db.WorkflowInstance {
			n, err := d.WorkflowNodeRunGet(context.Background(), wi, "each")
			if err != nil {
				return nil // not started yet
			}
			list, err := d.WorkflowInstanceListElements(context.Background(), wi, "each", n.Generation)
			if err != nil {
				t.Fatal(err)
			}
			return list
		}
		testkit.Eventually(t, "two element runs", func() bool { return len(runs()) == 2 })
		// Each run's job sees its element and the parent's context; b's
		// fails.
		failed := map[string]bool{}
		finishRun := func(run db.WorkflowInstance) {
			in := b.instances(run.ID, "work")
			if len(in) == 0 {
				b.waitNode(run.ID, "work", db.NodeRunning)
				in = b.instances(run.ID, "work")
			}
			ctx := in[len(in)-1].WorkflowInput.Context
			el, _ := ctx["element"].(string)
			if ctx["region"] != "eu" || el == "" {
				t.Fatalf("run %d's job saw %v; want the parent's context and its element", run.ID, ctx)
			}
			status := db.StatusSucceeded
			if el == "b" && !failed[el] {
				status, failed[el] = db.StatusFailed, true
			}
			b.finish(run.ID, "work", status, "", map[string]any{"seen_" + el: el})
		}
		// a's run ends: a place frees and c's run starts; b's fails, so once
		// c's ends the FOREACH fails.
		finishRun(runs()[0])
		testkit.Eventually(t, "the third run", func() bool { return len(runs()) == 3 })
		finishRun(runs()[1])
		finishRun(runs()[2])
		b.waitWorkflowInstance(wi, db.WorkflowFailed)
		if err := b.ops.Retry(context.Background(), wi, "alice"); err != nil {
			t.Fatal(err)
		}
		b.engine.WorkflowInstancesChanged([]int64{wi})
		list := runs()
		if len(list) != 3 {
			t.Fatalf("%d runs after the retry; want the three kept", len(list))
		}
		b.engine.WorkflowInstancesChanged([]int64{list[1].ID})
		finishRun(list[1])
		n := b.waitNode(wi, "each", db.NodeSucceeded)
		if n.Result != `[{"seen_a":"a"},{"seen_b":"b"},{"seen_c":"c"}]` {
			t.Fatalf("each: %s; want what each run added, in element order", n.Result)
		}
		if len(b.instances(list[0].ID, "work")) != 1 {
			t.Fatalf("the succeeded run for a ran again")
		}
	})
}
