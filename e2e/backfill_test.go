package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// backfillView is a backfill as the tests read it.
type backfillView struct {
	ID                                            string
	Status                                        string
	Parallelism                                   int
	Total, Made, Running, Done, Succeeded, Failed int
	From, To                                      time.Time
	Workflow                                      *struct{ ID string }
	Job                                           *struct{ ID string }
}

const backfillFields = `id status parallelism total made running done succeeded failed from to workflow { id } job { id }`

func readBackfill(t *testing.T, c *harness.Client, id string) backfillView {
	t.Helper()
	var out struct{ Backfill backfillView }
	if err := c.Do(`query($id: ID!) { backfill(id: $id) { `+backfillFields+` } }`, map[string]any{"id": id}, &out); err != nil {
		t.Fatalf("backfill %s: %v", id, err)
	}
	return out.Backfill
}

func waitBackfill(t *testing.T, c *harness.Client, id, what string, cond func(backfillView) bool) backfillView {
	t.Helper()
	var last backfillView
	if !testkit.Poll(2*settle, func() bool { last = readBackfill(t, c, id); return cond(last) }) {
		t.Fatalf("backfill %s: %s did not happen; last %+v", id, what, last)
	}
	return last
}

func backfill(c *harness.Client, mutation, id string, in map[string]any) (backfillView, error) {
	var out map[string]backfillView
	err := c.Do(fmt.Sprintf(`mutation($id: ID!, $in: BackfillInput!) { %s(id: $id, input: $in) { %s } }`, mutation, backfillFields),
		map[string]any{"id": id, "in": in}, &out)
	return out[mutation], err
}

// backfillRun is a backfill's workflow run or job instance as the tests
// read it.
type backfillRun struct {
	ID, Status, Result, Params string
	BackfillID                 *string
	LogicalTime                *time.Time
	Context                    map[string]any
	Nodes                      []struct{ Key, Result string }
}

func backfillRuns(t *testing.T, c *harness.Client, app, workflowID string) []backfillRun {
	t.Helper()
	var out struct {
		WorkflowInstances struct{ Edges []struct{ Node backfillRun } }
	}
	if err := c.Do(`query($app: String!, $wf: ID) { workflowInstances(app: $app, workflowId: $wf, first: 500) { edges { node {
		id status result backfillId logicalTime context nodes { key result } } } } }`, map[string]any{"app": app, "wf": workflowID}, &out); err != nil {
		t.Fatalf("workflowInstances: %v", err)
	}
	var list []backfillRun
	for _, e := range out.WorkflowInstances.Edges {
		list = append(list, e.Node)
	}
	return list
}

func backfillInstances(t *testing.T, c *harness.Client, app, jobID string) []backfillRun {
	t.Helper()
	var out struct {
		Instances struct{ Edges []struct{ Node backfillRun } }
	}
	if err := c.Do(`query($app: String!, $job: ID) { instances(app: $app, jobId: $job, first: 500) { edges { node {
		id status result params backfillId logicalTime } } } }`, map[string]any{"app": app, "job": jobID}, &out); err != nil {
		t.Fatalf("instances: %v", err)
	}
	var list []backfillRun
	for _, e := range out.Instances.Edges {
		list = append(list, e.Node)
	}
	return list
}

// hours returns n fire times an hour apart from from.
func hours(from time.Time, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = from.Add(time.Duration(i) * time.Hour)
	}
	return out
}

// checkLogicalTimes checks that runs are one per fire time of want, each
// of backfill id and ended in status.
func checkLogicalTimes(t *testing.T, runs []backfillRun, id, status string, want []time.Time) {
	t.Helper()
	var got []time.Time
	for _, r := range runs {
		if r.BackfillID == nil || *r.BackfillID != id || r.LogicalTime == nil {
			t.Errorf("run %s: backfillId %v, logicalTime %v; want backfill %s and a logical time", r.ID, r.BackfillID, r.LogicalTime, id)
			continue
		}
		if r.Status != status {
			t.Errorf("run %s (%s): %s %q; want %s", r.ID, r.LogicalTime, r.Status, r.Result, status)
		}
		got = append(got, r.LogicalTime.UTC())
	}
	slices.SortFunc(got, func(a, b time.Time) int { return a.Compare(b) })
	if !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Errorf("logical times %v; want each of %v once", got, want)
	}
}

// TestBackfill: a CRON workflow and a CRON job run once per fire time of a
// past range, at most parallelism at once, each run carrying its logical
// time where the processor sees it; progress is visible as a group, a
// stop stops the group, and bad ranges are refused naming the field
// (issue 26 item 15).
func TestBackfill(t *testing.T) {
	t.Parallel()
	w := &wf{cluster: newCluster(t, dbtest.NewSchema(t), 2), t: t}
	c := w.c
	base := time.Now().UTC().Truncate(time.Hour).Add(-48 * time.Hour)

	t.Run("a workflow: every hour of the range once, two at a time, the logical time in the context", func(t *testing.T) {
		w.t = t
		dir := t.TempDir()
		// Fails if more than two run at once; says what context it saw.
		stamp := w.shell("stamp", slotScript(dir, 2, "")+`; echo "ctx=$(cat "$JOBWHEEL_WORKFLOW_CONTEXT")"`)
		wfID := w.workflow("hourly", []map[string]any{jobNode("stamp", stamp)}, []map[string]any{},
			map[string]any{"scheduleType": "CRON", "scheduleExpression": "0 0 * * * ?", "enabled": false, "maxInstances": 3})
		b, err := backfill(c, "backfillWorkflow", wfID, map[string]any{"from": base, "to": base.Add(5 * time.Hour),
			"parallelism": 2, "context": map[string]any{"region": "eu"}})
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != "RUNNING" || b.Total != 6 || b.Parallelism != 2 || b.Workflow == nil || b.Workflow.ID != wfID {
			t.Fatalf("backfill as made: %+v; want RUNNING, 6 fire times, parallelism 2, of the workflow", b)
		}
		b = waitBackfill(t, c, b.ID, "SUCCEEDED", func(v backfillView) bool { return v.Status != "RUNNING" })
		if b.Status != "SUCCEEDED" || b.Made != 6 || b.Done != 6 || b.Succeeded != 6 || b.Failed != 0 || b.Running != 0 {
			t.Fatalf("backfill at its end: %+v; want SUCCEEDED with 6 made, done and succeeded", b)
		}
		runs := backfillRuns(t, c, w.app, wfID)
		checkLogicalTimes(t, runs, b.ID, "SUCCEEDED", hours(base, 6))
		for _, r := range runs {
			lt := r.LogicalTime.UTC().Format(time.RFC3339)
			if r.Context["logicalTime"] != lt || r.Context["region"] != "eu" {
				t.Errorf("run %s: context %v; want logicalTime %s and region eu", r.ID, r.Context, lt)
			}
			if len(r.Nodes) != 1 || !strings.Contains(r.Nodes[0].Result, `"logicalTime":"`+lt+`"`) {
				t.Errorf("run %s: the processor saw %+v; want its logical time %s in the file JOBWHEEL_WORKFLOW_CONTEXT names", r.ID, r.Nodes, lt)
			}
		}
		var list struct{ Backfills []backfillView }
		if err := c.Do(`query($app: String!, $wf: ID) { backfills(app: $app, workflowId: $wf) { `+backfillFields+` } }`,
			map[string]any{"app": w.app, "wf": wfID}, &list); err != nil || len(list.Backfills) != 1 || list.Backfills[0].ID != b.ID {
			t.Errorf("backfills(workflowId): %+v, %v; want the one backfill", list.Backfills, err)
		}
	})

	t.Run("a job: each instance's params carry its logical time", func(t *testing.T) {
		w.t = t
		job := w.job(t, map[string]any{"name": "daily", "scheduleType": "CRON", "scheduleExpression": "0 0 3 * * ?", "enabled": false,
			"maxInstances": 2, "processorType": "SHELL", "processor": `echo "params=$JOBWHEEL_INSTANCE_PARAMS"`})
		from := base.Add(-72 * time.Hour)
		b, err := backfill(c, "backfillJob", job, map[string]any{"from": from, "to": base, "parallelism": 2, "params": `{"region":"us"}`})
		if err != nil {
			t.Fatal(err)
		}
		var want []time.Time
		for d := from.Truncate(24 * time.Hour).Add(3 * time.Hour); !d.After(base); d = d.Add(24 * time.Hour) {
			if !d.Before(from) {
				want = append(want, d)
			}
		}
		if b.Total != len(want) || b.Job == nil || b.Job.ID != job {
			t.Fatalf("backfill as made: %+v; want %d fire times (%v) of the job", b, len(want), want)
		}
		b = waitBackfill(t, c, b.ID, "an end", func(v backfillView) bool { return v.Status != "RUNNING" })
		if b.Status != "SUCCEEDED" || b.Succeeded != len(want) {
			t.Fatalf("backfill at its end: %+v; want SUCCEEDED, %d succeeded", b, len(want))
		}
		list := backfillInstances(t, c, w.app, job)
		checkLogicalTimes(t, list, b.ID, "SUCCEEDED", want)
		for _, in := range list {
			lt := in.LogicalTime.UTC().Format(time.RFC3339)
			if !strings.Contains(in.Params, `"logicalTime":"`+lt+`"`) || !strings.Contains(in.Params, `"region":"us"`) ||
				!strings.Contains(in.Result, `"logicalTime":"`+lt+`"`) {
				t.Errorf("instance %s: params %s, result %q; want logicalTime %s and region us, seen by the processor", in.ID, in.Params, in.Result, lt)
			}
		}
	})

	t.Run("stopBackfill stops its runs under way and makes no more", func(t *testing.T) {
		w.t = t
		gate := filepath.Join(t.TempDir(), "never")
		wait := w.shell("wait-gate", fmt.Sprintf(`while [ ! -f %s ]; do sleep 0.1; done`, gate))
		wfID := w.workflow("held", []map[string]any{jobNode("wait", wait)}, []map[string]any{},
			map[string]any{"scheduleType": "CRON", "scheduleExpression": "0 0 * * * ?", "enabled": false, "maxInstances": 2})
		b, err := backfill(c, "backfillWorkflow", wfID, map[string]any{"from": base, "to": base.Add(9 * time.Hour), "parallelism": 2})
		if err != nil {
			t.Fatal(err)
		}
		waitBackfill(t, c, b.ID, "two runs under way", func(v backfillView) bool { return v.Running == 2 && v.Made == 2 })
		var out struct{ StopBackfill backfillView }
		if err := c.Do(`mutation($id: ID!) { stopBackfill(id: $id) { `+backfillFields+` } }`, map[string]any{"id": b.ID}, &out); err != nil {
			t.Fatal(err)
		}
		if out.StopBackfill.Status != "STOPPED" {
			t.Fatalf("stopBackfill: %+v; want STOPPED", out.StopBackfill)
		}
		b = waitBackfill(t, c, b.ID, "its runs stopped", func(v backfillView) bool { return v.Running == 0 })
		if b.Made != 2 || b.Failed != 2 || b.Total != 10 {
			t.Errorf("after the stop: %+v; want 2 made, both ended not succeeded, of 10", b)
		}
		runs := backfillRuns(t, c, w.app, wfID)
		checkLogicalTimes(t, runs, b.ID, "STOPPED", hours(base, 2))
		err = c.Do(`mutation($id: ID!) { stopBackfill(id: $id) { id } }`, map[string]any{"id": b.ID}, nil)
		if errs, ok := errors.AsType[harness.Errors](err); !ok || errs.Code() != "CONFLICT" {
			t.Errorf("stopping it again: %v; want CONFLICT", err)
		}
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("bad input is refused naming the field, and nothing is made", func(t *testing.T) {
		w.t = t
		noop := w.shell("noop", "true")
		hourly := w.workflow("hourly-bad", []map[string]any{jobNode("n", noop)}, []map[string]any{},
			map[string]any{"scheduleType": "CRON", "scheduleExpression": "0 0 * * * ?", "enabled": false, "maxInstances": 2})
		onDemand := w.workflow("on-demand", []map[string]any{jobNode("n", noop)}, []map[string]any{})
		for _, tc := range []struct {
			name, id, field string
			in              map[string]any
		}{
			{"over the budget of runs", hourly, "input.to", map[string]any{"from": base.Add(-60 * 24 * time.Hour), "to": base}},
			{"in the future", hourly, "input.to", map[string]any{"from": base, "to": time.Now().Add(2 * time.Hour)}},
			{"backwards", hourly, "input.to", map[string]any{"from": base, "to": base.Add(-time.Hour)}},
			{"no fire time", hourly, "input.from", map[string]any{"from": base.Add(time.Minute), "to": base.Add(2 * time.Minute)}},
			{"parallelism over maxInstances", hourly, "input.parallelism", map[string]any{"from": base, "to": base.Add(time.Hour), "parallelism": 3}},
			{"parallelism 0", hourly, "input.parallelism", map[string]any{"from": base, "to": base.Add(time.Hour), "parallelism": 0}},
			{"not on a CRON schedule", onDemand, "id", map[string]any{"from": base, "to": base.Add(time.Hour)}},
			{"params for a workflow", hourly, "input.params", map[string]any{"from": base, "to": base.Add(time.Hour), "params": "{}"}},
		} {
			_, err := backfill(c, "backfillWorkflow", tc.id, tc.in)
			if errs, ok := errors.AsType[harness.Errors](err); !ok || errs.Code() != "BAD_INPUT" || errs[0].Field() != tc.field {
				t.Errorf("%s: %v; want BAD_INPUT on %s", tc.name, err, tc.field)
			}
		}
		var list struct{ Backfills []backfillView }
		if err := c.Do(`query($app: String!, $wf: ID) { backfills(app: $app, workflowId: $wf) { id } }`,
			map[string]any{"app": w.app, "wf": hourly}, &list); err != nil || len(list.Backfills) != 0 {
			t.Errorf("backfills after refusals: %+v, %v; want none", list.Backfills, err)
		}
	})
}

// TestBackfillSurvivesOwnerKill: kill -9 of the app's owner mid-backfill;
// the next owner carries on from where it was: every fire time of the
// range runs exactly once, and nothing runs twice.
func TestBackfillSurvivesOwnerKill(t *testing.T) {
	t.Parallel()
	f := newFleet(t, 2)
	f.addApp("fills", 0)
	owner := f.settled("fills", "")
	c := f.api()
	job, err := c.CreateJob(map[string]any{"app": "fills", "name": "hourly", "scheduleType": "CRON", "scheduleExpression": "0 0 * * * ?",
		"enabled": false, "maxInstances": 2, "processorType": "SHELL", "processor": "sleep 1; echo $JOBWHEEL_INSTANCE_PARAMS"})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().UTC().Truncate(time.Hour).Add(-24 * time.Hour)
	b, err := backfill(c, "backfillJob", job, map[string]any{"from": base, "to": base.Add(9 * time.Hour), "parallelism": 2})
	if err != nil {
		t.Fatal(err)
	}
	waitBackfill(t, c, b.ID, "some runs done and more to make", func(v backfillView) bool { return v.Done >= 2 && v.Made < v.Total })
	f.server(owner).Kill()
	heir := f.settled("fills", owner)
	t.Logf("fills: %s killed mid-backfill; %s owns it", owner, heir)
	c = f.api()
	b = waitBackfill(t, c, b.ID, "an end", func(v backfillView) bool { return v.Status != "RUNNING" })
	if b.Status != "SUCCEEDED" || b.Made != 10 || b.Succeeded != 10 {
		t.Fatalf("backfill at its end: %+v; want SUCCEEDED, 10 made and succeeded", b)
	}
	checkLogicalTimes(t, backfillInstances(t, c, "fills", job), b.ID, "SUCCEEDED", hours(base, 10))
	f.assertNothingRanTwice()
}
