package rollup

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/clock"
)

type owns map[int64]int64

func (o owns) Owned() map[int64]int64 { return o }

// A pass sums the owned apps' hours that ended more than Grace ago, not
// the others' nor the hour under way, and deletes summed hours past
// retention.
func TestPassSumsOwnedAppsHoursThatAreOver(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		now := time.Date(2030, 6, 1, 12, 3, 0, 0, time.UTC)
		var apps []*db.App
		for _, name := range []string{"owned", "other"} {
			app := &db.App{Name: name, SecretHash: "x"}
			if err := d.AppCreate(ctx, app); err != nil {
				t.Fatal(err)
			}
			job := &db.Job{AppID: app.ID, Name: "j", Enabled: true, ScheduleType: "API", TimeZone: "UTC", ExecutionMode: "STANDALONE",
				ProcessorType: "SHELL", Processor: "true", MaxInstances: 1, TaskConcurrency: 1, DispatchStrategy: "RANDOM", MisfirePolicy: "SKIP"}
			if err := d.JobCreate(ctx, job); err != nil {
				t.Fatal(err)
			}
			// 10:30 and 11:59 (ended hours) and 12:01 (the hour under way).
			for _, at := range []time.Time{now.Add(-93 * time.Minute), now.Add(-4 * time.Minute), now.Add(-2 * time.Minute)} {
				in := &db.Instance{AppID: app.ID, JobID: job.ID, Status: db.StatusSucceeded, TriggerType: "API", TriggerAt: at, FinishedAt: &at}
				if err := d.InstanceCreate(ctx, in); err != nil {
					t.Fatal(err)
				}
			}
			apps = append(apps, app)
		}
		clk := clock.NewFake(now)
		s := New(Config{Clock: clk, Keep: time.Hour}, d, owns{apps[0].ID: 1}, slog.New(slog.DiscardHandler))
		// 12:03 less 5 minutes of grace: 10:00 is summed, 11:00 not yet.
		if n := s.Pass(ctx); n != 1 {
			t.Fatalf("summed %d hours; want 10:00 only", n)
		}
		clk.Advance(3 * time.Minute) // 12:06: 11:00 is over by 5 minutes
		if n := s.Pass(ctx); n != 1 {
			t.Fatalf("summed %d hours; want 11:00", n)
		}
		hours, err := d.InstanceRollupList(ctx, apps[0].ID, now.Add(-24*time.Hour), now.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		// 10:00 ended before 12:06 less an hour of retention: gone.
		if len(hours) != 1 || time.Unix(hours[0].Hour, 0).UTC().Hour() != 11 || hours[0].Succeeded != 1 {
			t.Fatalf("the owned app's hours: %+v; want 11:00 with one instance", hours)
		}
		if mark, err := d.InstanceRollupMark(ctx, apps[1].ID); err != nil || !mark.IsZero() {
			t.Fatalf("the app owned elsewhere was summed up to %v (%v)", mark, err)
		}
	})
}
