package live

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// WorkflowInstanceUpdated streams a workflow run as it changes: the run's
// status, and every node transition (a node started, finished, skipped,
// waiting for approval, retried or rerun). It starts with the run as it
// is, then sends the run again each time a re-read finds the run or one
// of its nodes changed. Hints (TopicWorkflows, from the engine on the
// app's owner and from the API on any server) make a re-read immediate; a
// re-read every PollEvery catches lost hints. Each value is the run's
// state as read: a subscriber that has not taken one yet gets the newer
// one in its place, so a slow consumer costs one value of memory and still
// always receives the latest state.
//
// The stream does not end when the run finishes: a finished run can be
// made to run again (retry, rerun, mark a node succeeded), and a watcher
// wants to see that. It ends when the client unsubscribes, when the run is
// deleted (NOT_FOUND), when the caller loses VIEWER on the app, or when
// the server stops (UNAVAILABLE).
func (h *Feeds) WorkflowInstanceUpdated(ctx context.Context, runID int64) (*Stream[*db.WorkflowInstance], error) {
	what := fmt.Sprintf("workflow run %d", runID)
	r, err := h.db.WorkflowInstanceGet(ctx, runID)
	if errors.Is(err, db.ErrNotFound) {
		return nil, fault.NotFound(what)
	}
	if err != nil {
		return nil, err
	}
	if err := h.auth.Require(ctx, r.AppID, db.RoleViewer); err != nil {
		if errors.Is(err, fault.ErrNotFound) {
			return nil, fault.NotFound(what)
		}
		return nil, err
	}
	appID := r.AppID
	out := make(chan *db.WorkflowInstance, 1)
	stream := &Stream[*db.WorkflowInstance]{C: out}
	fr, err := h.join()
	if err != nil {
		return nil, err
	}
	wake := make(chan struct{}, 1)
	h.mu.Lock()
	if h.runs[runID] == nil {
		h.runs[runID] = map[chan struct{}]int64{}
	}
	h.runs[runID][wake] = appID
	h.mu.Unlock()
	recheck := h.addRecheck()
	go func() {
		defer fr.wg.Done()
		defer close(out)
		defer func() {
			h.mu.Lock()
			delete(h.runs[runID], wake)
			if len(h.runs[runID]) == 0 {
				delete(h.runs, runID)
			}
			h.mu.Unlock()
			h.removeRecheck(recheck)
		}()
		poll := clock.NewTicker(h.clock, h.cfg.PollEvery)
		defer poll.Stop()
		rightsEvery := clock.NewTicker(h.clock, h.cfg.RecheckEvery)
		defer rightsEvery.Stop()
		var last runFingerprint
		for {
			r, nodes, err := h.readWorkflowInstance(fr.ctx, runID)
			switch {
			case errors.Is(err, db.ErrNotFound):
				if ctx.Err() == nil {
					stream.setErr(fault.NotFound(what)) // deleted with its workflow
				}
				return
			case err != nil && fr.ctx.Err() == nil:
				h.log.Warn("live: re-reading a workflow run failed; retrying", "run", runID, "err", err)
			case err == nil:
				if f := fingerprintInstance(r, nodes); f != last {
					last = f
					replace(out, r)
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
				rights = h.recheck(ctx, appID, what)
			case <-rightsEvery.C():
				rightsEvery.Next()
				rights = h.recheck(ctx, appID, what)
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

func (h *Feeds) readWorkflowInstance(ctx context.Context, runID int64) (*db.WorkflowInstance, []db.WorkflowNodeRun, error) {
	r, err := h.db.WorkflowInstanceGet(ctx, runID)
	if err != nil {
		return nil, nil, err
	}
	nodes, err := h.db.WorkflowNodeRunListByInstances(ctx, []int64{runID})
	return r, nodes, err
}

// runFingerprint is what makes two reads of a run the same state: the
// run's own status and times, and each node's status, generation and last
// change (a FOREACH's progress, an approval's decision).
type runFingerprint string

func fingerprintInstance(r *db.WorkflowInstance, nodes []db.WorkflowNodeRun) runFingerprint {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%d|%d", r.Status, r.Reason, r.UpdatedAt.UnixMilli(), unixMilli(r.FinishedAt))
	keys := make([]string, len(nodes))
	for i, n := range nodes {
		keys[i] = fmt.Sprintf("%s=%s/%d/%d/%d", n.NodeKey, n.Status, n.Generation, n.Items, n.UpdatedAt.UnixMilli())
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString("|")
		b.WriteString(k)
	}
	return runFingerprint(b.String())
}

func unixMilli(t *time.Time) int64 {
	if t == nil {
		return 0
	}
	return t.UnixMilli()
}

// WorkflowInstancesChanged publishes that runs of an app changed (created,
// started, a node moved, finished, operated on): their subscribers re-read
// them, on every server. With no run ids, every run of the app is re-read.
// The engine calls it after each committed transition; the API after the
// runs it records and the operations it hands to the engine.
func (h *Feeds) WorkflowInstancesChanged(appID int64, runIDs []int64) {
	if len(runIDs) == 0 {
		h.bus.Publish(TopicWorkflows, "a"+strconv.FormatInt(appID, 10))
		return
	}
	for _, id := range runIDs {
		h.bus.Publish(TopicWorkflows, "r"+strconv.FormatInt(id, 10))
	}
}

func (h *Feeds) onWorkflows(_, data string) {
	if len(data) < 2 {
		return
	}
	id, err := strconv.ParseInt(data[1:], 10, 64)
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch data[0] {
	case 'r':
		for ch := range h.runs[id] {
			poke(ch)
		}
	case 'a':
		for _, set := range h.runs {
			for ch, app := range set {
				if app == id {
					poke(ch)
				}
			}
		}
	}
}
