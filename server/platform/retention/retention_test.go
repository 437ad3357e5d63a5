package retention

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

type owns map[int64]int64

func (o owns) Owned() map[int64]int64 { return o }

func TestPassDeletesWhatIsPastRetention(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := &db.App{Name: "a", SecretHash: "x"}
		if err := d.AppCreate(ctx, app); err != nil {
			t.Fatal(err)
		}
		job := &db.Job{AppID: app.ID, Name: "j", Enabled: true, ScheduleType: "API", TimeZone: "UTC", ExecutionMode: "STANDALONE",
			ProcessorType: "SHELL", Processor: "true", MaxInstances: 1, TaskConcurrency: 1, DispatchStrategy: "RANDOM", MisfirePolicy: "SKIP"}
		if err := d.JobCreate(ctx, job); err != nil {
			t.Fatal(err)
		}
		now := db.Now()
		old, recent := now.Add(-10*24*time.Hour), now.Add(-time.Hour)
		mk := func(status string, finished *time.Time) *db.Instance {
			in := &db.Instance{AppID: app.ID, JobID: job.ID, Status: status, TriggerType: "API", TriggerAt: now, FinishedAt: finished}
			if err := d.InstanceCreate(ctx, in); err != nil {
				t.Fatal(err)
			}
			return in
		}
		gone := mk(db.StatusSucceeded, &old)
		keptRecent := mk(db.StatusFailed, &recent)
		keptRunning := mk(db.StatusRunning, nil)
		tasks := []db.Task{{InstanceID: gone.ID, Name: "ROOT", Kind: "ROOT", Status: db.StatusSucceeded, InstanceAttempt: 1}}
		if err := d.TaskCreateMany(ctx, tasks); err != nil {
			t.Fatal(err)
		}
		if err := d.LogInsertMany(ctx, []db.InstanceLog{{InstanceID: gone.ID, Seq: 1, WorkerID: "w", WorkerSeq: 1, Time: old, Level: "INFO", Text: "x"}}); err != nil {
			t.Fatal(err)
		}
		c := New(Config{Keep: 7 * 24 * time.Hour}, d, owns{app.ID: 1}, slog.New(slog.DiscardHandler))
		if n := c.Pass(ctx); n != 1 {
			t.Fatalf("deleted %d instances; want the one old finished one", n)
		}
		if _, err := d.InstanceGet(ctx, gone.ID); err == nil {
			t.Fatal("the old instance is still there")
		}
		if lines, _, _ := d.LogList(ctx, gone.ID, 0, 10); len(lines) != 0 {
			t.Fatal("its log lines are still there")
		}
		for _, in := range []*db.Instance{keptRecent, keptRunning} {
			if _, err := d.InstanceGet(ctx, in.ID); err != nil {
				t.Fatalf("instance %d (%s) was deleted: %v", in.ID, in.Status, err)
			}
		}
		// Keep 0: nothing is ever deleted.
		if n := New(Config{}, d, owns{app.ID: 1}, slog.New(slog.DiscardHandler)).Pass(ctx); n != 0 {
			t.Fatalf("keep forever deleted %d", n)
		}
	})
}
