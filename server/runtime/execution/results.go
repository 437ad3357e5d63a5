package execution

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// A POST or REDUCE task sees the results of every task before it. Sent
// inside the dispatch they would cost the owner a read of every result in
// its loop and a frame as large as the instance; a worker that speaks
// protocol.FeaturePagedResults instead gets ResultsPaged and reads them a
// page at a time (Results), straight from the database, beside the actor.

// maxPageReads bounds the result pages an app's owner reads at once.
const maxPageReads = 4

// pageTimeout bounds one page's read.
const pageTimeout = 30 * time.Second

// Results answers a worker's request for a page of the results of a POST
// or REDUCE task it runs. It reads outside the actor's loop: only the
// database decides, so a page read while the task's ownership moves is
// still one of the task's results, and a task no longer this worker's is
// refused.
func (a *Actor) Results(workerID string, r *protocol.Results, done func([]protocol.TaskResult, bool, error)) {
	a.mu.Lock()
	life := a.life
	a.mu.Unlock()
	if life == nil || life.Err() != nil {
		done(nil, false, errNotOwner)
		return
	}
	go func() {
		select {
		case a.pages <- struct{}{}:
		case <-life.Done():
			done(nil, false, errNotOwner)
			return
		}
		defer func() { <-a.pages }()
		ctx, cancel := context.WithTimeout(life, pageTimeout)
		defer cancel()
		page, more, err := a.resultsPage(ctx, workerID, r)
		if err != nil && life.Err() != nil {
			err = errNotOwner // cut short as the lease went: the new owner answers
		}
		done(page, more, err)
	}()
}

func (a *Actor) resultsPage(ctx context.Context, workerID string, r *protocol.Results) ([]protocol.TaskResult, bool, error) {
	refuse := func(format string, args ...any) error {
		return &protocol.Error{Code: protocol.CodeRefused, Message: fmt.Sprintf(format, args...)}
	}
	t, err := a.deps.Store.TaskGetInApp(ctx, a.app, r.InstanceID, r.TaskID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, refuse("results: task %d is not a task of this app", r.TaskID)
	}
	if err != nil {
		return nil, false, err
	}
	switch {
	case t.InstanceID != r.InstanceID:
		return nil, false, refuse("results: task %d belongs to instance %d, not %d", t.ID, t.InstanceID, r.InstanceID)
	case t.Kind != protocol.KindReduce && t.Kind != protocol.KindPost:
		return nil, false, refuse("results: task %d is a %s task; only POST and REDUCE tasks read results", t.ID, t.Kind)
	case deref(t.WorkerID) != workerID || (t.Status != db.StatusDispatched && t.Status != db.StatusRunning):
		return nil, false, refuse("results: task %d is not running on this worker", t.ID)
	}
	rows, err := a.deps.Store.TaskListResultsAfter(ctx, t.InstanceID, t.InstanceAttempt, resultKinds(t.Kind), r.After, r.Limit+1)
	if err != nil {
		return nil, false, err
	}
	more := len(rows) > r.Limit
	if more {
		rows = rows[:r.Limit]
	}
	return toResults(rows), more, nil
}

// resultKinds are the kinds of task whose results a POST or REDUCE task
// sees.
func resultKinds(kind string) []string {
	if kind == protocol.KindReduce {
		return []string{protocol.KindMap, protocol.KindRoot}
	}
	return []string{protocol.KindBroadcast}
}

func toResults(rows []db.Task) []protocol.TaskResult {
	out := make([]protocol.TaskResult, 0, len(rows))
	for _, r := range rows {
		out = append(out, protocol.TaskResult{TaskID: r.ID, Name: r.Name, Success: r.Status == db.StatusSucceeded, Result: r.Result})
	}
	return out
}
