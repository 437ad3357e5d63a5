package live

import (
	"context"
	"errors"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// logBuffer is how many lines wait between a log subscriber and its client.
const logBuffer = 64

// InstanceLogs streams an instance's log lines with seq > afterSeq, in seq
// order, each once: first those stored, then new ones as they are stored.
// It ends (completes) once the instance has finished and every line stored
// by then was sent. The caller needs VIEWER on the instance's app.
func (h *Feeds) InstanceLogs(ctx context.Context, instanceID, afterSeq int64) (*Stream[*db.InstanceLog], error) {
	if afterSeq < 0 {
		return nil, fault.BadInput("afterSeq", "must not be negative")
	}
	in, err := h.db.InstanceGet(ctx, instanceID)
	if errors.Is(err, db.ErrNotFound) {
		return nil, fault.NotFound(instanceName(instanceID))
	}
	if err != nil {
		return nil, err
	}
	if err := h.auth.Require(ctx, in.AppID, db.RoleViewer); err != nil {
		if errors.Is(err, fault.ErrNotFound) {
			return nil, fault.NotFound(instanceName(instanceID))
		}
		return nil, err
	}
	fr, err := h.join()
	if err != nil {
		return nil, err
	}
	wake := make(chan struct{}, 1)
	h.mu.Lock()
	if h.logs[instanceID] == nil {
		h.logs[instanceID] = map[chan struct{}]struct{}{}
	}
	h.logs[instanceID][wake] = struct{}{}
	h.mu.Unlock()
	recheck := h.addRecheck()

	out := make(chan *db.InstanceLog, logBuffer)
	s := &Stream[*db.InstanceLog]{C: out}
	go func() {
		defer fr.wg.Done()
		defer close(out)
		defer func() {
			h.mu.Lock()
			delete(h.logs[instanceID], wake)
			if len(h.logs[instanceID]) == 0 {
				delete(h.logs, instanceID)
			}
			h.mu.Unlock()
			h.removeRecheck(recheck)
		}()
		if err := h.followLogs(ctx, fr.ctx, in.AppID, instanceID, afterSeq, out, wake, recheck); err != nil && ctx.Err() == nil {
			s.setErr(err)
		}
	}()
	return s, nil
}

func (h *Feeds) followLogs(ctx, feed context.Context, appID, instanceID, last int64, out chan<- *db.InstanceLog, wake, recheck chan struct{}) error {
	poll := clock.NewTicker(h.clock, h.cfg.PollEvery)
	defer poll.Stop()
	rights := clock.NewTicker(h.clock, h.cfg.RecheckEvery)
	defer rights.Stop()
	finished := false
	for {
		lines, more, err := h.db.LogList(ctx, instanceID, last, h.cfg.LogPage)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			h.log.WarnContext(ctx, "live: reading log lines failed; retrying", "instance", instanceID, "err", err)
			more = false
		}
		for i := range lines {
			if err := send(ctx, feed, h.clock, out, &lines[i], h.cfg.SlowAfter); err != nil {
				return err
			}
			last = lines[i].Seq
		}
		if more {
			continue
		}
		if err == nil {
			if finished {
				return nil // everything stored before it finished was sent
			}
			in, err := h.db.InstanceGet(ctx, instanceID)
			switch {
			case errors.Is(err, db.ErrNotFound):
				return fault.NotFound(instanceName(instanceID)) // deleted with its job
			case err == nil && db.IsFinal(in.Status):
				// Lines are stored before the final report that finishes an
				// instance; one more read after seeing it finished takes
				// whatever was stored meanwhile.
				finished = true
				continue
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-feed.Done():
			return ErrShuttingDown
		case <-wake:
		case <-poll.C():
			poll.Next()
		case <-recheck:
			if err := h.recheck(ctx, appID, instanceName(instanceID)); err != nil {
				return err
			}
		case <-rights.C():
			rights.Next()
			if err := h.recheck(ctx, appID, instanceName(instanceID)); err != nil {
				return err
			}
		}
	}
}
