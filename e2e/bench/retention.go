package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// beforePartitioning is the last migration before the history tables were
// partitioned: the schema whose retention deletes rows.
const beforePartitioning = "20261129405000"

// retention measures what retention costs the database for one finished
// instance of n tasks (and n/10 log lines): dropping its history
// generation on the partitioned schema, and deleting its rows (the
// instance, its tasks and lines by cascade) on the schema before. Each is
// timed by the wall clock and by the CPU its PostgreSQL backends used
// (/proc), after a VACUUM so neither pays for setting hint bits.
func (b *bench) retention(n int) map[string]any {
	ctx := context.Background()
	now := db.Now()
	old := now.Add(-10 * 24 * time.Hour)

	// After: the partitioned schema. The instance alone in its generation.
	after := dbtest.OpenURL(b, longReads(dbtest.NewDatabase(b)))
	if err := after.Migrate(ctx); err != nil {
		b.Fatalf("migrating: %v", err)
	}
	appID := b.retentionApp(after)
	b.setInstanceID(after, 100000)
	if _, err := after.HistoryGenerationEnsure(ctx, now, db.GenerationSizing{Span: time.Hour, MinWidth: 100000, MaxWidth: 100000}); err != nil {
		b.Fatalf("creating generations: %v", err)
	}
	inst := b.retentionInstance(after, appID, n, old)
	gens, err := after.HistoryGenerationList(ctx)
	if err != nil {
		b.Fatalf("%v", err)
	}
	var gen db.HistoryGeneration
	for _, g := range gens {
		if inst >= g.Lo && inst < g.Hi {
			gen = g
		}
	}
	b.setInstanceID(after, gen.Hi) // closed: no new instance goes there
	if _, err := after.HistoryGenerationEnsure(ctx, now, db.GenerationSizing{Span: time.Hour, MinWidth: 100000, MaxWidth: 100000}); err != nil {
		b.Fatalf("creating generations: %v", err)
	}
	b.vacuum(after)
	var dropped *db.HistoryDropped
	dropWall, dropCPU := b.timed(after, func() {
		if dropped, err = after.HistoryGenerationDrop(ctx, gen, db.Retention{Default: 7 * 24 * time.Hour, Now: now}); err != nil || dropped == nil {
			b.Fatalf("dropping generation %s: %v (dropped %v)", gen.Name, err, dropped != nil)
		}
	})

	// Before: the same instance on the schema before partitioning, its
	// rows deleted as retention did (and still does on SQLite, and for an
	// app's rows sharing a generation with another's kept ones).
	before := dbtest.OpenURL(b, longReads(dbtest.NewDatabase(b)))
	if err := before.MigrateTo(ctx, beforePartitioning); err != nil {
		b.Fatalf("migrating to %s: %v", beforePartitioning, err)
	}
	oldApp := b.retentionApp(before)
	b.retentionInstance(before, oldApp, n, old)
	b.vacuum(before)
	deleted := 0
	delWall, delCPU := b.timed(before, func() {
		for {
			k, err := before.InstanceDeleteFinishedBefore(ctx, oldApp, now.Add(-7*24*time.Hour), 1000)
			if err != nil {
				b.Fatalf("deleting rows: %v", err)
			}
			deleted += k
			if k < 1000 {
				return
			}
		}
	})
	if deleted != 1 {
		b.Fatalf("deleted %d instances; want 1", deleted)
	}
	// What the deleted rows leave: dead tuples and index entries a VACUUM
	// (autovacuum's, later) goes through. A dropped partition leaves none.
	vacWall, vacCPU := b.timed(before, func() { b.vacuum(before) })
	// The conversion itself, on that database refilled: the migration
	// attaches the table as the first generation (a scan) and builds its
	// new primary key.
	b.retentionInstance(before, oldApp, n, old)
	b.vacuum(before)
	convWall, convCPU := b.timed(before, func() {
		if err := before.Migrate(ctx); err != nil {
			b.Fatalf("converting: %v", err)
		}
	})
	return map[string]any{
		"conversion": map[string]any{"wallSec": round(convWall), "postgresBackendsCpuSec": round(convCPU)},
		"subtasks":   n, "logLines": n / 10, "tasks": dropped.Tasks, "generation": gen.Name,
		"partitionDrop":        map[string]any{"wallSec": round(dropWall), "postgresBackendsCpuSec": round(dropCPU)},
		"rowDelete":            map[string]any{"wallSec": round(delWall), "postgresBackendsCpuSec": round(delCPU)},
		"vacuumAfterRowDelete": map[string]any{"wallSec": round(vacWall), "postgresBackendsCpuSec": round(vacCPU)},
		// Per task removed: what retention costs per unit of work.
		"perJob": map[string]any{"perTask": map[string]any{"n": dropped.Tasks,
			"partitionDropPostgresCpuUs": perUnitUs(dropCPU, dropped.Tasks),
			"rowDeletePostgresCpuUs":     perUnitUs(delCPU+vacCPU, dropped.Tasks)}},
	}
}

// longReads lets a statement run longer than the driver's default read
// timeout (10 s): filling a million rows, a VACUUM, the row deletes.
func longReads(url string) string {
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + "read_timeout=30m"
}

// retentionApp inserts an app (by hand: the schema before partitioning
// has no retention_days) and returns its id.
func (b *bench) retentionApp(d *db.DB) int64 {
	var id int64
	if err := d.Bun().NewRaw(`INSERT INTO apps (name, description, secret_hash, workflow_budget, created_at, updated_at)
		VALUES ('retention', '', 'x', 1000, ?, ?) RETURNING id`, db.Now(), db.Now()).Scan(context.Background(), &id); err != nil {
		b.Fatalf("creating the app: %v", err)
	}
	return id
}

// retentionInstance inserts a finished instance with n tasks and n/10 log
// lines, in bulk, and returns its id.
func (b *bench) retentionInstance(d *db.DB, appID int64, n int, finished time.Time) int64 {
	ctx := context.Background()
	job := &db.Job{AppID: appID, Name: fmt.Sprintf("big-%d", time.Now().UnixNano()), Enabled: true, ScheduleType: db.ScheduleAPI, TimeZone: "UTC", ExecutionMode: "MAP",
		ProcessorType: "SHELL", Processor: "true", MaxInstances: 1, TaskConcurrency: 64, DispatchStrategy: "RANDOM", MisfirePolicy: "SKIP"}
	if err := d.JobCreate(ctx, job); err != nil {
		b.Fatalf("creating the job: %v", err)
	}
	in := &db.Instance{AppID: appID, JobID: job.ID, Status: db.StatusSucceeded, TriggerType: "API", TriggerAt: finished, FinishedAt: &finished}
	if err := d.InstanceCreate(ctx, in); err != nil {
		b.Fatalf("creating the instance: %v", err)
	}
	// Rows the size the tasks scenario leaves (about 100 bytes of payload
	// and of result each).
	if _, err := d.Bun().ExecContext(ctx, `INSERT INTO tasks (instance_id, name, kind, status, payload, result, instance_attempt, created_at, finished_at, updated_at)
		SELECT ?, 'map-' || g, 'MAP', 'SUCCEEDED', repeat('p', 100), repeat('r', 100), 1, ?, ?, ? FROM generate_series(1, ?) AS g`,
		in.ID, finished, finished, finished, n); err != nil {
		b.Fatalf("inserting %d tasks: %v", n, err)
	}
	if _, err := d.Bun().ExecContext(ctx, `INSERT INTO instance_logs (instance_id, seq, worker_id, worker_seq, time, level, text)
		SELECT ?, g, 'w', g, ?, 'INFO', repeat('l', 80) FROM generate_series(1, ?) AS g`, in.ID, finished, n/10); err != nil {
		b.Fatalf("inserting log lines: %v", err)
	}
	if _, err := d.Bun().ExecContext(ctx, `UPDATE instances SET log_seq = ? WHERE id = ?`, n/10, in.ID); err != nil {
		b.Fatalf("%v", err)
	}
	return in.ID
}

func (b *bench) setInstanceID(d *db.DB, next int64) {
	if _, err := d.Bun().ExecContext(context.Background(), "SELECT setval('instances_id_seq', ?, false)", next); err != nil {
		b.Fatalf("moving the instance ids on: %v", err)
	}
}

func (b *bench) vacuum(d *db.DB) {
	if _, err := d.Bun().ExecContext(context.Background(), "VACUUM (ANALYZE)"); err != nil {
		b.Fatalf("vacuuming: %v", err)
	}
}

// timed runs fn and returns its wall seconds and the CPU seconds the
// database's backends used meanwhile (a backend that started meanwhile
// counts whole).
func (b *bench) timed(d *db.DB, fn func()) (wall, cpu float64) {
	ctx := context.Background()
	read := func() map[int]float64 {
		st, err := d.DatabaseStatsRead(ctx)
		if err != nil {
			b.Fatalf("%v", err)
		}
		out := map[int]float64{}
		for _, be := range st.Backends {
			out[be.PID] = cpuSeconds(be.PID)
		}
		return out
	}
	before := read()
	start := time.Now()
	fn()
	wall = time.Since(start).Seconds()
	for pid, v := range read() {
		cpu += v - before[pid]
	}
	return wall, cpu
}

// perUnitUs is CPU seconds per unit, in microseconds (0 without units).
func perUnitUs[N int | int64](sec float64, n N) float64 {
	if n <= 0 {
		return 0
	}
	return round(sec * 1e6 / float64(n))
}
