package execution

import (
	"fmt"
	"slices"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/runtime/dispatch"
	"github.com/jobwheel/jobwheel/server/runtime/hub"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// This file handles what workers tell: they join and leave, heart-beat,
// report tasks' progress and ends, map new subtasks and ack dispatches.

// neverReceived sends again the tasks an earlier owner sent a worker that
// the worker does not list as its own when it joins this owner: it never
// accepted them. A worker lists every task it accepted until the server
// acks its final report (protocol.md §6.5 rule 4); its id is its
// process's, so a restarted worker is another one; and its hello to this
// owner (this lease epoch's registry) comes after its connection to the
// sender ended, so nothing that sender sent can reach it after. The
// sender was typically killed between committing a batch and sending its
// frames. Failed as lost (WORKER_LOST), such a task would fail a run that
// never started; sent again, it runs once. A task it reported running and
// no longer lists is lost, as before. Tasks this owner sent are left to
// the heartbeats: a worker that reconnects may have accepted them after
// its hello.
func (s *state) neverReceived(c *changes, w *worker, info *hub.WorkerInfo) {
	for id := range w.running {
		t := s.tasks[id]
		if t == nil || !t.inherited || t.Status != db.StatusDispatched || slices.Contains(info.Running, id) {
			continue
		}
		s.log.Info("execution: a task the app's previous owner sent never reached its worker; sending it again",
			"instance", t.InstanceID, "task", t.ID, "worker", info.ID)
		s.requeueTask(c, t, t.Retries, "sent again: its worker never received it (the server that sent it stopped first)", nil)
	}
}

// joined attaches a (re)connected worker.
func (s *state) joined(c *changes, info *hub.WorkerInfo) {
	w := s.workers[info.ID]
	if w == nil {
		w = &worker{running: map[int64]bool{}}
		s.workers[info.ID] = w
	}
	busy := w.Busy
	w.Worker = dispatch.Worker{ID: info.ID, Host: info.Host, Tags: info.Tags, Processors: info.Processors,
		Types: info.Types, Slots: info.Slots, Busy: busy, Metrics: info.Metrics}
	w.connected = true
	w.disconnected = time.Time{}
	w.pagedResults = slices.Contains(info.Features, protocol.FeaturePagedResults)
	w.startAt = slices.Contains(info.Features, protocol.FeatureStartAt)
	// Instances waiting for a worker may go now.
	c.wake = true
	s.neverReceived(c, w, info)
	// Tasks it still runs that we gave up on (stopped, re-dispatched)
	// must stop there.
	for _, id := range info.Running {
		if !w.running[id] {
			c.stops = append(c.stops, stopFrame{worker: info.ID, stop: protocol.Stop{TaskIDs: []int64{id}, Reason: "the task is no longer assigned to this worker"}})
		}
	}
}

// left marks a worker disconnected; its tasks wait LostGrace for it.
func (s *state) left(workerID string) {
	if w := s.workers[workerID]; w != nil && w.connected {
		w.connected = false
		w.disconnected = s.now
	}
}

// heartbeat updates metrics and notices acked tasks the worker no longer
// runs without having reported them (it restarted, or the dispatch was lost).
func (s *state) heartbeat(c *changes, workerID string, hb *protocol.Heartbeat) {
	w := s.workers[workerID]
	if w == nil {
		return
	}
	w.Metrics = hb.Metrics
	w.Draining = hb.Draining
	running := make(map[int64]bool, len(hb.Running))
	for _, id := range hb.Running {
		running[id] = true
	}
	for id := range w.running {
		t := s.tasks[id]
		if t != nil && t.acked && !running[id] {
			s.taskFailed(c, t, db.ReasonWorkerLost, fmt.Sprintf("worker %s is no longer running the task", w.Host))
		}
	}
}

// reported applies task status reports.
func (s *state) reported(c *changes, workerID string, r *protocol.Report) {
	now := db.Stamp(s.now)
	for _, item := range r.Items {
		t := s.tasks[item.TaskID]
		if t == nil || deref(t.WorkerID) != workerID {
			continue // finished already, or no longer this worker's: a re-send
		}
		t.acked = true
		at := item.At.UTC()
		if at.IsZero() || at.After(now) {
			at = now
		}
		switch item.Status {
		case protocol.TaskRunning:
			if t.Status == db.StatusDispatched {
				c.taskMove(t, db.StatusRunning, nil)
				t.Status = db.StatusRunning
				s.instanceRunning(c, t.inst, workerID, at)
			}
		case protocol.TaskSucceeded:
			if t.Status == db.StatusDispatched {
				s.instanceRunning(c, t.inst, workerID, at)
			}
			s.taskFinished(c, t, db.StatusSucceeded, item.Result, item.WorkflowContext)
		case protocol.TaskFailed:
			// A task handed back before it started (held until its time,
			// ahead.go) did not make its instance run.
			if t.Status == db.StatusDispatched && item.Reason != protocol.ReasonHandedBack {
				s.instanceRunning(c, t.inst, workerID, at)
			}
			switch item.Reason {
			case protocol.ReasonHandedBack:
				s.handedBack(c, t, item.Result)
			case protocol.ReasonTimeout:
				s.taskFailed(c, t, db.ReasonTimeout, item.Result)
			default:
				s.taskFailed(c, t, db.ReasonFailed, item.Result)
			}
		case protocol.TaskStopped:
			s.taskFailed(c, t, db.ReasonStopped, orDefault(item.Result, "stopped on the worker"))
		}
	}
}

// mapCheck says whether a map message may add subtasks: the task that sent
// it must be running on that worker in a MAP or MAP_REDUCE instance.
func (s *state) mapCheck(workerID string, m *protocol.Map) (*task, error) {
	parent := s.tasks[m.ParentTaskID]
	if parent == nil || parent.inst.ID != m.InstanceID || deref(parent.WorkerID) != workerID {
		// The worker's mistake (or a forgery), not the server's: REFUSED.
		return nil, &protocol.Error{Code: protocol.CodeRefused,
			Message: fmt.Sprintf("map: task %d of instance %d is not running on this worker", m.ParentTaskID, m.InstanceID)}
	}
	if mode := parent.inst.job.ExecutionMode; mode != db.ModeMap && mode != db.ModeMapReduce {
		return nil, &protocol.Error{Code: protocol.CodeRefused,
			Message: fmt.Sprintf("map() needs execution mode MAP or MAP_REDUCE; job %q is %s", parent.inst.job.Name, mode)}
	}
	return parent, nil
}

// mapped stores the subtasks a running task emitted. storedBefore says the
// database already holds a map message with the same key (its ack was
// lost and the worker re-sent it): it is acked without new subtasks.
func (s *state) mapped(c *changes, workerID string, m *protocol.Map, storedBefore bool) error {
	parent, err := s.mapCheck(workerID, m)
	if err != nil {
		return err
	}
	it := parent.inst
	if m.Key != "" {
		if it.mapKeys[m.Key] || storedBefore {
			return nil
		}
		if it.mapKeys == nil {
			it.mapKeys = map[string]bool{}
		}
	}
	var size int64
	for _, p := range m.Payloads {
		size += int64(len(p))
	}
	// Checked before anything is recorded: a refused map stores nothing,
	// not even its key.
	if n := it.mapped + len(m.Payloads); n > s.cfg.MapMaxTasks {
		return &protocol.Error{Code: protocol.CodeRefused, Message: fmt.Sprintf(
			"map: instance %d would have %d subtasks; at most %d per instance (JOBWHEEL_MAP_MAX_TASKS_PER_INSTANCE)",
			it.ID, n, s.cfg.MapMaxTasks)}
	}
	if n := it.mappedBytes + size; n > s.cfg.MapMaxBytes {
		return &protocol.Error{Code: protocol.CodeRefused, Message: fmt.Sprintf(
			"map: instance %d's subtasks would hold %d payload bytes; at most %d per instance (JOBWHEEL_MAP_MAX_BYTES_PER_INSTANCE)",
			it.ID, n, s.cfg.MapMaxBytes)}
	}
	it.mapped += len(m.Payloads)
	it.mappedBytes += size
	if m.Key != "" {
		it.mapKeys[m.Key] = true
		c.mapRequests = append(c.mapRequests, db.MapRequest{InstanceID: it.ID, Key: m.Key})
	}
	// As many as the window holds are created in memory and queued; the
	// rest are only stored, for refill to load as the window drains.
	room := 0
	if it.backlog == 0 {
		room = max(s.window()-it.queue.Len(), 0)
	}
	for i, p := range m.Payloads {
		if i < room {
			s.newTask(c, it, protocol.KindMap, m.Name, p, &parent.ID, "")
			continue
		}
		c.backlog = append(c.backlog, db.Task{InstanceID: it.ID, ParentID: &parent.ID, Name: m.Name, Kind: protocol.KindMap,
			Status: db.StatusWaiting, Payload: p, InstanceAttempt: it.Attempt})
		it.backlog++
		it.pending++
		s.backlogged[it.ID] = it
	}
	return nil
}

// needsRefill says whether an instance's window should load more of its
// backlog: it is less than half full.
func (s *state) needsRefill(it *inst) bool {
	return it.backlog > 0 && it.queue.Len() < s.window()/2 && s.instances[it.ID] == it
}

// refilled queues the tasks refill loaded for an instance, in id order.
// Fewer than asked for means the backlog is empty, whatever it counted.
func (s *state) refilled(it *inst, asked int, loaded []db.Task) {
	for _, t := range loaded {
		tk := &task{Task: t, inst: it}
		s.enqueue(tk)
		it.cursor = max(it.cursor, t.ID)
	}
	it.backlog -= len(loaded)
	if len(loaded) < asked || it.backlog < 0 {
		if it.backlog != 0 {
			s.log.Warn("execution: an instance's backlog count was off; corrected", "instance", it.ID, "off by", it.backlog)
		}
		it.pending -= it.backlog
		it.backlog = 0
	}
	if it.backlog == 0 {
		delete(s.backlogged, it.ID)
	}
}

// dispatchResult applies a worker's answer to a dispatch.
func (s *state) dispatchResult(c *changes, r *dispatchResult) {
	if r.err != nil {
		// The worker may or may not have the tasks. Treat them as acked: its
		// next heartbeat says whether it runs them.
		for _, id := range r.tasks {
			if t := s.tasks[id]; t != nil {
				t.acked = true
			}
		}
		return
	}
	for _, id := range r.ack.Accepted {
		if t := s.tasks[id]; t != nil {
			t.acked = true
		}
	}
	for _, rej := range r.ack.Rejected {
		t := s.tasks[rej.TaskID]
		switch {
		case t == nil || deref(t.WorkerID) != r.worker:
		case rej.Code == protocol.RejectFull:
			// Its slots and ours disagreed for a moment: not the task's
			// fault, so it goes again without counting a retry.
			s.handedBack(c, t, "the worker had no free slot")
		default:
			s.taskFailed(c, t, db.ReasonRejected, "the worker refused the task: "+rej.Reason)
		}
	}
}
