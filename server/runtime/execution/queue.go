package execution

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// This file is what a job's overlap policy does with a fire over its
// maxInstances (docs/design.md §5.5): QUEUE holds it in the job's queue —
// durably, the instance WAITING with reason QUEUED, which the trigger
// loop leaves alone — and starts the oldest held fire as soon as a running
// instance ends; REPLACE stops the oldest running instance and starts the
// new fire; CANCEL (fire.go) records it CANCELED. The queue in memory is a
// cache of the database: an owner that takes the app over reloads it
// (loadQueues), and every start is the WAITING → DISPATCHED
// compare-and-set of any fire, so a held fire never runs twice.

// jobQueue holds the fires of one QUEUE job waiting for a running
// instance of it to end.
type jobQueue struct {
	job *db.Job
	// items are WAITING instances marked QUEUED, in fire order (trigger
	// time, then id).
	items []db.Instance
	// headSince is when the head of the queue first could start but no
	// worker qualified: NO_WORKER counts from then, not from its fire.
	headSince time.Time
}

// fireOrder orders fires by trigger time, then id.
func fireOrder(a, b db.Instance) int {
	if c := a.TriggerAt.Compare(b.TriggerAt); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// hold puts a fire of a QUEUE job in the job's queue, or cancels it with
// reason QUEUE_FULL when maxQueued fires wait already.
func (s *state) hold(c *changes, in *db.Instance, job *db.Job, now time.Time) {
	q := s.queues[job.ID]
	n := 0
	if q != nil {
		n = len(q.items)
	}
	if n >= job.MaxQueued {
		c.finish(in, in.Status, db.StatusCanceled, db.ReasonQueueFull, fmt.Sprintf(
			"the job's queue is full: %d fire(s) already wait for a running instance to end (maxQueued %d, maxInstances %d)",
			n, job.MaxQueued, job.MaxInstances), now)
		c.inst[len(c.inst)-1].ActualTriggerAt = &now
		s.rearm(c, job, in, now)
		return
	}
	if q == nil {
		q = &jobQueue{}
		s.queues[job.ID] = q
	}
	q.job = job
	reason := db.ReasonQueued
	result := fmt.Sprintf("queued: waits for a running instance of the job to end (overlap policy QUEUE, maxInstances %d)", job.MaxInstances)
	in.Reason, in.Result = reason, result
	c.inst = append(c.inst, db.InstanceTransition{ID: in.ID, From: db.StatusWaiting, To: db.StatusWaiting, Reason: &reason, Result: &result})
	c.changed(in.ID)
	i, _ := slices.BinarySearchFunc(q.items, *in, fireOrder)
	if i == 0 {
		q.headSince = time.Time{}
	}
	q.items = slices.Insert(q.items, i, *in)
	s.queuedIDs[in.ID] = job.ID
}

// promote starts held fires, oldest first, while their jobs' limits allow.
// It runs after every batch's other decisions, so a held fire starts in
// the batch in which a running instance ended.
func (s *state) promote(c *changes) {
	if len(s.queues) == 0 {
		return
	}
	active := s.activeByJob()
	now := db.Stamp(s.now)
	for jobID, q := range s.queues {
		for len(q.items) > 0 && active[jobID] < q.job.MaxInstances {
			in := q.items[0]
			if q.headSince.IsZero() {
				q.headSince = now
			}
			since := q.headSince
			if s.adopted.After(since) {
				since = s.adopted
			}
			outcome := admitEnded
			if !s.disabled(c, &in, q.job, now) {
				outcome = s.admit(c, &in, q.job, now, since)
			}
			if outcome == admitWaits {
				break // no worker yet: the queue waits behind its head
			}
			q.items = slices.Delete(q.items, 0, 1)
			q.headSince = time.Time{}
			delete(s.queuedIDs, in.ID)
			if outcome == admitStarted || outcome == admitHeld {
				active[jobID]++ // started, or moved to its pool's queue
			}
		}
		if len(q.items) == 0 {
			delete(s.queues, jobID)
		}
	}
}

// activeByJob counts the active instances per job that its maxInstances
// bounds (a workflow node's instance is its workflow's to bound), and
// those waiting in a pool's queue.
func (s *state) activeByJob() map[int64]int {
	active := map[int64]int{}
	for _, it := range s.instances {
		if it.TriggerType != db.TriggerWorkflow {
			active[it.JobID]++
		}
	}
	s.poolHeldByJob(active)
	return active
}

// unqueue forgets held fires that are no longer WAITING in a queue (the
// API stopped one, its job was deleted, a compare-and-set lost).
func (s *state) unqueue(ids []int64) {
	for _, id := range ids {
		jobID, ok := s.queuedIDs[id]
		if !ok {
			continue
		}
		delete(s.queuedIDs, id)
		if q := s.queues[jobID]; q != nil {
			q.items = slices.DeleteFunc(q.items, func(in db.Instance) bool { return in.ID == id })
			if len(q.items) == 0 {
				delete(s.queues, jobID)
			}
		}
	}
}

// queuedList lists the held fires, for the actor to re-read.
func (s *state) queuedList() []int64 {
	ids := make([]int64, 0, len(s.queuedIDs))
	for id := range s.queuedIDs {
		ids = append(ids, id)
	}
	return ids
}

// queueRefreshed applies a re-read of held fires: one that is no longer
// WAITING in its queue (stopped through the API, deleted with its job)
// leaves the queue.
func (s *state) queueRefreshed(ids []int64, list []db.Instance) {
	held := make(map[int64]bool, len(list))
	for _, in := range list {
		if in.Status == db.StatusWaiting && in.Reason == db.ReasonQueued {
			held[in.ID] = true
		}
	}
	var gone []int64
	for _, id := range ids {
		if !held[id] {
			gone = append(gone, id)
		}
	}
	s.unqueue(gone)
}

// queueJobs are the jobs with held fires.
func (s *state) queueJobs() []int64 {
	ids := make([]int64, 0, len(s.queues))
	for id := range s.queues {
		ids = append(ids, id)
	}
	return ids
}

// queueJobsRead brings the queues' job definitions up to date (a changed
// maxInstances applies to the held fires); a queue whose job is gone is
// dropped (its instances went with it).
func (s *state) queueJobsRead(jobs map[int64]*db.Job) {
	for id, q := range s.queues {
		j := jobs[id]
		if j == nil {
			for _, in := range q.items {
				delete(s.queuedIDs, in.ID)
			}
			delete(s.queues, id)
			continue
		}
		q.job = j
	}
}

// requeue replaces the queues with the held fires read from the database
// (list, in fire order), on taking the app over.
func (s *state) requeue(list []db.Instance, jobs map[int64]*db.Job) {
	s.queues = map[int64]*jobQueue{}
	s.queuedIDs = map[int64]int64{}
	for _, in := range list {
		job := jobs[in.JobID]
		if job == nil {
			continue
		}
		q := s.queues[in.JobID]
		if q == nil {
			q = &jobQueue{job: job}
			s.queues[in.JobID] = q
		}
		q.items = append(q.items, in)
		s.queuedIDs[in.ID] = in.JobID
	}
	for _, q := range s.queues {
		slices.SortFunc(q.items, fireOrder)
	}
}

// replace stops the oldest active instance of a REPLACE job for the fire
// newID: STOPPED with reason REPLACED, its tasks stopped on their workers
// (a stop frame: the worker ends the process). It says whether there was
// one to stop.
func (s *state) replace(c *changes, job *db.Job, newID int64, now time.Time) bool {
	var oldest *inst
	for _, it := range s.instances {
		if it.JobID != job.ID || it.TriggerType == db.TriggerWorkflow {
			continue
		}
		if oldest == nil || startedBefore(it, oldest) {
			oldest = it
		}
	}
	if oldest == nil {
		return false
	}
	why := fmt.Sprintf("replaced by instance %d (overlap policy REPLACE, maxInstances %d)", newID, job.MaxInstances)
	s.stopTasks(c, oldest, why)
	c.attemptEnded(&oldest.Instance, db.StatusStopped, why, db.ReasonReplaced, now)
	c.finish(&oldest.Instance, oldest.Status, db.StatusStopped, db.ReasonReplaced, why, now)
	s.endInstance(c, oldest, now)
	s.log.Info("execution: replaced the oldest running instance (overlap policy REPLACE)", "job", job.ID, "stopped", oldest.ID, "by", newID)
	return true
}

// startedBefore orders active instances by when they were fired, then id.
func startedBefore(a, b *inst) bool {
	at, bt := deref(a.ActualTriggerAt), deref(b.ActualTriggerAt)
	if !at.Equal(bt) {
		return at.Before(bt)
	}
	return a.ID < b.ID
}
