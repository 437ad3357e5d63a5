package graph

import (
	"context"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestOnCallFigures: the dashboard's on-call figures read the app's own
// rows: its failures in the window latest first with their reasons, the
// lag percentiles of its finished scheduled instances (actual − expected,
// start − actual), its next fires, and its live workers' free slots.
func TestOnCallFigures(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		appID := api.createApp(t, admin, "orders")
		job := mustInt(t, api.createJob(t, admin, "orders", "nightly"))
		var cron struct{ CreateJob struct{ ID string } }
		api.must(t, admin, `mutation($in: JobInput!) { createJob(input: $in) { id } }`, map[string]any{"in": map[string]any{
			"app": "orders", "name": "hourly", "scheduleType": "CRON", "scheduleExpression": "0 0 * * * ?", "processorType": "SHELL", "processor": "true"}}, &cron)

		ctx := context.Background()
		now := db.Now()
		at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
		for i, c := range []struct {
			status, reason string
			late, start    time.Duration
			ago            time.Duration
		}{
			{db.StatusSucceeded, "", 10 * time.Millisecond, 100 * time.Millisecond, 3 * time.Minute},
			{db.StatusSucceeded, "", 20 * time.Millisecond, 200 * time.Millisecond, 2 * time.Minute},
			{db.StatusFailed, db.ReasonNoWorker, 30 * time.Millisecond, 0, time.Minute},
			{db.StatusFailed, db.ReasonTimeout, 40 * time.Millisecond, 400 * time.Millisecond, 30 * time.Second},
		} {
			exp := at(-c.ago - time.Second)
			act := exp.Add(c.late)
			in := &db.Instance{AppID: appID, JobID: job, Status: c.status, Reason: c.reason, Result: "result " + c.reason,
				TriggerType: "CRON", TriggerAt: *exp, ExpectedTriggerAt: exp, ActualTriggerAt: &act, FinishedAt: at(-c.ago)}
			if c.start > 0 {
				s := act.Add(c.start)
				in.StartedAt = &s
			}
			if err := d.InstanceCreate(ctx, in); err != nil {
				t.Fatal(i, err)
			}
		}
		// A worker with 4 slots whose last heartbeat listed one task.
		if err := d.WorkerUpsert(ctx, &db.Worker{AppID: appID, ID: "w1", ServerID: "s", Host: "h", Slots: 4,
			Tags: []string{}, Processors: []string{}, Metrics: db.WorkerMetrics{Running: 1}, ConnectedAt: now, LastHeartbeat: now}); err != nil {
			t.Fatal(err)
		}

		var out struct {
			AppStats struct {
				Capacity struct{ Workers, Slots, FreeSlots int }
				Lag      struct {
					Samples                      int
					TriggerLateness, FireToStart struct {
						Count         int
						P50, P99, Max *float64
					}
					Buckets []struct{ Start string }
				}
				LatestFailures []struct {
					ID, Reason, Result string
					Job                struct{ Name string }
				}
				NextFires []struct {
					Time string
					Job  struct{ ID string }
				}
			}
		}
		api.must(t, admin, `query { appStats(app: "orders") {
			capacity { workers slots freeSlots }
			lag { samples triggerLateness { count p50 p99 max } fireToStart { count p50 p99 max } buckets { start } }
			latestFailures(first: 5) { id reason result job { name } }
			nextFires(first: 5) { time job { id } } } }`, nil, &out)
		s := out.AppStats
		if s.Capacity.Workers != 1 || s.Capacity.Slots != 4 || s.Capacity.FreeSlots != 3 {
			t.Errorf("capacity %+v, want 1 worker, 3 of 4 slots free", s.Capacity)
		}
		if l := s.Lag.TriggerLateness; s.Lag.Samples != 4 || l.Count != 4 || *l.P50 != 20 || *l.P99 != 40 || *l.Max != 40 {
			t.Errorf("trigger lateness %+v (samples %d), want 4 fires, p50 20 ms, p99 and max 40 ms", l, s.Lag.Samples)
		}
		if f := s.Lag.FireToStart; f.Count != 3 || *f.P50 != 200 || *f.Max != 400 {
			t.Errorf("fire to start %+v, want 3, p50 200 ms, max 400 ms", f)
		}
		if len(s.Lag.Buckets) == 0 {
			t.Error("no hourly lag bucket")
		}
		if len(s.LatestFailures) != 2 || s.LatestFailures[0].Reason != db.ReasonTimeout || s.LatestFailures[1].Reason != db.ReasonNoWorker ||
			s.LatestFailures[0].Job.Name != "nightly" || s.LatestFailures[0].Result != "result TIMEOUT" {
			t.Errorf("latest failures %+v, want TIMEOUT then NO_WORKER of nightly", s.LatestFailures)
		}
		if len(s.NextFires) != 1 || s.NextFires[0].Job.ID != cron.CreateJob.ID {
			t.Errorf("next fires %+v, want the CRON job %s only", s.NextFires, cron.CreateJob.ID)
		}
	})
}
