package execution

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/runtime/dispatch"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// assign gives queued tasks to workers with free slots: instances by their
// jobs' priority, then in the order they became ready, each instance's
// tasks in its queue's order. A
// task no connected worker could ever run fails with NO_WORKER; one whose
// workers are merely busy waits for a slot. The work is bounded by what is
// assigned plus the instances looked at, never by the tasks queued: an
// instance whose first unpinned task does not fit is passed over whole,
// since its other unpinned tasks need the same slots. What it assigns is
// sent by the actor once the batch is durable (commit.go).
func (s *state) assign(c *changes) {
	if len(s.ready) == 0 {
		return
	}
	now := db.Stamp(s.now)
	connected := s.connected()
	free := 0
	for _, w := range connected {
		free += max(w.Free(), 0)
	}
	ready := s.ready
	prioritize(ready)
	s.ready = make([]*inst, 0, len(ready))
	for _, it := range ready {
		if s.instances[it.ID] != it {
			it.inReady = false // ended meanwhile
			it.queue.Clear()
			continue
		}
		if free > 0 {
			free -= s.assignInstance(c, it, connected, now, free)
		}
		if it.queue.Len() > 0 {
			s.ready = append(s.ready, it)
		} else {
			it.inReady = false
		}
	}
}

// prioritize orders ready instances by their jobs' priority, higher first,
// keeping the order they became ready in within a priority: when workers
// are short of slots, the tasks of higher-priority jobs get them first.
// Most apps leave every priority 0, which costs one pass and no sort.
func prioritize(ready []*inst) {
	if len(ready) < 2 {
		return
	}
	first := ready[0].job.Priority
	if !slices.ContainsFunc(ready[1:], func(it *inst) bool { return it.job.Priority != first }) {
		return
	}
	slices.SortStableFunc(ready, func(a, b *inst) int { return cmp.Compare(b.job.Priority, a.job.Priority) })
}

// assignInstance assigns an instance's queued tasks while slots are free
// and returns how many it assigned.
func (s *state) assignInstance(c *changes, it *inst, connected []*dispatch.Worker, now time.Time, free int) int {
	assigned := 0
	var passed []*task // pinned tasks whose worker is busy
	for it.queue.Len() > 0 && assigned < free {
		t := it.queue.Front()
		if t.Status != db.StatusWaiting || t.inst != it {
			it.queue.PopFront() // stopped meanwhile
			continue
		}
		w, why := s.pick(t, connected)
		if w == nil {
			if why != "" {
				if t.pinned == "" {
					s.noWorker(c, it.ID, dispatch.FromJob(it.job), now)
				}
				it.queue.PopFront()
				t.reason = db.ReasonNoWorker
				s.taskFinished(c, t, db.StatusFailed, why, nil)
				if s.instances[it.ID] != it {
					break // that ended the instance
				}
				continue
			}
			if t.pinned != "" {
				passed = append(passed, it.queue.PopFront())
				continue
			}
			break // busy: the instance's other unpinned tasks wait too
		}
		it.queue.PopFront()
		wid := w.ID
		from := t.Status
		t.Status = db.StatusDispatched
		t.WorkerID = &wid
		t.DispatchedAt = &now
		t.acked = false
		if !t.new {
			c.task = append(c.task, db.TaskTransition{ID: t.ID, InstanceID: t.InstanceID, From: from, To: db.StatusDispatched, WorkerID: &wid, DispatchedAt: &now})
		}
		s.workers[wid].Busy++
		it.used[wid]++
		c.dispatch[wid] = append(c.dispatch[wid], t)
		assigned++
	}
	for i := len(passed) - 1; i >= 0; i-- {
		it.queue.PushFront(passed[i])
	}
	return assigned
}

// pick chooses a worker for t, or says why none ever could ("" if the
// eligible ones are only busy).
func (s *state) pick(t *task, connected []*dispatch.Worker) (*dispatch.Worker, string) {
	it := t.inst
	if t.pinned != "" {
		w := s.workers[t.pinned]
		if w == nil || !w.connected {
			return nil, "the broadcast target worker disconnected"
		}
		if w.Free() <= 0 {
			return nil, ""
		}
		return &w.Worker, ""
	}
	req := dispatch.FromJob(it.job)
	eligible := req.Eligible(connected)
	if len(eligible) == 0 {
		return nil, req.Explain(s.name, connected)
	}
	limit := max(it.job.TaskConcurrency, 1)
	maxWorkers := it.job.WorkerFilter.MaxWorkers
	distinct := 0
	for _, n := range it.used {
		if n > 0 {
			distinct++
		}
	}
	candidates := eligible[:0:0]
	for _, w := range eligible {
		inUse := it.used[w.ID] > 0
		if it.used[w.ID] >= limit {
			continue
		}
		if maxWorkers > 0 && !inUse && distinct >= maxWorkers {
			continue
		}
		candidates = append(candidates, w)
	}
	return s.picker.PickFor(it.job.DispatchStrategy, func() string { return dispatch.Key(it.JobID, it.Params) }, candidates), ""
}

// taskSpec is what the worker is sent for a task.
func (s *state) taskSpec(t *task) protocol.Task {
	it := t.inst
	j := it.job
	spec := protocol.Task{
		TaskID: t.ID, InstanceID: it.ID, JobID: j.ID, Attempt: it.Attempt, Kind: t.Kind, Name: t.Name,
		ExecutionMode: j.ExecutionMode, ProcessorType: j.ProcessorType, Processor: j.Processor,
		JobParams: j.Params, Params: it.Params, Payload: t.Payload, Deadline: it.deadline,
	}
	if t.Kind == protocol.KindBroadcast {
		spec.ShardIndex, spec.ShardTotal = shardOf(t.Name)
	}
	if it.WorkflowInstanceID != nil {
		spec.WorkflowRunID, spec.WorkflowNode = *it.WorkflowInstanceID, deref(it.WorkflowNodeID)
	}
	if in := it.WorkflowInput; in != nil {
		spec.WorkflowContext = in.Context
		if spec.WorkflowContext == nil {
			spec.WorkflowContext = map[string]any{}
		}
		spec.Upstream = in.Upstream
	}
	return spec
}

// A BROADCAST task's name records its shard — "BROADCAST 2/5" is shard
// index 2 of 5 — so that whoever sends it, the owner that created it or
// one that took over, tells the worker the same shard; the console shows
// it too.
func shardName(index, total int) string { return fmt.Sprintf("BROADCAST %d/%d", index, total) }

// shardOf reads a BROADCAST task's shard from its name; 0, 0 for a name
// without one (a task created before shards were recorded).
func shardOf(name string) (index, total int) {
	if _, err := fmt.Sscanf(name, "BROADCAST %d/%d", &index, &total); err != nil || index < 0 || index >= total {
		return 0, 0
	}
	return index, total
}
