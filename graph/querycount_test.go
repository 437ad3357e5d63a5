package graph

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// queryCounter counts the SQL statements bun runs.
type queryCounter struct {
	mu    sync.Mutex
	on    bool
	n     int
	query []string
}

func (c *queryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (c *queryCounter) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// A bus hint published while setting up (coalesced, sent a few ms
	// later) is not a query of the request counted.
	if c.on && !strings.HasPrefix(e.Query, "NOTIFY ") {
		c.n++
		c.query = append(c.query, e.Query)
	}
}

// countQueries hooks a counter into d.
func countQueries(d *db.DB) *queryCounter {
	c := &queryCounter{}
	d.Bun().AddQueryHook(c)
	return c
}

func (c *queryCounter) count(fn func()) (int, []string) {
	c.mu.Lock()
	c.on, c.n, c.query = true, 0, nil
	c.mu.Unlock()
	fn()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = false
	return c.n, c.query
}

// TestInstancePageQueryCount: a page of instances with each one's job and
// worker (and attempts and task counts) costs the same few queries for 50
// instances as for 1, for a member of the app as for an admin.
func TestInstancePageQueryCount(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		counter := countQueries(d)
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		appID := api.createApp(t, admin, "orders")
		viewer := api.createUser(t, admin, "viewer")
		if r := api.setRole(t, admin, "orders", "viewer", "VIEWER"); len(r.Errors) > 0 {
			t.Fatal(r.Errors)
		}
		ctx := context.Background()
		// 5 jobs, 10 workers, 50 instances spread over them.
		var jobIDs []int64
		for i := 0; i < 5; i++ {
			id := api.createJob(t, admin, "orders", fmt.Sprintf("job%d", i))
			jobIDs = append(jobIDs, mustInt(t, id))
		}
		now := db.Now()
		for i := 0; i < 10; i++ {
			w := &db.Worker{AppID: appID, ID: fmt.Sprintf("w%d", i), ServerID: "s", Host: fmt.Sprintf("host%d", i),
				Tags: []string{}, Processors: []string{}, Slots: 4, ConnectedAt: now, LastHeartbeat: now}
			if err := d.WorkerUpsert(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 50; i++ {
			wid := fmt.Sprintf("w%d", i%10)
			in := &db.Instance{AppID: appID, JobID: jobIDs[i%5], Status: db.StatusSucceeded, TriggerType: "API",
				TriggerAt: now, StartedAt: &now, FinishedAt: &now, WorkerID: &wid}
			if err := d.InstanceCreate(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		const q = `query($n: Int) { instances(app: "orders", first: $n) { edges { node {
			id status job { name } worker { host } attempts { attempt } tasks { total } } } } }`
		type page struct {
			Instances struct {
				Edges []struct {
					Node struct {
						Job    *struct{ Name string }
						Worker *struct{ Host string }
					}
				}
			}
		}
		for _, who := range []struct{ name, token string }{{"admin", admin}, {"viewer", viewer}} {
			counts := map[int]int{}
			for _, n := range []int{1, 50} {
				var out page
				got, queries := counter.count(func() { api.must(t, who.token, q, map[string]any{"n": n}, &out) })
				if len(out.Instances.Edges) != n {
					t.Fatalf("%s: got %d instances, want %d", who.name, len(out.Instances.Edges), n)
				}
				for _, e := range out.Instances.Edges {
					if e.Node.Job == nil || !strings.HasPrefix(e.Node.Job.Name, "job") || e.Node.Worker == nil || !strings.HasPrefix(e.Node.Worker.Host, "host") {
						t.Fatalf("%s: node without its job or worker: %+v", who.name, e.Node)
					}
				}
				counts[n] = got
				t.Logf("%s, %d instances: %d queries:\n  %s", who.name, n, got, strings.Join(queries, "\n  "))
			}
			// session, app by name, [role], instances, jobs, workers, attempts, task counts
			want := 7
			if who.name == "viewer" {
				want = 8
			}
			if counts[1] != want || counts[50] != want {
				t.Fatalf("%s: %d queries for 1 instance, %d for 50; want %d for both", who.name, counts[1], counts[50], want)
			}
		}

		// totalCount counts every page of the filter, not the page asked for.
		var total struct {
			All, OneJob, Failed struct{ TotalCount int }
		}
		api.must(t, viewer, `query($job: ID) {
			all: instances(app: "orders", first: 2) { totalCount }
			oneJob: instances(app: "orders", jobId: $job, first: 1) { totalCount }
			failed: instances(app: "orders", status: [FAILED]) { totalCount } }`,
			map[string]any{"job": fmt.Sprint(jobIDs[0])}, &total)
		if total.All.TotalCount != 50 || total.OneJob.TotalCount != 10 || total.Failed.TotalCount != 0 {
			t.Errorf("totalCount: all %d, one job %d, failed %d; want 50, 10, 0", total.All.TotalCount, total.OneJob.TotalCount, total.Failed.TotalCount)
		}
	})
}

// TestJobPageLastRun: a page of jobs with each one's last run costs the
// same queries for 20 jobs as for 1, and each job gets its own newest
// fired instance (none for a job that never fired).
func TestJobPageLastRun(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		counter := countQueries(d)
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		appID := api.createApp(t, admin, "orders")
		ctx := context.Background()
		want := map[string]string{} // job name → last run's status
		for i := 0; i < 20; i++ {
			name := fmt.Sprintf("job%02d", i)
			id := mustInt(t, api.createJob(t, admin, "orders", name))
			if i%4 == 3 {
				continue // never fired
			}
			for k, status := range []string{db.StatusFailed, db.StatusSucceeded, []string{db.StatusSucceeded, db.StatusFailed, db.StatusRunning}[i%3]} {
				at := db.Now().Add(time.Duration(k) * time.Second)
				in := &db.Instance{AppID: appID, JobID: id, Status: status, TriggerType: "API", TriggerAt: at, ActualTriggerAt: &at}
				if err := d.InstanceCreate(ctx, in); err != nil {
					t.Fatal(err)
				}
				want[name] = status
			}
		}
		const q = `query($n: Int) { jobs(app: "orders", first: $n) { edges { node { name lastRun { id status } } } } }`
		type page struct {
			Jobs struct {
				Edges []struct {
					Node struct {
						Name    string
						LastRun *struct{ ID, Status string }
					}
				}
			}
		}
		counts := map[int]int{}
		for _, n := range []int{1, 20} {
			var out page
			got, queries := counter.count(func() { api.must(t, admin, q, map[string]any{"n": n}, &out) })
			counts[n] = got
			t.Logf("%d jobs: %d queries:\n  %s", n, got, strings.Join(queries, "\n  "))
			if len(out.Jobs.Edges) != n {
				t.Fatalf("got %d jobs, want %d", len(out.Jobs.Edges), n)
			}
			for _, e := range out.Jobs.Edges {
				switch w, fired := want[e.Node.Name]; {
				case !fired && e.Node.LastRun != nil:
					t.Errorf("%s never fired but has last run %+v", e.Node.Name, e.Node.LastRun)
				case fired && (e.Node.LastRun == nil || e.Node.LastRun.Status != w):
					t.Errorf("%s: last run %+v; want status %s", e.Node.Name, e.Node.LastRun, w)
				}
			}
		}
		if counts[1] != counts[20] {
			t.Errorf("%d queries for 1 job, %d for 20; want the same", counts[1], counts[20])
		}
	})
}

// TestWorkflowRunPageQueryCount: a page of workflow runs with each run's
// workflow, context, nodes, the nodes' job instances with their jobs and
// the nested runs costs the same few queries for 50 runs as for 1, for a
// viewer as for an admin.
func TestWorkflowRunPageQueryCount(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		counter := countQueries(d)
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		appID := api.createApp(t, admin, "orders")
		viewer := api.createUser(t, admin, "viewer")
		if r := api.setRole(t, admin, "orders", "viewer", "VIEWER"); len(r.Errors) > 0 {
			t.Fatal(r.Errors)
		}
		ctx := context.Background()
		extract, load := api.createJob(t, admin, "orders", "extract"), api.createJob(t, admin, "orders", "load")
		child := api.createWorkflow(t, admin, pipeline("orders", "child", extract, load))
		w := api.createWorkflow(t, admin, pipeline("orders", "nightly", extract, load))
		for i := 0; i < 50; i++ {
			id := mustInt(t, api.runWorkflow(t, admin, w.ID, map[string]any{"ctx": map[string]any{"i": i}}))
			// What the engine records as the run goes: node rows, the
			// extract node's instance, a nested run on the load node.
			nested := &db.WorkflowInstance{AppID: appID, WorkflowID: mustInt(t, child.ID), Version: 1, ParentInstanceID: &id,
				ParentNodeKey: ptrTo("load"), Status: db.WorkflowRunning, TriggerType: db.TriggerWorkflow, TriggerAt: db.Now()}
			if _, err := d.WorkflowInstanceCreate(ctx, nested); err != nil {
				t.Fatal(err)
			}
			in := &db.Instance{AppID: appID, JobID: mustInt(t, extract), Status: db.StatusSucceeded, TriggerType: db.TriggerWorkflow,
				TriggerAt: db.Now(), WorkflowInstanceID: &id, WorkflowNodeID: ptrTo("extract"), WorkflowGeneration: ptrTo(1)}
			if err := d.InstanceCreate(ctx, in); err != nil {
				t.Fatal(err)
			}
			if err := d.WorkflowNodeRunCreateMany(ctx, []db.WorkflowNodeRun{
				{WorkflowInstanceID: id, NodeKey: "extract", NodeType: db.NodeJob, Status: db.NodeSucceeded, InstanceID: &in.ID,
					FinishSeq: 1, Output: map[string]any{"rows": i}},
				{WorkflowInstanceID: id, NodeKey: "check", NodeType: db.NodeDecision, Status: db.NodeSucceeded, Result: "true"},
				{WorkflowInstanceID: id, NodeKey: "load", NodeType: db.NodeJob, Status: db.NodeRunning, ChildInstanceID: &nested.ID},
			}); err != nil {
				t.Fatal(err)
			}
		}
		const q = `query($n: Int) { workflowInstances(app: "orders", workflowId: null, first: $n) { edges { node {
			id status workflow { name } context nodes { key status output instances { id job { name } } child { id status } } } } } }`
		type page struct {
			WorkflowInstances struct {
				Edges []struct {
					Node struct {
						Workflow struct{ Name string }
						Context  map[string]any
						Nodes    []struct {
							Key       string
							Instances []struct{ Job struct{ Name string } }
							Child     *struct{ ID string }
						}
					}
				}
			}
		}
		for _, who := range []struct{ name, token string }{{"admin", admin}, {"viewer", viewer}} {
			counts := map[int]int{}
			for _, n := range []int{1, 50} {
				var out page
				got, queries := counter.count(func() { api.must(t, who.token, q, map[string]any{"n": n}, &out) })
				if len(out.WorkflowInstances.Edges) != n {
					t.Fatalf("%s: got %d runs, want %d", who.name, len(out.WorkflowInstances.Edges), n)
				}
				for _, e := range out.WorkflowInstances.Edges {
					r := e.Node
					if r.Workflow.Name != "nightly" || r.Context["rows"] != r.Context["i"] || len(r.Nodes) != 3 ||
						len(r.Nodes[0].Instances) != 1 || r.Nodes[0].Instances[0].Job.Name != "extract" || r.Nodes[2].Child == nil {
						t.Fatalf("%s: a run without its parts: %+v", who.name, r)
					}
				}
				counts[n] = got
				t.Logf("%s, %d runs: %d queries:\n  %s", who.name, n, got, strings.Join(queries, "\n  "))
			}
			// session, app by name, [role], runs, node rows, nested runs,
			// job instances, jobs, workflows
			want := 8
			if who.name == "viewer" {
				want = 9
			}
			if counts[1] != want || counts[50] != want {
				t.Fatalf("%s: %d queries for 1 run, %d for 50; want %d for both", who.name, counts[1], counts[50], want)
			}
		}
	})
}
