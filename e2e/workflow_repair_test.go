package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
)

// TestWorkflowRepairsAndRules runs issue 26's items end to end on
// PostgreSQL with real agents: repairs that leave a run in a right state,
// Airflow's trigger rules, what saving refuses, and operations that reach
// nested runs.
func TestWorkflowRepairsAndRules(t *testing.T) {
	t.Parallel()
	w := &wf{cluster: newCluster(t, dbtest.NewSchema(t), 2), t: t}

	t.Run("a failed node rerun alone runs what its failure skipped (item 1)", func(t *testing.T) {
		w.t = t
		marker := filepath.Join(t.TempDir(), "fixed")
		ok := w.shell("ok-1", "echo ok")
		b := w.shell("b-1", fmt.Sprintf("test -f %s || exit 3; echo b", marker))
		id := w.workflow("rerun-alone", []map[string]any{jobNode("a", ok), jobNode("b", b), jobNode("c", ok), jobNode("x", ok),
			jobNode("cleanup", ok, map[string]any{"triggerRule": "ONE_FAILED"})},
			[]map[string]any{edge("a", "b"), edge("b", "c"), edge("a", "x"), edge("b", "cleanup")})
		run := w.run(id, nil)
		r := w.waitWorkflowInstance(run, "FAILED")
		if n := r.Node("c"); n.Status != "SKIPPED" || n.Reason != "UPSTREAM_FAILED" {
			t.Fatalf("c: %s %s; want skipped for b's failure", n.Status, n.Reason)
		}
		if n := r.Node("cleanup"); n.Status != "SUCCEEDED" {
			t.Fatalf("cleanup: %s; want run for b's failure", n.Status)
		}
		if err := os.WriteFile(marker, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		w.op(`mutation($id: ID!) { rerunWorkflowNode(workflowInstanceId: $id, node: "b", downstream: false) { id } }`, map[string]any{"id": run})
		r = w.waitWorkflowInstance(run, "SUCCEEDED")
		if n := r.Node("c"); n.Status != "SUCCEEDED" || len(n.Instances) != 1 {
			t.Errorf("c: %s with %d instances; want it run once b succeeded", n.Status, len(n.Instances))
		}
		if n := r.Node("cleanup"); n.Status != "SKIPPED" || n.Reason != "TRIGGER_RULE" {
			t.Errorf("cleanup: %s %s; want decided again and skipped, b no longer failed", n.Status, n.Reason)
		}
	})

	t.Run("a nested run is repaired through its parent (items 2, 10)", func(t *testing.T) {
		w.t = t
		marker := filepath.Join(t.TempDir(), "fixed")
		ok := w.shell("ok-2", "echo ok")
		flaky := w.shell("flaky-2", fmt.Sprintf("test -f %s || exit 3; echo fixed", marker))
		inner := w.workflow("inner-2", []map[string]any{jobNode("ok", ok), jobNode("flaky", flaky)}, []map[string]any{})
		id := w.workflow("outer-2", []map[string]any{{"key": "nested", "type": "NESTED", "workflowId": inner}, jobNode("after", ok)},
			[]map[string]any{edge("nested", "after")})
		run := w.run(id, nil)
		r := w.waitWorkflowInstance(run, "FAILED")
		child := r.Node("nested").Child.ID
		err := w.c.Do(`mutation($id: ID!) { retryWorkflowInstance(id: $id) { id } }`, map[string]any{"id": child}, nil)
		if errs, isErrs := errors.AsType[harness.Errors](err); !isErrs || errs.Code() != "CONFLICT" || !strings.Contains(err.Error(), "nested in run "+run) {
			t.Fatalf("retrying the nested run: %v; want CONFLICT naming its parent", err)
		}
		if err := os.WriteFile(marker, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		w.op(`mutation($id: ID!) { retryWorkflowInstance(id: $id) { id } }`, map[string]any{"id": run})
		r = w.waitWorkflowInstance(run, "SUCCEEDED")
		if n := r.Node("nested"); n.Child.ID != child {
			t.Errorf("nested ran %s; want %s retried in place", n.Child.ID, child)
		}
		c := w.waitWorkflowInstance(child, "SUCCEEDED")
		if n := c.Node("ok"); len(n.Instances) != 1 {
			t.Errorf("the nested run's ok ran %d times; a retry keeps what succeeded", len(n.Instances))
		}
		if n := c.Node("flaky"); n.Status != "SUCCEEDED" {
			t.Errorf("flaky: %s", n.Status)
		}
	})

	t.Run("a retried FOREACH runs only the elements that failed (item 10)", func(t *testing.T) {
		w.t = t
		marker := filepath.Join(t.TempDir(), "fixed")
		each := w.shell("each-3", fmt.Sprintf(`if [ "$JOBWHEEL_INSTANCE_PARAMS" = bad ] && [ ! -f %s ]; then exit 3; fi; echo "done-$JOBWHEEL_INSTANCE_PARAMS"`, marker))
		id := w.workflow("each-3", []map[string]any{{"key": "each", "type": "FOREACH", "jobId": each,
			"expression": `["a", "bad", "c", "bad"]`, "parallelism": 2}}, []map[string]any{})
		run := w.run(id, nil)
		w.waitWorkflowInstance(run, "FAILED")
		if err := os.WriteFile(marker, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		w.op(`mutation($id: ID!) { retryWorkflowInstance(id: $id) { id } }`, map[string]any{"id": run})
		r := w.waitWorkflowInstance(run, "SUCCEEDED")
		n := r.Node("each")
		if n.Result != `["done-a","done-bad","done-c","done-bad"]` || len(n.Instances) != 4 {
			t.Errorf("each: result %s from %d instances of this generation; want the four results, the two kept and two run again", n.Result, len(n.Instances))
		}
	})

	t.Run("a DECISION reads only its upstream nodes, by key or name (item 3)", func(t *testing.T) {
		w.t = t
		ok := w.shell("ok-4", "echo done")
		nodes := func(expr string) []map[string]any {
			return []map[string]any{jobNode("job_1", ok, map[string]any{"name": "extract"}), jobNode("other", ok),
				{"key": "check", "type": "DECISION", "expression": expr}, jobNode("load", ok)}
		}
		edges := []map[string]any{edge("job_1", "check"), edge("check", "load", "true")}
		_, err := w.c.CreateWorkflow(map[string]any{"app": w.app, "name": "refs-bad", "scheduleType": "API", "nodes": nodes(`upstream.other contains "done"`), "edges": edges})
		if errs, isErrs := errors.AsType[harness.Errors](err); !isErrs || errs.Code() != "BAD_INPUT" || errs[0].Field() != "nodes[2].expression" ||
			!strings.Contains(err.Error(), `job_1 ("extract")`) {
			t.Fatalf("an expression reading a node that is not upstream: %v; want BAD_INPUT on nodes[2].expression naming job_1 (\"extract\")", err)
		}
		r := w.waitWorkflowInstance(w.run(w.workflow("refs", nodes(`upstream.extract contains "done"`), edges), nil), "SUCCEEDED")
		if n := r.Node("check"); n.Result != "true" {
			t.Errorf("check by name: %q; want true", n.Result)
		}
	})

	t.Run("saving an unchanged workflow makes no version (item 5)", func(t *testing.T) {
		w.t = t
		ok := w.shell("ok-5", "echo ok")
		in := map[string]any{"app": w.app, "name": "same", "scheduleType": "API", "nodes": []map[string]any{jobNode("a", ok)}, "edges": []map[string]any{}}
		id, err := w.c.CreateWorkflow(in)
		if err != nil {
			t.Fatal(err)
		}
		var out struct{ UpdateWorkflow struct{ Version int } }
		for range 2 {
			if err := w.c.Do(`mutation($id: ID!, $in: WorkflowInput!) { updateWorkflow(id: $id, input: $in) { version } }`,
				map[string]any{"id": id, "in": in}, &out); err != nil {
				t.Fatal(err)
			}
		}
		if out.UpdateWorkflow.Version != 1 {
			t.Errorf("version %d after two unchanged saves; want 1", out.UpdateWorkflow.Version)
		}
	})

	t.Run("Airflow's trigger rules (item 6)", func(t *testing.T) {
		w.t = t
		ok := w.shell("ok-6", "echo ok")
		bad := w.shell("bad-6", "exit 3")
		nodes := []map[string]any{
			jobNode("ok", ok), jobNode("f1", bad), jobNode("f2", bad),
			{"key": "d", "type": "DECISION", "expression": "true"}, jobNode("untaken", ok),
			jobNode("all_failed", ok, map[string]any{"triggerRule": "ALL_FAILED"}),
			jobNode("all_failed_not", ok, map[string]any{"triggerRule": "ALL_FAILED"}),
			jobNode("min_one", ok, map[string]any{"triggerRule": "NONE_FAILED_MIN_ONE_SUCCESS"}),
			jobNode("min_one_not", ok, map[string]any{"triggerRule": "NONE_FAILED_MIN_ONE_SUCCESS"}),
			jobNode("none_skipped", ok, map[string]any{"triggerRule": "NONE_SKIPPED"}),
			jobNode("none_skipped_not", ok, map[string]any{"triggerRule": "NONE_SKIPPED"}),
			jobNode("all_skipped", ok, map[string]any{"triggerRule": "ALL_SKIPPED"}),
			jobNode("all_skipped_not", ok, map[string]any{"triggerRule": "ALL_SKIPPED"}),
		}
		edges := []map[string]any{edge("d", "untaken", "false"),
			edge("f1", "all_failed"), edge("f2", "all_failed"),
			edge("f1", "all_failed_not"), edge("ok", "all_failed_not"),
			edge("ok", "min_one"), edge("untaken", "min_one"),
			edge("ok", "min_one_not"), edge("f1", "min_one_not"),
			edge("ok", "none_skipped"), edge("f1", "none_skipped"),
			edge("ok", "none_skipped_not"), edge("untaken", "none_skipped_not"),
			edge("untaken", "all_skipped"),
			edge("untaken", "all_skipped_not"), edge("ok", "all_skipped_not"),
		}
		r := w.waitWorkflowInstance(w.run(w.workflow("rules", nodes, edges), nil), "FAILED")
		for key, want := range map[string]string{
			"all_failed": "SUCCEEDED", "all_failed_not": "SKIPPED TRIGGER_RULE",
			"min_one": "SUCCEEDED", "min_one_not": "SKIPPED UPSTREAM_FAILED",
			"none_skipped": "SUCCEEDED", "none_skipped_not": "SKIPPED UPSTREAM_SKIPPED",
			"all_skipped": "SUCCEEDED", "all_skipped_not": "SKIPPED TRIGGER_RULE",
		} {
			n := r.Node(key)
			if got := strings.TrimSpace(n.Status + " " + n.Reason); got != want {
				t.Errorf("%s: %s; want %s", key, got, want)
			}
		}
	})

	t.Run("pausing a run pauses its nested runs (item 11)", func(t *testing.T) {
		w.t = t
		gate := filepath.Join(t.TempDir(), "go")
		first := w.shell("first-7", fmt.Sprintf("while [ ! -f %s ]; do sleep 0.1; done; echo first", gate))
		second := w.shell("second-7", "echo second")
		inner := w.workflow("inner-7", []map[string]any{jobNode("first", first), jobNode("second", second)}, []map[string]any{edge("first", "second")})
		run := w.run(w.workflow("outer-7", []map[string]any{{"key": "nested", "type": "NESTED", "workflowId": inner}}, []map[string]any{}), nil)
		r := w.waitNode(run, "nested", "RUNNING")
		child := r.Node("nested").Child.ID
		w.waitNode(child, "first", "RUNNING")
		w.op(`mutation($id: ID!) { pauseWorkflowInstance(id: $id) { id } }`, map[string]any{"id": run})
		w.waitWorkflowInstance(child, "PAUSED")
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		c := w.waitNode(child, "first", "SUCCEEDED")
		if c.Status != "PAUSED" || c.Node("second").Status != "WAITING" {
			t.Fatalf("the nested run is %s with second %s; want it PAUSED, second not started", c.Status, c.Node("second").Status)
		}
		w.op(`mutation($id: ID!) { resumeWorkflowInstance(id: $id) { id } }`, map[string]any{"id": run})
		w.waitWorkflowInstance(run, "SUCCEEDED")
	})

	t.Run("a run's timeout and a NESTED node's timeout (item 7)", func(t *testing.T) {
		w.t = t
		long := w.shell("long-8", "sleep 60")
		ok := w.shell("ok-8", "echo ok")
		run := w.run(w.workflow("timed", []map[string]any{jobNode("long", long), jobNode("after", ok)}, []map[string]any{edge("long", "after")},
			map[string]any{"timeoutMs": 1500}), nil)
		r := w.waitWorkflowInstance(run, "FAILED")
		if r.Reason != "TIMEOUT" || r.Node("long").Status != "STOPPED" || r.Node("long").Reason != "TIMEOUT" || r.Node("after").Status != "SKIPPED" {
			t.Errorf("run %s %s, long %s %s, after %s; want the run FAILED TIMEOUT, long STOPPED, after skipped",
				r.Status, r.Reason, r.Node("long").Status, r.Node("long").Reason, r.Node("after").Status)
		}
		if ins := r.Node("long").Instances; len(ins) != 1 || ins[0].Status != "STOPPED" {
			t.Errorf("long's instances %+v; want its one instance STOPPED", ins)
		}
		inner := w.workflow("inner-8", []map[string]any{jobNode("long", long)}, []map[string]any{})
		run = w.run(w.workflow("outer-8", []map[string]any{{"key": "nested", "type": "NESTED", "workflowId": inner, "timeoutMs": 1500},
			jobNode("cleanup", ok, map[string]any{"triggerRule": "ALL_DONE"})}, []map[string]any{edge("nested", "cleanup")}), nil)
		r = w.waitWorkflowInstance(run, "FAILED")
		n := r.Node("nested")
		if n.Status != "FAILED" || n.Reason != "TIMEOUT" || r.Node("cleanup").Status != "SUCCEEDED" {
			t.Errorf("nested %s %s, cleanup %s; want nested FAILED TIMEOUT, cleanup run", n.Status, n.Reason, r.Node("cleanup").Status)
		}
		w.waitWorkflowInstance(n.Child.ID, "STOPPED")
	})

	t.Run("REPLACE stops the oldest run for the new one (item 8)", func(t *testing.T) {
		w.t = t
		quick := w.shell("quick-9", `test "$JOBWHEEL_INSTANCE_PARAMS" = quick || sleep 60`)
		id := w.workflow("replace", []map[string]any{jobNode("work", quick)}, []map[string]any{},
			map[string]any{"maxInstances": 1, "overlapPolicy": "REPLACE"})
		first := w.run(id, nil)
		w.waitNode(first, "work", "RUNNING")
		second := w.run(id, nil)
		r := w.waitWorkflowInstance(first, "STOPPED")
		if !strings.Contains(r.Result, "replaced by run "+second) {
			t.Errorf("the first run stopped with %q; want it replaced by %s", r.Result, second)
		}
		w.waitNode(second, "work", "RUNNING")
		w.op(`mutation($id: ID!) { stopWorkflowInstance(id: $id) { id } }`, map[string]any{"id": second})
	})

	t.Run("a cut result is marked, and clashing context keys are named (items 4, 13)", func(t *testing.T) {
		w.t = t
		big := w.shell("big-10", `i=0; while [ $i -lt 500 ]; do echo "line $i of a long output"; i=$((i+1)); done`)
		writeA := w.shell("write-a-10", `echo '{"region": "a"}' > "$JOBWHEEL_WORKFLOW_OUTPUT"`)
		writeB := w.shell("write-b-10", `echo '{"region": "b"}' > "$JOBWHEEL_WORKFLOW_OUTPUT"`)
		id := w.workflow("cut-and-clash", []map[string]any{jobNode("big", big),
			{"key": "saw", "type": "DECISION", "expression": `upstream.big startsWith "[cut:"`},
			jobNode("a", writeA), jobNode("b", writeB)}, []map[string]any{edge("big", "saw")})
		run := w.run(id, nil)
		w.waitWorkflowInstance(run, "SUCCEEDED")
		var out struct {
			WorkflowInstance struct {
				ContextClashes []struct {
					Key   string
					Nodes []string
				}
				Nodes []struct {
					Key       string
					Result    string
					ResultCut bool
				}
			}
		}
		if err := w.c.Do(`query($id: ID!) { workflowInstance(id: $id) { contextClashes { key nodes } nodes { key result resultCut } } }`,
			map[string]any{"id": run}, &out); err != nil {
			t.Fatal(err)
		}
		for _, n := range out.WorkflowInstance.Nodes {
			switch n.Key {
			case "big":
				if !n.ResultCut || !strings.HasPrefix(n.Result, "[cut:") || !strings.HasSuffix(n.Result, "line 499 of a long output") {
					t.Errorf("big: cut=%v result %.80q…; want the end of its output, marked as cut", n.ResultCut, n.Result)
				}
			case "saw":
				if n.Result != "true" {
					t.Errorf("the DECISION after big saw %q; want the mark downstream (true)", n.Result)
				}
			case "a":
				if n.ResultCut {
					t.Errorf("a's result is marked cut")
				}
			}
		}
		if c := out.WorkflowInstance.ContextClashes; len(c) != 1 || c[0].Key != "region" || len(c[0].Nodes) != 2 {
			t.Errorf("clashes %+v; want region, written by a and b", c)
		}
	})

	t.Run("FOREACH elements are given the context stored once (item 12)", func(t *testing.T) {
		w.t = t
		each := w.shell("each-11", `python3 -c '
import json, os
c = json.load(open(os.environ["JOBWHEEL_WORKFLOW_CONTEXT"]))
print("%s-%s-%d" % (c["context"]["region"], os.environ["JOBWHEEL_INSTANCE_PARAMS"], len(c["context"]["blob"])))'`)
		id := w.workflow("each-11", []map[string]any{{"key": "each", "type": "FOREACH", "jobId": each, "expression": `["a", "b", "c"]`, "parallelism": 2}},
			[]map[string]any{})
		r := w.waitWorkflowInstance(w.run(id, map[string]any{"region": "eu", "blob": strings.Repeat("x", 200<<10)}), "SUCCEEDED")
		if n := r.Node("each"); n.Result != `["eu-a-204800","eu-b-204800","eu-c-204800"]` {
			t.Errorf("each: %s; want every element to have read the whole context", n.Result)
		}
	})

	t.Run("FOREACH over a nested workflow (item 9)", func(t *testing.T) {
		w.t = t
		step := w.shell("step-12", `python3 -c '
import json, os
c = json.load(open(os.environ["JOBWHEEL_WORKFLOW_CONTEXT"]))["context"]
json.dump({"seen_" + c["element"]: c["region"]}, open(os.environ["JOBWHEEL_WORKFLOW_OUTPUT"], "w"))'`)
		inner := w.workflow("inner-12", []map[string]any{jobNode("step", step)}, []map[string]any{})
		id := w.workflow("each-12", []map[string]any{{"key": "each", "type": "FOREACH", "workflowId": inner, "expression": `["a", "b", "c"]`, "parallelism": 2}},
			[]map[string]any{})
		r := w.waitWorkflowInstance(w.run(id, map[string]any{"region": "eu"}), "SUCCEEDED")
		if n := r.Node("each"); n.Result != `[{"seen_a":"eu"},{"seen_b":"eu"},{"seen_c":"eu"}]` {
			t.Errorf("each: %s; want what each nested run added, in element order", n.Result)
		}
		if r.Context["seen_c"] != "eu" {
			t.Errorf("the run's context %v lacks what the nested runs added", r.Context)
		}
	})
}
