// Package partitions creates the history partitions ahead: on PostgreSQL a
// run's tasks and log lines live in partitions by instance id
// ("generations", db/partitions.go), and an instance whose id no
// partition covers could not have tasks. Every server checks at start and
// then every minute that the generation after the one taking new
// instances exists, and creates it if not; the servers of a cluster
// serialize on an advisory lock, so each sees what another made. A
// generation is sized to hold about a day of instances at the rate the
// current one filled (at least 10,000 ids), so there is always at least a
// day's worth of ids ready beyond the current generation. Retention
// (package retention) drops generations past every app's retention. On
// SQLite there is nothing to do.
package partitions

import (
	"context"
	"log/slog"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
)

// Store is what the maintainer needs from the database.
type Store interface {
	HistoryGenerationEnsure(ctx context.Context, now time.Time, z db.GenerationSizing) ([]db.HistoryGeneration, error)
}

// Config configures the maintainer.
type Config struct {
	// Every is the time between checks. Default 1m.
	Every time.Duration
	// Sizing sizes new generations. Default: a day's instances, at least
	// 10,000 and at most 100,000,000 ids.
	Sizing db.GenerationSizing
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// DefaultSizing is the generation sizing servers use.
//
// Ahead: a million ids are always ready past the next one (100 s of
// 10,000 fires a second, more than the minute between checks), and ten
// minutes at the rate of the last 100,000 instances.
var DefaultSizing = db.GenerationSizing{Span: 24 * time.Hour, MinWidth: 10000, MaxWidth: 100_000_000,
	Ahead: 1_000_000, AheadFor: 10 * time.Minute, RecentIDs: 100_000}

// Maintainer creates history partitions ahead.
type Maintainer struct {
	lifecycle.Base
	cfg   Config
	store Store
	log   *slog.Logger
	clock clock.Clock
}

// New returns a Maintainer; Start runs it.
func New(cfg Config, store Store, log *slog.Logger) *Maintainer {
	if cfg.Every == 0 {
		cfg.Every = time.Minute
	}
	if cfg.Sizing == (db.GenerationSizing{}) {
		cfg.Sizing = DefaultSizing
	}
	return &Maintainer{cfg: cfg, store: store, log: log, clock: clock.OrSystem(cfg.Clock)}
}

// Start checks at once and then every Every, until Stop.
func (m *Maintainer) Start(ctx context.Context) error {
	ctx, ok, started, stopped := m.StartInit(ctx)
	if !ok {
		return nil
	}
	go func() {
		started()
		defer stopped()
		m.Check(ctx)
		for clock.Sleep(m.clock, m.cfg.Every, ctx.Done()) {
			m.Check(ctx)
		}
	}()
	return nil
}

// Check creates what is missing now and returns what it created.
func (m *Maintainer) Check(ctx context.Context) []db.HistoryGeneration {
	created, err := m.store.HistoryGenerationEnsure(ctx, db.Stamp(m.clock.Now()), m.cfg.Sizing)
	if err != nil {
		if ctx.Err() == nil {
			m.log.Warn("partitions: creating history partitions ahead failed; retrying at the next check", "err", err, "every", m.cfg.Every)
		}
		return nil
	}
	for _, g := range created {
		m.log.Info("partitions: created a history generation ahead", "generation", g.Name, "from", g.Lo, "to", g.Hi)
	}
	return created
}
