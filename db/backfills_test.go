package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
)

// A backfill's runs are unique by (backfill, logical time): a second
// insert of the same fire time — a driver that died after its commit and
// a successor making the same pass again — makes nothing, for workflow
// runs and job instances alike, and the progress counts each run once.
func TestBackfillRunsUniqueByLogicalTime(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		wf := testfactory.Workflow(t, d, app.ID, nil)
		job := testfactory.Job(t, d, app.ID, nil)
		from := db.Stamp(time.Now().Add(-3 * time.Hour).Truncate(time.Hour))
		bw := &db.Backfill{AppID: app.ID, WorkflowID: &wf.ID, RangeFrom: from, RangeTo: from.Add(time.Hour), Parallelism: 2, Total: 2, Status: db.BackfillRunning}
		bj := &db.Backfill{AppID: app.ID, JobID: &job.ID, RangeFrom: from, RangeTo: from.Add(time.Hour), Parallelism: 2, Total: 2, Status: db.BackfillRunning}
		for _, b := range []*db.Backfill{bw, bj} {
			if err := d.BackfillCreate(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
		run := func(at time.Time) db.WorkflowInstance {
			return db.WorkflowInstance{AppID: app.ID, WorkflowID: wf.ID, Version: wf.Version, Status: db.WorkflowWaiting,
				TriggerType: db.TriggerBackfill, TriggerAt: db.Now(), Graph: wf.Graph, BackfillID: &bw.ID, LogicalTime: &at}
		}
		inst := func(at time.Time) db.Instance {
			return db.Instance{AppID: app.ID, JobID: job.ID, Status: db.StatusWaiting, TriggerType: db.TriggerBackfill,
				TriggerAt: db.Now(), BackfillID: &bj.ID, LogicalTime: &at}
		}
		for round, want := range []int{2, 0} {
			ids, err := d.BackfillCreateRuns(ctx, []db.WorkflowInstance{run(from), run(from.Add(time.Hour))})
			if err != nil || len(ids) != want {
				t.Fatalf("round %d: workflow runs made %v, %v; want %d", round, ids, err, want)
			}
			made, err := d.BackfillCreateInstances(ctx, []db.Instance{inst(from), inst(from.Add(time.Hour))})
			if err != nil || len(made) != want {
				t.Fatalf("round %d: job instances made %d, %v; want %d", round, len(made), err, want)
			}
		}
		p, err := d.BackfillProgressMany(ctx, []int64{bw.ID, bj.ID})
		if err != nil {
			t.Fatal(err)
		}
		if p[bw.ID].Running != 2 || p[bj.ID].Running != 2 {
			t.Errorf("progress %+v; want 2 runs under way each", p)
		}
		runs, instances, err := d.BackfillListActiveRuns(ctx, bw.ID)
		if err != nil || len(runs) != 2 || len(instances) != 0 {
			t.Errorf("active runs of the workflow backfill: %v, %v, %v; want 2 runs", runs, instances, err)
		}
	})
}
