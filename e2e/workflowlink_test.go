package e2e

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// linkedRun is a run a link started, as the tests read it.
type linkedRun struct {
	ID, Status, TriggerType string
	UpstreamRunID           *string
	UpstreamInstanceID      *string
	Context                 map[string]any
}

func linkedRuns(t *testing.T, c *harness.Client, app, workflowID string) []linkedRun {
	t.Helper()
	var out struct {
		WorkflowInstances struct{ Edges []struct{ Node linkedRun } }
	}
	if err := c.Do(`query($app: String!, $wf: ID) { workflowInstances(app: $app, workflowId: $wf, first: 500) { edges { node {
		id status triggerType upstreamRunId upstreamInstanceId context } } } }`, map[string]any{"app": app, "wf": workflowID}, &out); err != nil {
		t.Fatalf("workflowInstances: %v", err)
	}
	var list []linkedRun
	for _, e := range out.WorkflowInstances.Edges {
		list = append(list, e.Node)
	}
	return list
}

// waitLinkedRuns waits until a workflow has n runs, all ended.
func waitLinkedRuns(t *testing.T, c *harness.Client, app, workflowID string, n int) []linkedRun {
	t.Helper()
	var last []linkedRun
	ok := testkit.Poll(settle, func() bool {
		last = linkedRuns(t, c, app, workflowID)
		return len(last) == n && !slices.ContainsFunc(last, func(r linkedRun) bool { return r.Status == "WAITING" || r.Status == "RUNNING" })
	})
	if !ok {
		t.Fatalf("workflow %s: %+v; want %d runs, ended", workflowID, last, n)
	}
	return last
}

func setUpstream(c *harness.Client, id string, upstream ...map[string]any) error {
	return c.Do(`mutation($id: ID!, $up: [WorkflowUpstreamInput!]!) { setWorkflowUpstream(id: $id, upstream: $up) { id } }`,
		map[string]any{"id": id, "up": upstream}, nil)
}

// TestWorkflowDependencies: a workflow follows another workflow and a job:
// each success upstream starts it once, with the upstream run's id and
// context under `trigger`; a failure starts nothing; the links are shown
// both ways, and a cycle is refused naming it (issue 26 item 16).
func TestWorkflowDependencies(t *testing.T) {
	t.Parallel()
	w := &wf{cluster: newCluster(t, dbtest.NewSchema(t), 2), t: t}
	c := w.c
	extract := w.shell("extract", `if grep -q '"fail"' "$JOBWHEEL_WORKFLOW_CONTEXT"; then exit 3; fi; echo '{"rows": 42}' > "$JOBWHEEL_WORKFLOW_OUTPUT"`)
	show := w.shell("show", `cat "$JOBWHEEL_WORKFLOW_CONTEXT"`)
	feed := w.shell("feed", `echo fed`)
	a := w.workflow("produce", []map[string]any{jobNode("extract", extract)}, []map[string]any{})
	b := w.workflow("consume", []map[string]any{jobNode("show", show)}, []map[string]any{})
	after := w.workflow("after-feed", []map[string]any{jobNode("show", show)}, []map[string]any{})
	if err := setUpstream(c, b, map[string]any{"workflowId": a}); err != nil {
		t.Fatal(err)
	}
	if err := setUpstream(c, after, map[string]any{"jobId": feed}); err != nil {
		t.Fatal(err)
	}

	t.Run("the links are shown upstream and downstream", func(t *testing.T) {
		var out struct {
			A, B, After struct {
				UpstreamWorkflows, DownstreamWorkflows []struct{ ID string }
				UpstreamJobs                           []struct{ ID string }
			}
			Job struct{ DownstreamWorkflows []struct{ ID string } }
		}
		if err := c.Do(`query($a: ID!, $b: ID!, $after: ID!, $job: ID!) {
			a: workflow(id: $a) { upstreamWorkflows { id } downstreamWorkflows { id } upstreamJobs { id } }
			b: workflow(id: $b) { upstreamWorkflows { id } downstreamWorkflows { id } upstreamJobs { id } }
			after: workflow(id: $after) { upstreamWorkflows { id } downstreamWorkflows { id } upstreamJobs { id } }
			job(id: $job) { downstreamWorkflows { id } } }`, map[string]any{"a": a, "b": b, "after": after, "job": feed}, &out); err != nil {
			t.Fatal(err)
		}
		ok := len(out.A.DownstreamWorkflows) == 1 && out.A.DownstreamWorkflows[0].ID == b && len(out.A.UpstreamWorkflows) == 0 &&
			len(out.B.UpstreamWorkflows) == 1 && out.B.UpstreamWorkflows[0].ID == a && len(out.B.DownstreamWorkflows) == 0 &&
			len(out.After.UpstreamJobs) == 1 && out.After.UpstreamJobs[0].ID == feed &&
			len(out.Job.DownstreamWorkflows) == 1 && out.Job.DownstreamWorkflows[0].ID == after
		if !ok {
			t.Errorf("links: %+v; want produce → consume, feed → after-feed", out)
		}
	})

	t.Run("a workflow's success starts its downstream once, with its run id and context; a failure starts nothing", func(t *testing.T) {
		w.t = t
		first := w.run(a, nil)
		w.waitWorkflowInstance(first, "SUCCEEDED")
		runs := waitLinkedRuns(t, c, w.app, b, 1)
		r := runs[0]
		trigger, _ := r.Context["trigger"].(map[string]any)
		upCtx, _ := trigger["context"].(map[string]any)
		if r.Status != "SUCCEEDED" || r.TriggerType != "UPSTREAM" || r.UpstreamRunID == nil || *r.UpstreamRunID != first ||
			trigger["type"] != "WORKFLOW" || trigger["runId"] != first || trigger["workflowId"] != a || upCtx["rows"] != float64(42) {
			t.Fatalf("consume's run: %+v; want SUCCEEDED, UPSTREAM, started by run %s with its context (rows 42) under trigger", r, first)
		}
		got := w.waitWorkflowInstance(r.ID, "SUCCEEDED")
		if n := got.Node("show"); n == nil || !strings.Contains(n.Result, `"runId":"`+first+`"`) {
			t.Errorf("consume's node saw %+v; want the upstream run id in its context", n)
		}
		failed := w.run(a, map[string]any{"fail": true})
		w.waitWorkflowInstance(failed, "FAILED")
		second := w.run(a, nil)
		w.waitWorkflowInstance(second, "SUCCEEDED")
		runs = waitLinkedRuns(t, c, w.app, b, 2)
		var by []string
		for _, r := range runs {
			by = append(by, *r.UpstreamRunID)
		}
		slices.Sort(by)
		want := []string{first, second}
		slices.Sort(want)
		if !slices.Equal(by, want) {
			t.Errorf("consume's runs were started by %v; want by %v only (not the failed %s)", by, want, failed)
		}
	})

	t.Run("a job's success starts its downstream once, with the instance", func(t *testing.T) {
		w.t = t
		in := w.cluster.run(t, feed)
		w.wait(t, in, "SUCCEEDED")
		runs := waitLinkedRuns(t, c, w.app, after, 1)
		r := runs[0]
		trigger, _ := r.Context["trigger"].(map[string]any)
		if r.Status != "SUCCEEDED" || r.UpstreamInstanceID == nil || *r.UpstreamInstanceID != in || trigger["type"] != "JOB" ||
			trigger["instanceId"] != in || !strings.Contains(fmt.Sprint(trigger["result"]), "fed") {
			t.Errorf("after-feed's run: %+v; want SUCCEEDED, started by instance %s with its result under trigger", r, in)
		}
	})

	t.Run("a cycle is refused naming it; nothing changes", func(t *testing.T) {
		err := setUpstream(c, a, map[string]any{"workflowId": b})
		errs, ok := errors.AsType[harness.Errors](err)
		if !ok || errs.Code() != "BAD_INPUT" || errs[0].Field() != "upstream[0].workflowId" || !strings.Contains(err.Error(), `"produce" → "consume" → "produce"`) {
			t.Errorf("produce following consume: %v; want BAD_INPUT on upstream[0].workflowId naming the cycle produce → consume → produce", err)
		}
		err = setUpstream(c, a, map[string]any{"workflowId": a})
		if errs, ok := errors.AsType[harness.Errors](err); !ok || errs.Code() != "BAD_INPUT" || errs[0].Field() != "upstream[0].workflowId" {
			t.Errorf("produce following itself: %v; want BAD_INPUT on upstream[0].workflowId", err)
		}
		err = setUpstream(c, a, map[string]any{"workflowId": b, "jobId": feed})
		if errs, ok := errors.AsType[harness.Errors](err); !ok || errs.Code() != "BAD_INPUT" || errs[0].Field() != "upstream[0]" {
			t.Errorf("both ids: %v; want BAD_INPUT on upstream[0]", err)
		}
		var out struct {
			Workflow struct{ UpstreamWorkflows []struct{ ID string } }
		}
		if err := c.Do(`query($id: ID!) { workflow(id: $id) { upstreamWorkflows { id } } }`, map[string]any{"id": a}, &out); err != nil || len(out.Workflow.UpstreamWorkflows) != 0 {
			t.Errorf("produce follows %+v (%v); want nothing", out.Workflow.UpstreamWorkflows, err)
		}
	})
}

// TestWorkflowDependencySurvivesOwnerKill: kill -9 of the owner while an
// upstream run runs; the next owner ends it, and its success starts the
// downstream workflow exactly once.
func TestWorkflowDependencySurvivesOwnerKill(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2)
	f.addApp("links", 0)
	owner := f.settled("links", "")
	c := f.api()
	mk := func(name, script string) string {
		id, err := c.CreateJob(map[string]any{"app": "links", "name": name, "scheduleType": "API", "processorType": "SHELL", "processor": script})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	slow, quick := mk("slow", "sleep 2; echo done"), mk("quick", "echo done")
	up, err := c.CreateWorkflow(map[string]any{"app": "links", "name": "up", "scheduleType": "API",
		"nodes": []map[string]any{jobNode("s1", slow), jobNode("s2", slow)}, "edges": []map[string]any{edge("s1", "s2")}})
	if err != nil {
		t.Fatal(err)
	}
	down, err := c.CreateWorkflow(map[string]any{"app": "links", "name": "down", "scheduleType": "API",
		"nodes": []map[string]any{jobNode("q", quick)}, "edges": []map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := setUpstream(c, down, map[string]any{"workflowId": up}); err != nil {
		t.Fatal(err)
	}
	run, err := c.RunWorkflow(up, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitWorkflowNode(run, "s2", settle, "RUNNING"); err != nil {
		t.Fatal(err)
	}
	f.server(owner).Kill()
	heir := f.settled("links", owner)
	t.Logf("links: %s killed mid-run; %s owns it", owner, heir)
	c = f.api()
	if _, err := c.WaitWorkflowInstance(run, 2*settle, "SUCCEEDED"); err != nil {
		t.Fatal(err)
	}
	runs := waitLinkedRuns(t, c, "links", down, 1)
	if runs[0].Status != "SUCCEEDED" || runs[0].UpstreamRunID == nil || *runs[0].UpstreamRunID != run {
		t.Fatalf("down's runs: %+v; want one, SUCCEEDED, started by %s", runs, run)
	}
	f.assertNothingRanTwice()
}
