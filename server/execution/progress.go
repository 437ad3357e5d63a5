package execution

import (
	"fmt"
	"slices"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/dispatch"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// fire dispatches WAITING instances whose time has come.
func (a *app) fire(c *changes, fires []firing) error {
	ids := make([]int64, len(fires))
	firedAt := make(map[int64]time.Time, len(fires))
	for i, f := range fires {
		ids[i] = f.id
		firedAt[f.id] = f.at
	}
	list, err := a.e.db.InstancesByIDs(a.ctx, ids)
	if err != nil {
		return err
	}
	// Oldest first: when a limit lets only some run, the earliest fires do.
	slices.SortFunc(list, func(x, y db.Instance) int { return x.TriggerAt.Compare(y.TriggerAt) })
	jobIDs := make([]int64, 0, len(list))
	for _, in := range list {
		jobIDs = append(jobIDs, in.JobID)
	}
	jobs, err := a.loadJobs(a.ctx, jobIDs)
	if err != nil {
		return err
	}
	active := map[int64]int{}
	for _, it := range a.instances {
		active[it.JobID]++
	}
	for _, in := range list {
		job := jobs[in.JobID]
		if in.Status != db.StatusWaiting || in.AppID != a.id || job == nil {
			continue // already fired (a duplicate wheel entry), or deleted
		}
		// The trigger time is when the wheel fired it; what follows here is
		// dispatch.
		now := firedAt[in.ID]
		if now.IsZero() {
			now = a.e.now()
		}
		from := in.Status
		switch {
		case !job.Enabled && (in.TriggerType == TriggerSchedule || in.TriggerType == TriggerMisfire):
			c.finish(&in, from, db.StatusCanceled, ReasonJobDisabled, "the job was disabled before this fire", now)
			c.inst[len(c.inst)-1].ActualTriggerAt = &now
			continue
		case active[job.ID] >= job.MaxInstances && in.TriggerType == TriggerMisfire && now.Sub(a.adopted) < misfireHold:
			// A run the misfire policy owes, typically right after a
			// take-over while adopted runs still await their workers'
			// reports: it waits for the limit rather than be cancelled.
			a.blocked[job.ID] = true
			continue
		case active[job.ID] >= job.MaxInstances:
			c.finish(&in, from, db.StatusCanceled, ReasonMaxInstances,
				fmt.Sprintf("%d instance(s) of the job already running (maxInstances %d)", active[job.ID], job.MaxInstances), now)
			c.inst[len(c.inst)-1].ActualTriggerAt = &now
			a.rearm(c, job, &in, now)
			continue
		}
		req := dispatch.FromJob(job)
		eligible := req.Eligible(a.connected())
		if len(eligible) == 0 {
			since := in.TriggerAt
			if a.adopted.After(since) {
				since = a.adopted
			}
			if now.Sub(since) < a.e.cfg.NoWorkerWait {
				// Stays WAITING: the trigger loop fires it again at its next
				// pass, and at once when a worker joins.
				continue
			}
			why := req.Explain(a.name, a.connected())
			c.finish(&in, from, db.StatusFailed, ReasonNoWorker, why, now)
			c.inst[len(c.inst)-1].ActualTriggerAt = &now
			c.attempt(in.ID, in.Attempt, db.StatusFailed, nil, why, ReasonNoWorker, &now, &now)
			c.failures = append(c.failures, failure{job: job, in: in})
			a.rearm(c, job, &in, now)
			continue
		}
		active[job.ID]++
		in.Status = db.StatusDispatched
		in.ActualTriggerAt = &now
		in.Epoch = a.epoch
		c.inst = append(c.inst, db.InstanceTransition{ID: in.ID, From: from, To: db.StatusDispatched, ActualTriggerAt: &now, Epoch: &a.epoch})
		it := &inst{Instance: in, job: job, used: map[string]int{}}
		it.deadline = deadlineOf(in, job)
		a.instances[in.ID] = it
		c.changed(in.ID)
		switch job.ExecutionMode {
		case "BROADCAST":
			it.stage = stagePre
			n := len(eligible)
			if m := job.WorkerFilter.MaxWorkers; m > 0 && m < n {
				n = m
			}
			for _, w := range eligible[:n] {
				it.targets = append(it.targets, w.ID)
			}
			a.newTask(c, it, protocol.KindPre, "PRE", "", nil, "")
		default:
			a.newTask(c, it, protocol.KindRoot, "ROOT", "", nil, "")
		}
	}
	return nil
}

// Trigger types recorded on instances.
const (
	TriggerSchedule = "SCHEDULE"
	TriggerMisfire  = "MISFIRE"
	TriggerAPI      = "API"
	TriggerWorkflow = "WORKFLOW"
)

func (a *app) connected() []*dispatch.Worker {
	out := make([]*dispatch.Worker, 0, len(a.workers))
	for _, w := range a.workers {
		if w.connected {
			out = append(out, &w.Worker)
		}
	}
	return out
}

// newTask creates a task of an instance's current attempt and queues it.
func (a *app) newTask(c *changes, it *inst, kind, name, payload string, parent *int64, pinned string) *task {
	t := &task{Task: db.Task{InstanceID: it.ID, ParentID: parent, Name: name, Kind: kind, Status: db.StatusWaiting,
		Payload: payload, InstanceAttempt: it.Attempt}, inst: it, pinned: pinned, new: true}
	it.pending++
	a.queue = append(a.queue, t)
	c.newTasks = append(c.newTasks, t)
	return t
}

// instanceRunning moves a DISPATCHED instance to RUNNING when its first
// task starts.
func (a *app) instanceRunning(c *changes, it *inst, workerID string, at time.Time) {
	if it.Status != db.StatusDispatched {
		return
	}
	it.Status = db.StatusRunning
	it.StartedAt = &at
	c.inst = append(c.inst, db.InstanceTransition{ID: it.ID, From: db.StatusDispatched, To: db.StatusRunning, StartedAt: &at, WorkerID: &workerID})
	c.attempt(it.ID, it.Attempt, db.StatusRunning, &workerID, "", "", &at, nil)
	c.changed(it.ID)
}

// taskFinished records a task's end and moves its instance on.
func (a *app) taskFinished(c *changes, t *task, status, result string, wfContext map[string]any) {
	it := t.inst
	now := a.e.now()
	result = protocol.Truncate(result, protocol.MaxResultBytes)
	c.taskMove(t, status, func(tt *db.TaskTransition) { tt.Result = &result; tt.FinishedAt = &now })
	a.release(t)
	if status == db.StatusSucceeded {
		it.succeeded++
	} else {
		it.failed++
	}
	if wfContext != nil {
		c.wfContext[it.ID] = wfContext
	}
	a.afterTask(c, t, status, result)
}

// taskFailed retries a failed task if the job allows, else finishes it.
func (a *app) taskFailed(c *changes, t *task, reason, result string) {
	it := t.inst
	retryable := reason != ReasonStopped && t.Retries < it.job.TaskRetries && t.pinned == "" && t.Kind != protocol.KindBroadcast
	if !retryable {
		status := db.StatusFailed
		if reason == ReasonStopped {
			status = db.StatusStopped
		}
		t.reason = reason
		a.taskFinished(c, t, status, result, nil)
		return
	}
	from := t.Status
	retries := t.Retries + 1
	c.task = append(c.task, db.TaskTransition{ID: t.ID, From: from, To: db.StatusWaiting, Retries: &retries, Result: &result})
	a.release(t)
	t.Status = db.StatusWaiting
	t.Retries = retries
	t.WorkerID = nil
	t.acked = false
	a.queue = append(a.queue, t)
	a.e.log.Info("execution: retrying task", "instance", it.ID, "task", t.ID, "retry", retries, "reason", reason, "result", result)
}

// release frees the task's worker slot.
func (a *app) release(t *task) {
	wid := deref(t.WorkerID)
	if w := a.workers[wid]; w != nil && w.running[t.ID] {
		delete(w.running, t.ID)
		w.Busy--
		if !w.connected && len(w.running) == 0 {
			delete(a.workers, wid)
		}
	}
	if t.inst.used[wid] > 0 {
		t.inst.used[wid]--
	}
	delete(a.tasks, t.ID)
}

// afterTask moves an instance on once a task of it finished.
func (a *app) afterTask(c *changes, t *task, status, result string) {
	it := t.inst
	it.pending--
	if a.instances[it.ID] != it {
		return // the instance already ended
	}
	switch t.Kind {
	case protocol.KindRoot:
		if it.job.ExecutionMode == "STANDALONE" {
			if status == db.StatusSucceeded {
				a.succeed(c, it, result)
			} else {
				a.attemptFailed(c, it, orDefault(t.reason, ReasonFailed), result)
			}
			return
		}
		if status != db.StatusSucceeded {
			// The root of a map failed: its subtasks cannot be trusted.
			a.attemptFailed(c, it, orDefault(t.reason, ReasonFailed), "the root task failed: "+result)
			return
		}
	case protocol.KindPre:
		if status != db.StatusSucceeded {
			a.attemptFailed(c, it, orDefault(t.reason, ReasonFailed), "pre-process failed: "+result)
			return
		}
	case protocol.KindPost, protocol.KindReduce:
		if status == db.StatusSucceeded {
			a.succeed(c, it, result)
		} else {
			a.attemptFailed(c, it, orDefault(t.reason, ReasonFailed), result)
		}
		return
	}
	if it.pending == 0 {
		a.progress(c, it)
	}
}

// progress starts an instance's next stage, or ends it, once nothing of
// the current stage is pending.
func (a *app) progress(c *changes, it *inst) {
	if it.pending > 0 {
		return
	}
	switch it.job.ExecutionMode {
	case "BROADCAST":
		switch it.stage {
		case stagePre:
			var live []string
			for _, wid := range it.targets {
				if w := a.workers[wid]; w != nil && w.connected {
					live = append(live, wid)
				}
			}
			if len(live) == 0 {
				// Chosen at fire time; adopted instances choose again.
				req := dispatch.FromJob(it.job)
				for _, w := range req.Eligible(a.connected()) {
					live = append(live, w.ID)
				}
			}
			if len(live) == 0 {
				a.attemptFailed(c, it, ReasonNoWorker, dispatch.FromJob(it.job).Explain(a.name, a.connected()))
				return
			}
			it.stage = stageBcast
			for _, wid := range live {
				a.newTask(c, it, protocol.KindBroadcast, "BROADCAST", "", nil, wid)
			}
		case stageBcast:
			it.stage = stagePost
			a.newTask(c, it, protocol.KindPost, "POST", "", nil, "")
		}
	case "MAP", "MAP_REDUCE":
		if it.failed > 0 {
			a.attemptFailed(c, it, ReasonFailed, fmt.Sprintf("%d of %d tasks failed", it.failed, it.failed+it.succeeded))
			return
		}
		if it.job.ExecutionMode == "MAP_REDUCE" && it.stage != stageReduce {
			it.stage = stageReduce
			a.newTask(c, it, protocol.KindReduce, "REDUCE", "", nil, "")
			return
		}
		a.succeed(c, it, fmt.Sprintf("%d tasks succeeded", it.succeeded))
	}
}

// succeed ends an instance successfully.
func (a *app) succeed(c *changes, it *inst, result string) {
	now := a.e.now()
	c.finish(&it.Instance, it.Status, db.StatusSucceeded, "", result, now)
	c.attempt(it.ID, it.Attempt, db.StatusSucceeded, nil, result, "", nil, &now)
	a.endInstance(c, it, now)
}

// attemptFailed retries the instance if attempts remain, else fails it.
func (a *app) attemptFailed(c *changes, it *inst, reason, result string) {
	now := a.e.now()
	c.attempt(it.ID, it.Attempt, db.StatusFailed, nil, result, reason, nil, &now)
	a.stopTasks(c, it, "the instance attempt ended: "+reason)
	if it.Attempt <= it.job.InstanceRetries {
		c.retries = append(c.retries, retry{id: it.ID, from: it.Status, attempt: it.Attempt + 1, at: now.Add(a.e.cfg.RetryDelay), reason: reason})
		delete(a.instances, it.ID)
		c.changed(it.ID)
		c.wake = true
		a.e.log.Info("execution: retrying instance", "instance", it.ID, "attempt", it.Attempt+1, "reason", reason, "result", result)
		return
	}
	c.finish(&it.Instance, it.Status, db.StatusFailed, reason, result, now)
	c.failures = append(c.failures, failure{job: it.job, in: it.Instance})
	a.endInstance(c, it, now)
}

// timeout stops an instance's tasks and fails its attempt with TIMEOUT.
func (a *app) timeout(c *changes, it *inst) {
	a.attemptFailed(c, it, ReasonTimeout, fmt.Sprintf("timed out after %s", time.Duration(it.job.TimeoutMs)*time.Millisecond))
}

// endInstance forgets a finished instance and re-arms a FIXED_DELAY job.
func (a *app) endInstance(c *changes, it *inst, now time.Time) {
	a.stopTasks(c, it, "the instance ended")
	delete(a.instances, it.ID)
	a.rearm(c, it.job, &it.Instance, now)
	if a.blocked[it.JobID] {
		delete(a.blocked, it.JobID)
		c.wake = true // a catch-up run waits for this one's slot
	}
}

// misfireHold is how long after a take-over a catch-up run may wait for
// its job's maxInstances to allow it.
const misfireHold = time.Minute

// dropInstance forgets an instance finished elsewhere (the API stopped it).
func (a *app) dropInstance(c *changes, it *inst, why string) {
	a.stopTasks(c, it, why)
	delete(a.instances, it.ID)
	c.stoppedInDB = append(c.stoppedInDB, it.ID)
	c.changed(it.ID)
	a.rearm(c, it.job, &it.Instance, a.e.now())
}

// stopTasks cancels an instance's unfinished tasks: queued ones are
// forgotten, those on workers are stopped there.
func (a *app) stopTasks(c *changes, it *inst, why string) {
	kept := a.queue[:0]
	for _, t := range a.queue {
		if t.inst == it {
			if !t.new {
				c.task = append(c.task, db.TaskTransition{ID: t.ID, From: db.StatusWaiting, To: db.StatusStopped, FinishedAt: ptr(a.e.now())})
			}
			t.new = false // a task created in this batch is simply not inserted
			c.dropNew(t)
			continue
		}
		kept = append(kept, t)
	}
	a.queue = kept
	byWorker := map[string][]int64{}
	for id, t := range a.tasks {
		if t.inst != it {
			continue
		}
		t.acked = false
		wid := deref(t.WorkerID)
		byWorker[wid] = append(byWorker[wid], id)
		c.taskMove(t, db.StatusStopped, func(tt *db.TaskTransition) { tt.FinishedAt = ptr(a.e.now()) })
		a.release(t)
	}
	for wid, ids := range byWorker {
		c.stops = append(c.stops, stopFrame{worker: wid, stop: protocol.Stop{InstanceID: it.ID, TaskIDs: ids, Reason: why}})
	}
	it.pending = 0
}

// rearm schedules a FIXED_DELAY job's next run after one of its scheduled
// runs ended.
func (a *app) rearm(c *changes, job *db.Job, in *db.Instance, now time.Time) {
	if job.ScheduleType != "FIXED_DELAY" || (in.TriggerType != TriggerSchedule && in.TriggerType != TriggerMisfire) || !job.Enabled {
		return
	}
	delay, err := time.ParseDuration(job.ScheduleExpression)
	if err != nil {
		return
	}
	c.rearms = append(c.rearms, rearm{job: job.ID, at: now.Add(delay).Truncate(time.Millisecond)})
	c.wake = true
}
