package execution

import (
	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/dispatch"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// assign gives queued tasks to workers with free slots, in queue order. A
// task no connected worker could ever run fails with NO_WORKER; one whose
// workers are merely busy waits for a slot. What it assigns is sent by the
// actor once the batch is durable (commit.go).
func (s *state) assign(c *changes) {
	if len(s.queue) == 0 {
		return
	}
	now := db.Stamp(s.now)
	connected := s.connected()
	queue := s.queue
	s.queue = nil
	for i, t := range queue {
		it := t.inst
		if s.instances[it.ID] != it || t.Status != db.StatusWaiting {
			continue // the instance ended meanwhile
		}
		w, why := s.pick(t, connected)
		if w == nil {
			if why != "" {
				t.reason = db.ReasonNoWorker
				s.taskFinished(c, t, db.StatusFailed, why, nil)
				continue
			}
			// Busy: this task and the rest of the queue wait. Tasks of other
			// instances may still fit, so keep scanning.
			s.queue = append(s.queue, t)
			if len(s.queue) > 0 && allFull(connected) {
				s.queue = append(s.queue, queue[i+1:]...)
				return
			}
			continue
		}
		wid := w.ID
		from := t.Status
		t.Status = db.StatusDispatched
		t.WorkerID = &wid
		t.DispatchedAt = &now
		t.acked = false
		if !t.new {
			c.task = append(c.task, db.TaskTransition{ID: t.ID, From: from, To: db.StatusDispatched, WorkerID: &wid, DispatchedAt: &now})
		}
		s.workers[wid].Busy++
		it.used[wid]++
		c.dispatch[wid] = append(c.dispatch[wid], t)
	}
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
	return s.picker.Pick(it.job.DispatchStrategy, candidates), ""
}

func allFull(workers []*dispatch.Worker) bool {
	for _, w := range workers {
		if w.Free() > 0 {
			return false
		}
	}
	return true
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
