package jobs

import (
	"context"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// maxStatsHours is the widest window appStats counts.
const maxStatsHours = 168

// appCounts are an app's figures behind Stats: read for the widest window,
// each caller taking its window's hours.
type appCounts struct {
	jobs, enabled, waiting, running, workersAlive int
	outcomes                                      []db.OutcomeBucket // the last maxStatsHours hours
}

// countsFlight are the apps' counts being read. A caller that comes while
// its app's are being read waits for them rather than reading again: 100
// parallel requests of 9 appStats each read an app's thousands of
// instances 900 times at once, and another app's workflow ran 3 s late
// (the attacker probe, docs/security.md). Nothing is kept once read: a
// caller that comes after a read reads afresh. joined counts the waiters.
type countsFlight struct {
	mu     sync.Mutex
	byApp  map[int64]*countsCall
	joined int64
}

type countsCall struct {
	done   chan struct{}
	counts *appCounts
	err    error
}

// appCounts reads the app's counts, or waits for those being read. The
// caller has checked its access to the app.
func (s *Service) appCounts(ctx context.Context, appID int64) (*appCounts, error) {
	f := &s.counts
	f.mu.Lock()
	if c := f.byApp[appID]; c != nil {
		f.joined++
		f.mu.Unlock()
		select {
		case <-c.done:
			return c.counts, c.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c := &countsCall{done: make(chan struct{})}
	if f.byApp == nil {
		f.byApp = map[int64]*countsCall{}
	}
	f.byApp[appID] = c
	f.mu.Unlock()
	// Read for everyone waiting: the first caller leaving does not end it.
	c.counts, c.err = s.readCounts(context.WithoutCancel(ctx), appID)
	f.mu.Lock()
	delete(f.byApp, appID)
	f.mu.Unlock()
	close(c.done)
	return c.counts, c.err
}

func (s *Service) readCounts(ctx context.Context, appID int64) (*appCounts, error) {
	c := &appCounts{}
	var err error
	if c.jobs, c.enabled, err = s.db.JobCount(ctx, appID); err != nil {
		return nil, err
	}
	now, err := s.db.InstanceCountsNow(ctx, appID)
	if err != nil {
		return nil, err
	}
	c.waiting = now[db.StatusWaiting]
	c.running = now[db.StatusDispatched] + now[db.StatusRunning]
	if c.outcomes, err = s.outcomes(ctx, appID, s.now().Add(-maxStatsHours*time.Hour).Truncate(time.Hour)); err != nil {
		return nil, err
	}
	if c.workersAlive, err = s.db.WorkerCountAlive(ctx, appID, s.now().Add(-db.WorkerAliveWindow)); err != nil {
		return nil, err
	}
	return c, nil
}

// outcomes are the app's finished instances per hour since the hour
// `from`: the hours summed (db/rollups.go) read from their rows, the rest
// (the last hour or so) counted from the instances.
func (s *Service) outcomes(ctx context.Context, appID int64, from time.Time) ([]db.OutcomeBucket, error) {
	mark, err := s.db.InstanceRollupMark(ctx, appID)
	if err != nil {
		return nil, err
	}
	if !mark.After(from) {
		return s.db.InstanceOutcomes(ctx, appID, from)
	}
	hours, err := s.db.InstanceRollupList(ctx, appID, from, mark)
	if err != nil {
		return nil, err
	}
	rest, err := s.db.InstanceOutcomes(ctx, appID, mark)
	if err != nil {
		return nil, err
	}
	out := make([]db.OutcomeBucket, 0, len(hours)+len(rest))
	for _, h := range hours {
		out = append(out, db.OutcomeBucket{Start: time.Unix(h.Hour, 0).UTC(), Succeeded: h.Succeeded, Failed: h.Failed,
			Stopped: h.Stopped, Canceled: h.Canceled})
	}
	return append(out, rest...), nil
}
