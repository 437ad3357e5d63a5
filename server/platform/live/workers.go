package live

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
)

// WorkersUpdated streams an app's worker listing, as the workers query
// gives it, each time it changes: a worker connects, is lost, or reports
// a heartbeat. It starts with the current listing. Hints (TopicWorkers)
// make connects and losses arrive at once; a re-read every PollEvery
// catches heartbeats and lost hints. A listing is a snapshot, so a
// subscriber that has not taken one yet gets the newer one in its place:
// a slow consumer costs one listing of memory, never a queue. The caller
// needs VIEWER on the app.
func (h *Feeds) WorkersUpdated(ctx context.Context, appName string) (*Stream[[]*db.Worker], error) {
	a, err := h.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return nil, err
	}
	fr, err := h.join()
	if err != nil {
		return nil, err
	}
	out := make(chan []*db.Worker, 1)
	stream := &Stream[[]*db.Worker]{C: out}
	wake := h.addWorkerWatch(a.ID)
	recheck := h.addRecheck()
	go func() {
		defer fr.wg.Done()
		defer close(out)
		defer h.removeWorkerWatch(a.ID, wake)
		defer h.removeRecheck(recheck)
		poll := clock.NewTicker(h.clock, h.cfg.PollEvery)
		defer poll.Stop()
		rightsEvery := clock.NewTicker(h.clock, h.cfg.RecheckEvery)
		defer rightsEvery.Stop()
		what := fmt.Sprintf("app %q", appName)
		var last []workerState
		sent := false
		for {
			list, err := h.apps.WorkersOf(fr.ctx, a.ID)
			switch {
			case err != nil && fr.ctx.Err() == nil:
				h.log.Warn("live: re-reading workers failed; retrying", "app", a.ID, "err", err)
			case err == nil:
				if now := workerStates(list); !sent || !slices.Equal(now, last) {
					last, sent = now, true
					ptrs := make([]*db.Worker, len(list))
					for i := range list {
						ptrs[i] = &list[i]
					}
					replace(out, ptrs)
				}
			}
			var rights error
			select {
			case <-ctx.Done():
				return
			case <-fr.ctx.Done():
				stream.setErr(ErrShuttingDown)
				return
			case <-wake:
			case <-poll.C():
				poll.Next()
			case <-recheck:
				rights = h.recheck(ctx, a.ID, what)
			case <-rightsEvery.C():
				rightsEvery.Next()
				rights = h.recheck(ctx, a.ID, what)
			}
			if rights != nil {
				if ctx.Err() == nil {
					stream.setErr(rights)
				}
				return
			}
		}
	}()
	return stream, nil
}

// WorkersChanged publishes that an app's workers changed (hub.Watcher).
func (h *Feeds) WorkersChanged(appID int64) {
	h.bus.Publish(TopicWorkers, strconv.FormatInt(appID, 10))
}

// workerState is what makes two listings of a worker the same.
type workerState struct {
	id        string
	heartbeat int64
	gone      bool
	metrics   db.WorkerMetrics
}

func workerStates(list []db.Worker) []workerState {
	out := make([]workerState, len(list))
	for i, w := range list {
		out[i] = workerState{id: w.ID, heartbeat: w.LastHeartbeat.UnixMilli(), gone: w.DisconnectedAt != nil, metrics: w.Metrics}
	}
	return out
}

// replace puts v in out (capacity 1), in place of a value not yet taken.
func replace[T any](out chan T, v T) {
	for {
		select {
		case out <- v:
			return
		default:
		}
		select {
		case <-out:
		default:
		}
	}
}

func (h *Feeds) onWorkers(_, data string) {
	id, err := strconv.ParseInt(data, 10, 64)
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.workers[id] {
		poke(ch)
	}
}

func (h *Feeds) addWorkerWatch(appID int64) chan struct{} {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.workers[appID] == nil {
		h.workers[appID] = map[chan struct{}]struct{}{}
	}
	h.workers[appID][ch] = struct{}{}
	return ch
}

func (h *Feeds) removeWorkerWatch(appID int64, ch chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.workers[appID], ch)
	if len(h.workers[appID]) == 0 {
		delete(h.workers, appID)
	}
}
