package db_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
)

// sizing is a generation width of 10,000 ids whatever the rate.
var sizing = db.GenerationSizing{Span: time.Hour, MinWidth: 10000, MaxWidth: 10000}

// partitionOf names the partition holding an instance's tasks.
func partitionOf(t *testing.T, d *db.DB, table string, instanceID int64) string {
	t.Helper()
	var name string
	if err := d.Bun().NewRaw("SELECT tableoid::regclass::text FROM ? WHERE instance_id = ? LIMIT 1",
		bun.Ident(table), instanceID).Scan(context.Background(), &name); err != nil {
		t.Fatalf("finding the partition of instance %d's %s: %v", instanceID, table, err)
	}
	return name
}

// On PostgreSQL the history tables are partitioned, and the generation
// after the one taking new instances is always there: the migration makes
// one, and HistoryGenerationEnsure the next once instances reach it, from
// several servers at once without harm. On SQLite there is nothing to do.
func TestHistoryGenerationsAreCreatedAhead(t *testing.T) {
	t.Parallel()
	dbtest.EachFresh(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		gens, err := d.HistoryGenerationList(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d.Dialect() == db.SQLite {
			if created, err := d.HistoryGenerationEnsure(ctx, db.Now(), sizing); len(gens) != 0 || len(created) != 0 || err != nil {
				t.Fatalf("SQLite: generations %v, created %v, %v; want none", gens, created, err)
			}
			return
		}
		if len(gens) != 2 || gens[0].Name != "g0" || gens[1].Lo != 100000 || gens[1].Hi != 200000 {
			t.Fatalf("after migrating: generations %+v; want g0 and [100000, 200000)", gens)
		}
		// The next generation exists already: nothing to do.
		if created, err := d.HistoryGenerationEnsure(ctx, db.Now(), sizing); err != nil || len(created) != 0 {
			t.Fatalf("ensure with one generation ahead: created %v, %v", created, err)
		}
		// Instances reach the second generation: the third is made, by
		// whichever of several servers gets there first.
		if _, err := d.Bun().ExecContext(ctx, "SELECT setval('instances_id_seq', 100000)"); err != nil {
			t.Fatal(err)
		}
		app := newApp(t, d)
		job := testfactory.Job(t, d, app.ID, nil)
		in := testfactory.Instance(t, d, job, nil)
		testfactory.Tasks(t, d, in, 2, db.StatusWaiting, nil)
		if p := partitionOf(t, d, "tasks", in.ID); p != "tasks_g100000" {
			t.Fatalf("instance %d's tasks are in %s; want tasks_g100000", in.ID, p)
		}
		// A storage parameter set on the newest partitions is kept by the
		// next ones (a parent keeps none).
		if _, err := d.Bun().ExecContext(ctx, "ALTER TABLE tasks_g100000 SET (fillfactor = 80)"); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		made := make([][]db.HistoryGeneration, 3)
		errs := make([]error, 3)
		for i := range made {
			wg.Go(func() { made[i], errs[i] = d.HistoryGenerationEnsure(ctx, db.Now(), sizing) })
		}
		wg.Wait()
		n := 0
		for i := range made {
			if errs[i] != nil {
				t.Fatalf("concurrent ensure: %v", errs[i])
			}
			n += len(made[i])
		}
		gens, _ = d.HistoryGenerationList(ctx)
		if n != 1 || len(gens) != 3 || gens[2].Lo != 200000 || gens[2].Hi != 210000 {
			t.Fatalf("created %d generations, now %+v; want one more, [200000, 210000)", n, gens)
		}
		var exists bool
		if err := d.Bun().NewRaw("SELECT to_regclass('instance_logs_g200000') IS NOT NULL").Scan(ctx, &exists); err != nil || !exists {
			t.Fatalf("instance_logs_g200000 exists: %v, %v", exists, err)
		}
		var opts string
		if err := d.Bun().NewRaw("SELECT COALESCE(array_to_string(reloptions, ','), '') FROM pg_class WHERE oid = 'tasks_g200000'::regclass").Scan(ctx, &opts); err != nil || opts != "fillfactor=80" {
			t.Fatalf("tasks_g200000's storage parameters %q (%v); want those of tasks_g100000, fillfactor=80", opts, err)
		}
	})
}

// The migration turns a database filled by the schema before it into
// partitioned tables without losing a row: every instance, task, log line
// and workflow run is still there and read through the store; new
// instances' rows land in the next generation; and the down migration
// brings back plain tables with every row.
func TestPartitioningMigrationKeepsRows(t *testing.T) {
	t.Parallel()
	for _, dialect := range dbtest.Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			u := dbtest.NewSQLite(t)
			if dialect == db.Postgres {
				u = dbtest.NewSchema(t)
			}
			d := dbtest.OpenURL(t, u)
			if err := d.MigrateTo(ctx, "20261129405000"); err != nil {
				t.Fatal(err)
			}
			// Today's schema: apps has no retention_days yet, so the app goes in by hand.
			var appID int64
			if err := d.Bun().NewRaw(`INSERT INTO apps (name, description, secret_hash, workflow_budget, created_at, updated_at)
				VALUES ('old', '', 'x', 1000, ?, ?) RETURNING id`, db.Now(), db.Now()).Scan(ctx, &appID); err != nil {
				t.Fatal(err)
			}
			job := testfactory.Job(t, d, appID, nil)
			wf := testfactory.Workflow(t, d, appID, nil)
			run := &db.WorkflowInstance{AppID: appID, WorkflowID: wf.ID, Version: 1, Status: db.StatusRunning, TriggerType: "API",
				TriggerAt: db.Now(), Context: map[string]any{}, CreatedAt: db.Now(), UpdatedAt: db.Now()}
			if _, err := d.WorkflowInstanceCreate(ctx, run); err != nil {
				t.Fatal(err)
			}
			var ins []*db.Instance
			for i := range 3 {
				in := testfactory.Instance(t, d, job, &testfactory.InstanceOpts{Status: db.StatusRunning, Edit: func(in *db.Instance) {
					if i == 2 {
						in.WorkflowInstanceID, in.WorkflowNodeID = &run.ID, new("a")
					}
				}})
				testfactory.Tasks(t, d, in, 5, db.StatusWaiting, func(k int, tk *db.Task) { tk.Kind, tk.Name = "MAP", "t" })
				lines := []db.InstanceLog{}
				for k := range 4 {
					lines = append(lines, db.InstanceLog{InstanceID: in.ID, Seq: int64(k + 1), WorkerID: "w", WorkerSeq: int64(k + 1),
						Time: db.Now(), Level: "INFO", Text: "line"})
				}
				if err := d.LogInsertMany(ctx, lines); err != nil {
					t.Fatal(err)
				}
				ins = append(ins, in)
			}

			if err := d.Migrate(ctx); err != nil {
				t.Fatalf("migrating the filled database: %v", err)
			}
			check := func(when string) {
				t.Helper()
				for _, in := range ins {
					if _, err := d.InstanceGet(ctx, in.ID); err != nil {
						t.Fatalf("%s: instance %d: %v", when, in.ID, err)
					}
					tasks, _, err := d.TaskList(ctx, in.ID, 0, 100)
					if err != nil || len(tasks) != 5 {
						t.Fatalf("%s: instance %d has %d tasks (%v); want 5", when, in.ID, len(tasks), err)
					}
					got, err := d.TaskGetInApp(ctx, appID, in.ID, tasks[0].ID)
					if err != nil || got.ID != tasks[0].ID {
						t.Fatalf("%s: reading task %d: %v", when, tasks[0].ID, err)
					}
					lines, _, err := d.LogList(ctx, in.ID, 0, 100)
					if err != nil || len(lines) != 4 {
						t.Fatalf("%s: instance %d has %d log lines (%v); want 4", when, in.ID, len(lines), err)
					}
					counts, err := d.TaskCountsByInstance(ctx, []int64{in.ID})
					if err != nil || counts[in.ID].Total != 5 {
						t.Fatalf("%s: instance %d's task counts %+v, %v; want 5", when, in.ID, counts[in.ID], err)
					}
				}
				if _, err := d.WorkflowInstanceGet(ctx, run.ID); err != nil {
					t.Fatalf("%s: workflow run: %v", when, err)
				}
			}
			check("after migrating")
			// Moving tasks still works, and keeps their counts.
			tasks, _, _ := d.TaskList(ctx, ins[0].ID, 0, 100)
			if moved, err := d.TaskTransitionMany(ctx, []db.TaskTransition{{ID: tasks[0].ID, InstanceID: ins[0].ID,
				From: db.StatusWaiting, To: db.StatusSucceeded}}); err != nil || len(moved) != 1 {
				t.Fatalf("moving a task after migrating: %v, %v", moved, err)
			}
			if dialect == db.SQLite {
				return
			}
			if p := partitionOf(t, d, "tasks", ins[0].ID); p != "tasks_g0" {
				t.Fatalf("old tasks in %s; want tasks_g0", p)
			}
			// New instances past the old rows' generation go to the next one.
			if _, err := d.Bun().ExecContext(ctx, "SELECT setval('instances_id_seq', 100000)"); err != nil {
				t.Fatal(err)
			}
			fresh := testfactory.Instance(t, d, job, nil)
			testfactory.Tasks(t, d, fresh, 1, db.StatusWaiting, nil)
			if err := d.LogInsertMany(ctx, []db.InstanceLog{{InstanceID: fresh.ID, Seq: 1, WorkerID: "w", WorkerSeq: 1, Time: db.Now(), Level: "INFO", Text: "x"}}); err != nil {
				t.Fatal(err)
			}
			if p := partitionOf(t, d, "tasks", fresh.ID); p != "tasks_g100000" {
				t.Fatalf("a new instance's tasks in %s; want tasks_g100000", p)
			}
			if p := partitionOf(t, d, "instance_logs", fresh.ID); p != "instance_logs_g100000" {
				t.Fatalf("a new instance's log lines in %s; want instance_logs_g100000", p)
			}
			// Down: plain tables again, every row kept.
			if err := d.RollbackLast(ctx); err != nil {
				t.Fatalf("migrating down: %v", err)
			}
			var kind string
			if err := d.Bun().NewRaw("SELECT relkind::text FROM pg_class WHERE oid = 'tasks'::regclass").Scan(ctx, &kind); err != nil || kind != "r" {
				t.Fatalf("after migrating down tasks is relkind %q (%v); want a plain table", kind, err)
			}
			check("after migrating down")
			var n int
			if err := d.Bun().NewRaw("SELECT COUNT(*) FROM tasks").Scan(ctx, &n); err != nil || n != 16 {
				t.Fatalf("after migrating down %d tasks (%v); want 16", n, err)
			}
			if err := d.Migrate(ctx); err != nil {
				t.Fatalf("migrating up again: %v", err)
			}
			check("after migrating up again")
			if p := partitionOf(t, d, "tasks", fresh.ID); !strings.HasPrefix(p, "tasks_g") {
				t.Fatalf("after migrating up again, the new instance's tasks in %s", p)
			}
		})
	}
}

// A burst uses ids far faster than a generation's average: the ids past
// the next one are always covered up to Ahead, and up to what the recent
// rate uses in AheadFor, so new instances never wait for the next check
// to get a partition (an instance no partition covers cannot have tasks).
func TestHistoryGenerationsCoverABurstAhead(t *testing.T) {
	t.Parallel()
	// PostgreSQL only: SQLite's history tables are not partitioned
	// (TestHistoryGenerationsAreCreatedAhead checks it has none).
	d := dbtest.OpenFresh(t, db.Postgres)
	{
		ctx := context.Background()
		covered := func() int64 {
			t.Helper()
			gens, err := d.HistoryGenerationList(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return gens[len(gens)-1].Hi
		}
		z := sizing
		z.MinWidth, z.MaxWidth, z.Ahead = 50000, 50000, 250000
		if _, err := d.HistoryGenerationEnsure(ctx, db.Now(), z); err != nil {
			t.Fatal(err)
		}
		if hi := covered(); hi < 1+250000 {
			t.Fatalf("ids covered up to %d; want at least 250,001 (Ahead past the next id 1)", hi)
		}
		// 1,000 instances created within the last second: at that rate an
		// hour is 3,600,000 ids, all covered past the next id.
		app := newApp(t, d)
		job := testfactory.Job(t, d, app.ID, nil)
		var last *db.Instance
		for range 2 {
			last = testfactory.Instance(t, d, job, nil)
		}
		if _, err := d.Bun().ExecContext(ctx, "SELECT setval('instances_id_seq', ?)", last.ID+1000); err != nil {
			t.Fatal(err)
		}
		z.MinWidth, z.MaxWidth, z.AheadFor, z.RecentIDs = 10000, 100_000_000, time.Hour, 100000
		if _, err := d.HistoryGenerationEnsure(ctx, last.CreatedAt.Add(time.Second), z); err != nil {
			t.Fatal(err)
		}
		if hi, want := covered(), last.ID+1000+3_000_000; hi < want {
			t.Fatalf("ids covered up to %d after a burst; want past %d (an hour at ~1,000 a second)", hi, want)
		}
	}
}

// Covering what is ahead takes a few generations, not hundreds: a quiet
// server (generations of the minimum width) with a million ids to keep
// ready creates at most five.
func TestHistoryGenerationsAheadAreFew(t *testing.T) {
	t.Parallel()
	// PostgreSQL only: SQLite's history tables are not partitioned
	// (TestHistoryGenerationsAreCreatedAhead checks it has none).
	d := dbtest.OpenFresh(t, db.Postgres)
	{
		z := sizing
		z.MaxWidth, z.Ahead = 100_000_000, 1_000_000
		created, err := d.HistoryGenerationEnsure(context.Background(), db.Now(), z)
		if err != nil {
			t.Fatal(err)
		}
		if len(created) == 0 || len(created) > 5 || created[len(created)-1].Hi < 1_000_001 {
			t.Fatalf("created %+v; want at most five generations covering a million ids", created)
		}
	}
}
