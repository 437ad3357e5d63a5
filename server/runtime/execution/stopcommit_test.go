package execution

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestBatchCommittedWhileStoppingIsSent: the actor is stopped (a graceful
// shutdown's SIGTERM) after a batch dispatching a fire was decided and
// before it is written. The batch is written all the same (the lease is
// held until the app has stopped), so its dispatch must go out too: the
// next owner adopts the task as on its worker, and a worker that never
// got it says it does not run it, which fails the run WORKER_LOST. CI
// caught this end to end (TestMisfireAfterDowntime, a fire due 5 ms
// after the server's SIGTERM).
func TestBatchCommittedWhileStoppingIsSent(t *testing.T) {
	t.Parallel()
	var armed atomic.Bool
	b := setupActor(t, dbtest.Open(t, db.Postgres), nil, noWaker{}, func(e *Actor) {
		e.beforeWrite = func(ctx context.Context, dispatches int) {
			// Only the fire's batch: on a slow machine the worker's join
			// can be written after the test arms the hook.
			if dispatches > 0 && armed.CompareAndSwap(true, false) {
				go e.Stop()
				<-ctx.Done() // stopping: what follows runs during the stop
			}
		}
	})
	b.join("w1", 2)
	j := b.job(nil)
	armed.Store(true)
	id := b.fire(j)
	w, task := b.dispatched()
	if w != "w1" || task.InstanceID != id {
		t.Fatalf("dispatched instance %d to %s; want instance %d to w1", task.InstanceID, w, id)
	}
	<-b.e.Stopped()
	in, err := b.d.InstanceGet(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if in.Status != db.StatusDispatched {
		t.Errorf("instance %d is %s; want DISPATCHED (the batch was written)", id, in.Status)
	}
}
