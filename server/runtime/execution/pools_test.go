package execution

import (
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// Pools (pools.go), decided alone on the sim's hand-set clock.

// withPools gives the sim the app's pools and the jobs whose instances
// may wait for them.
func (m *sim) withPools(pools map[string]int, jobs ...*db.Job) {
	for name, slots := range pools {
		m.s.poolDefs[name] = &db.Pool{ID: int64(len(m.s.poolDefs) + 1), AppID: 1, Name: name, Slots: slots}
	}
	if m.jobs == nil {
		m.jobs = map[int64]*db.Job{}
	}
	for _, j := range jobs {
		m.jobs[j.ID] = j
	}
}

// dispatchedIDs are the instances whose first task c sent.
func dispatchedIDs(c *changes) map[int64]bool {
	out := map[int64]bool{}
	for _, list := range c.dispatch {
		for _, t := range list {
			out[t.InstanceID] = true
		}
	}
	return out
}

// used counts the slots the sim's active instances hold of a pool.
func (m *sim) used(pool string) int { return m.s.poolUsage(true)[pool] }

func TestPoolHoldsWhatItHasNoSlotsForAndStartsItWhenOneFrees(t *testing.T) {
	m := newSim(t)
	m.join("w1", 8)
	j := job(1, func(j *db.Job) { j.Pool = "db"; j.PoolSlots = 1 })
	m.withPools(map[string]int{"db": 2}, j)
	c := m.fire(j, 10, 11, 12)
	got := dispatchedIDs(c)
	if !got[10] || !got[11] || got[12] {
		t.Fatalf("dispatched %v; want 10 and 11 (2 slots), 12 held", got)
	}
	tr := instanceTo(c, 12)
	if tr == nil || tr.To != db.StatusWaiting || *tr.Reason != db.ReasonPoolFull || !strings.Contains(*tr.Result, `pool "db"`) {
		t.Fatalf("12: %+v; want WAITING with reason POOL_FULL naming the pool", tr)
	}
	if len(c.pools) != 3 || c.pools[0].Pool != "db" || c.pools[0].Slots != 1 {
		t.Fatalf("pools recorded %+v; want each instance's pool written on its row", c.pools)
	}
	if m.used("db") != 2 {
		t.Fatalf("slots in use %d; want 2", m.used("db"))
	}
	// A re-fire of the held instance (a duplicate wheel entry) changes nothing.
	if c := m.fire(j, 12); len(c.inst) != 0 {
		t.Fatalf("re-fired held instance: %+v; want nothing", c.inst)
	}
	// 10 ends: 12 starts in the same batch, its marker cleared.
	var task10 int64
	for _, it := range m.s.instances {
		if it.ID == 10 {
			for id := range it.onWorkers {
				task10 = id
			}
		}
	}
	m.s.now = t0.Add(time.Second)
	c = m.report("w1", task10, protocol.TaskFailed, "boom")
	if tr := instanceTo(c, 12); tr == nil || tr.To != db.StatusDispatched || tr.Reason == nil || *tr.Reason != "" {
		t.Fatalf("12 after 10 failed: %+v; want DISPATCHED with its POOL_FULL marker cleared", tr)
	}
	if len(m.s.poolQueues) != 0 || len(m.s.pooledIDs) != 0 || m.used("db") != 2 {
		t.Fatalf("queues %v, %d slots in use; want none waiting and 2 in use", m.s.poolQueues, m.used("db"))
	}
}

func TestPoolQueueGoesByPriorityThenFireTimeAndTheHeadHoldsUpThoseBehind(t *testing.T) {
	m := newSim(t)
	m.join("w1", 8)
	small := job(1, func(j *db.Job) { j.Pool = "gpu"; j.PoolSlots = 1 })
	big := job(2, func(j *db.Job) { j.Pool = "gpu"; j.PoolSlots = 3 })
	urgent := job(3, func(j *db.Job) { j.Pool = "gpu"; j.PoolSlots = 1; j.Priority = 10 })
	m.withPools(map[string]int{"gpu": 3}, small, big, urgent)
	c := m.fire(small, 10)
	_, running := m.only(c)
	m.s.now = t0.Add(time.Second)
	if c := m.fire(big, 20); instanceTo(c, 20).To != db.StatusWaiting {
		t.Fatal("the 3-slot instance started with 1 of 3 slots taken")
	}
	// 2 slots are free, but the 3-slot head came first: a later 1-slot
	// fire of the same priority waits behind it rather than starve it.
	m.s.now = t0.Add(2 * time.Second)
	if c := m.fire(small, 11); instanceTo(c, 11).To != db.StatusWaiting {
		t.Fatal("a later fire overtook the queue's head")
	}
	// A higher-priority fire goes to the front; it fits, so it starts.
	m.s.now = t0.Add(3 * time.Second)
	c = m.fire(urgent, 30)
	if !dispatchedIDs(c)[30] {
		t.Fatalf("the priority 10 fire waited: %+v", instanceTo(c, 30))
	}
	q := m.s.poolQueues["gpu"].items
	if len(q) != 2 || q[0].in.ID != 20 || q[1].in.ID != 11 {
		t.Fatalf("queue %v; want 20 then 11", q)
	}
	// The first holder ends: 1 of 3 in use (30) — still too few for 20.
	m.s.now = t0.Add(4 * time.Second)
	c = m.report("w1", running.ID, protocol.TaskSucceeded, "")
	if len(dispatchedIDs(c)) != 0 {
		t.Fatalf("started %v with 2 slots free; the head needs 3", dispatchedIDs(c))
	}
	var urgentTask int64
	for id := range m.s.instances[30].onWorkers {
		urgentTask = id
	}
	m.s.now = t0.Add(5 * time.Second)
	c = m.report("w1", urgentTask, protocol.TaskSucceeded, "")
	if got := dispatchedIDs(c); !got[20] || got[11] {
		t.Fatalf("started %v once all 3 slots freed; want the head (20) only", got)
	}
	if m.used("gpu") != 3 || m.s.poolQueues["gpu"].items[0].in.ID != 11 {
		t.Fatalf("%d slots in use; want 3, with 11 next", m.used("gpu"))
	}
}

func TestANodesOwnPoolTakesPrecedenceOverItsJobs(t *testing.T) {
	m := newSim(t)
	m.join("w1", 8)
	j := job(1, func(j *db.Job) { j.Pool = "db"; j.PoolSlots = 1 })
	m.withPools(map[string]int{"db": 1, "mutex": 1}, j)
	node := func(id int64) db.Instance {
		return db.Instance{ID: id, AppID: 1, JobID: 1, Status: db.StatusWaiting, TriggerType: db.TriggerWorkflow, TriggerAt: m.s.now,
			Attempt: 1, Pool: new("mutex"), PoolSlots: new(1), WorkflowInstanceID: new(int64(5)), WorkflowNodeID: new("n")}
	}
	c := m.batch(func(c *changes) {
		m.s.fire(c, []firing{{id: 10, at: m.s.now}, {id: 11, at: m.s.now}}, []db.Instance{node(10), node(11)}, map[int64]*db.Job{1: j})
	})
	if got := dispatchedIDs(c); !got[10] || got[11] {
		t.Fatalf("started %v; want 10 alone in the one-slot mutex", got)
	}
	if m.used("mutex") != 1 || m.used("db") != 0 {
		t.Fatalf("in use: mutex %d, db %d; want the node's pool taken, not its job's", m.used("mutex"), m.used("db"))
	}
	// The job's own fires still take its pool.
	if c := m.fire(j, 12); !dispatchedIDs(c)[12] {
		t.Fatal("the job's own fire waited for the node's pool")
	}
}

func TestAPoolThatCannotEverTakeAnInstanceFailsItNamingWhy(t *testing.T) {
	m := newSim(t)
	m.join("w1", 8)
	big := job(1, func(j *db.Job) { j.Pool = "db"; j.PoolSlots = 3 })
	gone := job(2, func(j *db.Job) { j.Pool = "gone"; j.PoolSlots = 1 })
	m.withPools(map[string]int{"db": 2}, big, gone)
	m.s.poolDefs["gone"] = nil // read: no such pool
	c := m.fire(big, 10)
	if tr := instanceTo(c, 10); tr == nil || tr.To != db.StatusFailed || *tr.Reason != db.ReasonPoolTooSmall || !strings.Contains(*tr.Result, "which has 2") {
		t.Fatalf("3 slots of a 2-slot pool: %+v; want FAILED with POOL_TOO_SMALL", tr)
	}
	c = m.fire(gone, 11)
	if tr := instanceTo(c, 11); tr == nil || tr.To != db.StatusFailed || *tr.Reason != db.ReasonNoPool {
		t.Fatalf("a deleted pool: %+v; want FAILED with NO_POOL", tr)
	}
	// A pool whose definition could not be read: the fire stays WAITING,
	// untouched, for the next pass.
	delete(m.s.poolDefs, "gone")
	if c := m.fire(gone, 12); instanceTo(c, 12) != nil {
		t.Fatalf("unknown pool: %+v; want the fire left WAITING", instanceTo(c, 12))
	}
}

func TestAFailedAttemptWaitingForItsRetryFreesItsSlot(t *testing.T) {
	m := newSim(t)
	m.join("w1", 8)
	j := job(1, func(j *db.Job) { j.Pool = "db"; j.PoolSlots = 1; j.InstanceRetries = 1; j.RetryDelayMs = 60000 })
	m.withPools(map[string]int{"db": 1}, j)
	c := m.fire(j, 10)
	_, first := m.only(c)
	m.s.now = t0.Add(time.Second)
	m.fire(j, 11)
	m.s.now = t0.Add(2 * time.Second)
	c = m.report("w1", first.ID, protocol.TaskFailed, "boom")
	if !dispatchedIDs(c)[11] {
		t.Fatal("the held instance did not start while the failed one waits a minute for its retry")
	}
}

func TestANewOwnerRebuildsHoldersAndQueueFromTheDatabase(t *testing.T) {
	m := newSim(t)
	m.join("w1", 8)
	j := job(1, func(j *db.Job) { j.Pool = "db"; j.PoolSlots = 2 })
	m.withPools(map[string]int{"db": 3}, j)
	// As read on taking the app over: one RUNNING holder of 2 slots, and
	// two waiting (fire order).
	running := db.Instance{ID: 10, AppID: 1, JobID: 1, Status: db.StatusRunning, TriggerType: db.TriggerAPI, TriggerAt: t0.Add(-time.Minute),
		ActualTriggerAt: new(t0.Add(-time.Minute)), Attempt: 1, Pool: new("db"), PoolSlots: new(2)}
	waiting := func(id int64, at time.Time) db.Instance {
		return db.Instance{ID: id, AppID: 1, JobID: 1, Status: db.StatusWaiting, TriggerType: db.TriggerAPI, TriggerAt: at, Attempt: 1,
			Reason: db.ReasonPoolFull, Pool: new("db"), PoolSlots: new(2)}
	}
	m.s.reset([]db.Instance{running}, map[int64]*db.Job{1: j}, []db.Task{{ID: 500, InstanceID: 10, Status: db.StatusRunning,
		WorkerID: new("w1"), InstanceAttempt: 1, Kind: protocol.KindRoot}}, nil)
	m.s.repool([]db.Instance{waiting(12, t0.Add(-time.Second)), waiting(11, t0.Add(-2*time.Second))}, map[int64]*db.Job{1: j})
	c := m.batch(func(*changes) {})
	if len(dispatchedIDs(c)) != 0 || m.used("db") != 2 {
		t.Fatalf("started %v with %d of 3 slots in use; the adopted holder keeps its 2 slots", dispatchedIDs(c), m.used("db"))
	}
	if q := m.s.poolQueues["db"].items; len(q) != 2 || q[0].in.ID != 11 {
		t.Fatalf("queue %v; want 11 (fired first) ahead of 12", q)
	}
	m.s.now = t0.Add(time.Second)
	c = m.report("w1", 500, protocol.TaskSucceeded, "")
	if got := dispatchedIDs(c); !got[11] || got[12] || m.used("db") != 2 {
		t.Fatalf("after the holder ended: started %v, %d in use; want 11 alone (2 of 3 slots)", got, m.used("db"))
	}
	// One stopped through the API meanwhile leaves the queue on re-read.
	m.s.poolRefreshed([]int64{12}, []db.Instance{{ID: 12, Status: db.StatusStopped}})
	if len(m.s.poolQueues) != 0 || len(m.s.pooledIDs) != 0 {
		t.Fatalf("queues %v after the stop; want none", m.s.poolQueues)
	}
}

func TestAnInstanceWaitingForItsPoolCountsAgainstItsJobsMaxInstances(t *testing.T) {
	m := newSim(t)
	m.join("w1", 8)
	other := job(2, func(j *db.Job) { j.Pool = "db"; j.PoolSlots = 1 })
	j := job(1, func(j *db.Job) { j.Pool = "db"; j.PoolSlots = 1; j.MaxInstances = 1 })
	m.withPools(map[string]int{"db": 1}, j, other)
	m.fire(other, 9)
	m.s.now = t0.Add(time.Second)
	if c := m.fire(j, 10); instanceTo(c, 10).Reason == nil || *instanceTo(c, 10).Reason != db.ReasonPoolFull {
		t.Fatal("10 did not wait for the pool")
	}
	m.s.now = t0.Add(2 * time.Second)
	c := m.fire(j, 11)
	if tr := instanceTo(c, 11); tr == nil || tr.To != db.StatusCanceled || *tr.Reason != db.ReasonMaxInstances {
		t.Fatalf("a second fire of the maxInstances 1 job: %+v; want CANCELED with MAX_INSTANCES (10 is under way, waiting for its pool)", tr)
	}
}
