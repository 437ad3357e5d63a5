package metrics

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/runtime/hub"
)

type noRegistries struct{}

func (noRegistries) Registry(int64) (*hub.Registry, bool) { return nil, false }

type nopListener struct{ gained, lost int }

func (l *nopListener) LeaseGained(context.Context, int64, int64) { l.gained++ }
func (l *nopListener) LeaseLost(int64)                           { l.lost++ }

// TestCollectorCountsOwnedAppsOnce: the collector counts the instances of
// an owned app that finished after it gained the lease, each once across
// passes, with their lateness, fire → start and NO_WORKER refusals, and
// the app's backlog; once the lease is lost the app's gauges go.
func TestCollectorCountsOwnedAppsOnce(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		start := db.Now()
		clk := clock.NewFake(start)
		m := New()
		c := NewCollector(CollectorConfig{Clock: clk, Settle: time.Second}, m, d, noRegistries{}, slog.New(slog.DiscardHandler))
		app := &db.App{Name: "orders", SecretHash: "x", CreatedAt: start, UpdatedAt: start}
		if err := d.AppCreate(ctx, app); err != nil {
			t.Fatal(err)
		}
		job := &db.Job{AppID: app.ID, Name: "j", ScheduleType: "API", ExecutionMode: "STANDALONE", ProcessorType: "SHELL",
			DispatchStrategy: "HEALTH_FIRST", MisfirePolicy: "FIRE_ONCE", TimeZone: "UTC", CreatedAt: start, UpdatedAt: start}
		if err := d.JobCreate(ctx, job); err != nil {
			t.Fatal(err)
		}
		finish := func(status, reason string, at time.Time, late, toStart time.Duration) {
			t.Helper()
			exp := at.Add(-time.Second)
			act := exp.Add(late)
			st := act.Add(toStart)
			in := &db.Instance{AppID: app.ID, JobID: job.ID, Status: status, Reason: reason, TriggerType: "CRON",
				TriggerAt: exp, ExpectedTriggerAt: &exp, ActualTriggerAt: &act, StartedAt: &st, FinishedAt: &at, Attempt: 1}
			if err := d.InstanceCreate(ctx, in); err != nil {
				t.Fatal(err)
			}
			if reason == db.ReasonNoWorker {
				if err := d.AttemptUpsertMany(ctx, []db.InstanceAttempt{{InstanceID: in.ID, Attempt: 1, Status: status, Reason: reason}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		finish(db.StatusSucceeded, "", start.Add(-time.Minute), 0, 0) // before the lease: the previous owner's
		listener := &nopListener{}
		c.Listener(listener).LeaseGained(ctx, app.ID, 1)
		finish(db.StatusSucceeded, "", start.Add(100*time.Millisecond), 5*time.Millisecond, 50*time.Millisecond)
		finish(db.StatusFailed, db.ReasonNoWorker, start.Add(200*time.Millisecond), 5*time.Millisecond, 0)
		waiting := &db.Instance{AppID: app.ID, JobID: job.ID, Status: db.StatusWaiting, TriggerType: "API", TriggerAt: start}
		if err := d.InstanceCreate(ctx, waiting); err != nil {
			t.Fatal(err)
		}
		clk.Advance(5 * time.Second)
		c.Collect(ctx)
		c.Collect(ctx) // a second pass counts nothing again
		if got := testutil.ToFloat64(m.finished.WithLabelValues("orders", db.StatusSucceeded, "")); got != 1 {
			t.Errorf("succeeded counted %v, want 1 (the one before the lease is not ours)", got)
		}
		if got := testutil.ToFloat64(m.finished.WithLabelValues("orders", db.StatusFailed, db.ReasonNoWorker)); got != 1 {
			t.Errorf("NO_WORKER failures counted %v, want 1", got)
		}
		if got := testutil.ToFloat64(m.refusals.WithLabelValues("orders", db.ReasonNoWorker)); got != 1 {
			t.Errorf("refusals counted %v, want 1", got)
		}
		if got := testutil.CollectAndCount(m.triggerLateness); got != 1 {
			t.Errorf("lateness series %d, want 1", got)
		}
		if got := testutil.ToFloat64(m.queueInstances.WithLabelValues("orders")); got != 1 {
			t.Errorf("waiting instances %v, want 1", got)
		}
		if listener.gained != 1 || testutil.ToFloat64(m.leaseAcquired) != 1 || testutil.ToFloat64(m.ownedApps) != 1 {
			t.Errorf("lease gain not passed on or counted")
		}
		c.Listener(listener).LeaseLost(app.ID)
		if got := testutil.CollectAndCount(m.queueInstances); got != 0 || listener.lost != 1 || testutil.ToFloat64(m.leaseLost) != 1 {
			t.Errorf("after the loss: %d backlog series, lost passed on %d times", got, listener.lost)
		}
	})
}
