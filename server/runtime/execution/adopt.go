package execution

import (
	"context"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/runtime/dispatch"
)

// adopt loads the app's unfinished work from the database: after a start,
// a take-over or a failed write.
func (a *Actor) adopt(ctx context.Context) error {
	store := a.deps.Store
	app, err := store.AppGet(ctx, a.st.app)
	if err != nil {
		return err
	}
	active, err := store.InstanceListActive(ctx, a.st.app)
	if err != nil {
		return err
	}
	ids := make([]int64, len(active))
	jobIDs := make([]int64, 0, len(active))
	for i, in := range active {
		ids[i] = in.ID
		jobIDs = append(jobIDs, in.JobID)
	}
	jobs, err := a.loadJobs(ctx, jobIDs)
	if err != nil {
		return err
	}
	counts, err := store.TaskCountsByInstance(ctx, ids)
	if err != nil {
		return err
	}
	tasks, err := store.TaskListOnWorkers(ctx, ids)
	if err != nil {
		return err
	}
	st := a.st
	st.name = app.Name
	st.now = a.cfg.Clock.Now()
	st.reset(active, jobs, tasks, counts)
	st.holdAdopted()
	if err := a.loadQueues(ctx); err != nil {
		return err
	}
	// The WAITING tasks stay in the database as each instance's backlog;
	// load the first window of each now, so that the stage an instance
	// was in shows (a POST or REDUCE task created but never sent).
	for _, it := range st.backlogged {
		asked := st.window()
		rows, err := store.TaskListWaitingAfter(ctx, it.ID, it.Attempt, 0, asked)
		if err != nil {
			return err
		}
		st.refilled(it, asked, rows)
		for _, t := range rows {
			it.stage = stageOf(it, t.Kind)
		}
	}
	a.log.Info("execution: took over app", "name", st.name, "epoch", st.epoch, "instances", len(st.instances), "tasks", len(st.tasks))
	// The picture is the database's again; the commit below may make it
	// stale once more (commit.go).
	a.stale = false
	c := newChanges()
	// Workers that connected before this actor started announced
	// themselves to nobody: take them from the registry.
	for _, w := range a.send.Workers() {
		st.joined(c, &w)
	}
	a.resendUnsent(c)
	st.resume(c)
	st.promote(c)
	st.assign(c)
	a.commit(ctx, c)
	return nil
}

// reset replaces the picture with the unfinished work as read from the
// database — the active instances, their tasks on workers, and counts —
// keeping the connected workers. Each instance's WAITING tasks become its
// backlog, loaded a window at a time.
func (s *state) reset(active []db.Instance, jobs map[int64]*db.Job, tasks []db.Task, counts map[int64]db.TaskCounts) {
	for _, w := range s.workers {
		w.running = map[int64]bool{}
		w.Busy = 0
	}
	s.instances = map[int64]*inst{}
	s.tasks = map[int64]*task{}
	s.held = map[int64]*task{}
	s.ready = nil
	s.backlogged = map[int64]*inst{}
	s.adopted = s.now
	s.poolUse = nil // the slots in use are counted afresh from what is read
	inherit := !s.tookOver
	s.tookOver = true
	for _, in := range active {
		job := jobs[in.JobID]
		if job == nil {
			continue
		}
		s.instances[in.ID] = newInst(in, job)
	}
	// Finished-task counts are per instance, not per attempt; adopted
	// instances recount from their unfinished tasks plus these.
	for _, t := range tasks {
		it := s.instances[t.InstanceID]
		if it == nil || t.InstanceAttempt != it.Attempt {
			continue
		}
		tk := &task{Task: t, inst: it, acked: true, inherited: inherit}
		it.pending++
		it.stage = stageOf(it, t.Kind)
		s.tasks[t.ID] = tk
		it.onWorkers[t.ID] = tk
		wid := deref(t.WorkerID)
		w := s.workers[wid]
		if w == nil {
			// Not connected (yet): it has AdoptGrace to come back.
			w = &worker{Worker: dispatch.Worker{ID: wid}, running: map[int64]bool{}, disconnected: s.now}
			s.workers[wid] = w
		}
		w.running[t.ID] = true
		w.Busy++
		it.used[wid]++
	}
	for id, c := range counts {
		if it := s.instances[id]; it != nil {
			it.succeeded = c.Succeeded
			it.failed = c.Failed
			it.mapped = c.Total
			if c.Waiting > 0 {
				// Stored, not loaded: the adopter loads the first window.
				it.backlog = c.Waiting
				it.pending += c.Waiting
				s.backlogged[id] = it
			}
		}
	}
}

// resume moves on the instances that were between stages (e.g. PRE
// finished, broadcast not created yet) when the work was adopted.
func (s *state) resume(c *changes) {
	for _, it := range s.instances {
		if it.pending == 0 {
			s.progress(c, it)
		}
	}
}
