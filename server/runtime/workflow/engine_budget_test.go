package workflow

import (
	"context"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// Issue 25, item 3: an instance's tree has one budget — node rows and
// FOREACH elements across every nested instance. A NESTED node whose
// instance would go past it fails BUDGET_EXCEEDED (today three workflows
// nesting each other made 651 runs from one runWorkflow), as does a FOREACH
// whose list would.
func TestInstanceBudgetAcrossNesting(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		if err := d.AppSetWorkflowBudget(context.Background(), b.app, 20); err != nil {
			t.Fatal(err)
		}
		// leaf: 5 nodes; mid: 3 NESTED leaf (3 + 15 = 18); top: 2 NESTED mid
		// (2 + 36 = 38 > 20): the first mid fits (2 + 18 = 20), the second
		// does not.
		var leafNodes []db.WorkflowNode
		for _, k := range []string{"a", "b", "c", "d", "e"} {
			leafNodes = append(leafNodes, jobNode(k, b.job))
		}
		leaf := b.workflow("leaf", db.WorkflowGraph{Nodes: leafNodes})
		nested := func(key string, id int64) db.WorkflowNode {
			return db.WorkflowNode{Key: key, Type: db.NodeNested, WorkflowID: id, Enabled: true}
		}
		mid := b.workflow("mid", db.WorkflowGraph{Nodes: []db.WorkflowNode{nested("l1", leaf.ID), nested("l2", leaf.ID), nested("l3", leaf.ID)}})
		top := b.workflow("top", db.WorkflowGraph{Nodes: []db.WorkflowNode{nested("m1", mid.ID), nested("m2", mid.ID)},
			Edges: []db.WorkflowEdge{{From: "m1", To: "m2"}}})
		wi := b.start(top, nil)
		m1 := b.waitNode(wi, "m1", db.NodeRunning)
		for _, l := range []string{"l1", "l2", "l3"} {
			child := *b.waitNode(*m1.ChildInstanceID, l, db.NodeRunning).ChildInstanceID
			for range 5 {
				b.finishAny(child)
			}
		}
		n := b.waitNode(wi, "m2", db.NodeFailed)
		if n.Reason != db.NodeReasonBudget || !strings.Contains(n.Message, "budget of 20") {
			t.Fatalf("m2 failed %s %q; want BUDGET_EXCEEDED naming the budget", n.Reason, n.Message)
		}
		r := b.waitWorkflowInstance(wi, db.WorkflowFailed)
		if r.Budget != 20 || r.BudgetUsed != 20 {
			t.Fatalf("budget %d used %d; want 20 of 20", r.Budget, r.BudgetUsed)
		}

		// A FOREACH whose list would go past it fails before making any.
		each := b.workflow("each", db.WorkflowGraph{Nodes: []db.WorkflowNode{
			{Key: "each", Type: db.NodeForeach, JobID: b.job, Expression: `1..100`, Parallelism: 5, Enabled: true}}})
		wi = b.start(each, nil)
		if n := b.waitNode(wi, "each", db.NodeFailed); n.Reason != db.NodeReasonBudget || len(b.instances(wi, "each")) != 0 {
			t.Fatalf("each failed %s %q with %d instances; want BUDGET_EXCEEDED and none made", n.Reason, n.Message, len(b.instances(wi, "each")))
		}
	})
}

// Issue 25, item 3: a FOREACH's elements are made as places free, never
// more at once than its parallelism (today all were made in one
// transaction, those past the parallelism held), and its result still
// lists every element's in order.
func TestForeachMakesElementsInBatches(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		w := b.workflow("each", db.WorkflowGraph{Nodes: []db.WorkflowNode{
			{Key: "each", Type: db.NodeForeach, JobID: b.job, Expression: `1..12`, Parallelism: 4, Enabled: true}}})
		wi := b.start(w, nil)
		testkit.Eventually(t, "each to make its first elements", func() bool { return len(b.instances(wi, "each")) == 4 })
		for done := range 12 {
			made := len(b.instances(wi, "each"))
			if made-done > 4 {
				t.Fatalf("%d elements made with %d ended; at most 4 (its parallelism) may be unfinished", made, done)
			}
			b.finish(wi, "each", db.StatusSucceeded, "", nil)
		}
		n := b.waitNode(wi, "each", db.NodeSucceeded)
		if len(b.instances(wi, "each")) != 12 || !strings.HasPrefix(n.Result, `["",`) {
			t.Fatalf("each: %d instances, result %q", len(b.instances(wi, "each")), n.Result)
		}
	})
}

// Issue 25, item 3: stopping an instance with many elements running, in
// nested instances too, ends everything in a few statements.
func TestStopEndsEverythingUnderneath(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		inner := b.workflow("inner", db.WorkflowGraph{Nodes: []db.WorkflowNode{
			{Key: "each", Type: db.NodeForeach, JobID: b.job, Expression: `1..500`, Parallelism: 200, Enabled: true}}})
		top := b.workflow("top", db.WorkflowGraph{Nodes: []db.WorkflowNode{
			{Key: "each", Type: db.NodeForeach, JobID: b.job, Expression: `1..500`, Parallelism: 200, Enabled: true},
			{Key: "nested", Type: db.NodeNested, WorkflowID: inner.ID, Enabled: true}}})
		wi := b.start(top, nil)
		child := *b.waitNode(wi, "nested", db.NodeRunning).ChildInstanceID
		testkit.Eventually(t, "both FOREACH to run", func() bool {
			return len(b.instances(wi, "each")) == 200 && len(b.instances(child, "each")) == 200
		})
		if err := b.ops.Stop(context.Background(), wi, "alice"); err != nil {
			t.Fatalf("stop: %v", err)
		}
		for _, id := range []int64{wi, child} {
			if r := b.waitWorkflowInstance(id, db.WorkflowStopped); r.FinishedAt == nil {
				t.Fatalf("instance %d stopped without a finish time", id)
			}
			if n := b.node(id, "each"); n.Status != db.NodeStopped {
				t.Fatalf("each of %d is %s; want STOPPED", id, n.Status)
			}
			for _, in := range b.instances(id, "each") {
				if in.Status != db.StatusStopped {
					t.Fatalf("element instance %d is %s; want STOPPED", in.ID, in.Status)
				}
			}
		}
	})
}

// finishAny ends one unfinished job instance of the instance wi,
// whichever node's, succeeded.
func (b *bundle) finishAny(wi int64) {
	b.t.Helper()
	var key string
	testkit.Eventually(b.t, "an unfinished job instance", func() bool {
		all, err := b.d.InstanceListByWorkflowInstances(context.Background(), []int64{wi})
		if err != nil {
			b.t.Fatal(err)
		}
		for _, in := range all {
			if !db.IsFinal(in.Status) {
				key = deref(in.WorkflowNodeID)
				return true
			}
		}
		return false
	})
	b.finish(wi, key, db.StatusSucceeded, "", nil)
}

// Issue 26, item 12: a FOREACH stores what its elements are given once,
// on its node, not a copy of the context in each element's instance; the
// elements are still given it whole when read.
func TestForeachStoresTheContextOnce(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		big := strings.Repeat("x", 100<<10)
		w := b.workflow("each", db.WorkflowGraph{Nodes: []db.WorkflowNode{
			{Key: "each", Type: db.NodeForeach, JobID: b.job, Expression: `1..20`, Parallelism: 20, Enabled: true}}})
		wi := b.start(w, map[string]any{"big": big})
		testkit.Eventually(t, "the elements to be made", func() bool { return len(b.instances(wi, "each")) == 20 })
		var ids []int64
		for _, in := range b.instances(wi, "each") {
			if in.WorkflowInput == nil || in.WorkflowInput.Context != nil || !in.WorkflowInput.FromNode {
				t.Fatalf("element %d stores %+v; want only its element", deref(in.WorkflowItem), in.WorkflowInput)
			}
			ids = append(ids, in.ID)
		}
		read, err := d.InstanceListByIDs(context.Background(), ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range read {
			if in.WorkflowInput.Context["big"] != big || in.WorkflowInput.Element == nil {
				t.Fatalf("element %d read back without the context or its element", deref(in.WorkflowItem))
			}
		}
	})
}
