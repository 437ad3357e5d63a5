package workflow

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// These tests run an engine on a real database, on both dialects. The job
// instances it creates are ended by the test, as the execution actor would
// end them when workers report (the real actor and workers run in e2e).

// executor records the instances the engine fires.
type executor struct {
	mu    sync.Mutex
	fired []int64
	kicks int
}

func (x *executor) Fire(ids []int64, _ time.Time) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.fired = append(x.fired, ids...)
}

func (x *executor) Kick() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.kicks++
}

type bundle struct {
	t      *testing.T
	d      *db.DB
	app    int64
	job    int64
	engine *Engine
	// eval, if set before startEngine, is the evaluator the engines
	// share (the test starts it); nil gives each its own.
	eval   *Evaluator
	exec   *executor
	ops    *Ops
	epoch  int64
	server string
}

func setup(t *testing.T, d *db.DB) *bundle {
	t.Helper()
	ctx := context.Background()
	app := &db.App{Name: "a", SecretHash: "x"}
	if err := d.AppCreate(ctx, app); err != nil {
		t.Fatal(err)
	}
	j := &db.Job{AppID: app.ID, Name: "step", Enabled: true, ScheduleType: db.ScheduleAPI, TimeZone: "UTC", ExecutionMode: db.ModeStandalone,
		ProcessorType: db.ProcessorShell, Processor: "true", MaxInstances: 1, TaskConcurrency: 1, DispatchStrategy: db.DispatchRandom,
		MisfirePolicy: db.MisfireSkip}
	if err := d.JobCreate(ctx, j); err != nil {
		t.Fatal(err)
	}
	b := &bundle{t: t, d: d, app: app.ID, job: j.ID}
	b.startEngine("s1")
	b.ops = NewOps(d, nil, nil, nil, nil)
	return b
}

// startEngine takes the app's lease for server and starts an engine under
// its epoch, as gaining the lease does.
func (b *bundle) startEngine(server string) {
	b.t.Helper()
	ctx := context.Background()
	l, ok, err := b.d.LeaseAcquire(ctx, b.app, server, time.Minute, db.Now())
	if err != nil || !ok {
		b.t.Fatalf("taking the lease for %s: %v %v", server, ok, err)
	}
	b.epoch, b.server = l.Epoch, server
	b.exec = &executor{}
	b.engine = New(Deps{Store: b.d, ServerID: server, Log: slog.New(slog.DiscardHandler), ReconcileEvery: time.Hour, Evaluator: b.eval},
		b.app, l.Epoch, b.exec)
	b.engine.Decided.Init()
	if err := b.engine.Start(ctx); err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(b.engine.Stop)
}

// crash stops the engine and gives up the lease without releasing it
// cleanly, as a server killed mid-run would; another server takes over.
func (b *bundle) crash(next string) {
	b.t.Helper()
	b.engine.Stop()
	if err := b.d.LeaseRelease(context.Background(), b.server, []int64{b.app}); err != nil {
		b.t.Fatal(err)
	}
	b.startEngine(next)
}

func (b *bundle) workflow(name string, g db.WorkflowGraph, mutate ...func(*db.WorkflowSpec)) *db.Workflow {
	b.t.Helper()
	spec := db.WorkflowSpec{Name: name, Enabled: true, ScheduleType: db.ScheduleAPI, TimeZone: "UTC", MaxInstances: 10,
		OverlapPolicy: db.OverlapCancel, MisfirePolicy: db.MisfireFireOnce, Graph: g}
	for _, f := range mutate {
		f(&spec)
	}
	w := &db.Workflow{AppID: b.app}
	w.Apply(spec)
	if err := b.d.WorkflowCreate(context.Background(), w, "test"); err != nil {
		b.t.Fatal(err)
	}
	return w
}

// run records an API run of w and tells the engine, as runWorkflow and the
// trigger loop do.
func (b *bundle) start(w *db.Workflow, ctx map[string]any) int64 {
	b.t.Helper()
	r := &db.WorkflowInstance{AppID: b.app, WorkflowID: w.ID, Version: w.Version, Status: db.WorkflowWaiting, TriggerType: db.TriggerAPI,
		TriggerAt: db.Now(), Graph: w.Graph, FailFast: w.FailFast, Context: ctx}
	if _, err := b.d.WorkflowInstanceCreate(context.Background(), r); err != nil {
		b.t.Fatal(err)
	}
	b.engine.Fire([]int64{r.ID}, time.Now())
	return r.ID
}

func (b *bundle) node(wi int64, key string) *db.WorkflowNodeRun {
	b.t.Helper()
	n, err := b.d.WorkflowNodeRunGet(context.Background(), wi, key)
	if err != nil {
		b.t.Fatalf("node %s of run %d: %v", key, wi, err)
	}
	return n
}

func (b *bundle) waitNode(wi int64, key, status string) *db.WorkflowNodeRun {
	b.t.Helper()
	var n *db.WorkflowNodeRun
	testkit.Eventually(b.t, fmt.Sprintf("node %s of run %d to be %s", key, wi, status), func() bool {
		var err error
		n, err = b.d.WorkflowNodeRunGet(context.Background(), wi, key)
		return err == nil && n.Status == status
	})
	return n
}

func (b *bundle) waitWorkflowInstance(wi int64, status string) *db.WorkflowInstance {
	b.t.Helper()
	var r *db.WorkflowInstance
	testkit.Eventually(b.t, fmt.Sprintf("run %d to be %s", wi, status), func() bool {
		var err error
		r, err = b.d.WorkflowInstanceGet(context.Background(), wi)
		return err == nil && r.Status == status
	})
	return r
}

// instances returns a node's job instances in the instance.
func (b *bundle) instances(wi int64, key string) []db.Instance {
	b.t.Helper()
	all, err := b.d.InstanceListByWorkflowInstances(context.Background(), []int64{wi})
	if err != nil {
		b.t.Fatal(err)
	}
	var out []db.Instance
	for _, in := range all {
		if deref(in.WorkflowNodeID) == key {
			out = append(out, in)
		}
	}
	return out
}

// finish ends the node's newest unfinished instance as a worker's report
// would, and tells the engine, as the actor does.
func (b *bundle) finish(wi int64, key, status, result string, out map[string]any) {
	b.t.Helper()
	ctx := context.Background()
	var target *db.Instance
	testkit.Eventually(b.t, "an unfinished instance of node "+key, func() bool {
		list := b.instances(wi, key)
		for i := len(list) - 1; i >= 0; i-- {
			if !db.IsFinal(list[i].Status) && !list[i].TriggerAt.Equal(holdUntil) {
				target = &list[i]
				return true
			}
		}
		return false
	})
	if out != nil {
		if err := b.d.InstanceSetWorkflowOutput(ctx, target.ID, out); err != nil {
			b.t.Fatal(err)
		}
	}
	now := db.Now()
	if _, err := b.d.InstanceTransitionMany(ctx, []db.InstanceTransition{{ID: target.ID, From: target.Status, To: status,
		Result: &result, FinishedAt: &now}}); err != nil {
		b.t.Fatal(err)
	}
	b.engine.WorkflowInstancesChanged([]int64{*target.WorkflowInstanceID})
}

func jobNode(key string, job int64, mutate ...func(*db.WorkflowNode)) db.WorkflowNode {
	n := db.WorkflowNode{Key: key, Type: db.NodeJob, JobID: job, Enabled: true}
	for _, f := range mutate {
		f(&n)
	}
	return n
}

// A run with a decision, a FOREACH over an upstream list, a nested
// workflow two levels deep and an approval finishes, its context flowing
// from node to node and out of the nested instances.
func TestRunWithEveryNodeType(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		inner := b.workflow("inner", db.WorkflowGraph{Nodes: []db.WorkflowNode{jobNode("deep", b.job)}})
		middle := b.workflow("middle", db.WorkflowGraph{Nodes: []db.WorkflowNode{
			{Key: "inner", Type: db.NodeNested, WorkflowID: inner.ID, Enabled: true}}})
		w := b.workflow("etl", db.WorkflowGraph{
			Nodes: []db.WorkflowNode{
				jobNode("extract", b.job),
				{Key: "enough", Type: db.NodeDecision, Expression: `context.rows > 2`, Enabled: true},
				{Key: "each", Type: db.NodeForeach, JobID: b.job, Expression: `fromJSON(upstream.extract)`, Parallelism: 2, Enabled: true},
				{Key: "nested", Type: db.NodeNested, WorkflowID: middle.ID, Enabled: true},
				{Key: "approve", Type: db.NodeApproval, Enabled: true},
				jobNode("load", b.job),
				jobNode("too-few", b.job),
			},
			Edges: []db.WorkflowEdge{{From: "extract", To: "enough"}, {From: "enough", To: "each", Label: "true"},
				{From: "enough", To: "too-few", Label: "false"}, {From: "extract", To: "each"}, {From: "each", To: "nested"},
				{From: "nested", To: "approve"}, {From: "approve", To: "load"}},
		})
		wi := b.start(w, map[string]any{"region": "eu"})
		b.finish(wi, "extract", db.StatusSucceeded, `["a","b","c"]`, map[string]any{"rows": 3})
		b.waitNode(wi, "enough", db.NodeSucceeded)
		if n := b.waitNode(wi, "too-few", db.NodeSkipped); n.Reason != db.NodeReasonBranchNotTaken {
			t.Fatalf("too-few skipped for %s", n.Reason)
		}
		// FOREACH: three elements, two at a time (RUNNING while its
		// expression is evaluated, then with its elements).
		testkit.Eventually(t, "each to run its elements", func() bool { return b.node(wi, "each").Items == 3 })
		if got := len(b.instances(wi, "each")); got != 2 {
			t.Fatalf("%d element instances; want 2 (its parallelism), the third made when a place frees", got)
		}
		for i := range 3 {
			b.finish(wi, "each", db.StatusSucceeded, fmt.Sprintf(`"done-%d"`, i), nil)
		}
		if n := b.waitNode(wi, "each", db.NodeSucceeded); n.Result == "" {
			t.Fatal("foreach has no result")
		}
		// Nested two levels: the innermost job sees the parent's context;
		// what it adds comes back out.
		nested := b.waitNode(wi, "nested", db.NodeRunning)
		middleInstance := *nested.ChildInstanceID
		innerInstance := *b.waitNode(middleInstance, "inner", db.NodeRunning).ChildInstanceID
		deep := b.waitNode(innerInstance, "deep", db.NodeRunning)
		in := b.instances(innerInstance, "deep")[0]
		if in.WorkflowInput.Context["rows"] != float64(3) || in.WorkflowInput.Context["region"] != "eu" {
			t.Fatalf("the innermost job saw %v; want the outer context", in.WorkflowInput.Context)
		}
		_ = deep
		b.finish(innerInstance, "deep", db.StatusSucceeded, "deep done", map[string]any{"deep": true})
		b.waitWorkflowInstance(innerInstance, db.WorkflowSucceeded)
		b.waitWorkflowInstance(middleInstance, db.WorkflowSucceeded)
		if n := b.waitNode(wi, "nested", db.NodeSucceeded); n.Output["deep"] != true {
			t.Fatalf("the nested node added %v; want the inner run's addition", n.Output)
		}
		// The approval waits for a person.
		b.waitNode(wi, "approve", db.NodeAwaitingApproval)
		if err := b.ops.Approve(context.Background(), wi, "approve", true, "looks good", "alice"); err != nil {
			t.Fatal(err)
		}
		b.engine.WorkflowInstancesChanged([]int64{wi})
		b.waitNode(wi, "load", db.NodeRunning)
		load := b.instances(wi, "load")[0]
		if load.WorkflowInput.Context["deep"] != true || load.WorkflowInput.Upstream["approve"] != "approved" {
			t.Fatalf("load saw %+v", load.WorkflowInput)
		}
		b.finish(wi, "load", db.StatusSucceeded, "loaded", nil)
		r := b.waitWorkflowInstance(wi, db.WorkflowSucceeded)
		if r.Result == "" {
			t.Fatal("the run has no result")
		}
	})
}

// A failed node blocks its descendants only; retry runs it again and the
// run finishes; rerun with downstream reruns exactly the node and what
// follows it.
func TestRetryAndRerun(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		b := setup(t, d)
		w := b.workflow("w", db.WorkflowGraph{
			Nodes: []db.WorkflowNode{jobNode("a", b.job), jobNode("b", b.job), jobNode("c", b.job), jobNode("side", b.job)},
			Edges: []db.WorkflowEdge{{From: "a", To: "b"}, {From: "b", To: "c"}},
		})
		wi := b.start(w, nil)
		b.finish(wi, "a", db.StatusSucceeded, "a1", nil)
		b.finish(wi, "b", db.StatusFailed, "exit status 1", nil)
		b.waitNode(wi, "c", db.NodeSkipped)
		b.finish(wi, "side", db.StatusSucceeded, "side", nil) // the independent node still runs
		b.waitWorkflowInstance(wi, db.WorkflowFailed)

		if err := b.ops.Retry(ctx, wi, "alice"); err != nil {
			t.Fatal(err)
		}
		b.engine.WorkflowInstancesChanged([]int64{wi})
		if n := b.waitNode(wi, "b", db.NodeRunning); n.Generation != 2 {
			t.Fatalf("retried b has generation %d; want 2", n.Generation)
		}
		if n := b.node(wi, "a"); n.Status != db.NodeSucceeded || n.Result != "a1" || len(b.instances(wi, "a")) != 1 {
			t.Fatal("retry ran the succeeded node again")
		}
		b.finish(wi, "b", db.StatusSucceeded, "b2", nil)
		b.finish(wi, "c", db.StatusSucceeded, "c2", nil)
		b.waitWorkflowInstance(wi, db.WorkflowSucceeded)

		if err := b.ops.Rerun(ctx, wi, "b", true, "alice"); err != nil {
			t.Fatal(err)
		}
		b.engine.WorkflowInstancesChanged([]int64{wi})
		b.finish(wi, "b", db.StatusSucceeded, "b3", nil)
		b.finish(wi, "c", db.StatusSucceeded, "c3", nil)
		b.waitWorkflowInstance(wi, db.WorkflowSucceeded)
		counts := map[string]int{}
		for _, key := range []string{"a", "b", "c", "side"} {
			counts[key] = len(b.instances(wi, key))
		}
		if counts["a"] != 1 || counts["side"] != 1 || counts["b"] != 3 || counts["c"] != 2 {
			t.Fatalf("instances per node %v; want a 1, side 1, b 3 (run, retry, rerun), c 2 (retry, rerun)", counts)
		}
	})
}

// markWorkflowNodeSucceeded lets a failed node's successors run.
func TestMarkSucceeded(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		w := b.workflow("w", db.WorkflowGraph{Nodes: []db.WorkflowNode{jobNode("a", b.job), jobNode("b", b.job)},
			Edges: []db.WorkflowEdge{{From: "a", To: "b"}}})
		wi := b.start(w, nil)
		b.finish(wi, "a", db.StatusFailed, "boom", nil)
		b.waitWorkflowInstance(wi, db.WorkflowFailed)
		if err := b.ops.MarkSucceeded(context.Background(), wi, "a", "alice"); err != nil {
			t.Fatal(err)
		}
		b.engine.WorkflowInstancesChanged([]int64{wi})
		b.finish(wi, "b", db.StatusSucceeded, "", nil)
		b.waitWorkflowInstance(wi, db.WorkflowSucceeded)
		if n := b.node(wi, "a"); deref(n.DecidedBy) != "alice" {
			t.Fatalf("a decided by %q", deref(n.DecidedBy))
		}
	})
}

// With maxInstances 1 and QUEUE, a second run waits for the first and
// starts when it ends; with CANCEL it is canceled.
func TestQueueAndCancelOverTheLimit(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		g := db.WorkflowGraph{Nodes: []db.WorkflowNode{jobNode("a", b.job)}}
		q := b.workflow("queued", g, func(s *db.WorkflowSpec) { s.MaxInstances, s.OverlapPolicy = 1, db.OverlapQueue })
		first := b.start(q, nil)
		b.waitWorkflowInstance(first, db.WorkflowRunning)
		b.engine.Decided.Drain()
		second := b.start(q, nil)
		for b.engine.Decided.Wait(t) != second {
		}
		if r, _ := d.WorkflowInstanceGet(context.Background(), second); r.Status != db.WorkflowWaiting {
			t.Fatalf("second run %s while the first runs; want WAITING (queued)", r.Status)
		}
		b.finish(first, "a", db.StatusSucceeded, "", nil)
		b.waitWorkflowInstance(first, db.WorkflowSucceeded)
		b.waitWorkflowInstance(second, db.WorkflowRunning)

		c := b.workflow("canceled", g, func(s *db.WorkflowSpec) { s.MaxInstances = 1 })
		one := b.start(c, nil)
		b.waitWorkflowInstance(one, db.WorkflowRunning)
		two := b.start(c, nil)
		if r := b.waitWorkflowInstance(two, db.WorkflowCanceled); r.Reason != "MAX_INSTANCES" {
			t.Fatalf("canceled for %q", r.Reason)
		}
	})
}

// A new owner (after the old one died mid-run) resumes the instance: a node
// whose instance ended meanwhile settles, the next starts, and no node
// runs twice.
func TestNewOwnerResumesWithoutRunningANodeTwice(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		w := b.workflow("w", db.WorkflowGraph{Nodes: []db.WorkflowNode{jobNode("a", b.job), jobNode("b", b.job)},
			Edges: []db.WorkflowEdge{{From: "a", To: "b"}}})
		wi := b.start(w, nil)
		b.waitNode(wi, "a", db.NodeRunning)
		b.crash("s2")
		// The old owner's engine is gone; its instance ends anyway (the
		// worker reports to the new owner's actor).
		b.finish(wi, "a", db.StatusSucceeded, "", nil)
		b.waitNode(wi, "b", db.NodeRunning)
		b.finish(wi, "b", db.StatusSucceeded, "", nil)
		b.waitWorkflowInstance(wi, db.WorkflowSucceeded)
		if na, nb := len(b.instances(wi, "a")), len(b.instances(wi, "b")); na != 1 || nb != 1 {
			t.Fatalf("instances: a %d, b %d; want one each", na, nb)
		}
	})
}
