package execution

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/server/runtime/hub"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// Dispatch ahead (ahead.go): a scheduled fire handed over before its time
// goes to a worker that holds tasks until their time, with that time; the
// rest waits for its time. These tests hand fires over the way the trigger
// loop does with DispatchAhead set: recorded, before they are due.

// joinHolding attaches a worker that speaks start.at.
func (b *bundle) joinHolding(id string, slots int) {
	b.e.WorkerJoined(hub.WorkerInfo{AppID: b.app, ID: id, Host: id, Types: []string{"SHELL"}, Processors: []string{"mr"}, Slots: slots,
		Features: []string{protocol.FeatureStartAt}, Metrics: protocol.Metrics{CPUCores: 4}})
}

// fireAhead records a scheduled fire due at `due` and hands it over now.
func (b *bundle) fireAhead(j *db.Job, due time.Time) int64 {
	b.t.Helper()
	due = db.Stamp(due)
	in := &db.Instance{AppID: b.app, JobID: j.ID, Status: db.StatusWaiting, TriggerType: db.TriggerSchedule,
		TriggerAt: due, ExpectedTriggerAt: &due}
	if err := b.d.InstanceCreate(context.Background(), in); err != nil {
		b.t.Fatal(err)
	}
	b.e.FireRecorded([]db.Instance{*in}, db.Now())
	return in.ID
}

func (b *bundle) instance(id int64) *db.Instance {
	b.t.Helper()
	in, err := b.d.InstanceGet(context.Background(), id)
	if err != nil {
		b.t.Fatal(err)
	}
	return in
}

// holdOne starts an actor whose one worker holds a task of a fire an hour
// ahead, committed DISPATCHED: the job, the instance and the held task.
func holdOne(t *testing.T) (*bundle, *db.Job, int64, protocol.Task) {
	t.Helper()
	b := setup(t, db.Postgres)
	b.joinHolding("w1", 2)
	j := b.job(nil)
	id := b.fireAhead(j, time.Now().Add(time.Hour))
	_, held := b.dispatched()
	b.waitStatus(id, db.StatusDispatched)
	return b, j, id, held
}

// A fire that certainly runs is committed DISPATCHED ahead and sent with
// its time; its trigger time is its time, not when it was sent.
func TestFireAheadIsSentToStartAtItsTime(t *testing.T) {
	t.Parallel()
	b := setup(t, db.Postgres)
	b.joinHolding("w1", 2)
	j := b.job(func(j *db.Job) { j.ScheduleType = db.ScheduleCron })
	due := time.Now().Add(time.Hour)
	id := b.fireAhead(j, due)
	_, task := b.dispatched()
	if task.InstanceID != id || !task.StartAt.Equal(db.Stamp(due)) {
		t.Fatalf("dispatched instance %d to start at %v; want instance %d at %v", task.InstanceID, task.StartAt, id, db.Stamp(due))
	}
	in := b.waitStatus(id, db.StatusDispatched)
	if in.ActualTriggerAt == nil || !in.ActualTriggerAt.Equal(db.Stamp(due)) {
		t.Fatalf("actual trigger time %v; want the fire's time %v", in.ActualTriggerAt, db.Stamp(due))
	}
	// Held, then started and finished, as any task.
	b.report("w1", task, protocol.TaskRunning, protocol.TaskSucceeded)
	b.waitStatus(id, db.StatusSucceeded)
}

// A fire that might not run at its time (its job at maxInstances), or
// whose worker would not hold it, is not sent ahead: it is decided at its
// time, as any fire.
func TestFireAheadThatMightNotRunWaitsForItsTime(t *testing.T) {
	t.Parallel()
	t.Run("maxInstances", func(t *testing.T) {
		t.Parallel()
		w := &takes{}
		b := setupWaker(t, dbtest.Open(t, db.Postgres), nil, w)
		b.joinHolding("w1", 2)
		j := b.job(func(j *db.Job) { j.MaxInstances = 1 })
		first := b.fire(j)
		_, running := b.dispatched()
		b.report("w1", running, protocol.TaskRunning)
		due := time.Now().Add(300 * time.Millisecond)
		id := b.fireAhead(j, due)
		in := b.waitStatus(id, db.StatusCanceled)
		if in.Reason != db.ReasonMaxInstances || in.ActualTriggerAt == nil || in.ActualTriggerAt.Before(db.Stamp(due)) {
			t.Fatalf("the fire ended %s (%s) at %v; want CANCELED at maxInstances, decided at its time %v", in.Status, in.Reason, in.ActualTriggerAt, db.Stamp(due))
		}
		// Not taken when it was left for its time: the loop bounds what the
		// actor holds by what it has not taken.
		if ids, _ := w.got(); !slices.Equal(ids, []int64{first, id}) {
			t.Fatalf("fires taken %v; want %d, then %d once", ids, first, id)
		}
	})
	t.Run("worker without start.at", func(t *testing.T) {
		t.Parallel()
		b := setup(t, db.Postgres)
		b.join("w1", 2)
		j := b.job(nil)
		due := time.Now().Add(300 * time.Millisecond)
		id := b.fireAhead(j, due)
		_, task := b.dispatched()
		if sent := time.Now(); task.InstanceID != id || !task.StartAt.IsZero() || sent.Before(db.Stamp(due)) {
			t.Fatalf("instance %d sent at %v to start at %v; want instance %d sent at its time %v, to start at once",
				task.InstanceID, sent, task.StartAt, id, db.Stamp(due))
		}
	})
}

// A held task's job changed before it started: the task is taken back
// (stop with Unstarted), and when the worker hands it back it is sent
// again, as the job now is, still to start at the fire's time. Its
// instance never ran meanwhile.
func TestHeldTaskOfAChangedJobIsTakenBackAndSentAsChanged(t *testing.T) {
	t.Parallel()
	b := setup(t, db.Postgres)
	b.joinHolding("w1", 2)
	j := b.job(nil)
	due := time.Now().Add(time.Hour)
	id := b.fireAhead(j, due)
	_, held := b.dispatched()
	b.waitStatus(id, db.StatusDispatched)

	j.Processor = "echo changed"
	if err := b.d.JobUpdate(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	b.e.JobsChanged()
	stop := b.next(protocol.TypeStop).body.(*protocol.Stop)
	if !stop.Unstarted || !slices.Equal(stop.TaskIDs, []int64{held.TaskID}) {
		t.Fatalf("stop = %+v; want task %d taken back (unstarted)", stop, held.TaskID)
	}
	b.handBack("w1", held)
	_, again := b.dispatched()
	if again.TaskID != held.TaskID || again.Processor != "echo changed" || !again.StartAt.Equal(db.Stamp(due)) {
		t.Fatalf("sent again: task %d running %q at %v; want task %d running the changed script at %v",
			again.TaskID, again.Processor, again.StartAt, held.TaskID, db.Stamp(due))
	}
	if in := b.instance(id); in.Status != db.StatusDispatched || in.StartedAt != nil {
		t.Fatalf("instance is %s, started at %v; want DISPATCHED and never started (it was handed back unstarted)", in.Status, in.StartedAt)
	}
}

// A held task's job changed and the change's hint was lost (a server died
// between its commit and its NOTIFY): the actor compares held tasks with
// their jobs only when definitions may have changed, and a cached
// definition older than the cache's TTL counts as such, so the task is
// taken back all the same, within that TTL.
func TestHeldTaskOfAJobChangedWithoutAHintIsTakenBack(t *testing.T) {
	t.Parallel()
	b, j, _, held := holdOne(t)

	j.Processor = "echo changed"
	if err := b.d.JobUpdate(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	// No JobsChanged.
	stop := b.next(protocol.TypeStop).body.(*protocol.Stop)
	if !stop.Unstarted || !slices.Equal(stop.TaskIDs, []int64{held.TaskID}) {
		t.Fatalf("stop = %+v; want task %d taken back (unstarted)", stop, held.TaskID)
	}
}

// A held task's job was disabled before it started: its fire is canceled,
// as a disabled job's fire is at its time, and its worker told to stop it.
func TestHeldTaskOfADisabledJobIsCanceled(t *testing.T) {
	t.Parallel()
	b, j, id, held := holdOne(t)

	j.Enabled = false
	if err := b.d.JobUpdate(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	b.e.JobsChanged()
	stop := b.next(protocol.TypeStop).body.(*protocol.Stop)
	if stop.Unstarted || stop.InstanceID != id || !slices.Equal(stop.TaskIDs, []int64{held.TaskID}) {
		t.Fatalf("stop = %+v; want instance %d's task %d stopped", stop, id, held.TaskID)
	}
	if in := b.waitStatus(id, db.StatusCanceled); in.Reason != db.ReasonJobDisabled {
		t.Fatalf("the fire ended %s with %s; want CANCELED with %s", in.Status, in.Reason, db.ReasonJobDisabled)
	}
}

// After a take-over, the new owner knows which tasks may be held on their
// workers (the first task of a scheduled fire, dispatched and not running,
// before its time) and takes one back when its job changes.
func TestTakeOverKnowsTheHeldTasks(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.Postgres)
	b := setupOn(t, d)
	b.joinHolding("w1", 2)
	j := b.job(nil)
	id := b.fireAhead(j, time.Now().Add(time.Hour))
	_, held := b.dispatched()
	b.waitStatus(id, db.StatusDispatched)
	b.e.Stop()

	next := New(Config{CheckInterval: 20 * time.Millisecond, LostGrace: time.Minute, AdoptGrace: time.Minute},
		Deps{Store: d, Log: b.e.log}, b.app, 4, Links{Sender: b.rec, Waker: noWaker{}})
	next.Committed.Init()
	if err := next.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(next.Stop)
	next.Committed.Wait(t)
	b.e = next
	b.joinHolding("w1", 2)
	j.Processor = "echo changed"
	if err := d.JobUpdate(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	next.JobsChanged()
	stop := b.next(protocol.TypeStop).body.(*protocol.Stop)
	if !stop.Unstarted || !slices.Equal(stop.TaskIDs, []int64{held.TaskID}) {
		t.Fatalf("stop = %+v; want task %d taken back by the new owner", stop, held.TaskID)
	}
}

// handBack reports a task handed back unstarted, as a worker answers a
// stop with Unstarted.
func (b *bundle) handBack(worker string, task protocol.Task) {
	b.t.Helper()
	done := make(chan error, 1)
	b.e.Report(worker, &protocol.Report{Items: []protocol.TaskReport{{TaskID: task.TaskID, InstanceID: task.InstanceID,
		Status: protocol.TaskFailed, Reason: protocol.ReasonHandedBack, Result: "handed back before it started", At: time.Now()}}},
		func(err error) { done <- err })
	if err := <-done; err != nil {
		b.t.Fatal(err)
	}
}
