package execution

import (
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// The overlap policies, priority and the retry back-off, decided alone on
// the sim's hand-set clock (state_test.go).

func TestQueueHoldsFiresAndStartsThemInFireOrder(t *testing.T) {
	m := newSim(t)
	m.join("w1", 8)
	j := job(1, func(j *db.Job) { j.MaxInstances = 1; j.OverlapPolicy = db.OverlapQueue; j.MaxQueued = 2 })
	c := m.fire(j, 10)
	_, first := m.only(c)
	for i, id := range []int64{11, 12} {
		m.s.now = t0.Add(time.Duration(i+1) * time.Second)
		c = m.fire(j, id)
		tr := instanceTo(c, id)
		if tr == nil || tr.From != db.StatusWaiting || tr.To != db.StatusWaiting || *tr.Reason != db.ReasonQueued || len(c.dispatch) != 0 {
			t.Fatalf("fire %d over the limit: %+v; want it held WAITING with reason QUEUED and nothing sent", id, tr)
		}
	}
	m.s.now = t0.Add(3 * time.Second)
	c = m.fire(j, 13)
	tr := instanceTo(c, 13)
	if tr == nil || tr.To != db.StatusCanceled || *tr.Reason != db.ReasonQueueFull || !strings.Contains(*tr.Result, "maxQueued 2") {
		t.Fatalf("fire beyond the queue: %+v; want CANCELED for QUEUE_FULL naming maxQueued", tr)
	}
	// A re-fire of a held instance (a duplicate wheel entry) changes nothing.
	if c := m.fire(j, 11); len(c.inst) != 0 {
		t.Fatalf("re-fired held instance: %+v; want nothing", c.inst)
	}

	// The running instance ends: the oldest held fire starts in the same
	// batch, its marker cleared; the next waits.
	m.s.now = t0.Add(4 * time.Second)
	c = m.report("w1", first.ID, protocol.TaskSucceeded, "")
	if tr := instanceTo(c, 11); tr == nil || tr.From != db.StatusWaiting || tr.To != db.StatusDispatched || tr.Reason == nil || *tr.Reason != "" {
		t.Fatalf("after the end: %+v; want 11 DISPATCHED with its QUEUED marker cleared", tr)
	}
	if _, next := m.only(c); next.InstanceID != 11 {
		t.Fatalf("dispatched instance %d; want 11", next.InstanceID)
	}
	if instanceTo(c, 12) != nil || len(m.s.queues[1].items) != 1 {
		t.Fatalf("12 moved too, or the queue lost it: %+v", m.s.queues[1])
	}
	// A new fire joins the end of the queue even though a slot may free:
	// fires never overtake held ones.
	m.s.now = t0.Add(5 * time.Second)
	c = m.fire(j, 14)
	if tr := instanceTo(c, 14); tr == nil || tr.To != db.StatusWaiting || *tr.Reason != db.ReasonQueued {
		t.Fatalf("fire behind a held one: %+v; want it queued", tr)
	}
	if got := m.s.queues[1].items; len(got) != 2 || got[0].ID != 12 || got[1].ID != 14 {
		t.Fatalf("queue %v; want 12 then 14", got)
	}
}

func TestQueueReloadedByANewOwnerStartsWhatTheLimitAllows(t *testing.T) {
	m := newSim(t)
	m.join("w1", 8)
	j := job(1, func(j *db.Job) { j.MaxInstances = 2; j.OverlapPolicy = db.OverlapQueue; j.MaxQueued = 5 })
	held := func(id int64, at time.Time) db.Instance {
		return db.Instance{ID: id, AppID: 1, JobID: 1, Status: db.StatusWaiting, TriggerType: db.TriggerSchedule, TriggerAt: at,
			Attempt: 1, Reason: db.ReasonQueued}
	}
	// As read from the database (fire order), after the previous owner's
	// running instances ended while no server owned the app.
	m.s.requeue([]db.Instance{held(20, t0.Add(-3*time.Second)), held(21, t0.Add(-2*time.Second)), held(22, t0.Add(-time.Second))},
		map[int64]*db.Job{1: j})
	c := m.batch(func(*changes) {})
	for _, id := range []int64{20, 21} {
		if tr := instanceTo(c, id); tr == nil || tr.To != db.StatusDispatched {
			t.Fatalf("held %d after a take-over: %+v; want DISPATCHED (maxInstances 2)", id, tr)
		}
	}
	if instanceTo(c, 22) != nil {
		t.Fatal("a third held fire started over maxInstances 2")
	}
	// One stopped through the API meanwhile leaves the queue on re-read.
	m.s.queueRefreshed([]int64{22}, []db.Instance{{ID: 22, Status: db.StatusStopped}})
	if len(m.s.queues) != 0 || len(m.s.queuedIDs) != 0 {
		t.Fatalf("queues %v after the stop; want none", m.s.queues)
	}
}

func TestReplaceStopsTheOldestRunningInstance(t *testing.T) {
	m := newSim(t)
	m.join("w1", 8)
	j := job(1, func(j *db.Job) { j.MaxInstances = 1; j.OverlapPolicy = db.OverlapReplace })
	c := m.fire(j, 10)
	w, old := m.only(c)
	m.report(w, old.ID, protocol.TaskRunning, "")
	m.s.now = t0.Add(time.Second)
	c = m.fire(j, 11)
	tr := instanceTo(c, 10)
	if tr == nil || tr.To != db.StatusStopped || *tr.Reason != db.ReasonReplaced || !strings.Contains(*tr.Result, "instance 11") {
		t.Fatalf("old instance: %+v; want STOPPED for REPLACED naming instance 11", tr)
	}
	if len(c.stops) != 1 || c.stops[0].worker != w || c.stops[0].stop.TaskIDs[0] != old.ID {
		t.Fatalf("stops %+v; want the old task stopped on %s", c.stops, w)
	}
	if tr := instanceTo(c, 11); tr == nil || tr.To != db.StatusDispatched {
		t.Fatalf("new fire: %+v; want DISPATCHED", tr)
	}
	if _, next := m.only(c); next.InstanceID != 11 {
		t.Fatalf("dispatched instance %d; want 11", next.InstanceID)
	}
	if len(m.s.instances) != 1 || m.s.instances[11] == nil {
		t.Fatalf("active %v; want only 11", m.s.activeIDs())
	}
}

func TestReplaceWithoutAWorkerReplacesNothing(t *testing.T) {
	m := newSim(t)
	m.join("w1", 8)
	j := job(1, func(j *db.Job) { j.MaxInstances = 1; j.OverlapPolicy = db.OverlapReplace })
	m.fire(j, 10)
	m.s.left("w1")
	if c := m.fire(j, 11); len(c.inst) != 0 || len(c.stops) != 0 {
		t.Fatalf("no worker: %+v, stops %+v; want 10 left running and 11 WAITING", c.inst, c.stops)
	}
}

func TestPriorityOrdersDispatchWhenSlotsAreShort(t *testing.T) {
	m := newSim(t)
	m.join("w1", 1)
	busy := job(1, nil)
	low := job(2, func(j *db.Job) { j.Priority = -5 })
	high := job(3, func(j *db.Job) { j.Priority = 5 })
	c := m.fire(busy, 10)
	_, first := m.only(c)
	m.fire(low, 20)
	m.fire(high, 30)
	c = m.report("w1", first.ID, protocol.TaskSucceeded, "")
	if _, next := m.only(c); next.InstanceID != 30 {
		t.Fatalf("the freed slot went to instance %d; want 30, of the higher-priority job", next.InstanceID)
	}
}

func TestRetryDelayGrowsToItsCapWithJitter(t *testing.T) {
	j := job(1, func(j *db.Job) { j.RetryDelayMs = 2000; j.RetryBackoff = 2; j.RetryDelayMaxMs = 10000 })
	for _, tc := range []struct {
		n      int
		jitter float64
		want   time.Duration
	}{
		{1, 0, 2 * time.Second}, {2, 0, 4 * time.Second}, {3, 0, 8 * time.Second}, {4, 0, 10 * time.Second},
		{1, 1, 2200 * time.Millisecond}, {3, 1, 8800 * time.Millisecond}, {3, 5, 8800 * time.Millisecond}, {4, 1, 10 * time.Second},
		{100, 0.5, 10 * time.Second},
	} {
		if got := retryDelay(j, tc.n, time.Second, tc.jitter); got != tc.want {
			t.Errorf("retry %d, jitter %v: %v; want %v", tc.n, tc.jitter, got, tc.want)
		}
	}
	if got := retryDelay(job(1, nil), 5, time.Second, 1); got != time.Second {
		t.Errorf("no retryDelayMs: %v; want the default, unchanged", got)
	}
	if got := retryDelay(job(1, nil), 5, 0, 1); got != 0 {
		t.Errorf("no retryDelayMs, no default (a task): %v; want at once", got)
	}
	unbounded := job(1, func(j *db.Job) { j.RetryDelayMs = 1000; j.RetryBackoff = 10 })
	if got := retryDelay(unbounded, 100, 0, 0); got != MaxRetryDelay {
		t.Errorf("huge growth: %v; want MaxRetryDelay", got)
	}
}

func TestInstanceRetriesWaitTheirBackoff(t *testing.T) {
	m := newSim(t)
	m.s.jitter = func() float64 { return 0 }
	m.join("w1", 4)
	j := job(1, func(j *db.Job) { j.InstanceRetries = 2; j.RetryDelayMs = 2000; j.RetryBackoff = 2 })
	c := m.fire(j, 10)
	_, root := m.only(c)
	m.s.now = t0.Add(time.Second)
	c = m.report("w1", root.ID, protocol.TaskFailed, "exit 1")
	if len(c.retries) != 1 || c.retries[0].attempt != 2 || !c.retries[0].at.Equal(m.s.now.Add(2*time.Second)) {
		t.Fatalf("first failure: retries %+v; want attempt 2 due 2 s later", c.retries)
	}
	// Attempt 2 fires when due (the trigger loop), and fails too.
	m.s.now = t0.Add(3 * time.Second)
	c = m.batch(func(c *changes) {
		m.s.fire(c, []firing{{id: 10, at: m.s.now}}, []db.Instance{{ID: 10, AppID: 1, JobID: 1, Status: db.StatusWaiting,
			TriggerType: db.TriggerAPI, TriggerAt: m.s.now, Attempt: 2}}, map[int64]*db.Job{1: j})
	})
	_, root = m.only(c)
	m.s.now = t0.Add(4 * time.Second)
	c = m.report("w1", root.ID, protocol.TaskFailed, "exit 1")
	if len(c.retries) != 1 || c.retries[0].attempt != 3 || !c.retries[0].at.Equal(m.s.now.Add(4*time.Second)) {
		t.Fatalf("second failure: retries %+v; want attempt 3 due 4 s later", c.retries)
	}
}

func TestTaskRetryIsHeldUntilItsBackoffEnds(t *testing.T) {
	m := newSim(t)
	m.s.jitter = func() float64 { return 0 }
	m.join("w1", 4)
	j := job(1, func(j *db.Job) { j.TaskRetries = 2; j.RetryDelayMs = 2000; j.RetryBackoff = 3 })
	c := m.fire(j, 10)
	_, root := m.only(c)
	c = m.report("w1", root.ID, protocol.TaskFailed, "boom")
	var tt *db.TaskTransition
	for i := range c.task {
		if c.task[i].ID == root.ID {
			tt = &c.task[i]
		}
	}
	if tt == nil || tt.To != db.StatusWaiting || tt.NotBefore == nil || !tt.NotBefore.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("failed task: %+v; want WAITING, not before 2 s from now (stored)", tt)
	}
	if len(c.dispatch) != 0 {
		t.Fatalf("dispatched %v at once; want the retry held", c.dispatch)
	}
	if next := m.s.nextDelayed(); !next.Equal(t0.Add(2 * time.Second)) {
		t.Fatalf("next wake %v; want 2 s from now", next)
	}
	m.s.now = t0.Add(1999 * time.Millisecond)
	if c := m.batch(func(*changes) {}); len(c.dispatch) != 0 {
		t.Fatal("dispatched before its back-off ended")
	}
	m.s.now = t0.Add(2 * time.Second)
	c = m.batch(func(*changes) {})
	if _, again := m.only(c); again.ID != root.ID || again.Retries != 1 {
		t.Fatalf("after the back-off: task %d (retry %d); want task %d's first retry", again.ID, again.Retries, root.ID)
	}
	// The second retry waits 2 s × 3.
	m.s.now = t0.Add(3 * time.Second)
	m.report("w1", root.ID, protocol.TaskFailed, "boom")
	if next := m.s.nextDelayed(); !next.Equal(t0.Add(9 * time.Second)) {
		t.Fatalf("second retry due %v; want 6 s after the failure", next)
	}
	// An attempt that ends (a timeout, a stop) stops its held tasks.
	c = m.batch(func(c *changes) { m.s.attemptFailed(c, m.s.instances[10], db.ReasonTimeout, "timed out") })
	stopped := false
	for _, tr := range c.task {
		if tr.ID == root.ID && tr.To == db.StatusStopped {
			stopped = true
		}
	}
	if !stopped || len(m.s.delayed) != 0 {
		t.Fatalf("held task after the attempt ended: stopped %v, held %v", stopped, m.s.delayed)
	}
}
