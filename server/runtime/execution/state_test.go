package execution

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/runtime/hub"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// These tests drive the decisions alone: no database, no goroutines, the
// time set by hand. Each batch's changes are inspected, then "committed"
// the way the actor does once its transaction succeeded.

var t0 = time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)

type sim struct {
	t      *testing.T
	s      *state
	nextID int64
	// jobs are the jobs of instances held in pools' queues, as the actor
	// reads them for promotePools (pools_test.go).
	jobs map[int64]*db.Job
}

func newSim(t *testing.T) *sim {
	cfg := Config{}
	cfg.defaults()
	s := newState(1, 7, cfg, slog.New(slog.DiscardHandler))
	s.name = "orders"
	s.now = t0
	s.adopted = t0.Add(-time.Hour)
	return &sim{t: t, s: s, nextID: 100}
}

// batch runs decide on fresh changes, then assigns slots and commits as
// the actor does, giving new tasks their ids.
func (m *sim) batch(decide func(c *changes)) *changes {
	m.s.wakeDelayed()
	c := newChanges()
	decide(c)
	m.s.promote(c)
	m.s.promotePools(c, m.jobs)
	m.s.assign(c)
	c.coalesce()
	for _, t := range c.newTasks {
		m.nextID++
		t.ID = m.nextID
	}
	m.s.committed(c)
	return c
}

func (m *sim) join(id string, slots int, tags ...string) {
	m.batch(func(c *changes) {
		m.s.joined(c, &hub.WorkerInfo{AppID: 1, ID: id, Host: id, Slots: slots, Tags: tags, Types: []string{"SHELL"}, Processors: []string{"sum"},
			Metrics: protocol.Metrics{CPUCores: 4}})
	})
}

func job(id int64, mutate func(*db.Job)) *db.Job {
	j := &db.Job{ID: id, AppID: 1, Name: "j", Enabled: true, ScheduleType: db.ScheduleAPI, ExecutionMode: db.ModeStandalone,
		ProcessorType: db.ProcessorShell, Processor: "true", MaxInstances: 5, TaskConcurrency: 5, DispatchStrategy: db.DispatchRoundRobin}
	if mutate != nil {
		mutate(j)
	}
	return j
}

// fire fires instances of job j, one per id, triggered at the sim's time.
func (m *sim) fire(j *db.Job, ids ...int64) *changes {
	var fires []firing
	var loaded []db.Instance
	for _, id := range ids {
		fires = append(fires, firing{id: id, at: m.s.now})
		loaded = append(loaded, db.Instance{ID: id, AppID: 1, JobID: j.ID, Status: db.StatusWaiting, TriggerType: db.TriggerAPI,
			TriggerAt: m.s.now, Attempt: 1})
	}
	return m.batch(func(c *changes) { m.s.fire(c, fires, loaded, map[int64]*db.Job{j.ID: j}) })
}

func (m *sim) report(worker string, taskID int64, status, result string) *changes {
	return m.batch(func(c *changes) {
		m.s.reported(c, worker, &protocol.Report{Items: []protocol.TaskReport{{TaskID: taskID, Status: status, Result: result, At: m.s.now}}})
	})
}

// only returns the one task dispatched in c, and its worker.
func (m *sim) only(c *changes) (string, *task) {
	m.t.Helper()
	var w string
	var out *task
	n := 0
	for wid, list := range c.dispatch {
		for _, t := range list {
			w, out = wid, t
			n++
		}
	}
	if n != 1 {
		m.t.Fatalf("%d tasks dispatched; want 1", n)
	}
	return w, out
}

func instanceTo(c *changes, id int64) *db.InstanceTransition {
	for i := range c.inst {
		if c.inst[i].ID == id {
			return &c.inst[i]
		}
	}
	return nil
}

func TestFireDispatchesAndReportEndsTheInstance(t *testing.T) {
	m := newSim(t)
	m.join("w1", 2)
	j := job(1, nil)
	c := m.fire(j, 10)
	tr := instanceTo(c, 10)
	if tr == nil || tr.From != db.StatusWaiting || tr.To != db.StatusDispatched || *tr.Epoch != 7 || !tr.ActualTriggerAt.Equal(t0) {
		t.Fatalf("fire: transition %+v; want WAITING → DISPATCHED under epoch 7 at the fire time", tr)
	}
	w, root := m.only(c)
	if w != "w1" || root.Kind != protocol.KindRoot || len(c.newTasks) != 1 {
		t.Fatalf("fire: dispatched %s to %s, %d new tasks; want one ROOT task to w1", root.Kind, w, len(c.newTasks))
	}
	if spec := m.s.taskSpec(root); spec.InstanceID != 10 || spec.Processor != "true" || spec.Attempt != 1 {
		t.Fatalf("task spec %+v", spec)
	}

	m.s.now = t0.Add(time.Second)
	c = m.report("w1", root.ID, protocol.TaskSucceeded, "done")
	tr = instanceTo(c, 10)
	if tr == nil || tr.From != db.StatusDispatched || tr.To != db.StatusSucceeded || *tr.Result != "done" || tr.StartedAt == nil {
		t.Fatalf("report: transition %+v; want DISPATCHED → SUCCEEDED with its result and a start time", tr)
	}
	if len(m.s.instances) != 0 || m.s.workers["w1"].Busy != 0 {
		t.Fatalf("after the end: %d active instances, w1 busy %d; want none", len(m.s.instances), m.s.workers["w1"].Busy)
	}
	// A re-sent report of the same task changes nothing.
	if c := m.report("w1", root.ID, protocol.TaskSucceeded, "done"); !c.empty() {
		t.Fatalf("a re-sent report wrote %+v", c)
	}
}

func TestMaxInstancesCancelsTheLaterFire(t *testing.T) {
	m := newSim(t)
	m.join("w1", 4)
	j := job(1, func(j *db.Job) { j.MaxInstances = 1 })
	c := m.fire(j, 10, 11)
	if tr := instanceTo(c, 10); tr == nil || tr.To != db.StatusDispatched {
		t.Fatalf("first fire: %+v; want DISPATCHED", tr)
	}
	tr := instanceTo(c, 11)
	if tr == nil || tr.To != db.StatusCanceled || *tr.Reason != db.ReasonMaxInstances || !strings.Contains(*tr.Result, "maxInstances 1") {
		t.Fatalf("second fire: %+v; want CANCELED for MAX_INSTANCES, saying the limit", tr)
	}
}

func TestNoWorkerWaitsThenFailsSayingWhy(t *testing.T) {
	m := newSim(t)
	m.join("w1", 4, "blue")
	j := job(1, func(j *db.Job) { j.WorkerFilter.Tags = []string{"red"} })
	if c := m.fire(j, 10); len(c.inst) != 0 {
		t.Fatalf("within NoWorkerWait: %+v; want the instance left WAITING", c.inst)
	}
	m.s.now = t0.Add(11 * time.Second)
	c := m.batch(func(c *changes) {
		m.s.fire(c, []firing{{id: 10, at: m.s.now}}, []db.Instance{{ID: 10, AppID: 1, JobID: 1, Status: db.StatusWaiting,
			TriggerType: db.TriggerAPI, TriggerAt: t0, Attempt: 1}}, map[int64]*db.Job{1: j})
	})
	tr := instanceTo(c, 10)
	if tr == nil || tr.To != db.StatusFailed || *tr.Reason != db.ReasonNoWorker || !strings.Contains(*tr.Result, "red") {
		t.Fatalf("after NoWorkerWait: %+v; want FAILED for NO_WORKER naming the missing tag", tr)
	}
	if len(c.failures) != 1 {
		t.Fatalf("%d alarms; want one", len(c.failures))
	}
}

func TestSlotsAndTaskConcurrencyBoundAssignment(t *testing.T) {
	m := newSim(t)
	m.join("w1", 1)
	j := job(1, nil)
	c := m.fire(j, 10, 11)
	if _, root := m.only(c); root.InstanceID != 10 {
		t.Fatalf("one slot: the oldest fire goes first, got instance %d", root.InstanceID)
	}
	if m.s.queued() != 1 {
		t.Fatalf("%d tasks queued; want the second fire's task waiting for a slot", m.s.queued())
	}
	// The slot frees: the queued task goes.
	_, first := m.only(c)
	c = m.report("w1", first.ID, protocol.TaskSucceeded, "")
	if _, next := m.only(c); next.InstanceID != 11 {
		t.Fatalf("freed slot went to instance %d; want 11", next.InstanceID)
	}
}

func TestLostWorkerFailsItsTasksAfterTheGraceAndRetries(t *testing.T) {
	m := newSim(t)
	m.join("w1", 4)
	m.join("w2", 4)
	j := job(1, func(j *db.Job) { j.InstanceRetries = 1 })
	c := m.fire(j, 10)
	w, root := m.only(c)
	m.batch(func(c *changes) {
		m.s.dispatchResult(c, &dispatchResult{worker: w, tasks: []int64{root.ID}, ack: &protocol.Ack{OK: true, Accepted: []int64{root.ID}}})
	})
	m.s.left(w)
	m.s.now = t0.Add(time.Second)
	if c := m.batch(func(c *changes) { m.s.check(c, m.s.now) }); !c.empty() {
		t.Fatalf("within the grace: %+v; want nothing", c)
	}
	m.s.now = t0.Add(m.s.cfg.LostGrace + time.Second)
	c = m.batch(func(c *changes) { m.s.check(c, m.s.now) })
	if len(c.retries) != 1 || c.retries[0].attempt != 2 || c.retries[0].reason != db.ReasonWorkerLost {
		t.Fatalf("after the grace: retries %+v; want attempt 2 for WORKER_LOST", c.retries)
	}
	if !c.retries[0].at.Equal(m.s.now.Add(m.s.cfg.RetryDelay)) {
		t.Fatalf("retry at %v; want RetryDelay after now", c.retries[0].at)
	}
}

func TestBroadcastRunsPreEachWorkerThenPost(t *testing.T) {
	m := newSim(t)
	m.join("w1", 4)
	m.join("w2", 4)
	j := job(1, func(j *db.Job) { j.ExecutionMode = db.ModeBroadcast })
	c := m.fire(j, 10)
	w, pre := m.only(c)
	if pre.Kind != protocol.KindPre {
		t.Fatalf("first task %s; want PRE", pre.Kind)
	}
	c = m.report(w, pre.ID, protocol.TaskSucceeded, "")
	on := map[string]int64{}
	for wid, list := range c.dispatch {
		for _, t := range list {
			if t.Kind == protocol.KindBroadcast {
				on[wid] = t.ID
			}
		}
	}
	if len(on) != 2 {
		t.Fatalf("broadcast went to %v; want one task on each of w1, w2", on)
	}
	m.report("w1", on["w1"], protocol.TaskSucceeded, "")
	c = m.report("w2", on["w2"], protocol.TaskSucceeded, "")
	w, post := m.only(c)
	if post.Kind != protocol.KindPost {
		t.Fatalf("after the broadcast: %s; want POST", post.Kind)
	}
	c = m.report(w, post.ID, protocol.TaskSucceeded, "all done")
	if tr := instanceTo(c, 10); tr == nil || tr.To != db.StatusSucceeded || *tr.Result != "all done" {
		t.Fatalf("post: %+v; want SUCCEEDED with POST's result", tr)
	}
}

func TestMapThenReduceAndARepeatedMapKey(t *testing.T) {
	m := newSim(t)
	m.join("w1", 8)
	j := job(1, func(j *db.Job) {
		j.ExecutionMode = db.ModeMapReduce
		j.ProcessorType = db.ProcessorGo
		j.Processor = "sum"
	})
	c := m.fire(j, 10)
	_, root := m.only(c)
	mp := &protocol.Map{InstanceID: 10, ParentTaskID: root.ID, Name: "part", Key: "k1", Payloads: []string{"1", "2"}}
	var err error
	c = m.batch(func(c *changes) { err = m.s.mapped(c, "w1", mp, false) })
	if err != nil || len(c.newTasks) != 2 || len(c.mapRequests) != 1 {
		t.Fatalf("map: err %v, %d tasks, %d keys; want 2 subtasks and the key stored", err, len(c.newTasks), len(c.mapRequests))
	}
	subs := c.dispatch["w1"]
	c = m.batch(func(c *changes) { err = m.s.mapped(c, "w1", mp, false) })
	if err != nil || len(c.newTasks) != 0 {
		t.Fatalf("re-sent map: err %v, %d tasks; want it acked without new subtasks", err, len(c.newTasks))
	}
	if err := m.s.mapped(newChanges(), "w2", mp, false); err == nil {
		t.Fatal("a map from a worker not running the parent was accepted")
	}
	m.report("w1", root.ID, protocol.TaskSucceeded, "")
	m.report("w1", subs[0].ID, protocol.TaskSucceeded, "1")
	c = m.report("w1", subs[1].ID, protocol.TaskSucceeded, "2")
	_, reduce := m.only(c)
	if reduce.Kind != protocol.KindReduce {
		t.Fatalf("after the map: %s; want REDUCE", reduce.Kind)
	}
	c = m.report("w1", reduce.ID, protocol.TaskSucceeded, "3")
	if tr := instanceTo(c, 10); tr == nil || tr.To != db.StatusSucceeded || *tr.Result != "3" {
		t.Fatalf("reduce: %+v; want SUCCEEDED with the reduce's result", tr)
	}
}

func TestTimeoutFailsTheAttemptAndStopsItsTasks(t *testing.T) {
	m := newSim(t)
	m.join("w1", 4)
	j := job(1, func(j *db.Job) { j.TimeoutMs = 2000 })
	c := m.fire(j, 10)
	w, root := m.only(c)
	m.s.now = t0.Add(3 * time.Second)
	c = m.batch(func(c *changes) { m.s.check(c, m.s.now) })
	tr := instanceTo(c, 10)
	if tr == nil || tr.To != db.StatusFailed || *tr.Reason != db.ReasonTimeout {
		t.Fatalf("past the deadline: %+v; want FAILED for TIMEOUT", tr)
	}
	if len(c.stops) != 1 || c.stops[0].worker != w || c.stops[0].stop.TaskIDs[0] != root.ID {
		t.Fatalf("stops %+v; want the task stopped on %s", c.stops, w)
	}
}
