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
	"sync/atomic"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// batch bounds the instances one statement deletes.
const batch = 1000

// Store is what retention needs from the database.
type Store interface {
	InstanceDeleteFinishedBefore(ctx context.Context, appID int64, before time.Time, limit int) (int, error)
	SessionDeleteExpired(ctx context.Context, now time.Time) (int64, error)
	WorkerDeleteOld(ctx context.Context, before time.Time) (int64, error)
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
}

// Cleaner deletes what is past retention.
type Cleaner struct {
	cfg   Config
	store Store
	owner Owner
	log   *slog.Logger
	now   func() time.Time
	done  chan struct{}
	ran   atomic.Bool
}

// New returns a Cleaner; Start runs it.
func New(cfg Config, store Store, owner Owner, log *slog.Logger) *Cleaner {
	if cfg.Every == 0 {
		cfg.Every = time.Hour
	}
	return &Cleaner{cfg: cfg, store: store, owner: owner, log: log, now: db.Now, done: make(chan struct{})}
}

// Start runs passes until ctx ends; the first a minute after start, when
// the server has settled. Stop waits for it.
func (c *Cleaner) Start(ctx context.Context) {
	c.ran.Store(true)
	go func() {
		defer close(c.done)
		t := time.NewTimer(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			c.Pass(ctx)
			t.Reset(c.cfg.Every)
		}
	}()
}

// Stop waits for the cleaner after its context ended (at once if it
// never started).
func (c *Cleaner) Stop() {
	if c.ran.Load() {
		<-c.done
	}
}

// Pass deletes what is past retention now and returns how many instances
// it deleted.
func (c *Cleaner) Pass(ctx context.Context) int {
	now := c.now()
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
	}
	if total > 0 {
		c.log.Info("retention: deleted finished instances past retention", "instances", total, "keep", c.cfg.Keep)
	}
	return total
}
