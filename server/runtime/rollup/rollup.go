// Package rollup sums, for the apps this server owns, each hour of their
// finished instances once the hour is over (db.DB.InstanceRollUp), so that
// appStats reads a row per hour rather than every instance of its window
// (issue 25). It runs on the clock, off the path that finishes instances:
// a write per finished instance would cost every fire, a pass a minute
// costs one small transaction per app and hour.
package rollup

import (
	"context"
	"log/slog"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
)

// Store is what the pass needs from the database.
type Store interface {
	InstanceRollUp(ctx context.Context, appID int64, before time.Time, maxHours int) (int, error)
	InstanceRollupDeleteBefore(ctx context.Context, appID int64, before time.Time) (int, error)
	AppGet(ctx context.Context, id int64) (*db.App, error)
}

// Owner lists the apps this server owns (package lease).
type Owner interface {
	Owned() map[int64]int64
}

// Config configures the pass.
type Config struct {
	// Every is the time between passes. Default 1m.
	Every time.Duration
	// FirstAfter is when the first pass runs after start. Default 10s.
	FirstAfter time.Duration
	// Grace is how long after an hour ends it is summed: an instance's
	// finish is stamped before its transaction commits, and a server's
	// clock may be a little behind the owner's. Default 5m.
	Grace time.Duration
	// Keep is retention's (JOBWHEEL_RETENTION), unless the app has its own
	// (retentionDays): summed hours that ended longer ago go, as their
	// instances did. 0 keeps them.
	Keep time.Duration
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Service runs the pass on the clock.
type Service struct {
	cfg   Config
	store Store
	owner Owner
	log   *slog.Logger
	clock clock.Clock
	lifecycle.Base
}

// New returns a Service; Start runs it.
func New(cfg Config, store Store, owner Owner, log *slog.Logger) *Service {
	if cfg.Every == 0 {
		cfg.Every = time.Minute
	}
	if cfg.FirstAfter == 0 {
		cfg.FirstAfter = 10 * time.Second
	}
	if cfg.Grace == 0 {
		cfg.Grace = 5 * time.Minute
	}
	return &Service{cfg: cfg, store: store, owner: owner, log: log, clock: clock.OrSystem(cfg.Clock)}
}

// Start runs a pass FirstAfter after start and then every Every, until
// Stop.
func (s *Service) Start(ctx context.Context) error {
	ctx, ok, started, stopped := s.StartInit(ctx)
	if !ok {
		return nil
	}
	go func() {
		started()
		defer stopped()
		for wait := s.cfg.FirstAfter; clock.Sleep(s.clock, wait, ctx.Done()); wait = s.cfg.Every {
			s.Pass(ctx)
		}
	}()
	return nil
}

// Pass sums the owned apps' hours that are over, and returns how many.
func (s *Service) Pass(ctx context.Context) int {
	now := db.Stamp(s.clock.Now())
	total := 0
	for app := range s.owner.Owned() {
		if ctx.Err() != nil {
			break
		}
		n, err := s.store.InstanceRollUp(ctx, app, now.Add(-s.cfg.Grace), db.RollupMaxHours)
		total += n
		if err != nil {
			s.log.Warn("rollup: summing finished instances", "app", app, "err", err)
			continue
		}
		a, err := s.store.AppGet(ctx, app)
		if err != nil {
			s.log.Warn("rollup: reading an app's retention", "app", app, "err", err)
			continue
		}
		keep := a.Keep(s.cfg.Keep)
		if keep > 0 {
			if _, err := s.store.InstanceRollupDeleteBefore(ctx, app, now.Add(-keep)); err != nil {
				s.log.Warn("rollup: deleting hours past retention", "app", app, "err", err)
			}
		}
	}
	return total
}
