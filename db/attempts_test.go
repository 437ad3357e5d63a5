package db_test

import (
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// The API shows an instance's attempts as the rows stored (attempts that
// ended without succeeding) plus the current attempt from the instance
// row once it runs or ended (started or not), unless a row records it
// already.
func TestAttemptsWithCurrent(t *testing.T) {
	t.Parallel()
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	end := at.Add(time.Second)
	w1, w2 := "w1", "w2"
	failed := db.InstanceAttempt{InstanceID: 7, Attempt: 1, Status: db.StatusFailed, WorkerID: &w1, Reason: db.ReasonTimeout}
	for _, c := range []struct {
		name   string
		stored []db.InstanceAttempt
		in     db.Instance
		want   []db.InstanceAttempt
	}{
		{"waiting for its first attempt", nil,
			db.Instance{ID: 7, Attempt: 1, Status: db.StatusWaiting}, nil},
		{"dispatched, not started", nil,
			db.Instance{ID: 7, Attempt: 1, Status: db.StatusDispatched}, nil},
		{"running", nil,
			db.Instance{ID: 7, Attempt: 1, Status: db.StatusRunning, WorkerID: &w1, StartedAt: &at, Result: "stale"},
			[]db.InstanceAttempt{{InstanceID: 7, Attempt: 1, Status: db.StatusRunning, WorkerID: &w1, StartedAt: &at}}},
		{"succeeded on its second attempt", []db.InstanceAttempt{failed},
			db.Instance{ID: 7, Attempt: 2, Status: db.StatusSucceeded, WorkerID: &w2, StartedAt: &at, FinishedAt: &end, Result: "ok"},
			[]db.InstanceAttempt{failed, {InstanceID: 7, Attempt: 2, Status: db.StatusSucceeded, WorkerID: &w2, StartedAt: &at, FinishedAt: &end, Result: "ok"}}},
		{"failed: its row says so", []db.InstanceAttempt{failed},
			db.Instance{ID: 7, Attempt: 1, Status: db.StatusFailed, WorkerID: &w1, StartedAt: &at, FinishedAt: &end},
			[]db.InstanceAttempt{failed}},
		{"waiting for its retry", []db.InstanceAttempt{failed},
			db.Instance{ID: 7, Attempt: 2, Status: db.StatusWaiting, WorkerID: &w1}, []db.InstanceAttempt{failed}},
		{"canceled before it ran", nil,
			db.Instance{ID: 7, Attempt: 1, Status: db.StatusCanceled, FinishedAt: &end, Reason: db.ReasonMaxInstances},
			[]db.InstanceAttempt{{InstanceID: 7, Attempt: 1, Status: db.StatusCanceled, FinishedAt: &end, Reason: db.ReasonMaxInstances}}},
		{"retried, then canceled before it ran: not the last attempt's worker", []db.InstanceAttempt{failed},
			db.Instance{ID: 7, Attempt: 2, Status: db.StatusCanceled, WorkerID: &w1, FinishedAt: &end, Reason: db.ReasonMaxInstances},
			[]db.InstanceAttempt{failed, {InstanceID: 7, Attempt: 2, Status: db.StatusCanceled, FinishedAt: &end, Reason: db.ReasonMaxInstances}}},
	} {
		got := db.AttemptsWithCurrent(c.stored, &c.in)
		if len(got) != len(c.want) {
			t.Errorf("%s: %+v; want %+v", c.name, got, c.want)
			continue
		}
		for i := range got {
			g, w := got[i], c.want[i]
			if g.Attempt != w.Attempt || g.Status != w.Status || g.Result != w.Result || g.Reason != w.Reason ||
				(g.WorkerID == nil) != (w.WorkerID == nil) || (g.WorkerID != nil && *g.WorkerID != *w.WorkerID) ||
				(g.StartedAt == nil) != (w.StartedAt == nil) || (g.FinishedAt == nil) != (w.FinishedAt == nil) {
				t.Errorf("%s: attempt %d is %+v; want %+v", c.name, i, g, w)
			}
		}
	}
}
