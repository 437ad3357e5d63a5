package execution

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/server/platform/readcache"
	"github.com/jobwheel/jobwheel/server/runtime/hub"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// These tests drive an app's actor through its entry points (joins,
// fires, reports, maps, losses) on a real database. What the actor sends
// to workers goes to a recorder that acks dispatches the way a worker
// does; the worker channel itself is tested in package hub and end to end,
// and the decisions alone, without a database, in state_test.go.

type frame struct {
	worker string
	typ    string
	body   any
}

type recorder struct {
	mu      sync.Mutex
	frames  chan frame
	workers []hub.WorkerInfo
}

func (r *recorder) Send(worker, typ string, body any, onReply func(*protocol.Ack, error)) error {
	r.frames <- frame{worker, typ, body}
	if onReply != nil {
		ack := &protocol.Ack{OK: true}
		if d, ok := body.(*protocol.Dispatch); ok {
			for _, t := range d.Tasks {
				ack.Accepted = append(ack.Accepted, t.TaskID)
			}
		}
		go onReply(ack, nil)
	}
	return nil
}

func (r *recorder) Workers() []hub.WorkerInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.workers
}

type noWaker struct{}

func (noWaker) Wake()                   {}
func (noWaker) Unfired([]int64)         {}
func (noWaker) FiresTaken(_, _ []int64) {}

type bundle struct {
	t   *testing.T
	e   *Actor
	d   *db.DB
	rec *recorder
	app int64
}

func setup(t *testing.T, dialect db.Dialect) *bundle {
	t.Helper()
	return setupOn(t, dbtest.Open(t, dialect))
}

// setupOn starts an actor on d.
func setupOn(t *testing.T, d *db.DB) *bundle {
	t.Helper()
	return setupWith(t, d, nil)
}

// setupWith starts an actor on d with the test's configuration, changed
// by tune.
func setupWith(t *testing.T, d *db.DB, tune func(*Config)) *bundle {
	t.Helper()
	return setupWaker(t, d, tune, noWaker{})
}

// setupWaker is setupWith with the trigger loop's side of the links.
func setupWaker(t *testing.T, d *db.DB, tune func(*Config), waker Waker) *bundle {
	t.Helper()
	return setupActor(t, d, tune, waker, nil)
}

// setupActor is setupWaker with prepare run on the actor before it starts.
func setupActor(t *testing.T, d *db.DB, tune func(*Config), waker Waker, prepare func(*Actor)) *bundle {
	t.Helper()
	rec := &recorder{frames: make(chan frame, 100)}
	app := &db.App{Name: "orders", SecretHash: "x"}
	if err := d.AppCreate(context.Background(), app); err != nil {
		t.Fatal(err)
	}
	cfg := Config{CheckInterval: 20 * time.Millisecond, LostGrace: 100 * time.Millisecond, AdoptGrace: 100 * time.Millisecond,
		RetryDelay: time.Millisecond, NoWorkerWait: 100 * time.Millisecond}
	if tune != nil {
		tune(&cfg)
	}
	e := New(cfg, Deps{Store: d, Log: slog.New(slog.DiscardHandler)},
		app.ID, 3, Links{Sender: rec, Waker: waker})
	e.Committed.Init()
	if prepare != nil {
		prepare(e)
	}
	if err := e.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	e.Committed.Wait(t) // adopted the (empty) app: what follows happens after

	return &bundle{t: t, e: e, d: d, rec: rec, app: app.ID}
}

func (b *bundle) join(id string, slots int) {
	b.e.WorkerJoined(hub.WorkerInfo{AppID: b.app, ID: id, Host: id, Types: []string{"SHELL"}, Processors: []string{"mr"}, Slots: slots,
		Metrics: protocol.Metrics{CPUCores: 4}})
}

func (b *bundle) job(mutate func(j *db.Job)) *db.Job {
	b.t.Helper()
	j := &db.Job{AppID: b.app, Name: fmt.Sprintf("job-%d", time.Now().UnixNano()), Enabled: true, ScheduleType: "API", TimeZone: "UTC",
		ExecutionMode: "STANDALONE", ProcessorType: "SHELL", Processor: "true", MaxInstances: 5, TaskConcurrency: 5,
		DispatchStrategy: "ROUND_ROBIN", MisfirePolicy: "FIRE_ONCE"}
	if mutate != nil {
		mutate(j)
	}
	if err := b.d.JobCreate(context.Background(), j); err != nil {
		b.t.Fatal(err)
	}
	return j
}

func (b *bundle) fire(j *db.Job) int64 {
	b.t.Helper()
	in := &db.Instance{AppID: b.app, JobID: j.ID, Status: db.StatusWaiting, TriggerType: db.TriggerAPI, TriggerAt: db.Now()}
	if err := b.d.InstanceCreate(context.Background(), in); err != nil {
		b.t.Fatal(err)
	}
	b.e.Fire([]int64{in.ID}, db.Now())
	return in.ID
}

// next returns the next frame of a type.
func (b *bundle) next(typ string) frame {
	b.t.Helper()
	for {
		select {
		case f := <-b.rec.frames:
			if f.typ == typ {
				return f
			}
		case <-time.After(20 * time.Second):
			b.t.Fatalf("no %s frame", typ)
		}
	}
}

func (b *bundle) dispatched() (string, protocol.Task) {
	b.t.Helper()
	f := b.next(protocol.TypeDispatch)
	d := f.body.(*protocol.Dispatch)
	if len(d.Tasks) != 1 || d.Epoch != 3 {
		b.t.Fatalf("dispatch = %+v; want one task at epoch 3", d)
	}
	return f.worker, d.Tasks[0]
}

func (b *bundle) report(worker string, task protocol.Task, statuses ...string) {
	b.t.Helper()
	items := make([]protocol.TaskReport, len(statuses))
	for i, s := range statuses {
		items[i] = protocol.TaskReport{TaskID: task.TaskID, InstanceID: task.InstanceID, Status: s, At: time.Now(), Result: "r-" + s}
	}
	done := make(chan error, 1)
	b.e.Report(worker, &protocol.Report{Items: items}, func(err error) { done <- err })
	if err := <-done; err != nil {
		b.t.Fatal(err)
	}
}

// reportAll reports tasks SUCCEEDED in one message, as a worker batches
// them, after seeing each.
func (b *bundle) reportAll(worker string, tasks []protocol.Task, see func(protocol.Task)) {
	b.t.Helper()
	if len(tasks) == 0 {
		return
	}
	items := make([]protocol.TaskReport, len(tasks))
	for i, t := range tasks {
		see(t)
		items[i] = protocol.TaskReport{TaskID: t.TaskID, InstanceID: t.InstanceID, Status: protocol.TaskSucceeded, At: time.Now(), Result: "r"}
	}
	done := make(chan error, 1)
	b.e.Report(worker, &protocol.Report{Items: items}, func(err error) { done <- err })
	if err := <-done; err != nil {
		b.t.Fatal(err)
	}
}

func (b *bundle) waitStatus(id int64, want string) *db.Instance {
	b.t.Helper()
	var in *db.Instance
	testkit.Eventually(b.t, fmt.Sprintf("instance %d to be %s", id, want), func() bool {
		var err error
		in, err = b.d.InstanceGet(context.Background(), id)
		if err != nil {
			b.t.Fatal(err)
		}
		return in.Status == want
	})
	return in
}

func TestStandaloneLifecycle(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, dummy *db.DB) {
		b := setup(t, dummy.Dialect())
		b.join("w1", 2)
		j := b.job(nil)
		id := b.fire(j)
		w, task := b.dispatched()
		if w != "w1" || task.Kind != protocol.KindRoot || task.InstanceID != id {
			t.Fatalf("dispatched %+v to %s", task, w)
		}
		b.report(w, task, protocol.TaskRunning)
		b.waitStatus(id, db.StatusRunning)
		b.report(w, task, protocol.TaskSucceeded)
		in := b.waitStatus(id, db.StatusSucceeded)
		if in.Result != "r-SUCCEEDED" || in.StartedAt == nil || in.FinishedAt == nil || in.WorkerID == nil || *in.WorkerID != "w1" || in.Epoch != 3 {
			t.Fatalf("finished instance = %+v", in)
		}
		// A succeeded attempt has no row of its own: the instance row
		// tells it, and the API shows it from there.
		stored, _ := b.d.AttemptList(context.Background(), id)
		atts := db.AttemptsWithCurrent(stored, in)
		if len(stored) != 0 || len(atts) != 1 || atts[0].Status != db.StatusSucceeded || atts[0].WorkerID == nil || *atts[0].WorkerID != "w1" ||
			atts[0].StartedAt == nil || atts[0].FinishedAt == nil || atts[0].Result != "r-SUCCEEDED" {
			t.Fatalf("attempt rows %+v; shown %+v", stored, atts)
		}
		// A re-sent report for a finished task changes nothing.
		b.report(w, task, protocol.TaskFailed)
		if in := b.waitStatus(id, db.StatusSucceeded); in.Result != "r-SUCCEEDED" {
			t.Fatalf("a re-sent report changed the result: %+v", in)
		}
	})
}

func TestRetries(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, dummy *db.DB) {
		b := setup(t, dummy.Dialect())
		b.join("w1", 2)
		b.join("w2", 2)
		// A task retry re-dispatches the same task.
		j := b.job(func(j *db.Job) { j.TaskRetries = 1 })
		id := b.fire(j)
		w, task := b.dispatched()
		b.report(w, task, protocol.TaskRunning, protocol.TaskFailed)
		w2, again := b.dispatched()
		if again.TaskID != task.TaskID {
			t.Fatalf("task retry dispatched task %d; want %d again", again.TaskID, task.TaskID)
		}
		b.report(w2, again, protocol.TaskSucceeded)
		b.waitStatus(id, db.StatusSucceeded)

		// An instance retry runs attempt 2 after the first fails.
		j = b.job(func(j *db.Job) { j.InstanceRetries = 1 })
		id = b.fire(j)
		w, task = b.dispatched()
		first := w
		b.report(w, task, protocol.TaskFailed)
		in := b.waitStatus(id, db.StatusWaiting)
		if in.Attempt != 2 {
			t.Fatalf("retried instance attempt = %d", in.Attempt)
		}
		b.e.Fire([]int64{id}, db.Now())
		w, task = b.dispatched()
		if task.Attempt != 2 {
			t.Fatalf("second attempt's task attempt = %d", task.Attempt)
		}
		b.report(w, task, protocol.TaskSucceeded)
		in = b.waitStatus(id, db.StatusSucceeded)
		stored, _ := b.d.AttemptList(context.Background(), id)
		atts := db.AttemptsWithCurrent(stored, in)
		if len(atts) != 2 || atts[0].Status != db.StatusFailed || atts[0].WorkerID == nil || *atts[0].WorkerID != first ||
			atts[0].StartedAt == nil || atts[1].Status != db.StatusSucceeded || atts[1].Attempt != 2 {
			t.Fatalf("attempts = %+v", atts)
		}
	})
}

func TestWorkerLostAndTimeout(t *testing.T) {
	t.Parallel()
	b := setup(t, db.SQLite)
	b.join("w1", 2)
	j := b.job(nil)
	id := b.fire(j)
	w, task := b.dispatched()
	b.report(w, task, protocol.TaskRunning)
	b.e.WorkerLeft("w1")
	in := b.waitStatus(id, db.StatusFailed)
	if in.Reason != db.ReasonWorkerLost {
		t.Fatalf("lost worker: reason %q", in.Reason)
	}

	b.join("w2", 2)
	j = b.job(func(j *db.Job) { j.TimeoutMs = 100 })
	id = b.fire(j)
	w, task = b.dispatched()
	b.report(w, task, protocol.TaskRunning)
	stop := b.next(protocol.TypeStop)
	if s := stop.body.(*protocol.Stop); stop.worker != "w2" || len(s.TaskIDs) != 1 || s.TaskIDs[0] != task.TaskID {
		t.Fatalf("stop = %+v to %s", stop.body, stop.worker)
	}
	if in := b.waitStatus(id, db.StatusFailed); in.Reason != db.ReasonTimeout {
		t.Fatalf("timed out: reason %q", in.Reason)
	}
}

func TestBroadcastStages(t *testing.T) {
	t.Parallel()
	b := setup(t, db.SQLite)
	b.join("w1", 2)
	b.join("w2", 2)
	j := b.job(func(j *db.Job) { j.ExecutionMode = "BROADCAST" })
	id := b.fire(j)
	w, pre := b.dispatched()
	if pre.Kind != protocol.KindPre {
		t.Fatalf("first task %s; want PRE", pre.Kind)
	}
	b.report(w, pre, protocol.TaskSucceeded)
	on := map[string]protocol.Task{}
	for i := 0; i < 2; i++ {
		w, t2 := b.dispatched()
		if t2.Kind != protocol.KindBroadcast {
			t.Fatalf("task %s; want BROADCAST", t2.Kind)
		}
		on[w] = t2
	}
	if len(on) != 2 {
		t.Fatalf("broadcast went to %v; want each worker once", on)
	}
	for w, t2 := range on {
		b.report(w, t2, protocol.TaskSucceeded)
	}
	w, post := b.dispatched()
	if post.Kind != protocol.KindPost || len(post.Results) != 2 {
		t.Fatalf("post = %+v; want POST with 2 results", post)
	}
	b.report(w, post, protocol.TaskSucceeded)
	b.waitStatus(id, db.StatusSucceeded)
}

func TestMapReduce(t *testing.T) {
	t.Parallel()
	b := setup(t, db.SQLite)
	b.join("w1", 4)
	j := b.job(func(j *db.Job) { j.ExecutionMode = "MAP_REDUCE"; j.ProcessorType = "GO"; j.Processor = "mr" })
	id := b.fire(j)
	w, root := b.dispatched()
	b.report(w, root, protocol.TaskRunning)
	done := make(chan error, 1)
	m := &protocol.Map{InstanceID: id, ParentTaskID: root.TaskID, Name: "sq", Payloads: []string{"1", "2", "3"}, Key: "w1/1"}
	b.e.Map(w, m, func(err error) { done <- err })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Its ack was lost: the worker sends it again; nothing is added.
	b.e.Map(w, m, func(err error) { done <- err })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b.report(w, root, protocol.TaskSucceeded)
	seen := 0
	for seen < 3 {
		f := b.next(protocol.TypeDispatch)
		for _, t2 := range f.body.(*protocol.Dispatch).Tasks {
			if t2.Kind != protocol.KindMap || t2.Name != "sq" {
				t.Fatalf("subtask %+v", t2)
			}
			b.report(f.worker, t2, protocol.TaskSucceeded)
			seen++
		}
	}
	w, reduce := b.dispatched()
	if reduce.Kind != protocol.KindReduce || len(reduce.Results) != 4 {
		t.Fatalf("reduce = %+v; want REDUCE with the root's and 3 subtasks' results", reduce)
	}
	b.report(w, reduce, protocol.TaskSucceeded)
	b.waitStatus(id, db.StatusSucceeded)

	// map() from a task of another worker is refused: REFUSED, the
	// worker's fault, not INTERNAL (issue 25, info).
	b.join("w9", 1)
	id = b.fire(j)
	_, root = b.dispatched()
	b.e.Map("w9", &protocol.Map{InstanceID: id, ParentTaskID: root.TaskID, Name: "x", Payloads: []string{"1"}}, func(err error) { done <- err })
	var pe *protocol.Error
	if err := <-done; !errors.As(err, &pe) || pe.Code != protocol.CodeRefused {
		t.Fatalf("a map from a worker not running the parent answered %v; want REFUSED", err)
	}
}

// The attacker probe (docs/security.md): one ROOT task mapped 200,000
// subtasks and every one was stored. An instance's maps create at most
// MapMaxTasks subtasks holding at most MapMaxBytes of payload; a map past
// either is REFUSED naming the limit, and stores nothing (neither its
// subtasks nor its key, so the worker may send a smaller one).
func TestMapBoundedPerInstance(t *testing.T) {
	t.Parallel()
	b := setupWith(t, dbtest.Open(t, db.SQLite), func(c *Config) { c.MapMaxTasks = 5; c.MapMaxBytes = 100 })
	b.join("w1", 1)
	j := b.job(func(j *db.Job) { j.ExecutionMode = "MAP"; j.ProcessorType = "GO"; j.Processor = "mr" })
	ctx := context.Background()
	mapOn := func(id int64, root protocol.Task, key string, payloads ...string) error {
		done := make(chan error, 1)
		b.e.Map("w1", &protocol.Map{InstanceID: id, ParentTaskID: root.TaskID, Name: "sub", Payloads: payloads, Key: key},
			func(err error) { done <- err })
		return <-done
	}
	refused := func(err error, limit string) {
		t.Helper()
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeRefused || !strings.Contains(pe.Message, limit) {
			t.Fatalf("map past the bound answered %v; want REFUSED naming %s", err, limit)
		}
	}
	stored := func(id int64) int {
		t.Helper()
		list, _, err := b.d.TaskList(ctx, id, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}

	id := b.fire(j)
	_, root := b.dispatched()
	b.report("w1", root, protocol.TaskRunning)
	if err := mapOn(id, root, "k1", "1", "2", "3"); err != nil {
		t.Fatal(err)
	}
	refused(mapOn(id, root, "k2", "4", "5", "6"), "JOBWHEEL_MAP_MAX_TASKS_PER_INSTANCE")
	if n := stored(id); n != 4 {
		t.Fatalf("%d tasks stored; want the root and 3 subtasks", n)
	}
	if applied, err := b.d.MapRequestApplied(ctx, id, "k2"); err != nil || applied {
		t.Fatalf("the refused map's key stored: %v %v", applied, err)
	}
	// Up to the bound is accepted; the same key again is still acked.
	if err := mapOn(id, root, "k2", "4", "5"); err != nil {
		t.Fatal(err)
	}
	if err := mapOn(id, root, "k2", "4", "5"); err != nil {
		t.Fatal(err)
	}
	refused(mapOn(id, root, "k3", "6"), "at most 5 per instance")
	if n := stored(id); n != 6 {
		t.Fatalf("%d tasks stored; want the root and 5 subtasks", n)
	}

	// Payload bytes, on another app's instance: 60 + 60 is past 100.
	b = setupWith(t, dbtest.Open(t, db.SQLite), func(c *Config) { c.MapMaxTasks = 5; c.MapMaxBytes = 100 })
	b.join("w1", 1)
	j = b.job(func(j *db.Job) { j.ExecutionMode = "MAP"; j.ProcessorType = "GO"; j.Processor = "mr" })
	id2 := b.fire(j)
	_, root2 := b.dispatched()
	b.report("w1", root2, protocol.TaskRunning)
	if err := mapOn(id2, root2, "a", strings.Repeat("x", 60)); err != nil {
		t.Fatal(err)
	}
	refused(mapOn(id2, root2, "b", strings.Repeat("y", 60)), "JOBWHEEL_MAP_MAX_BYTES_PER_INSTANCE")
	if n := stored(id2); n != 2 {
		t.Fatalf("%d tasks stored; want the root and 1 subtask", n)
	}
}

func TestLimitsAndNoWorker(t *testing.T) {
	t.Parallel()
	b := setup(t, db.SQLite)
	// No worker: it waits NoWorkerWait, then fails saying why.
	j := b.job(nil)
	id := b.fire(j)
	// The trigger loop fires it again at its next pass; by then NoWorkerWait
	// (100 ms) has passed.
	b.e.Fire([]int64{id}, db.Now().Add(150*time.Millisecond))
	if in := b.waitStatus(id, db.StatusFailed); in.Reason != db.ReasonNoWorker {
		t.Fatalf("no worker: reason %q", in.Reason)
	}

	// maxInstances 1: of two fires at once, one runs and one is canceled.
	b.join("w1", 4)
	j = b.job(func(j *db.Job) { j.MaxInstances = 1 })
	in1 := &db.Instance{AppID: b.app, JobID: j.ID, Status: db.StatusWaiting, TriggerType: db.TriggerAPI, TriggerAt: db.Now()}
	in2 := &db.Instance{AppID: b.app, JobID: j.ID, Status: db.StatusWaiting, TriggerType: db.TriggerAPI, TriggerAt: db.Now().Add(time.Millisecond)}
	for _, in := range []*db.Instance{in1, in2} {
		if err := b.d.InstanceCreate(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	b.e.Fire([]int64{in1.ID, in2.ID}, db.Now())
	b.dispatched()
	if in := b.waitStatus(in2.ID, db.StatusCanceled); in.Reason != db.ReasonMaxInstances {
		t.Fatalf("over the limit: reason %q", in.Reason)
	}
	b.waitStatus(in1.ID, db.StatusDispatched)
}

// A task too large for one dispatch frame is refused with a reason that
// says so, rather than sent and lost; smaller tasks go in several frames.
func TestOversizedTaskIsRefusedNotLost(t *testing.T) {
	t.Parallel()
	b := setup(t, db.SQLite)
	b.join("w1", 4)
	huge := b.job(func(j *db.Job) { j.Processor = strings.Repeat("x", protocol.MaxFrameBytes) })
	id := b.fire(huge)
	in := b.waitStatus(id, db.StatusFailed)
	if in.Reason != db.ReasonRejected || !strings.Contains(in.Result, "bytes") {
		t.Fatalf("reason %q result %q; want REJECTED saying the size", in.Reason, in.Result)
	}
	// Two tasks that fit one frame each but not together go in two frames.
	big := b.job(func(j *db.Job) { j.Processor = strings.Repeat("y", protocol.MaxFrameBytes/2) })
	var ids []int64
	for range 2 {
		in := &db.Instance{AppID: b.app, JobID: big.ID, Status: db.StatusWaiting, TriggerType: db.TriggerAPI, TriggerAt: db.Now()}
		if err := b.d.InstanceCreate(context.Background(), in); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, in.ID)
	}
	b.e.Fire(ids, db.Now()) // one batch: both assigned together
	for range 2 {
		if f := b.next(protocol.TypeDispatch); len(f.body.(*protocol.Dispatch).Tasks) != 1 {
			t.Fatalf("a frame held %d tasks; want one each", len(f.body.(*protocol.Dispatch).Tasks))
		}
	}
}

// A fire handed over as recorded (trigger.Jobs.FireRecorded) whose
// instance was canceled after it was recorded is not run: no task is
// created and nothing is sent. The same instance fired twice at once (as
// recorded and by id) runs once.
func TestRecordedFiresRunOnceAndNeverWhenCanceled(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, dummy *db.DB) {
		b := setup(t, dummy.Dialect())
		b.join("w1", 4)
		j := b.job(nil)
		ctx := context.Background()
		fires := 0
		record := func() db.Instance {
			// Each fire its own expected time: two recorded within one
			// millisecond would be the same fire, which UNIQUE refuses.
			fires++
			at := db.Now().Add(time.Duration(fires) * time.Second)
			created, err := b.d.InstanceCreateFired(ctx, []db.Instance{{AppID: b.app, JobID: j.ID, Status: db.StatusWaiting,
				TriggerType: db.TriggerSchedule, ExpectedTriggerAt: &at, TriggerAt: at}})
			if err != nil || len(created) != 1 {
				t.Fatalf("recording a fire: %v, %v", created, err)
			}
			return created[0]
		}
		canceled := record()
		now := db.Now()
		reason := db.ReasonJobDisabled
		if moved, err := b.d.InstanceTransitionMany(ctx, []db.InstanceTransition{{ID: canceled.ID, From: db.StatusWaiting,
			To: db.StatusCanceled, FinishedAt: &now, Reason: &reason}}); err != nil || len(moved) != 1 {
			t.Fatalf("canceling: %v, %v", moved, err)
		}
		b.e.FireRecorded([]db.Instance{canceled}, db.Now())
		b.e.Committed.Wait(t)

		twice := record()
		b.e.FireRecorded([]db.Instance{twice}, db.Now())
		b.e.Fire([]int64{twice.ID}, db.Now())
		_, task := b.dispatched()
		if task.InstanceID != twice.ID {
			t.Fatalf("dispatched a task of instance %d; want only %d's (%d was canceled)", task.InstanceID, twice.ID, canceled.ID)
		}
		b.waitStatus(twice.ID, db.StatusDispatched)
		if in := b.waitStatus(canceled.ID, db.StatusCanceled); in.ActualTriggerAt != nil {
			t.Fatalf("the canceled fire was marked triggered: %+v", in)
		}
		for _, id := range []int64{canceled.ID, twice.ID} {
			tasks, err := b.d.TaskListUnfinished(ctx, []int64{id})
			if err != nil {
				t.Fatal(err)
			}
			want := map[int64]int{canceled.ID: 0, twice.ID: 1}[id]
			if len(tasks) != want {
				t.Fatalf("instance %d has %d tasks; want %d", id, len(tasks), want)
			}
		}
		select {
		case f := <-b.rec.frames:
			if f.typ == protocol.TypeDispatch {
				t.Fatalf("a second dispatch was sent: %+v", f.body)
			}
		default:
		}
	})
}

// A map-reduce instance with more subtasks than an owner holds in memory
// keeps the rest in the database and loads them a window at a time; an
// owner that takes over mid-run loads them from where they stand. Each
// subtask runs once and the reduce sees every result.
func TestMapBeyondTheWindowAndATakeOver(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, dummy *db.DB) {
		b := setup(t, dummy.Dialect())
		b.join("w1", 16)
		j := b.job(func(j *db.Job) {
			j.ExecutionMode = "MAP_REDUCE"
			j.ProcessorType = "GO"
			j.Processor = "mr"
			j.TaskConcurrency = 16
			j.TaskRetries = 1
		})
		id := b.fire(j)
		w, root := b.dispatched()
		const n = 3 * protocol.MaxBatch
		done := make(chan error, 1)
		for part := 0; part < n/protocol.MaxBatch; part++ {
			payloads := make([]string, protocol.MaxBatch)
			for i := range payloads {
				payloads[i] = fmt.Sprint(part*protocol.MaxBatch + i)
			}
			b.e.Map(w, &protocol.Map{InstanceID: id, ParentTaskID: root.TaskID, Name: "n", Payloads: payloads, Key: fmt.Sprint("k", part)},
				func(err error) { done <- err })
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		b.report(w, root, protocol.TaskSucceeded)

		ran := map[string]int{}
		// runSome reports the subtasks the actor sends until it has run
		// want of them in all.
		runSome := func(b *bundle, want int) {
			for len(ran) < want {
				var f frame
				select {
				case f = <-b.rec.frames:
				case <-time.After(20 * time.Second):
					dup := 0
					for _, k := range ran {
						if k > 1 {
							dup++
						}
					}
					counts, _ := b.d.TaskCountsByInstance(context.Background(), []int64{id})
					t.Fatalf("no dispatch after %d of %d subtasks ran (%d twice; stored %+v)", len(ran), want, dup, counts)
				}
				if f.typ != protocol.TypeDispatch {
					continue
				}
				b.reportAll(f.worker, f.body.(*protocol.Dispatch).Tasks, func(t2 protocol.Task) {
					if t2.Kind != protocol.KindMap {
						t.Fatalf("dispatched %s before every subtask ended", t2.Kind)
					}
					ran[t2.Payload]++
				})
			}
		}
		runSome(b, n/3)

		// Another owner takes over (the lease moved): it starts from the
		// database alone.
		b.e.Stop()
		next := New(Config{CheckInterval: 20 * time.Millisecond, LostGrace: time.Minute, AdoptGrace: time.Minute,
			RetryDelay: time.Millisecond, NoWorkerWait: time.Minute}, Deps{Store: b.d, Log: slog.New(slog.DiscardHandler)},
			b.app, 4, Links{Sender: b.rec, Waker: noWaker{}})
		if err := next.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(next.Stop)
		b2 := &bundle{t: t, e: next, d: b.d, rec: b.rec, app: b.app}
		// What the first owner sent and nobody reported yet is still w1's:
		// it reports those to the new owner after reconnecting.
		var inFlight []protocol.Task
		for drained := false; !drained; {
			select {
			case f := <-b.rec.frames:
				if f.typ == protocol.TypeDispatch {
					inFlight = append(inFlight, f.body.(*protocol.Dispatch).Tasks...)
				}
			default:
				drained = true
			}
		}
		b2.reportAll("w1", inFlight, func(t2 protocol.Task) { ran[t2.Payload]++ })
		// The first owner may have stored a dispatch it then did not send,
		// its lease gone: w1's heartbeat says it runs none of those, and
		// they run again (a retry, as for any task a worker lost).
		b2.e.WorkerHeartbeat("w1", &protocol.Heartbeat{})
		b2.join("w1", 16)
		runSome(b2, n)
		f := b2.next(protocol.TypeDispatch)
		d := f.body.(*protocol.Dispatch)
		if len(d.Tasks) != 1 || d.Epoch != 4 {
			t.Fatalf("dispatched %d tasks at epoch %d; want the reduce alone at the new owner's epoch 4", len(d.Tasks), d.Epoch)
		}
		reduce := d.Tasks[0]
		if reduce.Kind != protocol.KindReduce || len(reduce.Results) != n+1 {
			t.Fatalf("reduce %s with %d results; want REDUCE with %d", reduce.Kind, len(reduce.Results), n+1)
		}
		b2.report("w1", reduce, protocol.TaskSucceeded)
		b2.waitStatus(id, db.StatusSucceeded)
		for p, k := range ran {
			if k != 1 {
				t.Fatalf("subtask %s ran %d times", p, k)
			}
		}
		if len(ran) != n {
			t.Fatalf("%d subtasks ran; want %d", len(ran), n)
		}
	})
}

// A job changed anywhere (here: in the database, with no word to this
// actor) is dispatched as changed once the read cache's jobs generation
// moves, not when the actor's own copy would have expired.
func TestJobChangedElsewhereIsDispatchedAsChanged(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.SQLite)
	ctx := context.Background()
	reads := readcache.New(readcache.Config{}, d, slog.New(slog.DiscardHandler))
	reads.Polled.Init()
	if err := reads.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reads.Stop)
	reads.Polled.Wait(t)
	rec := &recorder{frames: make(chan frame, 100)}
	app := &db.App{Name: "orders", SecretHash: "x"}
	if err := d.AppCreate(ctx, app); err != nil {
		t.Fatal(err)
	}
	e := New(Config{CheckInterval: 20 * time.Millisecond}, Deps{Store: d, Versions: reads, Log: slog.New(slog.DiscardHandler)},
		app.ID, 3, Links{Sender: rec, Waker: noWaker{}})
	e.Committed.Init()
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Stop)
	e.Committed.Wait(t)
	b := &bundle{t: t, e: e, d: d, rec: rec, app: app.ID}
	b.join("w1", 4)
	j := b.job(nil)
	b.fire(j)
	w, task := b.dispatched()
	b.report(w, task, protocol.TaskSucceeded)
	before, _ := reads.Generation(db.VersionJobs)
	j.Processor = "echo changed"
	j.UpdatedAt = db.Now()
	if err := d.JobUpdate(ctx, j); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the read cache to see the change", func() bool {
		gen, _ := reads.Generation(db.VersionJobs)
		return gen != before
	})
	b.fire(j)
	if _, task := b.dispatched(); task.Processor != "echo changed" {
		t.Fatalf("dispatched %q; want the changed script", task.Processor)
	}
}

// takes records what the actor says it is done with (Waker.FiresTaken).
type takes struct {
	noWaker
	mu           sync.Mutex
	ids, waiting []int64
}

func (w *takes) FiresTaken(ids, waiting []int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ids = append(w.ids, ids...)
	w.waiting = append(w.waiting, waiting...)
}

func (w *takes) got() (ids, waiting []int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.ids), slices.Clone(w.waiting)
}

// The actor tells the trigger loop which fires it is done with, once per
// hand-over and after its batch committed, and which of them it left
// WAITING for a worker: the loop bounds what it hands over by the first
// (trigger.Config.MaxInFlight) and fires the second again at a later pass.
func TestFiresTakenNamesTheFiresLeftWaiting(t *testing.T) {
	t.Parallel()
	w := &takes{}
	b := setupWaker(t, dbtest.Open(t, db.SQLite), nil, w)
	j := b.job(nil)
	waits := b.fire(j) // no worker yet
	testkit.Eventually(t, "the fire taken", func() bool { ids, _ := w.got(); return len(ids) == 1 })
	if ids, waiting := w.got(); !slices.Equal(ids, []int64{waits}) || !slices.Equal(waiting, []int64{waits}) {
		t.Fatalf("taken %v, waiting %v; want %d taken and left waiting", ids, waiting, waits)
	}
	b.waitStatus(waits, db.StatusWaiting)

	b.join("w1", 4)
	runs := b.fire(j)
	b.dispatched()
	testkit.Eventually(t, "the second fire taken", func() bool { ids, _ := w.got(); return len(ids) == 2 })
	if ids, waiting := w.got(); !slices.Equal(ids, []int64{waits, runs}) || !slices.Equal(waiting, []int64{waits}) {
		t.Fatalf("taken %v, waiting %v; want %d taken as well, not waiting", ids, waiting, runs)
	}
}
