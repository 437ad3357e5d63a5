package execution

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/server/runtime/hub"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// takeOver stops b's actor and starts the next owner's (epoch 4) on the
// same database, with the workers its registry holds.
func (b *bundle) takeOver(workers ...hub.WorkerInfo) {
	b.t.Helper()
	b.e.Stop()
	rec := &recorder{frames: make(chan frame, 100), workers: workers}
	next := New(Config{CheckInterval: 20 * time.Millisecond, LostGrace: time.Minute, AdoptGrace: time.Minute},
		Deps{Store: b.d, Log: slog.New(slog.DiscardHandler)}, b.app, 4, Links{Sender: rec, Waker: noWaker{}})
	if err := next.Start(context.Background()); err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(next.Stop)
	b.e, b.rec = next, rec
}

func (b *bundle) worker(id string, running ...int64) hub.WorkerInfo {
	return hub.WorkerInfo{AppID: b.app, ID: id, Host: id, Types: []string{"SHELL"}, Slots: 2, Running: running,
		Metrics: protocol.Metrics{CPUCores: 4}}
}

// The app's owner committed a dispatch and died before its frame reached
// the worker (CI: TestWorkflowSurvivesOwnerKill, kill -9 between a batch's
// commit and its send). The worker joins the next owner listing nothing:
// it never accepted the task, so the next owner sends it again, and the
// run succeeds, instead of failing it as lost (WORKER_LOST) though it
// never started.
func TestTaskThePreviousOwnerNeverDeliveredIsSentAgain(t *testing.T) {
	t.Parallel()
	b := setup(t, db.Postgres)
	b.join("w1", 2)
	id := b.fire(b.job(nil))
	_, lost := b.dispatched() // the frame that never arrived
	b.waitStatus(id, db.StatusDispatched)

	b.takeOver(b.worker("w1"))
	f := b.next(protocol.TypeDispatch)
	d := f.body.(*protocol.Dispatch)
	if len(d.Tasks) != 1 || d.Tasks[0].TaskID != lost.TaskID || d.Epoch != 4 || f.worker != "w1" {
		t.Fatalf("the next owner sent %+v to %s; want task %d sent again at epoch 4", d, f.worker, lost.TaskID)
	}
	b.report(f.worker, d.Tasks[0], protocol.TaskRunning, protocol.TaskSucceeded)
	b.waitStatus(id, db.StatusSucceeded)
}

// A task the worker lists when it joins the next owner is on it: adopted,
// not sent again (it would run twice).
func TestTaskTheWorkerListsIsAdoptedNotSentAgain(t *testing.T) {
	t.Parallel()
	b := setupOn(t, dbtest.Open(t, db.Postgres))
	b.join("w1", 2)
	id := b.fire(b.job(nil))
	_, task := b.dispatched()
	b.waitStatus(id, db.StatusDispatched)

	b.takeOver(b.worker("w1", task.TaskID))
	b.report("w1", task, protocol.TaskRunning, protocol.TaskSucceeded)
	b.waitStatus(id, db.StatusSucceeded)
	for {
		select {
		case f := <-b.rec.frames:
			if f.typ == protocol.TypeDispatch {
				t.Fatalf("the next owner dispatched %+v; want the listed task adopted, not sent again", f.body)
			}
		default:
			return
		}
	}
}
