package execution

import (
	"fmt"
	"slices"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/runtime/dispatch"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// This file is where a fire becomes a task: the trigger loop's wheel fired
// WAITING instances (package trigger), the actor read them and their jobs,
// and fire decides, per instance, whether it runs now (DISPATCHED, with its
// first task queued for assign.go to give a worker slot), waits (no worker
// yet, a catch-up run held for a slot, or a fire held in its job's queue,
// queue.go), or ends (CANCELED or FAILED, with the reason).

// misfireHold is how long after a take-over a catch-up run may wait for
// its job's maxInstances to allow it.
const misfireHold = time.Minute

// fire handles fired instances. loaded are the fired instances as read at
// the start of the batch, jobs their jobs.
func (s *state) fire(c *changes, fires []firing, loaded []db.Instance, jobs map[int64]*db.Job) {
	firedAt := make(map[int64]time.Time, len(fires))
	for _, f := range fires {
		firedAt[f.id] = f.at
	}
	// Oldest first: when a limit lets only some run, the earliest fires do.
	list := slices.Clone(loaded)
	slices.SortFunc(list, func(x, y db.Instance) int { return x.TriggerAt.Compare(y.TriggerAt) })
	// A job's maxInstances bounds its own runs; a workflow node's instance
	// is the workflow's to bound (its maxInstances), and neither counts
	// against nor waits for the other.
	active := s.activeByJob()
	for _, in := range list {
		job := jobs[in.JobID]
		if _, active := s.instances[in.ID]; active || in.Status != db.StatusWaiting || in.AppID != s.app || job == nil {
			continue // already fired (a duplicate wheel entry), or deleted
		}
		if _, held := s.queuedIDs[in.ID]; held {
			continue // it waits in its job's queue; promote starts it
		}
		if _, held := s.pooledIDs[in.ID]; held {
			continue // it waits in its pool's queue; promotePools starts it
		}
		// The trigger time is when the wheel fired it; what follows here is
		// dispatch.
		now := firedAt[in.ID]
		if now.IsZero() {
			now = s.now
		}
		if s.ahead(&in) {
			// Handed over before its time: dispatched now to start then,
			// if it certainly runs; else decided at its time (ahead.go).
			if !s.startsAhead(&in, job, active) {
				s.deferFire(c, in)
				continue
			}
			now = in.TriggerAt
		}
		now = db.Stamp(now)
		if s.disabled(c, &in, job, now) {
			continue
		}
		limited := in.TriggerType != db.TriggerWorkflow
		if limited {
			over := active[job.ID] >= job.MaxInstances
			switch {
			case job.OverlapPolicy == db.OverlapQueue && (over || s.queues[job.ID] != nil):
				// Over the limit, or behind fires already waiting: it
				// waits its turn, in fire order.
				s.hold(c, &in, job, now)
				continue
			case over && in.TriggerType == db.TriggerMisfire && now.Sub(s.adopted) < misfireHold:
				// A run the misfire policy owes, typically right after a
				// take-over while adopted runs still await their workers'
				// reports: it waits for the limit rather than be cancelled
				// (or replace one of them).
				s.blocked[job.ID] = true
				c.waiting = append(c.waiting, in.ID)
				continue
			case over && job.OverlapPolicy == db.OverlapReplace:
				// Only for a fire that can run now: one waiting for a
				// worker replaces nothing yet.
				if len(dispatch.FromJob(job).Eligible(s.connected())) > 0 && (s.replace(c, job, in.ID, now) || s.replacePooled(c, job, in.ID, now)) {
					active[job.ID]--
				}
			case over:
				c.finish(&in, in.Status, db.StatusCanceled, db.ReasonMaxInstances,
					fmt.Sprintf("%d instance(s) of the job already running (maxInstances %d)", active[job.ID], job.MaxInstances), now)
				c.inst[len(c.inst)-1].ActualTriggerAt = &now
				s.rearm(c, job, &in, now)
				continue
			}
		}
		since := in.TriggerAt
		if s.adopted.After(since) {
			since = s.adopted
		}
		outcome := s.admit(c, &in, job, now, since)
		if (outcome == admitStarted || outcome == admitHeld) && limited {
			active[job.ID]++
		}
		if outcome == admitWaits {
			c.waiting = append(c.waiting, in.ID)
		}
	}
}

// disabled cancels a scheduled fire of a disabled job (runJob runs a
// disabled job; a workflow decides for its nodes) and says so.
func (s *state) disabled(c *changes, in *db.Instance, job *db.Job, now time.Time) bool {
	scheduled := in.TriggerType == db.TriggerSchedule || in.TriggerType == db.TriggerMisfire
	if job.Enabled || !scheduled {
		return false
	}
	c.finish(in, in.Status, db.StatusCanceled, db.ReasonJobDisabled, "the job was disabled before this fire", now)
	c.inst[len(c.inst)-1].ActualTriggerAt = &now
	return true
}

// admitted is what admit did with a fire.
type admitted int

const (
	admitStarted admitted = iota // DISPATCHED, its first task queued
	admitWaits                   // still WAITING for a worker that qualifies
	admitEnded                   // FAILED with NO_WORKER (or canceled before)
	admitHeld                    // WAITING in its pool's queue (pools.go)
)

// admit starts a fire its job's limits let run: DISPATCHED, with its first
// task queued for assign. While no connected worker qualifies, it stays
// WAITING for up to NoWorkerWait from since (the trigger loop fires it
// again at its next pass, and at once when a worker joins), then fails
// with NO_WORKER.
func (s *state) admit(c *changes, in *db.Instance, job *db.Job, now, since time.Time) admitted {
	switch s.poolGateOf(c, in, job, now) {
	case poolHeld:
		return admitHeld
	case poolEnded:
		return admitEnded
	case poolUnknown:
		return admitWaits
	}
	from := in.Status
	req := dispatch.FromJob(job)
	eligible := req.Eligible(s.connected())
	if len(eligible) == 0 {
		s.noWorker(c, in.ID, req, now)
		if now.Sub(since) < s.cfg.NoWorkerWait {
			// Stays WAITING: the trigger loop fires it again at its next
			// pass, and at once when a worker joins.
			return admitWaits
		}
		why := req.Explain(s.name, s.connected())
		c.finish(in, from, db.StatusFailed, db.ReasonNoWorker, why, now)
		c.inst[len(c.inst)-1].ActualTriggerAt = &now
		c.attempt(in.ID, in.Attempt, db.StatusFailed, nil, why, db.ReasonNoWorker, &now, &now)
		c.failures = append(c.failures, failure{job: job, in: *in})
		s.rearm(c, job, in, now)
		return admitEnded
	}
	tr := db.InstanceTransition{ID: in.ID, From: from, To: db.StatusDispatched, ActualTriggerAt: &now, Epoch: &s.epoch}
	if in.Reason == db.ReasonQueued || in.Reason == db.ReasonPoolFull {
		// Out of its job's or pool's queue: the marker goes.
		tr.Reason, tr.Result = new(""), new("")
		in.Reason, in.Result = "", ""
	}
	in.Status = db.StatusDispatched
	in.ActualTriggerAt = &now
	in.Epoch = s.epoch
	c.inst = append(c.inst, tr)
	it := newInst(*in, job)
	s.instances[in.ID] = it
	s.poolTaken(in)
	if job.Alarm.Watches(db.AlarmStartLate) {
		c.started = append(c.started, failure{job: job, in: *in})
	}
	c.changed(in.ID)
	switch job.ExecutionMode {
	case db.ModeBroadcast:
		it.stage = stagePre
		n := len(eligible)
		if m := job.WorkerFilter.MaxWorkers; m > 0 && m < n {
			n = m
		}
		for _, w := range eligible[:n] {
			it.targets = append(it.targets, w.ID)
		}
		s.newTask(c, it, protocol.KindPre, "PRE", "", nil, "")
	default:
		s.newTask(c, it, protocol.KindRoot, "ROOT", "", nil, "")
	}
	return admitStarted
}

// newTask creates a task of an instance's current attempt and queues it.
func (s *state) newTask(c *changes, it *inst, kind, name, payload string, parent *int64, pinned string) *task {
	t := &task{Task: db.Task{InstanceID: it.ID, ParentID: parent, Name: name, Kind: kind, Status: db.StatusWaiting,
		Payload: payload, InstanceAttempt: it.Attempt}, inst: it, pinned: pinned, new: true}
	it.pending++
	s.enqueue(t)
	c.newTasks = append(c.newTasks, t)
	return t
}

// unfire forgets fires whose WAITING → DISPATCHED did not apply because the
// instance had moved meanwhile (canceled through the API, by a misfire
// policy, or taken by another owner): their first tasks were not created,
// so they are neither sent nor counted against their workers. The next
// batch re-reads what the instance became.
func (s *state) unfire(c *changes, lost map[int64]bool) {
	if len(lost) == 0 {
		return
	}
	for wid, list := range c.dispatch {
		c.dispatch[wid] = slices.DeleteFunc(list, func(t *task) bool {
			if !lost[t.inst.ID] {
				return false
			}
			if w := s.workers[wid]; w != nil {
				w.Busy--
			}
			return true
		})
	}
	c.newTasks = slices.DeleteFunc(c.newTasks, func(t *task) bool { return lost[t.inst.ID] })
	for id := range lost {
		if it := s.instances[id]; it != nil {
			it.queue.Clear()
			delete(s.instances, id)
		}
	}
}
