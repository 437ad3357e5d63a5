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
	exec   *executor
	ops    *Ops
	epoch  int64
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
	b.epoch = l.Epoch
	b.exec = &executor{}
	b.engine = New(Deps{Store: b.d, ServerID: server, Log: slog.New(slog.DiscardHandler), ReconcileEvery: time.Hour},
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
	if err := b.d.LeaseRelease(context.Background(), "s1", []int64{b.app}); err != nil {
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
func (b *bundle) run(w *db.Workflow, ctx map[string]any) int64 {
	b.t.Helper()
	r := &db.WorkflowInstance{AppID: b.app, WorkflowID: w.ID, Version: w.Version, Status: db.RunWaiting, TriggerType: db.TriggerAPI,
		TriggerAt: db.Now(), Graph: w.Graph, FailFast: w.FailFast, Context: ctx}
	if _, err := b.d.WorkflowInstanceCreate(context.Background(), r); err != nil {
		b.t.Fatal(err)
	}
	b.engine.Fire([]int64{r.ID}, time.Now())
	return r.ID
}

func (b *bundle) node(run int64, key string) *db.WorkflowNodeRun {
	b.t.Helper()
	n, err := b.d.NodeRunGet(context.Background(), run, key)
	if err != nil {
		b.t.Fatalf("node %s of run %d: %v", key, run, err)
	}
	return n
}

func (b *bundle) waitNode(run int64, key, status string) *db.WorkflowNodeRun {
	b.t.Helper()
	var n *db.WorkflowNodeRun
	testkit.Eventually(b.t, fmt.Sprintf("node %s of run %d to be %s", key, run, status), func() bool {
		var err error
		n, err = b.d.NodeRunGet(context.Background(), run, key)
		return err == nil && n.Status == status
	})
	return n
}

func (b *bundle) waitRun(run int64, status string) *db.WorkflowInstance {
	b.t.Helper()
	var r *db.WorkflowInstance
	testkit.Eventually(b.t, fmt.Sprintf("run %d to be %s", run, status), func() bool {
		var err error
		r, err = b.d.WorkflowInstanceGet(context.Background(), run)
		return err == nil && r.Status == status
	})
	return r
}

// instances returns a node's job instances in the run.
func (b *bundle) instances(run int64, key string) []db.Instance {
	b.t.Helper()
	all, err := b.d.InstancesOfRuns(context.Background(), []int64{run})
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
func (b *bundle) finish(run int64, key, status, result string, out map[string]any) {
	b.t.Helper()
	ctx := context.Background()
	var target *db.Instance
	testkit.Eventually(b.t, "an unfinished instance of node "+key, func() bool {
		list := b.instances(run, key)
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
	b.engine.RunsChanged([]int64{*target.WorkflowInstanceID})
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
// from node to node and out of the nested runs.
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
		run := b.run(w, map[string]any{"region": "eu"})
		b.finish(run, "extract", db.StatusSucceeded, `["a","b","c"]`, map[string]any{"rows": 3})
		b.waitNode(run, "enough", db.NodeSucceeded)
		if n := b.waitNode(run, "too-few", db.NodeSkipped); n.Reason != db.NodeReasonBranchNotTaken {
			t.Fatalf("too-few skipped for %s", n.Reason)
		}
		// FOREACH: three elements, two at a time.
		b.waitNode(run, "each", db.NodeRunning)
		if got := len(b.instances(run, "each")); got != 3 {
			t.Fatalf("%d element instances; want 3", got)
		}
		for i := range 3 {
			b.finish(run, "each", db.StatusSucceeded, fmt.Sprintf(`"done-%d"`, i), nil)
		}
		if n := b.waitNode(run, "each", db.NodeSucceeded); n.Result == "" {
			t.Fatal("foreach has no result")
		}
		// Nested two levels: the innermost job sees the parent's context;
		// what it adds comes back out.
		nested := b.waitNode(run, "nested", db.NodeRunning)
		middleRun := *nested.ChildInstanceID
		innerRun := *b.waitNode(middleRun, "inner", db.NodeRunning).ChildInstanceID
		deep := b.waitNode(innerRun, "deep", db.NodeRunning)
		in := b.instances(innerRun, "deep")[0]
		if in.WorkflowInput.Context["rows"] != float64(3) || in.WorkflowInput.Context["region"] != "eu" {
			t.Fatalf("the innermost job saw %v; want the outer context", in.WorkflowInput.Context)
		}
		_ = deep
		b.finish(innerRun, "deep", db.StatusSucceeded, "deep done", map[string]any{"deep": true})
		b.waitRun(innerRun, db.RunSucceeded)
		b.waitRun(middleRun, db.RunSucceeded)
		if n := b.waitNode(run, "nested", db.NodeSucceeded); n.Output["deep"] != true {
			t.Fatalf("the nested node added %v; want the inner run's addition", n.Output)
		}
		// The approval waits for a person.
		b.waitNode(run, "approve", db.NodeAwaitingApproval)
		if err := b.ops.Approve(context.Background(), run, "approve", true, "looks good", "alice"); err != nil {
			t.Fatal(err)
		}
		b.engine.RunsChanged([]int64{run})
		b.waitNode(run, "load", db.NodeRunning)
		load := b.instances(run, "load")[0]
		if load.WorkflowInput.Context["deep"] != true || load.WorkflowInput.Upstream["approve"] != "approved" {
			t.Fatalf("load saw %+v", load.WorkflowInput)
		}
		b.finish(run, "load", db.StatusSucceeded, "loaded", nil)
		r := b.waitRun(run, db.RunSucceeded)
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
		run := b.run(w, nil)
		b.finish(run, "a", db.StatusSucceeded, "a1", nil)
		b.finish(run, "b", db.StatusFailed, "exit status 1", nil)
		b.waitNode(run, "c", db.NodeSkipped)
		b.finish(run, "side", db.StatusSucceeded, "side", nil) // the independent node still runs
		b.waitRun(run, db.RunFailed)

		if err := b.ops.Retry(ctx, run, "alice"); err != nil {
			t.Fatal(err)
		}
		b.engine.RunsChanged([]int64{run})
		if n := b.waitNode(run, "b", db.NodeRunning); n.Generation != 2 {
			t.Fatalf("retried b has generation %d; want 2", n.Generation)
		}
		if n := b.node(run, "a"); n.Status != db.NodeSucceeded || n.Result != "a1" || len(b.instances(run, "a")) != 1 {
			t.Fatal("retry ran the succeeded node again")
		}
		b.finish(run, "b", db.StatusSucceeded, "b2", nil)
		b.finish(run, "c", db.StatusSucceeded, "c2", nil)
		b.waitRun(run, db.RunSucceeded)

		if err := b.ops.Rerun(ctx, run, "b", true, "alice"); err != nil {
			t.Fatal(err)
		}
		b.engine.RunsChanged([]int64{run})
		b.finish(run, "b", db.StatusSucceeded, "b3", nil)
		b.finish(run, "c", db.StatusSucceeded, "c3", nil)
		b.waitRun(run, db.RunSucceeded)
		counts := map[string]int{}
		for _, key := range []string{"a", "b", "c", "side"} {
			counts[key] = len(b.instances(run, key))
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
		run := b.run(w, nil)
		b.finish(run, "a", db.StatusFailed, "boom", nil)
		b.waitRun(run, db.RunFailed)
		if err := b.ops.MarkSucceeded(context.Background(), run, "a", "alice"); err != nil {
			t.Fatal(err)
		}
		b.engine.RunsChanged([]int64{run})
		b.finish(run, "b", db.StatusSucceeded, "", nil)
		b.waitRun(run, db.RunSucceeded)
		if n := b.node(run, "a"); deref(n.DecidedBy) != "alice" {
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
		first := b.run(q, nil)
		b.waitRun(first, db.RunRunning)
		b.engine.Decided.Drain()
		second := b.run(q, nil)
		for b.engine.Decided.Wait(t) != second {
		}
		if r, _ := d.WorkflowInstanceGet(context.Background(), second); r.Status != db.RunWaiting {
			t.Fatalf("second run %s while the first runs; want WAITING (queued)", r.Status)
		}
		b.finish(first, "a", db.StatusSucceeded, "", nil)
		b.waitRun(first, db.RunSucceeded)
		b.waitRun(second, db.RunRunning)

		c := b.workflow("canceled", g, func(s *db.WorkflowSpec) { s.MaxInstances = 1 })
		one := b.run(c, nil)
		b.waitRun(one, db.RunRunning)
		two := b.run(c, nil)
		if r := b.waitRun(two, db.RunCanceled); r.Reason != "MAX_INSTANCES" {
			t.Fatalf("canceled for %q", r.Reason)
		}
	})
}

// A new owner (after the old one died mid-run) resumes the run: a node
// whose instance ended meanwhile settles, the next starts, and no node
// runs twice.
func TestNewOwnerResumesWithoutRunningANodeTwice(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		w := b.workflow("w", db.WorkflowGraph{Nodes: []db.WorkflowNode{jobNode("a", b.job), jobNode("b", b.job)},
			Edges: []db.WorkflowEdge{{From: "a", To: "b"}}})
		run := b.run(w, nil)
		b.waitNode(run, "a", db.NodeRunning)
		b.crash("s2")
		// The old owner's engine is gone; its instance ends anyway (the
		// worker reports to the new owner's actor).
		b.finish(run, "a", db.StatusSucceeded, "", nil)
		b.waitNode(run, "b", db.NodeRunning)
		b.finish(run, "b", db.StatusSucceeded, "", nil)
		b.waitRun(run, db.RunSucceeded)
		if na, nb := len(b.instances(run, "a")), len(b.instances(run, "b")); na != 1 || nb != 1 {
			t.Fatalf("instances: a %d, b %d; want one each", na, nb)
		}
	})
}
