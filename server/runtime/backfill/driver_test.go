package backfill

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/lifecycle/startstoptest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
)

type made struct {
	runs      []int64
	instances []db.Instance
}

func (m *made) WorkflowRunsMade(ids []int64)            { m.runs = append(m.runs, ids...) }
func (m *made) InstancesMade(list []db.Instance)        { m.instances = append(m.instances, list...) }
func (m *made) WorkflowInstancesChanged(int64, []int64) {}
func (m *made) InstancesChanged(int64, []int64)         {}

// TestStepMakesRunsAsPlacesFree: a pass makes at most parallelism runs,
// each with its logical time in its parameters; another pass while they
// run makes none; as they end it carries on from the cursor — a new
// driver (the next owner) too — and once every fire time ran the backfill
// ends FAILED, since one run failed.
func TestStepMakesRunsAsPlacesFree(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := testfactory.App(t, d, nil)
		job := testfactory.Job(t, d, app.ID, nil)
		if _, ok, err := d.LeaseAcquire(ctx, app.ID, "s1", time.Minute, db.Now()); err != nil || !ok {
			t.Fatalf("lease: %v %v", ok, err)
		}
		l, _, _ := d.LeaseGet(ctx, app.ID, db.Now())
		from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		b := &db.Backfill{AppID: app.ID, JobID: &job.ID, RangeFrom: from, RangeTo: from.Add(2 * time.Hour), Parallelism: 2, Total: 3,
			Schedule: db.BackfillSchedule{Type: db.ScheduleCron, Expression: "0 0 * * * ?", TimeZone: "UTC"}, Params: `{"a":1}`, Status: db.BackfillRunning}
		if err := d.BackfillCreate(ctx, b); err != nil {
			t.Fatal(err)
		}
		m := &made{}
		newDriver := func() *Driver { return New(Config{}, d, m, m, slog.New(slog.DiscardHandler), app.ID, "s1", l.Epoch) }
		drv := newDriver()
		for range 2 {
			if err := drv.step(ctx, b.ID); err != nil {
				t.Fatal(err)
			}
		}
		if len(m.instances) != 2 {
			t.Fatalf("after two passes: %d instances made; want parallelism's 2", len(m.instances))
		}
		for i, in := range m.instances {
			at := from.Add(time.Duration(i) * time.Hour)
			want, _ := ParamsWith(`{"a":1}`, at)
			if !in.LogicalTime.Equal(at) || in.Params != want || in.TriggerType != db.TriggerBackfill {
				t.Errorf("instance %d: %v %q %s; want logical time %v, params %s, trigger BACKFILL", i, in.LogicalTime, in.Params, in.TriggerType, at, want)
			}
		}
		end := func(in db.Instance, status string) {
			if _, err := d.InstanceTransitionMany(ctx, []db.InstanceTransition{{ID: in.ID, From: db.StatusWaiting, To: status, FinishedAt: new(db.Now())}}); err != nil {
				t.Fatal(err)
			}
		}
		end(m.instances[0], db.StatusFailed)
		drv = newDriver() // the next owner's
		if err := drv.step(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		if len(m.instances) != 3 || !m.instances[2].LogicalTime.Equal(from.Add(2*time.Hour)) {
			t.Fatalf("after one ended: %d made; want the third fire time's", len(m.instances))
		}
		end(m.instances[1], db.StatusSucceeded)
		end(m.instances[2], db.StatusSucceeded)
		if err := drv.step(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		got, err := d.BackfillGet(ctx, b.ID)
		if err != nil || got.Status != db.BackfillFailed || got.Made != 3 || got.FinishedAt == nil {
			t.Fatalf("at the end: %+v, %v; want FAILED with 3 made", got, err)
		}
		if len(m.instances) != 3 {
			t.Errorf("%d instances made in all; want 3", len(m.instances))
		}
	})
}

func TestStartStop(t *testing.T) {
	d := dbtest.Open(t, db.SQLite)
	startstoptest.Stress(t, New(Config{}, d, &made{}, &made{}, slog.New(slog.DiscardHandler), 1, "s1", 1))
}
