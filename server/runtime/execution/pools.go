package execution

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// This file is pools (docs/design.md §5.9): a named number of slots per
// app that the instances of jobs and workflow nodes naming the pool take
// while they are DISPATCHED or RUNNING (Airflow pools, Argo semaphores; a
// pool of one slot is a mutex). The gate is admit's first step: an
// instance whose pool lacks the slots it takes, or whose pool has a queue
// it does not go before, waits in the pool's queue — durably, WAITING
// with reason POOL_FULL, which the trigger loop leaves alone — and
// promotePools starts the queue's head as soon as slots free, after every
// batch's other decisions, by job priority then fire time (strictly: a
// head that needs more slots than are free holds up those behind it, so
// none starves).
//
// Nothing about holders is kept apart from the instances: the slots in
// use are those of the actor's active instances (state.instances), so a
// slot is released with whatever ends an instance (success, failure, stop,
// timeout, a lost worker, a retry's wait), and an owner that takes the app
// over rebuilds both holders and queues from the database (the instances'
// pool column, InstanceListPoolWaiting). The pool an instance takes is
// written on its row when the owner first decides it (changes.pools), in
// the batch's transaction.

// poolQueue holds the instances waiting for one pool's slots.
type poolQueue struct {
	items []pooled
	// headSince is when the head first could start but no worker
	// qualified: NO_WORKER counts from then.
	headSince time.Time
}

// pooled is an instance waiting in a pool's queue.
type pooled struct {
	in       db.Instance
	jobID    int64
	priority int
	slots    int
}

// poolOrder orders a pool's queue: higher job priority first, then fire
// time, then id.
func poolOrder(a, b pooled) int {
	if c := cmp.Compare(b.priority, a.priority); c != 0 {
		return c
	}
	return fireOrder(a.in, b.in)
}

// poolOf is the pool an instance takes and how many slots: a workflow
// node's instance keeps the pool recorded on it (the node's own, or its
// job's as first decided); any other instance takes its job's current one.
func poolOf(in *db.Instance, job *db.Job) (string, int) {
	if in.TriggerType == db.TriggerWorkflow && in.Pool != nil {
		return *in.Pool, max(deref(in.PoolSlots), 1)
	}
	if job.Pool == "" {
		return "", 0
	}
	return job.Pool, max(job.PoolSlots, 1)
}

// poolUsage counts the slots the active instances hold per pool. It is
// computed once per batch (at s.now) and kept up to date as admit starts
// instances; an instance that ends later in the batch frees its slots for
// the next batch, or for promotePools, which counts afresh.
func (s *state) poolUsage(fresh bool) map[string]int {
	if !fresh && s.poolUse != nil && s.poolUseAt.Equal(s.now) {
		return s.poolUse
	}
	use := map[string]int{}
	for _, it := range s.instances {
		if it.Pool != nil {
			use[*it.Pool] += max(deref(it.PoolSlots), 1)
		}
	}
	s.poolUse, s.poolUseAt = use, s.now
	return use
}

// poolGate is what a pool says of an instance about to start.
type poolGate int

const (
	poolGo      poolGate = iota // no pool, or its slots are free: start it
	poolHeld                    // it waits in the pool's queue
	poolEnded                   // FAILED: the pool is gone or too small
	poolUnknown                 // the pool's definition could not be read: it stays WAITING for the next pass
)

// poolGateOf decides whether an instance may take its pool's slots now.
// It records on the instance (and, through changes, on its row) the pool
// it takes.
func (s *state) poolGateOf(c *changes, in *db.Instance, job *db.Job, now time.Time) poolGate {
	name, slots := poolOf(in, job)
	if name == "" || s.poolBypass == in.ID {
		return poolGo
	}
	def, known := s.poolDefs[name]
	switch {
	case !known:
		return poolUnknown
	case def == nil:
		s.poolFail(c, in, job, db.ReasonNoPool, fmt.Sprintf("pool %q does not exist (it was deleted after this instance's job or workflow named it)", name), now)
		return poolEnded
	case slots > def.Slots:
		s.poolFail(c, in, job, db.ReasonPoolTooSmall, fmt.Sprintf("takes %d slots of pool %q, which has %d", slots, name, def.Slots), now)
		return poolEnded
	}
	if in.Pool == nil || *in.Pool != name || deref(in.PoolSlots) != slots {
		in.Pool, in.PoolSlots = &name, &slots
		c.pools = append(c.pools, db.InstancePool{ID: in.ID, Pool: name, Slots: slots})
	}
	use := s.poolUsage(false)
	p := pooled{in: *in, jobID: job.ID, priority: job.Priority, slots: slots}
	q := s.poolQueues[name]
	if use[name]+slots <= def.Slots && (q == nil || len(q.items) == 0 || poolOrder(p, q.items[0]) < 0) {
		return poolGo
	}
	s.poolHold(c, in, p, name, def, use[name])
	return poolHeld
}

// poolTaken counts slots an instance admit started has taken.
func (s *state) poolTaken(in *db.Instance) {
	if in.Pool != nil && s.poolUse != nil {
		s.poolUse[*in.Pool] += max(deref(in.PoolSlots), 1)
	}
}

// poolHold puts an instance in its pool's queue, marked POOL_FULL.
func (s *state) poolHold(c *changes, in *db.Instance, p pooled, name string, def *db.Pool, used int) {
	q := s.poolQueues[name]
	if q == nil {
		q = &poolQueue{}
		s.poolQueues[name] = q
	}
	i, _ := slices.BinarySearchFunc(q.items, p, poolOrder)
	if i == 0 {
		q.headSince = time.Time{}
	}
	reason := db.ReasonPoolFull
	result := fmt.Sprintf("waits for %d slot(s) of pool %q (%d of %d in use)", p.slots, name, used, def.Slots)
	in.Reason, in.Result = reason, result
	p.in.Reason, p.in.Result = reason, result
	q.items = slices.Insert(q.items, i, p)
	s.pooledIDs[in.ID] = name
	c.inst = append(c.inst, db.InstanceTransition{ID: in.ID, From: db.StatusWaiting, To: db.StatusWaiting, Reason: &reason, Result: &result})
	c.changed(in.ID)
}

// poolFail ends an instance its pool cannot ever take.
func (s *state) poolFail(c *changes, in *db.Instance, job *db.Job, reason, why string, now time.Time) {
	c.finish(in, in.Status, db.StatusFailed, reason, why, now)
	c.inst[len(c.inst)-1].ActualTriggerAt = &now
	c.attempt(in.ID, in.Attempt, db.StatusFailed, nil, why, reason, &now, &now)
	c.failures = append(c.failures, failure{job: job, in: *in})
	s.rearm(c, job, in, now)
}

// promotePools starts the heads of the pools' queues while their slots
// allow. jobs are the queued instances' jobs, read this batch.
func (s *state) promotePools(c *changes, jobs map[int64]*db.Job) {
	if len(s.poolQueues) == 0 {
		return
	}
	use := s.poolUsage(true)
	now := db.Stamp(s.now)
	names := make([]string, 0, len(s.poolQueues))
	for name := range s.poolQueues {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		q := s.poolQueues[name]
		def, known := s.poolDefs[name]
		for known && len(q.items) > 0 {
			head := &q.items[0]
			job := jobs[head.jobID]
			if job == nil {
				// Deleted with its job: its instances went with it.
				s.unpool([]int64{head.in.ID})
				continue
			}
			if def != nil && head.slots <= def.Slots && use[name]+head.slots > def.Slots {
				break // the head waits for slots; so do those behind it
			}
			if q.headSince.IsZero() {
				q.headSince = now
			}
			since := q.headSince
			if s.adopted.After(since) {
				since = s.adopted
			}
			in := head.in
			outcome := admitEnded
			switch {
			case def == nil:
				s.poolFail(c, &in, job, db.ReasonNoPool, fmt.Sprintf("pool %q does not exist (it was deleted while this instance waited for it)", name), now)
			case head.slots > def.Slots:
				s.poolFail(c, &in, job, db.ReasonPoolTooSmall, fmt.Sprintf("takes %d slots of pool %q, which has %d since it was changed", head.slots, name, def.Slots), now)
			case !s.disabled(c, &in, job, now):
				s.poolBypass = in.ID
				outcome = s.admit(c, &in, job, now, since)
				s.poolBypass = 0
			}
			if outcome == admitWaits {
				break // no worker yet: the queue waits behind its head
			}
			s.unpool([]int64{in.ID})
			if outcome == admitStarted {
				use[name] += head.slots
			}
		}
	}
}

// unpool forgets held instances that are no longer WAITING in a pool's
// queue (started, the API stopped one, a compare-and-set lost).
func (s *state) unpool(ids []int64) {
	for _, id := range ids {
		name, ok := s.pooledIDs[id]
		if !ok {
			continue
		}
		delete(s.pooledIDs, id)
		if q := s.poolQueues[name]; q != nil {
			i := slices.IndexFunc(q.items, func(p pooled) bool { return p.in.ID == id })
			if i == 0 {
				q.headSince = time.Time{}
			}
			if i >= 0 {
				q.items = slices.Delete(q.items, i, i+1)
			}
			if len(q.items) == 0 {
				delete(s.poolQueues, name)
			}
		}
	}
}

// pooledList lists the instances held in pools' queues, for the actor to
// re-read.
func (s *state) pooledList() []int64 {
	ids := make([]int64, 0, len(s.pooledIDs))
	for id := range s.pooledIDs {
		ids = append(ids, id)
	}
	return ids
}

// poolRefreshed applies a re-read of held instances: one no longer
// WAITING in a pool's queue (stopped through the API, deleted with its
// job) leaves the queue.
func (s *state) poolRefreshed(ids []int64, list []db.Instance) {
	held := make(map[int64]bool, len(list))
	for _, in := range list {
		if in.Status == db.StatusWaiting && in.Reason == db.ReasonPoolFull {
			held[in.ID] = true
		}
	}
	var gone []int64
	for _, id := range ids {
		if _, pooled := s.pooledIDs[id]; pooled && !held[id] {
			gone = append(gone, id)
		}
	}
	s.unpool(gone)
}

// poolJobs are the jobs of the instances held in pools' queues.
func (s *state) poolJobs() []int64 {
	var ids []int64
	for _, q := range s.poolQueues {
		for _, p := range q.items {
			ids = append(ids, p.jobID)
		}
	}
	return ids
}

// poolNames are the pools a batch decides about: those of the fired
// instances and of the queues.
func (s *state) poolNames(loaded []db.Instance, jobs map[int64]*db.Job) []string {
	var names []string
	for i := range loaded {
		if job := jobs[loaded[i].JobID]; job != nil {
			if name, _ := poolOf(&loaded[i], job); name != "" {
				names = append(names, name)
			}
		}
	}
	for _, q := range s.queues {
		if q.job.Pool != "" {
			names = append(names, q.job.Pool)
		}
		for i := range q.items {
			if q.items[i].Pool != nil {
				names = append(names, *q.items[i].Pool)
			}
		}
	}
	for name := range s.poolQueues {
		names = append(names, name)
	}
	return names
}

// repool replaces the pools' queues with the held instances read from the
// database (in queue order), on taking the app over.
func (s *state) repool(list []db.Instance, jobs map[int64]*db.Job) {
	s.poolQueues = map[string]*poolQueue{}
	s.pooledIDs = map[int64]string{}
	for _, in := range list {
		job := jobs[in.JobID]
		if job == nil || in.Pool == nil {
			continue
		}
		name := *in.Pool
		q := s.poolQueues[name]
		if q == nil {
			q = &poolQueue{}
			s.poolQueues[name] = q
		}
		q.items = append(q.items, pooled{in: in, jobID: job.ID, priority: job.Priority, slots: max(deref(in.PoolSlots), 1)})
		s.pooledIDs[in.ID] = name
	}
	for _, q := range s.poolQueues {
		slices.SortStableFunc(q.items, poolOrder)
	}
}

// poolHeldByJob counts, per job, the instances waiting in pools' queues
// that its maxInstances bounds: they are under way, as its running ones.
func (s *state) poolHeldByJob(active map[int64]int) {
	for _, q := range s.poolQueues {
		for _, p := range q.items {
			if p.in.TriggerType != db.TriggerWorkflow {
				active[p.jobID]++
			}
		}
	}
}

// replacePooled cancels the oldest instance of a REPLACE job waiting in a
// pool's queue, for a new fire: it says whether there was one.
func (s *state) replacePooled(c *changes, job *db.Job, newID int64, now time.Time) bool {
	var oldest *pooled
	for _, q := range s.poolQueues {
		for i := range q.items {
			p := &q.items[i]
			if p.jobID == job.ID && p.in.TriggerType != db.TriggerWorkflow && (oldest == nil || fireOrder(p.in, oldest.in) < 0) {
				oldest = p
			}
		}
	}
	if oldest == nil {
		return false
	}
	in := oldest.in
	why := fmt.Sprintf("replaced by instance %d while it waited for its pool (overlap policy REPLACE, maxInstances %d)", newID, job.MaxInstances)
	c.finish(&in, db.StatusWaiting, db.StatusCanceled, db.ReasonReplaced, why, now)
	s.unpool([]int64{in.ID})
	return true
}

// The actor's reads for pools.

// poolCacheTTL bounds how stale a pool's definition may be when its
// change's hint was lost (a change on another server): a resized pool
// applies within it.
const poolCacheTTL = 5 * time.Second

type cachedPool struct {
	pool   *db.Pool // nil: no such pool
	loaded time.Time
}

// loadPoolDefs brings the state's definitions of the named pools up to
// date, from the cache when fresh. A pool it could not read stays as it
// was (unknown at first: its instances wait for the next pass).
func (a *Actor) loadPoolDefs(ctx context.Context, names []string) {
	if len(names) == 0 {
		return
	}
	now := a.cfg.Clock.Now()
	var missing []string
	for _, name := range names {
		if c, ok := a.pools[name]; ok && now.Sub(c.loaded) < poolCacheTTL {
			a.st.poolDefs[name] = c.pool
		} else if !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return
	}
	list, err := a.deps.Store.PoolListByNames(ctx, a.st.app, missing)
	if err != nil {
		a.log.Warn("execution: reading pools; their instances wait for the next pass", "pools", missing, "err", err)
		return
	}
	found := make(map[string]*db.Pool, len(list))
	for i := range list {
		found[list[i].Name] = &list[i]
	}
	for _, name := range missing {
		a.pools[name] = cachedPool{pool: found[name], loaded: now}
		a.st.poolDefs[name] = found[name]
	}
}

// promotePools reads what promoting the pools' queues needs (their
// instances' jobs, the pools) and promotes them.
func (a *Actor) promotePools(ctx context.Context, c *changes) {
	jobs, err := a.loadJobs(ctx, a.st.poolJobs())
	if err != nil {
		a.log.Warn("execution: reading the jobs of instances waiting for pools", "err", err)
		return
	}
	a.loadPoolDefs(ctx, a.st.poolNames(nil, nil))
	a.st.promotePools(c, jobs)
}

// loadPoolQueues reloads the instances waiting in the app's pools' queues.
func (a *Actor) loadPoolQueues(ctx context.Context) error {
	list, err := a.deps.Store.InstanceListPoolWaiting(ctx, a.st.app, "")
	if err != nil {
		return err
	}
	jobIDs := make([]int64, 0, len(list))
	for _, in := range list {
		jobIDs = append(jobIDs, in.JobID)
	}
	jobs, err := a.loadJobs(ctx, jobIDs)
	if err != nil {
		return err
	}
	a.st.repool(list, jobs)
	return nil
}
