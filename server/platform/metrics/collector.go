package metrics

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/server/runtime/hub"
)

// CollectorConfig configures a Collector.
type CollectorConfig struct {
	// Interval is the time between passes. Default 5s.
	Interval time.Duration
	// Settle is how far behind now a pass reads finished instances: a
	// batch committed a little after the finish time it stamped is still
	// seen, by the next pass. Default 2s.
	Settle time.Duration
	// Clock defaults to the system clock.
	Clock clock.Clock
}

func (c *CollectorConfig) defaults() {
	if c.Interval <= 0 {
		c.Interval = 5 * time.Second
	}
	if c.Settle <= 0 {
		c.Settle = 2 * time.Second
	}
	c.Clock = clock.OrSystem(c.Clock)
}

// Store is what the collector reads.
type Store interface {
	AppGet(ctx context.Context, id int64) (*db.App, error)
	InstanceListFinishedBetween(ctx context.Context, appID int64, from, to time.Time, limit int) ([]db.FinishedInstance, error)
	AttemptReasonCounts(ctx context.Context, instanceIDs []int64, reasons []string) (map[string]int, error)
	AppQueueDepth(ctx context.Context, appID int64) (db.QueueDepth, error)
}

// Registries gives the worker registry of an app this server owns
// (owned.Apps).
type Registries interface {
	Registry(appID int64) (*hub.Registry, bool)
}

// LeaseListener is what the lease manager tells of its leases
// (lease.Listener).
type LeaseListener interface {
	LeaseGained(ctx context.Context, appID, epoch int64)
	LeaseLost(appID int64)
}

// pageSize bounds the finished instances read in one query.
const pageSize = 5000

// refusalReasons are the attempt reasons counted as dispatch refusals.
var refusalReasons = []string{db.ReasonNoWorker, db.ReasonRejected}

// Collector turns what the database says about the apps this server owns
// into series, every Interval: finished instances since the last pass
// (outcomes, lateness, fire → start, refusals), the backlog and the
// workers' slots. It learns which apps are owned by standing between the
// lease manager and its listener (Listener).
type Collector struct {
	lifecycle.Base
	cfg   CollectorConfig
	m     *Metrics
	store Store
	regs  Registries
	log   *slog.Logger

	mu   sync.Mutex
	apps map[int64]*appState
}

type appState struct {
	name   string
	cursor time.Time // finished instances up to here were counted
}

// NewCollector returns a collector; Start runs it.
func NewCollector(cfg CollectorConfig, m *Metrics, store Store, regs Registries, log *slog.Logger) *Collector {
	cfg.defaults()
	return &Collector{cfg: cfg, m: m, store: store, regs: regs, log: log, apps: map[int64]*appState{}}
}

// Listener returns the lease listener to give the lease manager: it counts
// acquisitions and losses, notes the owned apps, and tells next.
func (c *Collector) Listener(next LeaseListener) LeaseListener { return leaseWatch{c, next} }

type leaseWatch struct {
	c    *Collector
	next LeaseListener
}

func (w leaseWatch) LeaseGained(ctx context.Context, appID, epoch int64) {
	w.c.gained(appID)
	w.next.LeaseGained(ctx, appID, epoch)
}

func (w leaseWatch) LeaseLost(appID int64) {
	w.next.LeaseLost(appID)
	w.c.lost(appID)
}

func (c *Collector) gained(appID int64) {
	c.m.leaseAcquired.Inc()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.apps[appID]; !ok {
		// Count from now on: what finished before was the previous
		// owner's to count.
		c.apps[appID] = &appState{cursor: c.upTo()}
	}
	c.m.ownedApps.Set(float64(len(c.apps)))
}

func (c *Collector) lost(appID int64) {
	c.m.leaseLost.Inc()
	c.mu.Lock()
	st := c.apps[appID]
	delete(c.apps, appID)
	c.m.ownedApps.Set(float64(len(c.apps)))
	c.mu.Unlock()
	if st != nil && st.name != "" {
		// The new owner reports the app's gauges now.
		for _, g := range []interface{ DeleteLabelValues(...string) bool }{
			c.m.queueInstances, c.m.queueTasks, c.m.workers, c.m.slotsTotal, c.m.slotsFree} {
			g.DeleteLabelValues(st.name)
		}
	}
}

func (c *Collector) upTo() time.Time { return db.Stamp(c.cfg.Clock.Now().Add(-c.cfg.Settle)) }

// Start runs a pass every Interval until Stop.
func (c *Collector) Start(ctx context.Context) error {
	ctx, ok, started, stopped := c.StartInit(ctx)
	if !ok {
		return nil
	}
	go func() {
		started()
		defer stopped()
		for clock.Sleep(c.cfg.Clock, c.cfg.Interval, ctx.Done()) {
			c.Collect(ctx)
		}
	}()
	return nil
}

// Collect runs one pass now (tests call it to see the figures at once).
func (c *Collector) Collect(ctx context.Context) {
	c.mu.Lock()
	ids := make([]int64, 0, len(c.apps))
	for id := range c.apps {
		ids = append(ids, id)
	}
	c.mu.Unlock()
	for _, id := range ids {
		if ctx.Err() != nil {
			return
		}
		if err := c.collectApp(ctx, id); err != nil {
			c.m.collectErrors.Inc()
			c.log.Warn("metrics: reading an app's figures failed; they are missing until the next pass", "app", id, "err", err)
		}
	}
}

func (c *Collector) collectApp(ctx context.Context, appID int64) error {
	c.mu.Lock()
	st := c.apps[appID]
	var name string
	var from time.Time
	if st != nil {
		name, from = st.name, st.cursor
	}
	c.mu.Unlock()
	if st == nil {
		return nil // lost meanwhile
	}
	if name == "" {
		app, err := c.store.AppGet(ctx, appID)
		if err != nil {
			return err
		}
		name = app.Name
	}
	to := c.upTo()
	cursor, err := c.finished(ctx, appID, name, from, to)
	c.mu.Lock()
	if cur := c.apps[appID]; cur == st {
		st.name, st.cursor = name, cursor
	}
	c.mu.Unlock()
	if err != nil {
		return err
	}

	q, err := c.store.AppQueueDepth(ctx, appID)
	if err != nil {
		return err
	}
	var workers []hub.WorkerInfo
	if reg, ok := c.regs.Registry(appID); ok {
		workers = reg.Workers()
	}
	total, free := 0, 0
	for _, w := range workers {
		total += w.Slots
		free += max(0, w.Slots-w.Busy)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.apps[appID] != st {
		return nil // lost meanwhile: its gauges were removed
	}
	c.m.queueInstances.WithLabelValues(name).Set(float64(q.Instances))
	c.m.queueTasks.WithLabelValues(name).Set(float64(q.Tasks))
	c.m.workers.WithLabelValues(name).Set(float64(len(workers)))
	c.m.slotsTotal.WithLabelValues(name).Set(float64(total))
	c.m.slotsFree.WithLabelValues(name).Set(float64(free))
	return nil
}

// finished observes the app's instances that finished in (from, to] and
// returns how far it got.
func (c *Collector) finished(ctx context.Context, appID int64, name string, from, to time.Time) (time.Time, error) {
	late := c.m.triggerLateness.WithLabelValues(name)
	start := c.m.fireToStart.WithLabelValues(name)
	for {
		rows, err := c.store.InstanceListFinishedBetween(ctx, appID, from, to, pageSize)
		if err != nil {
			return from, err
		}
		full := len(rows) == pageSize
		if full && rows[0].FinishedAt.Before(rows[len(rows)-1].FinishedAt) {
			// The rows of the last millisecond may continue on the next
			// page: read them again there.
			last := rows[len(rows)-1].FinishedAt
			for len(rows) > 0 && rows[len(rows)-1].FinishedAt.Equal(last) {
				rows = rows[:len(rows)-1]
			}
		}
		ids := make([]int64, 0, len(rows))
		for _, r := range rows {
			ids = append(ids, r.ID)
			c.m.finished.WithLabelValues(name, r.Status, r.Reason).Inc()
			if r.ExpectedTriggerAt != nil && r.ActualTriggerAt != nil {
				late.Observe(max(0, r.ActualTriggerAt.Sub(*r.ExpectedTriggerAt).Seconds()))
			}
			if r.ActualTriggerAt != nil && r.StartedAt != nil {
				start.Observe(max(0, r.StartedAt.Sub(*r.ActualTriggerAt).Seconds()))
			}
		}
		refused, err := c.store.AttemptReasonCounts(ctx, ids, refusalReasons)
		if err != nil {
			return from, err
		}
		for reason, n := range refused {
			c.m.refusals.WithLabelValues(name, reason).Add(float64(n))
		}
		if len(rows) > 0 {
			from = rows[len(rows)-1].FinishedAt
		}
		if !full {
			return to, nil
		}
	}
}
