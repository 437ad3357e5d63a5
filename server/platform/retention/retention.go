// Package retention keeps the database from growing without bound: every
// hour each server deletes, for the apps it owns, the instances that
// finished longer ago than the retention period, with their tasks,
// attempts and log lines; and it removes expired sessions and workers long
// gone. Deletes go in batches, so a large backlog never holds a long
// transaction or lock.
package retention

import (
	"context"
	"log/slog"
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
}

// Owner lists the apps this server owns (package lease).
type Owner interface {
	Owned() map[int64]int64
}

// Config configures the cleaner.
type Config struct {
	// Keep is how long finished instances are kept; 0 keeps them forever.
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
	if c.cfg.Keep <= 0 {
		return 0
	}
	total := 0
	for app := range c.owner.Owned() {
		for ctx.Err() == nil {
			n, err := c.store.InstanceDeleteFinishedBefore(ctx, app, now.Add(-c.cfg.Keep), batch)
			if err != nil {
				c.log.Warn("retention: deleting old instances", "app", app, "err", err)
				break
			}
			total += n
			if n < batch {
				break
			}
		}
		// An alarm history older than the instances it tells of goes too.
		for ctx.Err() == nil {
			n, err := c.store.AlarmHistoryDeleteBefore(ctx, app, now.Add(-c.cfg.Keep), batch)
			if err != nil {
				c.log.Warn("retention: deleting old alarm history", "app", app, "err", err)
			}
			if err != nil || n < batch {
				break
			}
		}
	}
	if total > 0 {
		c.log.Info("retention: deleted finished instances past retention", "instances", total, "keep", c.cfg.Keep)
	}
	return total
}
