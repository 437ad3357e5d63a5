package execution

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// downStore is the real database, unreachable while down is set: its
// transactions and the app read an adopt starts with fail, as during a
// primary's failover.
type downStore struct {
	*db.DB
	down atomic.Bool
}

var errDown = errors.New("the database is down for the test")

func (s *downStore) InTx(ctx context.Context, fn func(ctx context.Context, tx *db.Store) error) error {
	if s.down.Load() {
		return errDown
	}
	return s.DB.InTx(ctx, fn)
}

func (s *downStore) AppGet(ctx context.Context, id int64) (*db.App, error) {
	if s.down.Load() {
		return nil, errDown
	}
	return s.DB.AppGet(ctx, id)
}

// A batch whose write failed was already applied to the actor's memory,
// and the adopt that should read the truth back failed too (the database
// was still down). The next batch must not be decided on that memory: a
// report applied to it acked a transition that lost its compare-and-set
// (RUNNING → SUCCEEDED on a row still DISPATCHED), so the worker dropped
// its final report while the database kept the task DISPATCHED — and the
// next owner sent it again, as never delivered, and it ran twice (CI,
// TestPrimaryFailover). The actor re-reads the app first.
func TestAReportAfterAFailedWriteAndAdoptIsAppliedToWhatIsStored(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.Postgres)
	store := &downStore{DB: d}
	b := setupActor(t, d, nil, noWaker{}, func(a *Actor) { a.deps.Store = store })
	b.join("w1", 2)
	j := b.job(nil)
	id := b.fire(j)
	_, task := b.dispatched()
	b.waitStatus(id, db.StatusDispatched)

	store.down.Store(true)
	done := make(chan error, 1)
	b.e.Report("w1", &protocol.Report{Items: []protocol.TaskReport{{TaskID: task.TaskID, InstanceID: id,
		Status: protocol.TaskRunning, At: db.Now()}}}, func(err error) { done <- err })
	if err := <-done; err == nil {
		t.Fatal("the RUNNING report was acked while the database was down")
	}
	store.down.Store(false)
	// The worker sends the refused RUNNING report again, with the final one.
	b.report("w1", task, protocol.TaskRunning, protocol.TaskSucceeded)
	b.waitStatus(id, db.StatusSucceeded)
}
