package jobs

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// What the console's dashboard shows the on-call engineer beside an app's
// counts: its latest failures, its scheduling lag, its next fires and its
// workers' capacity. Each reads a Stats the caller was allowed to see.

// maxLagSamples bounds the finished instances the lag figures read: the
// latest ones of the window.
const maxLagSamples = 20000

// LatestFailures returns the app's instances that ended FAILED within the
// window, the latest first.
func (s *Service) LatestFailures(ctx context.Context, st *Stats, first int) ([]db.Instance, error) {
	if first < 1 || first > 100 {
		return nil, fault.BadInput("first", "must be between 1 and 100")
	}
	return s.db.InstanceListFailedRecent(ctx, st.AppID, st.Since, first)
}

// Lag is how late scheduled fires were (actual minus expected trigger
// time) and how long fired instances took to start on a worker, over a
// window: the figures /metrics exports as jobwheel_trigger_lateness_seconds
// and jobwheel_fire_to_start_seconds, taken from the same columns.
type Lag struct {
	// Samples are the finished instances read (at most maxLagSamples, the
	// latest); Lateness and FireToStart summarize those that have the
	// times they need.
	Samples     int
	Lateness    Summary
	FireToStart Summary
	// Buckets are per hour of the window, oldest first; hours with nothing
	// finished are left out.
	Buckets []LagBucket
}

// Summary is a distribution's percentiles, in milliseconds; nil when it
// has no sample.
type Summary struct {
	Count         int
	P50, P99, Max *float64
}

// LagBucket is one hour's lag.
type LagBucket struct {
	Start       time.Time
	Lateness    Summary
	FireToStart Summary
}

// lagFresh is how long a computed lag is served again for the same app
// and window: the dashboard polls it, and every viewer of an app (or every
// alias of a request) asking within that time costs one read of up to
// maxLagSamples rows, not one each.
const lagFresh = 10 * time.Second

// maxLagMemo bounds the apps and windows remembered; past it the memo
// starts afresh.
const maxLagMemo = 1024

type lagKey struct {
	app   int64
	hours int
}

type lagMemo struct {
	mu   sync.Mutex
	byID map[lagKey]lagEntry
	// flight are the lags being computed: a caller that misses the memo
	// while one is waits for it rather than reading again (100 parallel
	// dashboard requests each missed it and read 20,000 instances at
	// once, taking the database connections another app's schedule
	// needed: the attacker probe, docs/security.md). joined counts them.
	flight map[lagKey]*lagCall
	joined int64
}

type lagCall struct {
	done chan struct{}
	lag  *Lag
	err  error
}

type lagEntry struct {
	at  time.Time
	lag *Lag
}

// Lag computes the app's lag over the window, or returns the one computed
// for the same app and window less than lagFresh ago, or the one being
// computed.
func (s *Service) Lag(ctx context.Context, st *Stats) (*Lag, error) {
	key, now := lagKey{st.AppID, st.Hours}, s.clock.Now()
	s.lags.mu.Lock()
	e, ok := s.lags.byID[key]
	if ok && now.Sub(e.at) < lagFresh && now.Sub(e.at) >= 0 {
		s.lags.mu.Unlock()
		return e.lag, nil
	}
	if c := s.lags.flight[key]; c != nil {
		s.lags.joined++
		s.lags.mu.Unlock()
		select {
		case <-c.done:
			return c.lag, c.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c := &lagCall{done: make(chan struct{})}
	if s.lags.flight == nil {
		s.lags.flight = map[lagKey]*lagCall{}
	}
	s.lags.flight[key] = c
	s.lags.mu.Unlock()
	// Computed for everyone waiting: the first caller leaving does not
	// end it.
	c.lag, c.err = s.lag(context.WithoutCancel(ctx), st)
	s.lags.mu.Lock()
	delete(s.lags.flight, key)
	if c.err == nil {
		if s.lags.byID == nil || len(s.lags.byID) >= maxLagMemo {
			s.lags.byID = map[lagKey]lagEntry{}
		}
		s.lags.byID[key] = lagEntry{at: now, lag: c.lag}
	}
	s.lags.mu.Unlock()
	close(c.done)
	return c.lag, c.err
}

// lag reads the window's finished instances, except the whole hours summed
// by the roll-up pass (db/rollups.go), whose rows it reads instead: the
// instances of the first, partial, hour and those after the mark (the last
// hour or so). Each part is read the latest first, at most maxLagSamples
// instances; without summed hours that is the window's latest
// maxLagSamples, as before the roll-ups.
func (s *Service) lag(ctx context.Context, st *Stats) (*Lag, error) {
	first := st.Since.Truncate(time.Hour) // the first whole hour
	if first.Before(st.Since) {
		first = first.Add(time.Hour)
	}
	mark, err := s.db.InstanceRollupMark(ctx, st.AppID)
	if err != nil {
		return nil, err
	}
	var (
		rows   []db.FinishedInstance
		summed []db.InstanceRollup
	)
	if !mark.After(first) {
		if rows, err = s.db.InstanceTimings(ctx, st.AppID, st.Since, maxLagSamples); err != nil {
			return nil, err
		}
	} else {
		if rows, err = s.db.InstanceTimings(ctx, st.AppID, mark, maxLagSamples); err != nil {
			return nil, err
		}
		if summed, err = s.db.InstanceRollupList(ctx, st.AppID, first, mark); err != nil {
			return nil, err
		}
		early, err := s.db.InstanceTimingsBetween(ctx, st.AppID, st.Since, first, maxLagSamples)
		if err != nil {
			return nil, err
		}
		rows = append(rows, early...)
	}
	all := &db.InstanceRollup{Lateness: db.Histogram{}, FireToStart: db.Histogram{}}
	hours := map[time.Time]*db.InstanceRollup{}
	for _, r := range rows {
		h := r.FinishedAt.UTC().Truncate(time.Hour)
		b := hours[h]
		if b == nil {
			b = &db.InstanceRollup{}
			hours[h] = b
		}
		b.Add(r)
		all.Add(r)
	}
	for i := range summed {
		r := &summed[i]
		hours[time.Unix(r.Hour, 0).UTC()] = r
		all.Finished += r.Finished
		all.Lateness.Merge(r.Lateness)
		all.FireToStart.Merge(r.FireToStart)
	}
	lag := &Lag{Samples: all.Finished, Lateness: summarize(all.Lateness), FireToStart: summarize(all.FireToStart)}
	for h, b := range hours {
		lag.Buckets = append(lag.Buckets, LagBucket{Start: h, Lateness: summarize(b.Lateness), FireToStart: summarize(b.FireToStart)})
	}
	slices.SortFunc(lag.Buckets, func(a, b LagBucket) int { return a.Start.Compare(b.Start) })
	return lag, nil
}

// summarize takes nearest-rank percentiles of the milliseconds h counts.
func summarize(h db.Histogram) Summary {
	n := h.Count()
	if n == 0 {
		return Summary{}
	}
	values := h.Values()
	rank := func(p float64) *float64 {
		i := int(p*float64(n)+0.999999) - 1
		x := float64(h.Rank(values, min(max(i, 0), n-1)))
		return &x
	}
	mx := float64(values[len(values)-1])
	return Summary{Count: n, P50: rank(0.5), P99: rank(0.99), Max: &mx}
}

// NextFire is a job and when it fires next.
type NextFire struct {
	Job  *db.Job
	Time time.Time
}

// NextFires returns the app's enabled jobs that fire soonest.
func (s *Service) NextFires(ctx context.Context, st *Stats, first int) ([]NextFire, error) {
	if first < 1 || first > 100 {
		return nil, fault.BadInput("first", "must be between 1 and 100")
	}
	list, err := s.db.JobListNextFires(ctx, st.AppID, first)
	if err != nil {
		return nil, err
	}
	out := make([]NextFire, 0, len(list))
	for i := range list {
		if list[i].NextTriggerAt != nil {
			out = append(out, NextFire{Job: &list[i], Time: *list[i].NextTriggerAt})
		}
	}
	return out, nil
}

// Capacity is the app's connected workers and their task slots.
type Capacity struct {
	Workers, Slots, FreeSlots int
}

// Capacity counts the app's live workers' slots and those not running a
// task: slots minus the tasks each held at its last recorded heartbeat.
func (s *Service) Capacity(ctx context.Context, st *Stats) (*Capacity, error) {
	workers, err := s.db.WorkerListAlive(ctx, st.AppID, s.now().Add(-db.WorkerAliveWindow))
	if err != nil {
		return nil, err
	}
	c := &Capacity{Workers: len(workers)}
	for _, w := range workers {
		c.Slots += w.Slots
		c.FreeSlots += max(0, w.Slots-w.Metrics.Running)
	}
	return c, nil
}
