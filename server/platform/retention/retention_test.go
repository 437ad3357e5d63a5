package retention

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
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

// history builds a finished (or running, finished nil) instance of the job
// with tasks and log lines.
func history(t *testing.T, d *db.DB, job *db.Job, finished *time.Time) *db.Instance {
	t.Helper()
	ctx := context.Background()
	status := db.StatusSucceeded
	if finished == nil {
		status = db.StatusRunning
	}
	in := testfactory.Instance(t, d, job, &testfactory.InstanceOpts{Status: status, Edit: func(in *db.Instance) { in.FinishedAt = finished }})
	testfactory.Tasks(t, d, in, 3, db.StatusSucceeded, func(_ int, tk *db.Task) { tk.Kind, tk.Name = "MAP", "t" })
	if err := d.LogInsertMany(ctx, []db.InstanceLog{{InstanceID: in.ID, Seq: 1, WorkerID: "w", WorkerSeq: 1, Time: db.Now(), Level: "INFO", Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	return in
}

// gone fails unless the instance, its tasks and its log lines are gone;
// kept unless they are all there.
func gone(t *testing.T, d *db.DB, in *db.Instance, want bool) {
	t.Helper()
	ctx := context.Background()
	_, err := d.InstanceGet(ctx, in.ID)
	tasks, _, terr := d.TaskList(ctx, in.ID, 0, 10)
	lines, _, lerr := d.LogList(ctx, in.ID, 0, 10)
	if terr != nil || lerr != nil {
		t.Fatalf("reading instance %d's history: %v, %v", in.ID, terr, lerr)
	}
	if want && (err == nil || len(tasks) != 0 || len(lines) != 0) {
		t.Fatalf("instance %d: err %v, %d tasks, %d lines left; want all gone", in.ID, err, len(tasks), len(lines))
	}
	if !want && (err != nil || len(tasks) != 3 || len(lines) != 1) {
		t.Fatalf("instance %d: err %v, %d tasks, %d lines; want all kept", in.ID, err, len(tasks), len(lines))
	}
}

// nextGeneration moves the instance ids on to the next history generation
// (PostgreSQL), so the one the test filled takes no new instance.
func nextGeneration(t *testing.T, d *db.DB) {
	t.Helper()
	if d.Dialect() != db.Postgres {
		return
	}
	if _, err := d.Bun().ExecContext(context.Background(), "SELECT setval('instances_id_seq', 100000)"); err != nil {
		t.Fatal(err)
	}
}

func auditOf(t *testing.T, d *db.DB, action string) []db.AuditEntry {
	t.Helper()
	all, err := d.AuditList(context.Background(), db.AuditFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []db.AuditEntry
	for _, e := range all {
		if e.Action == action {
			out = append(out, e)
		}
	}
	return out
}

func change(e db.AuditEntry, field string) any {
	for _, c := range e.Changes {
		if c.Field == field {
			return c.After
		}
	}
	return nil
}

// A generation whose instances are all past retention is dropped whole on
// PostgreSQL, taking the instances' tasks and log lines with it, and the
// audit log says what went; the next generation's instance stays. SQLite
// deletes the same rows in batches.
func TestPassDropsAGenerationPastRetention(t *testing.T) {
	t.Parallel()
	dbtest.EachFresh(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := testfactory.App(t, d, nil)
		job := testfactory.Job(t, d, app.ID, nil)
		now := db.Now()
		old, recent := now.Add(-10*24*time.Hour), now.Add(-time.Hour)
		first := history(t, d, job, &old)
		second := history(t, d, job, &old)
		nextGeneration(t, d)
		kept := history(t, d, job, &recent)

		c := New(Config{Keep: 7 * 24 * time.Hour}, d, owns{app.ID: 1}, slog.New(slog.DiscardHandler))
		if n := c.Pass(ctx); n != 2 {
			t.Fatalf("deleted %d instances; want the two old ones", n)
		}
		gone(t, d, first, true)
		gone(t, d, second, true)
		gone(t, d, kept, false)
		apps := auditOf(t, d, "retention")
		if len(apps) != 1 || *apps[0].AppID != app.ID {
			t.Fatalf("audit entries for the app: %+v; want one", apps)
		}
		if d.Dialect() == db.SQLite {
			if n := change(apps[0], "instancesDeleted"); n != float64(2) {
				t.Fatalf("SQLite: the audit entry says %v instances deleted; want 2", n)
			}
			return
		}
		gens, err := d.HistoryGenerationList(ctx)
		if err != nil || len(gens) == 0 || gens[0].Name == "g0" {
			t.Fatalf("generations after the pass: %+v, %v; want g0 dropped", gens, err)
		}
		var exists bool
		if err := d.Bun().NewRaw("SELECT to_regclass('tasks_g0') IS NOT NULL OR to_regclass('instance_logs_g0') IS NOT NULL").Scan(ctx, &exists); err != nil || exists {
			t.Fatalf("a g0 partition is still there: %v, %v", exists, err)
		}
		drops := auditOf(t, d, "dropPartition")
		if len(drops) != 1 || drops[0].ObjectID != "g0" || change(drops[0], "tasks") != float64(6) || change(drops[0], "instances") != float64(2) {
			t.Fatalf("audit entries for dropped partitions: %+v; want g0 with 2 instances and 6 tasks", drops)
		}
		if n := change(apps[0], "instancesInDroppedPartitions"); n != float64(2) {
			t.Fatalf("the app's audit entry says %v instances in dropped partitions; want 2", n)
		}
	})
}

// An app's own retention decides for its instances: a generation holding
// an instance another app still keeps is not dropped, and an app with a
// shorter retention has its old instances deleted from it row by row.
func TestPassKeepsAGenerationAnotherAppStillKeeps(t *testing.T) {
	t.Parallel()
	dbtest.EachFresh(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		short, long := testfactory.App(t, d, nil), testfactory.App(t, d, nil)
		if err := d.AppSetRetentionDays(ctx, short.ID, new(1)); err != nil {
			t.Fatal(err)
		}
		if err := d.AppSetRetentionDays(ctx, long.ID, new(30)); err != nil {
			t.Fatal(err)
		}
		shortJob, longJob := testfactory.Job(t, d, short.ID, nil), testfactory.Job(t, d, long.ID, nil)
		now := db.Now()
		threeDays, tenDays := now.Add(-3*24*time.Hour), now.Add(-10*24*time.Hour)
		pastShort := history(t, d, shortJob, &threeDays) // past its app's day, within the server's week
		withinLong := history(t, d, longJob, &tenDays)   // past the server's week, within its app's 30 days
		nextGeneration(t, d)
		history(t, d, shortJob, nil)

		c := New(Config{Keep: 7 * 24 * time.Hour}, d, owns{short.ID: 1, long.ID: 1}, slog.New(slog.DiscardHandler))
		if n := c.Pass(ctx); n != 1 {
			t.Fatalf("deleted %d instances; want the short-retention app's one", n)
		}
		gone(t, d, pastShort, true)
		gone(t, d, withinLong, false)
		if drops := auditOf(t, d, "dropPartition"); len(drops) != 0 {
			t.Fatalf("dropped %+v; want nothing dropped while an app keeps a row in it", drops)
		}
		apps := auditOf(t, d, "retention")
		if len(apps) != 1 || *apps[0].AppID != short.ID || change(apps[0], "instancesDeleted") != float64(1) {
			t.Fatalf("audit entries: %+v; want one for the short-retention app, 1 deleted", apps)
		}
		if d.Dialect() == db.Postgres {
			if gens, _ := d.HistoryGenerationList(ctx); len(gens) == 0 || gens[0].Name != "g0" {
				t.Fatalf("generations %+v; want g0 kept", gens)
			}
		}
	})
}
