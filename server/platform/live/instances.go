package live

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// scanPage is how many changed instances one re-read query returns.
const scanPage = 500

// InstanceUpdated streams the app's instances as they change (created,
// dispatched, running, finished, stopped, retried…), optionally of one
// job: each value is the instance's state after a change. It starts with
// the instances that changed in the last Config.Overlap (their current
// state), so a change made just before the subscription reached the
// server is not missed; then every change follows. The caller needs VIEWER
// on the app.
func (h *Feeds) InstanceUpdated(ctx context.Context, appName string, jobID int64) (*Stream[*db.Instance], error) {
	a, err := h.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return nil, err
	}
	if jobID != 0 {
		j, err := h.db.JobGet(ctx, jobID)
		if errors.Is(err, db.ErrNotFound) || (err == nil && j.AppID != a.ID) {
			return nil, fault.BadInput("jobId", "app %q has no job %d", appName, jobID)
		}
		if err != nil {
			return nil, err
		}
	}
	fr, err := h.join()
	if err != nil {
		return nil, err
	}
	out := make(chan *db.Instance, h.cfg.Buffer)
	sub := &subscriber{job: jobID, ch: out, stream: &Stream[*db.Instance]{C: out}}
	w := h.watch(a.ID, sub)
	recheck := h.addRecheck()
	go func() {
		defer fr.wg.Done()
		defer h.removeRecheck(recheck)
		rights := clock.NewTicker(h.clock, h.cfg.RecheckEvery)
		defer rights.Stop()
		var err error
		for err == nil {
			select {
			case <-ctx.Done():
				h.unwatch(w, sub, nil)
				return
			case <-fr.ctx.Done():
				err = ErrShuttingDown
			case <-sub.gone: // dropped by the watcher
				h.unwatch(w, sub, nil)
				return
			case <-recheck:
				err = h.recheck(ctx, a.ID, fmt.Sprintf("app %q", appName))
			case <-rights.C():
				rights.Next()
				err = h.recheck(ctx, a.ID, fmt.Sprintf("app %q", appName))
			}
		}
		h.unwatch(w, sub, err)
	}()
	return sub.stream, nil
}

// subscriber is one instanceUpdated subscription of a watcher.
type subscriber struct {
	job    int64 // 0: every job
	ch     chan *db.Instance
	stream *Stream[*db.Instance]
	gone   chan struct{} // closed when the watcher dropped it
	closed bool
}

// watcher re-reads one app's changed instances for this server's
// subscribers of it.
type watcher struct {
	app  int64
	wake chan struct{}
	done chan struct{}

	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	newest time.Time        // the newest updated_at seen
	sent   map[int64]*state // instance → state last sent, within the window
}

// state is an instance as last sent.
type state struct {
	f  fingerprint
	in db.Instance
}

// fingerprint is what makes two reads of an instance the same state.
type fingerprint struct {
	updated  int64
	status   string
	attempt  int
	reason   string
	finished int64
}

func fingerprintOf(in *db.Instance) fingerprint {
	f := fingerprint{updated: in.UpdatedAt.UnixMilli(), status: in.Status, attempt: in.Attempt, reason: in.Reason}
	if in.FinishedAt != nil {
		f.finished = in.FinishedAt.UnixMilli()
	}
	return f
}

// watch adds sub to the app's watcher, starting one if there is none.
func (h *Feeds) watch(appID int64, sub *subscriber) *watcher {
	sub.gone = make(chan struct{})
	h.mu.Lock()
	defer h.mu.Unlock()
	w := h.watchers[appID]
	if w == nil {
		w = &watcher{app: appID, wake: make(chan struct{}, 1), done: make(chan struct{}),
			subs: map[*subscriber]struct{}{}, sent: map[int64]*state{}}
		h.watchers[appID] = w
		if fr, err := h.joinLocked(); err == nil {
			go h.runWatcher(fr, w)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.subs[sub] = struct{}{}
	// Start with what changed recently (the watcher's window), oldest first.
	recent := make([]*state, 0, len(w.sent))
	for _, st := range w.sent {
		recent = append(recent, st)
	}
	slices.SortFunc(recent, func(a, b *state) int {
		if c := a.in.UpdatedAt.Compare(b.in.UpdatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.in.ID, b.in.ID)
	})
	for _, st := range recent {
		w.sendLocked(sub, &st.in)
	}
	return w
}

// unwatch removes sub (ending its stream with err) and stops the watcher
// when it was the last.
func (h *Feeds) unwatch(w *watcher, sub *subscriber, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dropLocked(sub, err)
	if len(w.subs) == 0 && h.watchers[w.app] == w {
		delete(h.watchers, w.app)
		close(w.done)
	}
}

func (w *watcher) dropLocked(sub *subscriber, err error) {
	if sub.closed {
		return
	}
	sub.closed = true
	if err != nil {
		sub.stream.setErr(err)
	}
	delete(w.subs, sub)
	close(sub.ch)
	close(sub.gone)
}

func (h *Feeds) runWatcher(fr *feedRun, w *watcher) {
	defer fr.wg.Done()
	poll := clock.NewTicker(h.clock, h.cfg.PollEvery)
	defer poll.Stop()
	for {
		if err := h.scan(fr.ctx, w); err != nil {
			if fr.ctx.Err() != nil {
				return
			}
			h.log.Warn("live: re-reading changed instances failed; retrying", "app", w.app, "err", err)
		}
		select {
		case <-w.done:
			return
		case <-fr.ctx.Done():
			return
		case <-w.wake:
		case <-poll.C():
			poll.Next()
		}
	}
}

// scan re-reads the window and sends what changed.
func (h *Feeds) scan(ctx context.Context, w *watcher) error {
	now := db.Stamp(h.clock.Now())
	w.mu.Lock()
	from := now
	if !w.newest.IsZero() && w.newest.Before(from) {
		from = w.newest
	}
	w.mu.Unlock()
	from = from.Add(-h.cfg.Overlap)
	var (
		afterAt time.Time
		afterID int64
	)
	for {
		rows, err := h.db.InstanceListChangedSince(ctx, w.app, from, afterAt, afterID, scanPage)
		if err != nil {
			return err
		}
		w.mu.Lock()
		for i := range rows {
			in := &rows[i]
			f := fingerprintOf(in)
			if st := w.sent[in.ID]; st != nil && st.f == f {
				continue
			}
			w.sent[in.ID] = &state{f: f, in: *in}
			if in.UpdatedAt.After(w.newest) {
				w.newest = in.UpdatedAt
			}
			for sub := range w.subs {
				w.sendLocked(sub, in)
			}
		}
		w.mu.Unlock()
		if len(rows) < scanPage {
			break
		}
		last := rows[len(rows)-1]
		afterAt, afterID = last.UpdatedAt, last.ID
	}
	w.mu.Lock()
	for id, st := range w.sent {
		if st.f.updated < from.UnixMilli() {
			delete(w.sent, id) // outside the window: it cannot be read again unchanged
		}
	}
	w.mu.Unlock()
	return nil
}

// sendLocked sends a copy of in to sub if it wants it; a subscriber whose
// buffer is full is dropped with ErrSlowConsumer.
func (w *watcher) sendLocked(sub *subscriber, in *db.Instance) {
	if sub.closed || (sub.job != 0 && sub.job != in.JobID) {
		return
	}
	v := *in
	select {
	case sub.ch <- &v:
	default:
		w.dropLocked(sub, ErrSlowConsumer)
	}
}
