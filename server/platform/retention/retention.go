// Package retention keeps the database from growing without bound: every
// hour each server deletes, for the apps it owns, the instances that
// finished longer ago than their app's retention (its retentionDays, else
// the server's -retention), with their tasks, attempts and log lines; and
// it removes expired sessions and workers long gone.
//
// On PostgreSQL a run's tasks and log lines live in partitions by instance
// id (db/partitions.go): a generation whose instances are all finished and
// past their apps' retention is dropped whole first, one statement however
// many tasks it holds, and then its instance rows are deleted. What is
// left (an app's old instances sharing a generation with another's kept
// ones, and everything on SQLite) goes by batched deletes, so a large
// backlog never holds a long transaction or lock. What a pass removed is
// in the audit log: one entry per dropped generation, and one per app.
package retention

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
)

// batch bounds the instances one statement deletes.
const batch = 1000

// Store is what retention needs from the database.
type Store interface {
	InstanceDeleteFinishedBefore(ctx context.Context, appID int64, before time.Time, limit int) (int, error)
	SessionDeleteExpired(ctx context.Context, now time.Time) (int64, error)
	WorkerDeleteOld(ctx context.Context, before time.Time) (int64, error)
	AlarmHistoryDeleteBefore(ctx context.Context, appID int64, before time.Time, limit int) (int, error)
	AppGet(ctx context.Context, id int64) (*db.App, error)
	HistoryGenerationList(ctx context.Context) ([]db.HistoryGeneration, error)
	HistoryGenerationDrop(ctx context.Context, g db.HistoryGeneration, r db.Retention) (*db.HistoryDropped, error)
	AuditCreate(ctx context.Context, e *db.AuditEntry) error
}

// Owner lists the apps this server owns (package lease).
type Owner interface {
	Owned() map[int64]int64
}

// Config configures the cleaner.
type Config struct {
	// Keep is how long finished instances are kept, unless their app says
	// otherwise (App.RetentionDays); 0 keeps them forever.
	Keep time.Duration
	// Every is the time between passes. Default 1h.
	Every time.Duration
	// FirstAfter is when the first pass runs after start, once the server
	// has settled. Default 1m.
	FirstAfter time.Duration
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Cleaner deletes what is past retention.
type Cleaner struct {
	cfg   Config
	store Store
	owner Owner
	log   *slog.Logger
	clock clock.Clock
	lifecycle.Base
}

// New returns a Cleaner; Start runs it.
func New(cfg Config, store Store, owner Owner, log *slog.Logger) *Cleaner {
	if cfg.Every == 0 {
		cfg.Every = time.Hour
	}
	if cfg.FirstAfter == 0 {
		cfg.FirstAfter = time.Minute
	}
	return &Cleaner{cfg: cfg, store: store, owner: owner, log: log, clock: clock.OrSystem(cfg.Clock)}
}

// Start runs a pass FirstAfter after start and then every Every, until
// Stop.
func (c *Cleaner) Start(ctx context.Context) error {
	ctx, ok, started, stopped := c.StartInit(ctx)
	if !ok {
		return nil
	}
	go func() {
		started()
		defer stopped()
		for wait := c.cfg.FirstAfter; clock.Sleep(c.clock, wait, ctx.Done()); wait = c.cfg.Every {
			c.Pass(ctx)
		}
	}()
	return nil
}

// Pass deletes what is past retention now and returns how many instances
// it deleted.
func (c *Cleaner) Pass(ctx context.Context) int {
	now := db.Stamp(c.clock.Now())
	if _, err := c.store.SessionDeleteExpired(ctx, now); err != nil {
		c.log.Warn("retention: deleting expired sessions", "err", err)
	}
	if _, err := c.store.WorkerDeleteOld(ctx, now.Add(-24*time.Hour)); err != nil {
		c.log.Warn("retention: deleting old workers", "err", err)
	}
	removed := map[int64]int64{} // instances per app
	total := c.dropGenerations(ctx, now, removed)
	for app := range c.owner.Owned() {
		a, err := c.store.AppGet(ctx, app)
		if err != nil {
			c.log.Warn("retention: reading an app's retention", "app", app, "err", err)
			continue
		}
		keep := a.Keep(c.cfg.Keep)
		if keep <= 0 {
			continue
		}
		before := now.Add(-keep)
		n := 0
		for ctx.Err() == nil {
			k, err := c.store.InstanceDeleteFinishedBefore(ctx, app, before, batch)
			if err != nil {
				c.log.Warn("retention: deleting old instances", "app", app, "err", err)
				break
			}
			n += k
			if k < batch {
				break
			}
		}
		total += n
		// An alarm history older than the instances it tells of goes too.
		for ctx.Err() == nil {
			n, err := c.store.AlarmHistoryDeleteBefore(ctx, app, before, batch)
			if err != nil {
				c.log.Warn("retention: deleting old alarm history", "app", app, "err", err)
			}
			if err != nil || n < batch {
				break
			}
		}
		dropped := removed[app]
		delete(removed, app)
		if n > 0 || dropped > 0 {
			c.audit(ctx, &db.AuditEntry{At: now, AppID: &app, App: a.Name, ObjectType: "app", ObjectID: strconv.FormatInt(app, 10),
				ObjectName: a.Name, Action: "retention", Changes: []db.AuditChange{
					{Field: "finishedBefore", After: before},
					{Field: "instancesDeleted", After: n},
					{Field: "instancesInDroppedPartitions", After: dropped},
				}})
		}
	}
	// Apps this server does not own had instances in a dropped generation
	// too: their entries are written here, by the server that dropped it.
	for app, dropped := range removed {
		name := ""
		if a, err := c.store.AppGet(ctx, app); err == nil {
			name = a.Name
		}
		c.audit(ctx, &db.AuditEntry{At: now, AppID: &app, App: name, ObjectType: "app", ObjectID: strconv.FormatInt(app, 10),
			ObjectName: name, Action: "retention", Changes: []db.AuditChange{
				{Field: "instancesDeleted", After: 0},
				{Field: "instancesInDroppedPartitions", After: dropped},
			}})
	}
	if total > 0 {
		c.log.Info("retention: deleted finished instances past retention", "instances", total, "keep", c.cfg.Keep)
	}
	return total
}

// dropGenerations drops the history generations whose instances are all
// past retention (PostgreSQL), counting the instances per app in removed.
func (c *Cleaner) dropGenerations(ctx context.Context, now time.Time, removed map[int64]int64) int {
	gens, err := c.store.HistoryGenerationList(ctx)
	if err != nil {
		c.log.Warn("retention: listing history partitions", "err", err)
		return 0
	}
	total := 0
	for _, g := range gens {
		if ctx.Err() != nil {
			break
		}
		start := c.clock.Now()
		d, err := c.store.HistoryGenerationDrop(ctx, g, db.Retention{Default: c.cfg.Keep, Now: now})
		if err != nil {
			c.log.Warn("retention: dropping a history partition", "generation", g.Name, "err", err)
		}
		if d == nil {
			continue
		}
		took := c.clock.Now().Sub(start)
		for app, n := range d.Apps {
			removed[app] += n
		}
		total += int(d.Instances)
		c.log.Info("retention: dropped a history generation past every app's retention", "generation", g.Name,
			"instances", d.Instances, "tasks", d.Tasks, "log_lines", d.LogLines, "took", took)
		c.audit(ctx, &db.AuditEntry{At: now, ObjectType: "partition", ObjectID: g.Name,
			ObjectName: fmt.Sprintf("tasks_%s, instance_logs_%s", g.Name, g.Name), Action: "dropPartition", Changes: []db.AuditChange{
				{Field: "instanceIds", After: fmt.Sprintf("[%d, %d)", max(g.Lo, 0), g.Hi)},
				{Field: "instances", After: d.Instances},
				{Field: "tasks", After: d.Tasks},
				{Field: "logLines", After: d.LogLines},
			}})
	}
	return total
}

func (c *Cleaner) audit(ctx context.Context, e *db.AuditEntry) {
	e.Actor, e.Outcome = "retention", "OK"
	if err := c.store.AuditCreate(ctx, e); err != nil {
		c.log.Warn("retention: recording what it removed in the audit log", "err", err)
	}
}
