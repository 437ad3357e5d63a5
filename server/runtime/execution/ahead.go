package execution

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/runtime/dispatch"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// Dispatch ahead (design.md §5.10). The trigger loop may hand a scheduled
// fire over before its time (trigger.Config.DispatchAhead). Committing a
// second's burst of fires takes the database a while — ~100 ms for 1,000
// here — and done at the fire time it made the last task of the burst start
// that late. Handed over early, a fire that can run is committed DISPATCHED
// ahead and sent with its time (protocol feature start.at): the worker
// holds the task and starts it then by its own clock, however big the
// burst. A held task is a task on its worker like a running one — it is in
// the worker's running lists, so a new owner adopts it — and until it
// starts the server can still stop it (the instance stopped, the job
// disabled: an ordinary stop) or take it back (the job changed: a stop
// with Unstarted, which the worker answers by handing it back, and the
// task is sent again with the job as it now is).
//
// Only what will certainly run is dispatched ahead; anything else waits
// for its time and is decided then as every fire is (deferred): a fire of
// a job at its maxInstances, queued, pooled or of another execution mode,
// one no worker with the feature has room for, or one that would go to a
// worker without it.

// deferredFire is a fire handed over ahead that waits for its time.
type deferredFire struct {
	in  db.Instance
	due time.Time
}

// ahead says whether a fire was handed over before its time.
func (s *state) ahead(in *db.Instance) bool {
	return in.TriggerType == db.TriggerSchedule && in.TriggerAt.After(s.now)
}

// startsAhead says whether a fire handed over ahead is dispatched now, to
// start at its time: it would start at its time anyway — its job enabled
// and under its limits, nothing queued before it — and every worker it may
// go to holds tasks until their time, one of them with a free slot.
func (s *state) startsAhead(in *db.Instance, job *db.Job, active map[int64]int) bool {
	if !job.Enabled || job.ExecutionMode != db.ModeStandalone || job.Pool != "" ||
		s.blocked[job.ID] || s.queues[job.ID] != nil || active[job.ID] >= job.MaxInstances {
		return false
	}
	eligible := dispatch.FromJob(job).Eligible(s.connected())
	free := false
	for _, e := range eligible {
		w := s.workers[e.ID]
		if w == nil || !w.startAt {
			return false
		}
		free = free || w.Free() > 0
	}
	return free
}

// deferFire keeps a fire handed over ahead until its time.
func (s *state) deferFire(c *changes, in db.Instance) {
	s.deferred = append(s.deferred, deferredFire{in: in, due: in.TriggerAt})
	if c.deferred == nil {
		c.deferred = map[int64]struct{}{}
	}
	c.deferred[in.ID] = struct{}{}
}

// dueDeferred takes the deferred fires whose time has come.
func (s *state) dueDeferred() []deferredFire {
	var due []deferredFire
	s.deferred = slices.DeleteFunc(s.deferred, func(d deferredFire) bool {
		if d.due.After(s.now) {
			return false
		}
		due = append(due, d)
		return true
	})
	return due
}

// nextDeferred is when the earliest deferred fire is due; zero if none.
func (s *state) nextDeferred() time.Time {
	if len(s.deferred) == 0 {
		return time.Time{}
	}
	return slices.MinFunc(s.deferred, func(x, y deferredFire) int { return x.due.Compare(y.due) }).due
}

// startAt is when a task sent now to worker w must start: its fire's time
// for the first task of a fire dispatched ahead; zero (at once) otherwise.
func (s *state) startAt(t *task, w *worker, now time.Time) time.Time {
	it := t.inst
	if w == nil || !w.startAt || t.Kind != protocol.KindRoot || it.TriggerType != db.TriggerSchedule ||
		it.Attempt != 1 || !it.TriggerAt.After(now) {
		return time.Time{}
	}
	return it.TriggerAt
}

// holdUntil notes a task sent to be held until its time, so that a change of
// its job before then reaches it.
func (s *state) holdUntil(t *task, at time.Time) {
	t.startAt = at
	s.held[t.ID] = t
}

// holdAdopted notes, after a take-over, the tasks that may still be held
// on their workers: the first task of a scheduled fire, not reported
// running, before the fire's time.
func (s *state) holdAdopted() {
	for _, t := range s.tasks {
		it := t.inst
		if t.Status == db.StatusDispatched && t.Kind == protocol.KindRoot && it.TriggerType == db.TriggerSchedule &&
			it.Attempt == 1 && it.TriggerAt.After(s.now) {
			s.holdUntil(t, it.TriggerAt)
		}
	}
}

// heldJobs prunes the held tasks that started or left, and returns the
// jobs of the rest.
func (s *state) heldJobs() []int64 {
	var ids []int64
	for id, t := range s.held {
		if s.tasks[id] != t || t.Status != db.StatusDispatched || !t.startAt.After(s.now) {
			delete(s.held, id)
			continue
		}
		ids = append(ids, t.inst.JobID)
	}
	return ids
}

// jobsOfHeld applies the current definitions of the held tasks' jobs: a
// fire of a job disabled or deleted since is canceled (its task stopped on
// its worker, as a fire of a disabled job is at its time); a task of a job
// changed since is taken back, to be sent again as the job now is.
func (s *state) jobsOfHeld(c *changes, jobs map[int64]*db.Job) {
	now := db.Stamp(s.now)
	held := make([]*task, 0, len(s.held))
	for _, t := range s.held {
		held = append(held, t)
	}
	slices.SortFunc(held, func(x, y *task) int { return cmp.Compare(x.ID, y.ID) })
	for _, t := range held {
		it := t.inst
		job := jobs[it.JobID]
		switch {
		case job == nil || !job.Enabled:
			delete(s.held, t.ID)
			c.finish(&it.Instance, it.Status, db.StatusCanceled, db.ReasonJobDisabled, "the job was disabled before this fire", now)
			s.endInstance(c, it, now)
		case !job.UpdatedAt.Equal(it.job.UpdatedAt):
			delete(s.held, t.ID)
			it.job = job
			it.deadline = deadlineOf(it.Instance, job)
			wid := deref(t.WorkerID)
			c.stops = append(c.stops, stopFrame{worker: wid, stop: protocol.Stop{InstanceID: it.ID, TaskIDs: []int64{t.ID},
				Reason: "the job changed before the task started", Unstarted: true}})
		}
	}
}

// heldJobsMayHaveChanged says whether a held task's job may differ from
// the one it was sent with since the held tasks were last compared with
// their jobs: a hint came (JobsChanged), the jobs generation moved, a
// definition was read from the database again, or the job cache's TTL
// passed (a hint lost where no generation is kept). Comparing walks every
// held task — at 1,000 fires a second, ~500 — so batches in which none of
// that happened, nearly all of them, skip it.
func (a *Actor) heldJobsMayHaveChanged() bool {
	if a.jobsRead != a.heldRead || a.st.now.Sub(a.heldAt) >= jobCacheTTL {
		return true
	}
	if a.deps.Versions != nil {
		gen, serving := a.deps.Versions.Generation(db.VersionJobs)
		return !serving || gen != a.jobsGen
	}
	return false
}

// takeHeldJobs re-reads, through the job cache, the jobs of the tasks held
// on workers, and applies what changed.
func (a *Actor) takeHeldJobs(ctx context.Context, c *changes) {
	ids := a.st.heldJobs()
	if len(ids) == 0 {
		return
	}
	jobs, err := a.loadJobs(ctx, ids)
	if err != nil {
		a.log.Warn("execution: reading the jobs of tasks held on workers", "err", err)
		return
	}
	// After loadJobs, which may itself have read definitions: these are
	// what the held tasks were compared with.
	a.heldRead, a.heldAt = a.jobsRead, a.st.now
	a.st.jobsOfHeld(c, jobs)
}
