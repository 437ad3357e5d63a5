package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// wf is a workflow test's fixture: a server on PostgreSQL, an app and its
// agents, and helpers to make jobs and workflows.
type wf struct {
	*cluster
	t *testing.T
}

func (w *wf) shell(name, script string) string {
	w.t.Helper()
	return w.job(w.t, map[string]any{"name": name, "processorType": "SHELL", "processor": script})
}

func (w *wf) workflow(name string, nodes []map[string]any, edges []map[string]any, extra ...map[string]any) string {
	w.t.Helper()
	in := map[string]any{"app": w.app, "name": name, "scheduleType": "API", "nodes": nodes, "edges": edges}
	for _, e := range extra {
		for k, v := range e {
			in[k] = v
		}
	}
	id, err := w.c.CreateWorkflow(in)
	if err != nil {
		w.t.Fatalf("createWorkflow %s: %v", name, err)
	}
	return id
}

func (w *wf) run(workflowID string, ctx map[string]any) string {
	w.t.Helper()
	id, err := w.c.RunWorkflow(workflowID, ctx)
	if err != nil {
		w.t.Fatalf("runWorkflow: %v", err)
	}
	return id
}

func (w *wf) waitWorkflowInstance(id string, want ...string) *harness.WorkflowRun {
	w.t.Helper()
	r, err := w.c.WaitWorkflowInstance(id, settle, want...)
	if err != nil {
		w.t.Fatalf("%v\nserver output (tail):\n%s", err, tail(w.srv.Output(), 40))
	}
	return r
}

func (w *wf) waitNode(id, key string, want ...string) *harness.WorkflowRun {
	w.t.Helper()
	r, err := w.c.WaitWorkflowNode(id, key, settle, want...)
	if err != nil {
		w.t.Fatalf("%v\nserver output (tail):\n%s", err, tail(w.srv.Output(), 40))
	}
	return r
}

func (w *wf) op(query string, vars map[string]any) {
	w.t.Helper()
	if err := w.c.Do(query, vars, nil); err != nil {
		w.t.Fatalf("%s: %v", query, err)
	}
}

func jobNode(key, job string, extra ...map[string]any) map[string]any {
	n := map[string]any{"key": key, "type": "JOB", "jobId": job}
	for _, e := range extra {
		for k, v := range e {
			n[k] = v
		}
	}
	return n
}

func edge(from, to string, label ...string) map[string]any {
	e := map[string]any{"from": from, "to": to}
	if len(label) > 0 {
		e["label"] = label[0]
	}
	return e
}

// TestWorkflows runs DESIGN §6's workflows end to end on PostgreSQL with
// real agents: every node type, data flowing between a script and a GO
// processor and out of nested runs, failures that block only their
// descendants, and each way to fix a run.
func TestWorkflows(t *testing.T) {
	t.Parallel()
	w := &wf{cluster: newCluster(t, dbtest.NewSchema(t), 2), t: t}

	t.Run("every node type and the context end to end", func(t *testing.T) {
		w.t = t
		extract := w.shell("extract", `python3 -c '
import json, os
d = json.load(open(os.environ["JOBWHEEL_WORKFLOW_CONTEXT"]))
json.dump({"from_shell": "hello", "region_seen": d["context"]["region"]}, open(os.environ["JOBWHEEL_WORKFLOW_OUTPUT"], "w"))
print(json.dumps(["a", "b", "c"]))'`)
		each := w.shell("each", `echo "item-$JOBWHEEL_INSTANCE_PARAMS"`)
		goctx := w.job(t, map[string]any{"name": "goctx", "processorType": "GO", "processor": "example.context", "params": "from_shell"})
		deep := w.shell("deep", `echo '{"deep": true}' > "$JOBWHEEL_WORKFLOW_OUTPUT"; echo deep`)
		flaky := w.shell("flaky", "exit 3")
		skipme := w.shell("skipme", "echo must-not-run")
		final := w.shell("final", `python3 -c '
import json, os
c = json.load(open(os.environ["JOBWHEEL_WORKFLOW_CONTEXT"]))["context"]
print("go_saw=%s deep=%s region=%s" % (c["go_saw"], c["deep"], c["region_seen"]))'`)
		inner := w.workflow("inner", []map[string]any{jobNode("deep", deep)}, []map[string]any{})
		middle := w.workflow("middle", []map[string]any{{"key": "inner", "type": "NESTED", "workflowId": inner}}, []map[string]any{})
		etl := w.workflow("etl", []map[string]any{
			jobNode("extract", extract),
			{"key": "check", "type": "DECISION", "expression": `context.from_shell == "hello"`},
			{"key": "each", "type": "FOREACH", "jobId": each, "expression": "fromJSON(upstream.extract)", "parallelism": 2},
			jobNode("skipme", skipme),
			jobNode("goctx", goctx),
			{"key": "nested", "type": "NESTED", "workflowId": middle},
			jobNode("flaky", flaky, map[string]any{"skipWhenFailed": true}),
			jobNode("final", final),
		}, []map[string]any{
			edge("extract", "check"), edge("check", "each", "true"), edge("check", "skipme", "false"), edge("extract", "each"),
			edge("extract", "goctx"), edge("goctx", "nested"), edge("extract", "flaky"),
			edge("each", "final"), edge("nested", "final"), edge("flaky", "final"),
		})
		r := w.waitWorkflowInstance(w.run(etl, map[string]any{"region": "eu"}), "SUCCEEDED")
		if n := r.Node("skipme"); n.Status != "SKIPPED" || n.Reason != "BRANCH_NOT_TAKEN" || len(n.Instances) != 0 {
			t.Errorf("skipme: %s %s with %d instances; want skipped, the branch not taken", n.Status, n.Reason, len(n.Instances))
		}
		if n := r.Node("flaky"); n.Status != "FAILED" || !n.FailureIgnored {
			t.Errorf("flaky: %s ignored=%v; want a failure skipWhenFailed ignores", n.Status, n.FailureIgnored)
		}
		if n := r.Node("each"); n.Result != `["item-a","item-b","item-c"]` || len(n.Instances) != 3 {
			t.Errorf("each: result %s from %d instances; want the three results in order", n.Result, len(n.Instances))
		}
		if n := r.Node("goctx"); n.Result != `"hello"` {
			t.Errorf("goctx (GO) read %s; want what the shell node added", n.Result)
		}
		if n := r.Node("nested"); n.Output["deep"] != true {
			t.Errorf("nested added %v; want the innermost run's addition", n.Output)
		}
		if n := r.Node("final"); n.Result != "go_saw=hello deep=True region=eu" {
			t.Errorf("final saw %q; want every addition of the run", n.Result)
		}
		if r.Context["region"] != "eu" || r.Context["go_saw"] != "hello" {
			t.Errorf("the run's context %v lacks the initial value or an addition", r.Context)
		}
	})

	t.Run("a failure blocks its descendants only; retry and rerun fix the run", func(t *testing.T) {
		w.t = t
		marker := filepath.Join(t.TempDir(), "fixed")
		a := w.shell("a", "echo a")
		b := w.shell("b", fmt.Sprintf("test -f %s || exit 3; echo b", marker))
		c := w.shell("c", "echo c")
		side := w.shell("side", "sleep 1; echo side")
		id := w.workflow("pipeline", []map[string]any{jobNode("a", a), jobNode("b", b), jobNode("c", c), jobNode("side", side)},
			[]map[string]any{edge("a", "b"), edge("b", "c")})
		run := w.run(id, nil)
		r := w.waitWorkflowInstance(run, "FAILED")
		if n := r.Node("c"); n.Status != "SKIPPED" || n.Reason != "UPSTREAM_FAILED" {
			t.Fatalf("c: %s %s; want blocked by b's failure", n.Status, n.Reason)
		}
		if n := r.Node("side"); n.Status != "SUCCEEDED" {
			t.Fatalf("side: %s; want the independent branch finished", n.Status)
		}
		if err := os.WriteFile(marker, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		w.op(`mutation($id: ID!) { retryWorkflowInstance(id: $id) { id } }`, map[string]any{"id": run})
		r = w.waitWorkflowInstance(run, "SUCCEEDED")
		if n := r.Node("a"); len(n.Instances) != 1 || n.Generation != 1 {
			t.Errorf("a ran %d times (generation %d); a retry keeps a succeeded node", len(n.Instances), n.Generation)
		}
		if n := r.Node("b"); n.Generation != 2 || n.Status != "SUCCEEDED" {
			t.Errorf("b: %s at generation %d; want it run again", n.Status, n.Generation)
		}
		w.op(`mutation($id: ID!) { rerunWorkflowNode(workflowInstanceId: $id, node: "b", downstream: true) { id } }`, map[string]any{"id": run})
		r = w.waitWorkflowInstance(run, "SUCCEEDED")
		gens := map[string]int{}
		for _, n := range r.Nodes {
			gens[n.Key] = n.Generation
		}
		if gens["a"] != 1 || gens["side"] != 1 || gens["b"] != 3 || gens["c"] != 3 {
			t.Errorf("generations %v; want b and c rerun (3), a and side untouched (1)", gens)
		}
	})

	t.Run("mark a failed node succeeded", func(t *testing.T) {
		w.t = t
		x := w.shell("x", "exit 4")
		y := w.shell("y", "echo y")
		id := w.workflow("marked", []map[string]any{jobNode("x", x), jobNode("y", y)}, []map[string]any{edge("x", "y")})
		run := w.run(id, nil)
		w.waitWorkflowInstance(run, "FAILED")
		w.op(`mutation($id: ID!) { markWorkflowNodeSucceeded(workflowInstanceId: $id, node: "x") { id } }`, map[string]any{"id": run})
		r := w.waitWorkflowInstance(run, "SUCCEEDED")
		if n := r.Node("y"); n.Status != "SUCCEEDED" {
			t.Errorf("y: %s; want it run once x was marked succeeded", n.Status)
		}
	})

	t.Run("an approval waits for the API", func(t *testing.T) {
		w.t = t
		after := w.shell("after-approval", "echo go")
		id := w.workflow("gated", []map[string]any{{"key": "ok", "type": "APPROVAL"}, jobNode("go", after)}, []map[string]any{edge("ok", "go")})
		run := w.run(id, nil)
		w.waitNode(run, "ok", "AWAITING_APPROVAL")
		harness.Elapse(t, time.Second, "the approval waiting")
		if r, _ := w.c.WorkflowRun(run); r.Status != "RUNNING" || r.Node("go").Status != "WAITING" {
			t.Fatalf("before the approval: run %s, go %s; want it waiting", r.Status, r.Node("go").Status)
		}
		w.op(`mutation($id: ID!) { approveWorkflowNode(workflowInstanceId: $id, node: "ok", approve: true, comment: "ship it") { id } }`, map[string]any{"id": run})
		w.waitWorkflowInstance(run, "SUCCEEDED")
	})

	t.Run("QUEUE starts a run over maxInstances when the earlier ends", func(t *testing.T) {
		w.t = t
		slow := w.shell("slow", "sleep 2")
		id := w.workflow("queued", []map[string]any{jobNode("s", slow)}, []map[string]any{},
			map[string]any{"maxInstances": 1, "overlapPolicy": "QUEUE"})
		first := w.run(id, nil)
		w.waitWorkflowInstance(first, "RUNNING")
		second := w.run(id, nil)
		r1 := w.waitWorkflowInstance(first, "SUCCEEDED")
		r2 := w.waitWorkflowInstance(second, "SUCCEEDED")
		if r2.StartedTime.Before(*r1.FinishedTime) {
			t.Fatalf("the queued run started at %v, before the first ended at %v", r2.StartedTime, r1.FinishedTime)
		}
	})

	t.Run("an oversized addition fails its node naming the limit", func(t *testing.T) {
		w.t = t
		big := w.shell("big", `python3 -c 'import json,os; json.dump({"x": "y" * 1100000}, open(os.environ["JOBWHEEL_WORKFLOW_OUTPUT"], "w"))'`)
		id := w.workflow("too-big", []map[string]any{jobNode("big", big)}, []map[string]any{})
		r := w.waitWorkflowInstance(w.run(id, nil), "FAILED")
		if n := r.Node("big"); n.Status != "FAILED" || !strings.Contains(n.Message, "1 MiB") {
			t.Fatalf("big: %s %q; want it failed with a message naming the 1 MiB limit", n.Status, n.Message)
		}
	})
}

// TestWorkflowSurvivesOwnerKill: kill -9 of the owner mid-run; the new
// owner finishes the run and no node runs twice.
func TestWorkflowSurvivesOwnerKill(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2)
	f.addApp("flows", 0)
	owner := f.settled("flows", "")
	c := f.api()
	var steps []map[string]any
	var edges []map[string]any
	for i := 1; i <= 3; i++ {
		id, err := c.CreateJob(map[string]any{"app": "flows", "name": fmt.Sprintf("step%d", i), "scheduleType": "API",
			"processorType": "SHELL", "processor": "sleep 2; echo done"})
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, jobNode(fmt.Sprintf("s%d", i), id))
		if i > 1 {
			edges = append(edges, edge(fmt.Sprintf("s%d", i-1), fmt.Sprintf("s%d", i)))
		}
	}
	wid, err := c.CreateWorkflow(map[string]any{"app": "flows", "name": "chain", "scheduleType": "API", "nodes": steps, "edges": edges})
	if err != nil {
		t.Fatal(err)
	}
	run, err := c.RunWorkflow(wid, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitWorkflowNode(run, "s2", settle, "RUNNING"); err != nil {
		t.Fatal(err)
	}
	f.server(owner).Kill()
	heir := f.settled("flows", owner)
	t.Logf("flows: %s killed mid-run; %s owns it", owner, heir)
	r, err := f.api().WaitWorkflowInstance(run, 2*settle, "SUCCEEDED")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range r.Nodes {
		if len(n.Instances) != 1 {
			b, _ := json.Marshal(n.Instances)
			t.Errorf("node %s ran %d times: %s", n.Key, len(n.Instances), b)
		}
	}
}

// unfinished counts an app's job instances not ended.
func (w *wf) unfinished(jobID string) int {
	w.t.Helper()
	var out struct{ Instances struct{ TotalCount int } }
	if err := w.c.Do(`query($app: String!, $job: ID) { instances(app: $app, jobId: $job, status: [WAITING, DISPATCHED, RUNNING], first: 1) { totalCount } }`,
		map[string]any{"app": w.app, "job": jobID}, &out); err != nil {
		w.t.Fatalf("counting unfinished instances: %v", err)
	}
	return out.Instances.TotalCount
}

// TestStopLargeWorkflowInstance (issue 25, item 3): five FOREACH nodes over
// 10,000 short elements each, their elements running and ending on the
// agents, stop at once and entirely. Before, the 50,000 element instances
// were made in one transaction and stopping the run one instance at a time
// met the execution actor's batch updates: run against the binaries of
// 032ff0c this test saw "deadlock detected (SQLSTATE=40P01)" in the server's
// log and stopWorkflowInstance did not answer within the client's timeout.
// Now a FOREACH makes only what its parallelism runs, a stop is a few
// statements taking the tree's locks in one order, and it is run again
// should the database still end it for a deadlock.
func TestStopLargeWorkflowInstance(t *testing.T) {
	t.Parallel()
	w := &wf{cluster: newCluster(t, dbtest.NewSchema(t), 2), t: t}
	sleep := w.job(t, map[string]any{"name": "sleep", "processorType": "GO", "processor": "example.sleep"})
	var nodes []map[string]any
	for i := range 5 {
		nodes = append(nodes, map[string]any{"key": fmt.Sprintf("each%d", i), "type": "FOREACH", "jobId": sleep,
			"expression": `map(1..10000, "50ms")`, "parallelism": 40})
	}
	run := w.run(w.workflow("large", nodes, []map[string]any{}), nil)
	for i := range 5 {
		w.waitNode(run, fmt.Sprintf("each%d", i), "RUNNING")
	}
	testkit.Eventually(t, "elements to run on the agents", func() bool { return w.unfinished(sleep) >= 100 })
	w.op(`mutation($id: ID!) { stopWorkflowInstance(id: $id) { id } }`, map[string]any{"id": run})
	r := w.waitWorkflowInstance(run, "STOPPED")
	for _, n := range r.Nodes {
		if n.Status != "STOPPED" {
			t.Errorf("node %s is %s; want STOPPED", n.Key, n.Status)
		}
	}
	testkit.Eventually(t, "every element instance to end", func() bool { return w.unfinished(sleep) == 0 })
}
