package execution

import (
	"slices"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// changes is everything one batch decided: the writes of its transaction
// and what to send once they are durable.
type changes struct {
	inst     []db.InstanceTransition
	task     []db.TaskTransition
	newTasks []*task
	// backlog are tasks stored without being held in memory (inst.backlog).
	backlog []db.Task
	// stopWaiting are instance attempts whose stored WAITING tasks stop
	// (an attempt ended with a backlog).
	stopWaiting []attemptRef
	attempts    []db.InstanceAttempt
	retries     []retry
	rearms      []rearm
	stoppedInDB []attemptRef // instances finished elsewhere whose tasks must be stopped in the database
	mapRequests []db.MapRequest
	wfContext   map[int64]map[string]any
	// noWorker are why no worker could take instances (noworker.go).
	noWorker []db.InstanceNoWorker
	// pools are the pools instances take, as first decided (pools.go).
	pools []db.InstancePool

	dispatch map[string][]*task // worker → tasks to send
	stops    []stopFrame
	acks     []func(error)
	notify   []int64
	wake     bool
	// failures are instances that ended FAILED, and successes those that
	// ended SUCCEEDED of jobs whose alarm watches recoveries (or counts
	// failures in a row); started those dispatched of jobs with a
	// START_LATE rule: for alarms (package alarm).
	failures  []failure
	successes []failure
	started   []failure
	fired     []firing // the fires this batch processed
	// waiting are the fires this batch left WAITING to be fired again: no
	// worker qualifies yet, or a catch-up run waits for its job's limit.
	waiting []int64
	// deferred are the fires handed over ahead that this batch left for
	// their time (ahead.go): still the actor's, not taken. A set: a burst
	// can leave thousands, each looked up once per fire of the batch.
	deferred map[int64]struct{}
	// spans are the trace spans of tasks this batch ended (traces.go).
	spans []endedSpan
	// runs are the workflow runs one of whose node instances ended.
	runs []int64
	// upstream are the instances that succeeded of jobs a workflow names
	// upstream (db.Job.HasDownstream); write records the runs they start,
	// downstream, in its transaction.
	upstream   []db.Instance
	downstream []int64
}

// empty says the batch changed nothing to write (an idle app's check
// tick, a heartbeat).
func (c *changes) empty() bool {
	return len(c.inst) == 0 && len(c.task) == 0 && len(c.newTasks) == 0 && len(c.backlog) == 0 && len(c.stopWaiting) == 0 &&
		len(c.attempts) == 0 && len(c.retries) == 0 &&
		len(c.rearms) == 0 && len(c.stoppedInDB) == 0 && len(c.mapRequests) == 0 && len(c.wfContext) == 0 && len(c.noWorker) == 0 &&
		len(c.pools) == 0
}

type failure struct {
	job *db.Job
	in  db.Instance
}

// attemptRef names an instance's attempt.
type attemptRef struct {
	id      int64
	attempt int
}

type retry struct {
	id      int64
	from    string
	attempt int
	at      time.Time
	reason  string
}

type rearm struct {
	job int64
	at  time.Time
}

type stopFrame struct {
	worker string
	stop   protocol.Stop
}

func newChanges() *changes {
	return &changes{dispatch: map[string][]*task{}, wfContext: map[int64]map[string]any{}}
}

func (c *changes) changed(id int64) { c.notify = append(c.notify, id) }

// committed records that a batch is durable: the tasks created in it have
// their ids now, and the tasks it dispatched are on their workers.
func (s *state) committed(c *changes) {
	for _, t := range c.newTasks {
		t.new = false
		t.inst.cursor = max(t.inst.cursor, t.ID)
	}
	for wid, list := range c.dispatch {
		w := s.workers[wid]
		for _, t := range list {
			s.tasks[t.ID] = t
			t.inst.onWorkers[t.ID] = t
			if w != nil {
				w.running[t.ID] = true
			}
		}
	}
}

// finish moves an instance to a final status.
func (c *changes) finish(in *db.Instance, from, to, reason, result string, now time.Time) {
	result = protocol.Truncate(result, protocol.MaxResultBytes)
	in.Status, in.Reason, in.Result, in.FinishedAt = to, reason, result, &now
	c.inst = append(c.inst, db.InstanceTransition{ID: in.ID, From: from, To: to, FinishedAt: &now, Reason: &reason, Result: &result})
	c.changed(in.ID)
	c.ended(in)
}

// ended notes that a workflow node's instance ended, so its run moves on.
func (c *changes) ended(in *db.Instance) {
	if in.WorkflowInstanceID != nil {
		c.runs = append(c.runs, *in.WorkflowInstanceID)
	}
}

// attempt records (part of) an attempt's story.
func (c *changes) attempt(instanceID int64, n int, status string, workerID *string, result, reason string, started, finished *time.Time) {
	c.attempts = append(c.attempts, db.InstanceAttempt{InstanceID: instanceID, Attempt: n, Status: status, WorkerID: workerID,
		Result: protocol.Truncate(result, protocol.MaxResultBytes), Reason: reason, StartedAt: started, FinishedAt: finished})
}

// taskMove records a task's change of status. A task created in this
// batch is simply inserted in its final form.
func (c *changes) taskMove(t *task, to string, set func(*db.TaskTransition)) {
	tt := db.TaskTransition{ID: t.ID, InstanceID: t.InstanceID, From: t.Status, To: to}
	if set != nil {
		set(&tt)
	}
	t.Status = to
	if tt.Result != nil {
		t.Result = *tt.Result
	}
	if tt.FinishedAt != nil {
		t.FinishedAt = tt.FinishedAt
	}
	if t.span != nil && db.IsFinal(to) {
		c.spans = append(c.spans, endedSpan{span: t.span, status: to, result: t.Result})
		t.span = nil
	}
	if !t.new {
		c.task = append(c.task, tt)
	}
}

// dropNew forgets tasks created in this batch.
func (c *changes) dropNew(drop map[*task]bool) {
	if len(drop) == 0 {
		return
	}
	c.newTasks = slices.DeleteFunc(c.newTasks, func(x *task) bool { return drop[x] })
	for wid, list := range c.dispatch {
		c.dispatch[wid] = slices.DeleteFunc(list, func(x *task) bool { return drop[x] })
	}
}

// coalesce merges the several changes a batch may make to one row (a task
// RUNNING then SUCCEEDED; an instance DISPATCHED then FAILED) into one
// compare-and-set from the first status to the last, since a bulk
// statement applies at most one change per row.
func (c *changes) coalesce() {
	c.inst = mergeBy(c.inst, func(t db.InstanceTransition) int64 { return t.ID }, func(into *db.InstanceTransition, t db.InstanceTransition) {
		into.To = t.To
		into.ActualTriggerAt = latest(into.ActualTriggerAt, t.ActualTriggerAt)
		into.StartedAt = latest(into.StartedAt, t.StartedAt)
		into.FinishedAt = latest(into.FinishedAt, t.FinishedAt)
		into.Result = latest(into.Result, t.Result)
		into.Reason = latest(into.Reason, t.Reason)
		into.WorkerID = latest(into.WorkerID, t.WorkerID)
		into.Epoch = latest(into.Epoch, t.Epoch)
	})
	c.task = mergeBy(c.task, func(t db.TaskTransition) int64 { return t.ID }, func(into *db.TaskTransition, t db.TaskTransition) {
		into.To = t.To
		if t.To == db.StatusWaiting {
			into.WorkerID = nil // re-queued: whatever worker it had is gone
		}
		into.WorkerID = latest(into.WorkerID, t.WorkerID)
		into.Result = latest(into.Result, t.Result)
		into.DispatchedAt = latest(into.DispatchedAt, t.DispatchedAt)
		into.FinishedAt = latest(into.FinishedAt, t.FinishedAt)
		into.Retries = latest(into.Retries, t.Retries)
		into.NotBefore = t.NotBefore // the last transition's: only a retry sets it
	})
	type akey struct {
		id int64
		n  int
	}
	c.attempts = mergeBy(c.attempts, func(t db.InstanceAttempt) akey { return akey{t.InstanceID, t.Attempt} }, func(into *db.InstanceAttempt, t db.InstanceAttempt) {
		into.Status = t.Status
		into.WorkerID = latest(into.WorkerID, t.WorkerID)
		if t.Result != "" {
			into.Result = t.Result
		}
		if t.Reason != "" {
			into.Reason = t.Reason
		}
		if into.StartedAt == nil {
			into.StartedAt = t.StartedAt
		}
		into.FinishedAt = latest(into.FinishedAt, t.FinishedAt)
	})
	// A transition back to a status the row started in (WAITING → … →
	// WAITING within one batch) is still a real change of its fields.
}

// mergeBy folds items with the same key into the first of them, in order.
func mergeBy[T any, K comparable](items []T, key func(T) K, merge func(into *T, next T)) []T {
	if len(items) < 2 {
		return items
	}
	index := make(map[K]int, len(items))
	out := items[:0:0]
	for _, it := range items {
		k := key(it)
		if i, ok := index[k]; ok {
			merge(&out[i], it)
			continue
		}
		index[k] = len(out)
		out = append(out, it)
	}
	return out
}

func latest[T any](old, next *T) *T {
	if next != nil {
		return next
	}
	return old
}
