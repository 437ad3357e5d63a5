package execution

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/runtime/dispatch"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// This file is the instance and task state machines: a task's end moves its
// instance to its next stage (BROADCAST: PRE → one task per worker → POST;
// MAP_REDUCE: the map tasks → REDUCE) or to its end; a failed attempt is
// retried while instanceRetries allows; deadlines and lost workers fail
// what they hold.

// instanceRunning moves a DISPATCHED instance to RUNNING when its first
// task starts. The attempt's worker and start are the instance row's
// (worker_id, started_at): an attempt gets a row of its own only when it
// ends without succeeding (attemptEnded), since the instance row tells a
// running or succeeded attempt's story (db.AttemptsWithCurrent).
func (s *state) instanceRunning(c *changes, it *inst, workerID string, at time.Time) {
	if it.Status != db.StatusDispatched {
		return
	}
	it.Status = db.StatusRunning
	it.StartedAt = &at
	it.WorkerID = &workerID
	c.inst = append(c.inst, db.InstanceTransition{ID: it.ID, From: db.StatusDispatched, To: db.StatusRunning, StartedAt: &at, WorkerID: &workerID})
	c.changed(it.ID)
}

// attemptEnded records an attempt that ended without succeeding, with the
// worker and start the instance row holds for it if it started (a retry
// clears the start, not the worker).
func (c *changes) attemptEnded(in *db.Instance, status, result, reason string, now time.Time) {
	var worker *string
	if in.StartedAt != nil {
		worker = in.WorkerID
	}
	c.attempt(in.ID, in.Attempt, status, worker, result, reason, in.StartedAt, &now)
}

// taskFinished records a task's end and moves its instance on.
func (s *state) taskFinished(c *changes, t *task, status, result string, wfContext map[string]any) {
	it := t.inst
	now := db.Stamp(s.now)
	result = protocol.Truncate(result, protocol.MaxResultBytes)
	c.taskMove(t, status, func(tt *db.TaskTransition) { tt.Result = &result; tt.FinishedAt = &now })
	s.release(t)
	if status == db.StatusSucceeded {
		it.succeeded++
	} else {
		it.failed++
	}
	if len(wfContext) > 0 {
		// A workflow node's additions to the run's context, from any of its
		// tasks, kept on the instance for the workflow engine.
		if it.WorkflowOutput == nil {
			it.WorkflowOutput = map[string]any{}
		}
		for k, v := range wfContext {
			it.WorkflowOutput[k] = v
		}
		c.wfContext[it.ID] = maps.Clone(it.WorkflowOutput)
	}
	s.afterTask(c, t, status, result)
}

// taskFailed retries a failed task if the job allows, else finishes it.
func (s *state) taskFailed(c *changes, t *task, reason, result string) {
	it := t.inst
	retryable := reason != db.ReasonStopped && t.Retries < it.job.TaskRetries && t.pinned == "" && t.Kind != protocol.KindBroadcast
	if !retryable {
		status := db.StatusFailed
		if reason == db.ReasonStopped {
			status = db.StatusStopped
		}
		t.reason = reason
		s.taskFinished(c, t, status, result, nil)
		return
	}
	retries := t.Retries + 1
	// The retry back-off (0 unless the job sets retryDelayMs: a task
	// retries at once by default).
	var notBefore *time.Time
	if d := retryDelay(it.job, retries, 0, s.jitter()); d > 0 {
		notBefore = new(db.Stamp(s.now).Add(d))
	}
	s.requeueTask(c, t, retries, result, notBefore)
	s.log.Info("execution: retrying task", "instance", it.ID, "task", t.ID, "retry", retries, "reason", reason, "result", result, "notBefore", notBefore)
}

// handedBack queues again a task a draining worker gave back unfinished:
// it runs elsewhere without counting a retry, since nothing went wrong
// with it. A task that must run on that worker (a BROADCAST shard) cannot
// move, and fails as lost with it.
func (s *state) handedBack(c *changes, t *task, result string) {
	if t.pinned != "" || t.Kind == protocol.KindBroadcast {
		s.taskFailed(c, t, db.ReasonWorkerLost, "its worker stopped before it finished: "+result)
		return
	}
	s.requeueTask(c, t, t.Retries, result, nil)
	s.log.Info("execution: a draining worker handed back a task; it runs elsewhere", "instance", t.inst.ID, "task", t.ID)
}

// requeueTask takes a task off its worker and queues it again as WAITING with
// retries counted so far, the last attempt's result, and the time before
// which it may not be dispatched (nil: at once).
func (s *state) requeueTask(c *changes, t *task, retries int, result string, notBefore *time.Time) {
	c.task = append(c.task, db.TaskTransition{ID: t.ID, InstanceID: t.InstanceID, From: t.Status, To: db.StatusWaiting, Retries: &retries, Result: &result, NotBefore: notBefore})
	s.release(t)
	t.Status = db.StatusWaiting
	t.Retries = retries
	t.WorkerID = nil
	t.acked = false
	t.inherited = false
	t.NotBefore = notBefore
	s.enqueue(t)
}

// release frees the task's worker slot.
func (s *state) release(t *task) {
	wid := deref(t.WorkerID)
	if w := s.workers[wid]; w != nil && w.running[t.ID] {
		delete(w.running, t.ID)
		w.Busy--
		if !w.connected && len(w.running) == 0 {
			delete(s.workers, wid)
		}
	}
	if t.inst.used[wid] > 0 {
		t.inst.used[wid]--
	}
	delete(s.tasks, t.ID)
	delete(t.inst.onWorkers, t.ID)
}

// afterTask moves an instance on once a task of it finished.
func (s *state) afterTask(c *changes, t *task, status, result string) {
	it := t.inst
	it.pending--
	if s.instances[it.ID] != it {
		return // the instance already ended
	}
	switch t.Kind {
	case protocol.KindRoot:
		if it.job.ExecutionMode == db.ModeStandalone {
			if status == db.StatusSucceeded {
				s.succeed(c, it, result)
			} else {
				s.attemptFailed(c, it, orDefault(t.reason, db.ReasonFailed), result)
			}
			return
		}
		if status != db.StatusSucceeded {
			// The root of a map failed: its subtasks cannot be trusted.
			s.attemptFailed(c, it, orDefault(t.reason, db.ReasonFailed), "the root task failed: "+result)
			return
		}
	case protocol.KindPre:
		if status != db.StatusSucceeded {
			s.attemptFailed(c, it, orDefault(t.reason, db.ReasonFailed), "pre-process failed: "+result)
			return
		}
	case protocol.KindPost, protocol.KindReduce:
		if status == db.StatusSucceeded {
			s.succeed(c, it, result)
		} else {
			s.attemptFailed(c, it, orDefault(t.reason, db.ReasonFailed), result)
		}
		return
	}
	if it.pending == 0 {
		s.progress(c, it)
	}
}

// progress starts an instance's next stage, or ends it, once nothing of
// the current stage is pending.
func (s *state) progress(c *changes, it *inst) {
	if it.pending > 0 {
		return
	}
	switch it.job.ExecutionMode {
	case db.ModeBroadcast:
		switch it.stage {
		case stagePre:
			var live []string
			for _, wid := range it.targets {
				if w := s.workers[wid]; w != nil && w.connected {
					live = append(live, wid)
				}
			}
			if len(live) == 0 {
				// Chosen at fire time; adopted instances choose again.
				req := dispatch.FromJob(it.job)
				for _, w := range req.Eligible(s.connected()) {
					live = append(live, w.ID)
				}
			}
			if len(live) == 0 {
				s.noWorker(c, it.ID, dispatch.FromJob(it.job), s.now)
				s.attemptFailed(c, it, db.ReasonNoWorker, dispatch.FromJob(it.job).Explain(s.name, s.connected()))
				return
			}
			it.stage = stageBcast
			for i, wid := range live {
				s.newTask(c, it, protocol.KindBroadcast, shardName(i, len(live)), "", nil, wid)
			}
		case stageBcast:
			it.stage = stagePost
			s.newTask(c, it, protocol.KindPost, "POST", "", nil, "")
		}
	case db.ModeMap, db.ModeMapReduce:
		if it.failed > 0 {
			s.attemptFailed(c, it, db.ReasonFailed, fmt.Sprintf("%d of %d tasks failed", it.failed, it.failed+it.succeeded))
			return
		}
		if it.job.ExecutionMode == db.ModeMapReduce && it.stage != stageReduce {
			it.stage = stageReduce
			s.newTask(c, it, protocol.KindReduce, "REDUCE", "", nil, "")
			return
		}
		s.succeed(c, it, fmt.Sprintf("%d tasks succeeded", it.succeeded))
	}
}

// succeed ends an instance successfully.
func (s *state) succeed(c *changes, it *inst, result string) {
	now := db.Stamp(s.now)
	c.finish(&it.Instance, it.Status, db.StatusSucceeded, "", result, now)
	if it.job.HasDownstream && it.TriggerType != db.TriggerWorkflow {
		c.upstream = append(c.upstream, it.Instance)
	}
	if a := &it.job.Alarm; a.Watches(db.AlarmRecovery) || a.Watches(db.AlarmConsecutive) {
		c.successes = append(c.successes, failure{job: it.job, in: it.Instance})
	}
	s.endInstance(c, it, now)
}

// attemptFailed retries the instance if attempts remain, else fails it.
func (s *state) attemptFailed(c *changes, it *inst, reason, result string) {
	now := db.Stamp(s.now)
	c.attemptEnded(&it.Instance, db.StatusFailed, result, reason, now)
	s.stopTasks(c, it, "the instance attempt ended: "+reason)
	if it.Attempt <= retriesOf(it.Instance, it.job) {
		// Due after the retry back-off: the row's trigger time, which the
		// trigger loop fires (so a new owner keeps the wait).
		at := now.Add(retryDelay(it.job, it.Attempt, s.cfg.RetryDelay, s.jitter()))
		c.retries = append(c.retries, retry{id: it.ID, from: it.Status, attempt: it.Attempt + 1, at: at, reason: reason})
		delete(s.instances, it.ID)
		c.changed(it.ID)
		c.wake = true
		s.log.Info("execution: retrying instance", "instance", it.ID, "attempt", it.Attempt+1, "at", at, "reason", reason, "result", result)
		return
	}
	c.finish(&it.Instance, it.Status, db.StatusFailed, reason, result, now)
	c.failures = append(c.failures, failure{job: it.job, in: it.Instance})
	s.endInstance(c, it, now)
}

// timeout stops an instance's tasks and fails its attempt with TIMEOUT.
func (s *state) timeout(c *changes, it *inst) {
	s.attemptFailed(c, it, db.ReasonTimeout, fmt.Sprintf("timed out after %s", timeoutOf(it.Instance, it.job)))
}

// endInstance forgets a finished instance and re-arms a FIXED_DELAY job.
func (s *state) endInstance(c *changes, it *inst, now time.Time) {
	s.stopTasks(c, it, "the instance ended")
	delete(s.instances, it.ID)
	s.rearm(c, it.job, &it.Instance, now)
	if s.blocked[it.JobID] {
		delete(s.blocked, it.JobID)
		c.wake = true // a catch-up run waits for this one's slot
	}
}

// dropInstance forgets an instance finished elsewhere (the API stopped it).
func (s *state) dropInstance(c *changes, it *inst, why string) {
	s.stopTasks(c, it, why)
	delete(s.instances, it.ID)
	c.stoppedInDB = append(c.stoppedInDB, attemptRef{it.ID, it.Attempt})
	c.changed(it.ID)
	c.ended(&it.Instance)
	s.rearm(c, it.job, &it.Instance, db.Stamp(s.now))
}

// stopTasks cancels an instance's unfinished tasks: queued ones are
// forgotten, those on workers are stopped there.
func (s *state) stopTasks(c *changes, it *inst, why string) {
	var dropped map[*task]bool
	for i := range it.queue.Len() {
		t := it.queue.At(i)
		if t.Status != db.StatusWaiting {
			continue
		}
		t.Status = db.StatusStopped
		if !t.new {
			c.task = append(c.task, db.TaskTransition{ID: t.ID, InstanceID: t.InstanceID, From: db.StatusWaiting, To: db.StatusStopped, FinishedAt: new(db.Stamp(s.now))})
			continue
		}
		// A task created in this batch is simply not inserted, nor sent.
		t.new = false
		if dropped == nil {
			dropped = map[*task]bool{}
		}
		dropped[t] = true
	}
	it.queue.Clear()
	c.dropNew(dropped)
	s.stopDelayed(c, it)
	if it.backlog > 0 {
		c.stopWaiting = append(c.stopWaiting, attemptRef{it.ID, it.Attempt})
		c.backlog = slices.DeleteFunc(c.backlog, func(t db.Task) bool { return t.InstanceID == it.ID })
		it.backlog = 0
		delete(s.backlogged, it.ID)
	}
	byWorker := map[string][]int64{}
	for id, t := range it.onWorkers {
		t.acked = false
		wid := deref(t.WorkerID)
		byWorker[wid] = append(byWorker[wid], id)
		c.taskMove(t, db.StatusStopped, func(tt *db.TaskTransition) { tt.FinishedAt = new(db.Stamp(s.now)) })
		s.release(t)
	}
	for wid, ids := range byWorker {
		c.stops = append(c.stops, stopFrame{worker: wid, stop: protocol.Stop{InstanceID: it.ID, TaskIDs: ids, Reason: why}})
	}
	it.pending = 0
}

// rearm schedules a FIXED_DELAY job's next run after one of its scheduled
// runs ended.
func (s *state) rearm(c *changes, job *db.Job, in *db.Instance, now time.Time) {
	if job.ScheduleType != db.ScheduleFixedDelay || (in.TriggerType != db.TriggerSchedule && in.TriggerType != db.TriggerMisfire) || !job.Enabled {
		return
	}
	delay, err := time.ParseDuration(job.ScheduleExpression)
	if err != nil {
		return
	}
	c.rearms = append(c.rearms, rearm{job: job.ID, at: now.Add(delay).Truncate(time.Millisecond)})
	c.wake = true
}

// activeIDs lists the active instances, for the actor to re-read.
func (s *state) activeIDs() []int64 {
	ids := make([]int64, 0, len(s.instances))
	for id := range s.instances {
		ids = append(ids, id)
	}
	return ids
}

// refreshed applies a re-read of the active instances (ids, as read into
// list): any the API finished (stopped) is dropped and its tasks stopped on
// their workers; any deleted with its job, too.
func (s *state) refreshed(c *changes, ids []int64, list []db.Instance) {
	found := make(map[int64]bool, len(list))
	for _, in := range list {
		found[in.ID] = true
		it := s.instances[in.ID]
		if it == nil || !db.IsFinal(in.Status) {
			continue
		}
		it.Instance = in
		s.dropInstance(c, it, "the instance was "+in.Status)
	}
	for _, id := range ids {
		if !found[id] { // deleted with its job
			if it := s.instances[id]; it != nil {
				s.dropInstance(c, it, "the instance was deleted")
			}
		}
	}
}

// check fails what is overdue: instances past their timeout and tasks of
// workers gone longer than the grace period.
func (s *state) check(c *changes, now time.Time) {
	for _, it := range s.instances {
		if !it.deadline.IsZero() && now.After(it.deadline) {
			s.timeout(c, it)
		}
	}
	for id, w := range s.workers {
		if w.connected {
			continue
		}
		grace := s.cfg.LostGrace
		if w.disconnected.Sub(s.adopted) < time.Second {
			grace = s.cfg.AdoptGrace
		}
		if now.Sub(w.disconnected) < grace {
			continue
		}
		for tid := range w.running {
			if t := s.tasks[tid]; t != nil {
				s.taskFailed(c, t, db.ReasonWorkerLost, fmt.Sprintf("worker %s disconnected and did not come back", orDefault(w.Host, id)))
			}
		}
		if len(w.running) == 0 {
			delete(s.workers, id)
		}
	}
}
