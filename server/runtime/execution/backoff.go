package execution

import (
	"math"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// This file is the retry back-off (docs/design.md §6.5): how long a
// failed instance attempt or task waits before it runs again, and the
// tasks held until then. An instance's next attempt is due at its row's
// trigger time (the trigger loop fires it then); a task's at its row's
// not_before, which the actor's timer wakes (Actor.run). Both are in the
// database, so an owner that takes the app over keeps the wait.

// MaxRetryDelay bounds every retry delay, whatever the job says.
const MaxRetryDelay = 24 * time.Hour

// jitterShare is the most a delay is lengthened at random, so that
// instances failing together do not all retry at the same moment. Only
// lengthened: a delay is never shorter than the job asks.
const jitterShare = 0.1

// retryDelay is how long the n-th retry (n from 1) of an instance or a
// task waits: the job's retryDelayMs times retryBackoff^(n-1), lengthened
// by jitter (from 0 to 1) × 10 %, at most retryDelayMaxMs (0:
// MaxRetryDelay). A job without retryDelayMs keeps the old timing, def
// every time (1 s for an instance, none for a task).
func retryDelay(job *db.Job, n int, def time.Duration, jitter float64) time.Duration {
	base := time.Duration(job.RetryDelayMs) * time.Millisecond
	if base <= 0 {
		return max(def, 0)
	}
	limit := MaxRetryDelay
	if job.RetryDelayMaxMs > 0 {
		limit = min(time.Duration(job.RetryDelayMaxMs)*time.Millisecond, MaxRetryDelay)
	}
	f := float64(base) * math.Pow(max(job.RetryBackoff, 1), float64(max(n-1, 0)))
	f *= 1 + jitterShare*min(max(jitter, 0), 1)
	if math.IsNaN(f) || f >= float64(limit) {
		return limit
	}
	// Whole milliseconds, as times are stored; never below the base.
	return max(time.Duration(f).Truncate(time.Millisecond), min(base, limit))
}

// delayTask holds a WAITING task until its NotBefore.
func (s *state) delayTask(t *task) {
	it := t.inst
	it.delayed = append(it.delayed, t)
	s.delayed[it.ID] = it
}

// wakeDelayed queues the held tasks whose time has come.
func (s *state) wakeDelayed() {
	for id, it := range s.delayed {
		if s.instances[id] != it {
			delete(s.delayed, id) // ended, or re-read from the database
			continue
		}
		kept := it.delayed[:0]
		var due []*task
		for _, t := range it.delayed {
			switch {
			case t.Status != db.StatusWaiting || t.inst != it:
				// stopped meanwhile
			case t.NotBefore != nil && t.NotBefore.After(s.now):
				kept = append(kept, t)
			default:
				due = append(due, t)
			}
		}
		clear(it.delayed[len(kept):])
		it.delayed = kept
		if len(kept) == 0 {
			delete(s.delayed, id)
		}
		for _, t := range due {
			t.NotBefore = nil
			s.enqueue(t)
		}
	}
}

// nextDelayed is when the earliest held task is due; zero if none is held.
func (s *state) nextDelayed() time.Time {
	var next time.Time
	for id, it := range s.delayed {
		if s.instances[id] != it {
			continue
		}
		for _, t := range it.delayed {
			if t.NotBefore != nil && (next.IsZero() || t.NotBefore.Before(next)) {
				next = *t.NotBefore
			}
		}
	}
	return next
}

// stopDelayed stops an instance's held tasks (its attempt ended).
func (s *state) stopDelayed(c *changes, it *inst) {
	for _, t := range it.delayed {
		if t.Status != db.StatusWaiting {
			continue
		}
		t.Status = db.StatusStopped
		c.task = append(c.task, db.TaskTransition{ID: t.ID, InstanceID: t.InstanceID, From: db.StatusWaiting, To: db.StatusStopped, FinishedAt: new(db.Stamp(s.now))})
	}
	it.delayed = nil
	delete(s.delayed, it.ID)
}
