package execution

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// The overlap policies and the retry back-off through the actor, on a real
// database: what must survive a take-over is in the rows, and the actor's
// timer wakes a held task on the (fake) clock.

func (b *bundle) waitQueued(id int64) {
	b.t.Helper()
	testkit.Eventually(b.t, fmt.Sprintf("instance %d to be held QUEUED", id), func() bool {
		in, err := b.d.InstanceGet(context.Background(), id)
		if err != nil {
			b.t.Fatal(err)
		}
		return in.Status == db.StatusWaiting && in.Reason == db.ReasonQueued
	})
}

func TestQueueSurvivesATakeOverAndRunsEachFireOnce(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, dummy *db.DB) {
		b := setup(t, dummy.Dialect())
		b.join("w1", 4)
		j := b.job(func(j *db.Job) { j.MaxInstances = 1; j.OverlapPolicy = db.OverlapQueue; j.MaxQueued = 5 })
		first := b.fire(j)
		w, t1 := b.dispatched()
		b.report(w, t1, protocol.TaskRunning)
		second := b.fire(j)
		b.waitQueued(second)
		third := b.fire(j)
		b.waitQueued(third)
		// The trigger loop leaves held fires alone: they are not due for it.
		due, err := b.d.InstanceListWaitingDue(context.Background(), b.app, time.Now().Add(time.Hour), 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range due {
			if d.ID == second || d.ID == third {
				t.Fatalf("held instance %d is due for the trigger loop", d.ID)
			}
		}

		// Another owner takes over: it reloads the queue from the database.
		b.e.Stop()
		next := New(Config{CheckInterval: 20 * time.Millisecond, LostGrace: time.Minute, AdoptGrace: time.Minute,
			RetryDelay: time.Millisecond, NoWorkerWait: time.Minute}, Deps{Store: b.d, Log: slog.New(slog.DiscardHandler)},
			b.app, 4, Links{Sender: b.rec, Waker: noWaker{}})
		if err := next.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(next.Stop)
		b2 := &bundle{t: t, e: next, d: b.d, rec: b.rec, app: b.app}
		for drained := false; !drained; {
			select {
			case <-b.rec.frames:
			default:
				drained = true
			}
		}
		b2.join("w1", 4)
		b2.report("w1", t1, protocol.TaskSucceeded)
		b2.waitStatus(first, db.StatusSucceeded)
		for _, id := range []int64{second, third} {
			f := b2.next(protocol.TypeDispatch)
			d := f.body.(*protocol.Dispatch)
			if len(d.Tasks) != 1 || d.Epoch != 4 {
				t.Fatalf("dispatch %+v; want one task at the new owner's epoch 4", d)
			}
			w, task := f.worker, d.Tasks[0]
			if task.InstanceID != id {
				t.Fatalf("the new owner started instance %d; want %d, the oldest held fire", task.InstanceID, id)
			}
			if in := b2.waitStatus(id, db.StatusDispatched); in.Reason != "" {
				t.Fatalf("started instance %d keeps reason %q", id, in.Reason)
			}
			b2.report(w, task, protocol.TaskSucceeded)
			b2.waitStatus(id, db.StatusSucceeded)
		}
		atts, err := b.d.AttemptList(context.Background(), second)
		in, err2 := b.d.InstanceGet(context.Background(), second)
		if err != nil || err2 != nil || len(db.AttemptsWithCurrent(atts, in)) != 1 {
			t.Fatalf("attempts of the second fire: %+v, %v, %v; want exactly one run", atts, err, err2)
		}
	})
}

func TestTaskBackoffIsStoredAndTheTimerWakesIt(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, dummy *db.DB) {
		d := dbtest.Open(t, dummy.Dialect())
		rec := &recorder{frames: make(chan frame, 100)}
		app := &db.App{Name: "orders", SecretHash: "x"}
		if err := d.AppCreate(context.Background(), app); err != nil {
			t.Fatal(err)
		}
		fake := clock.NewFake(time.Now())
		// A check interval far beyond the test: only the back-off's own
		// timer can wake the actor.
		e := New(Config{CheckInterval: time.Hour, Clock: fake}, Deps{Store: d, Log: slog.New(slog.DiscardHandler)},
			app.ID, 3, Links{Sender: rec, Waker: noWaker{}})
		e.Committed.Init()
		if err := e.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(e.Stop)
		e.Committed.Wait(t)
		b := &bundle{t: t, e: e, d: d, rec: rec, app: app.ID}
		b.join("w1", 2)
		j := b.job(func(j *db.Job) { j.TaskRetries = 1; j.RetryDelayMs = 2000; j.RetryBackoff = 2 })
		id := b.fire(j)
		w, task := b.dispatched()
		failedAt := fake.Now()
		b.report(w, task, protocol.TaskFailed)
		var held db.Task
		testkit.Eventually(t, "the failed task to wait for its retry", func() bool {
			list, err := d.TaskListWaitingAfter(context.Background(), id, 1, 0, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) == 1 {
				held = list[0]
			}
			return len(list) == 1
		})
		if held.NotBefore == nil || held.NotBefore.Before(db.Stamp(failedAt).Add(2*time.Second)) ||
			held.NotBefore.After(failedAt.Add(2200*time.Millisecond)) {
			t.Fatalf("stored not_before %v; want 2 s to 2.2 s after %v", held.NotBefore, failedAt)
		}
		select {
		case f := <-rec.frames:
			if f.typ == protocol.TypeDispatch {
				t.Fatalf("dispatched %+v before the back-off ended", f.body)
			}
		default:
		}
		// The actor arms its timer after the batch that stored the row: a
		// clock set once, before it is armed, leaves a timer two fake
		// seconds out that nothing moves. Nudge the clock on until the
		// retry goes out.
		var again protocol.Task
		testkit.Eventually(t, "the retry after its back-off", func() bool {
			fake.Set(fake.Now().Add(time.Millisecond))
			if fake.Now().Before(*held.NotBefore) {
				fake.Set(held.NotBefore.Add(time.Millisecond))
			}
			select {
			case f := <-rec.frames:
				if d, ok := f.body.(*protocol.Dispatch); ok && len(d.Tasks) == 1 {
					again = d.Tasks[0]
					return true
				}
			default:
			}
			return false
		})
		if again.TaskID != task.TaskID {
			t.Fatalf("after the back-off: task %d; want task %d again", again.TaskID, task.TaskID)
		}
	})
}
