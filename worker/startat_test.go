package worker

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// history waits for the final reports of tasks and returns every report
// that came meanwhile, by task (other tasks' too), in the order they came.
func (s *fakeServer) history(tasks ...int64) map[int64][]protocol.TaskReport {
	s.t.Helper()
	got := map[int64][]protocol.TaskReport{}
	ended := 0
	for ended < len(tasks) {
		r := recv(s.t, s.reports, "final reports")
		got[r.TaskID] = append(got[r.TaskID], r)
		if r.Status != protocol.TaskRunning && slices.Contains(tasks, r.TaskID) {
			ended++
		}
	}
	return got
}

// statuses lists the statuses of reports, for messages.
func statuses(rs []protocol.TaskReport) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Status
	}
	return out
}

// mustNotRun is a processor for tasks that must end without running.
func mustNotRun(t *testing.T) Processor {
	return Func(func(ctx TaskContext) (Result, error) {
		t.Errorf("task %d ran; it should have ended before it started", ctx.TaskID())
		return Result{}, nil
	})
}

// A task dispatched with a StartAt in the future starts then, not at once:
// its processor is not called before StartAt, and its RUNNING report says
// when it did start. A StartAt in the past starts it at once.
func TestHeldTaskStartsAtItsStartAt(t *testing.T) {
	s := newFakeServer(t)
	calledAt := make(chan time.Time, 1) // when task 1's processor was called
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("at", Func(func(ctx TaskContext) (Result, error) {
			if ctx.TaskID() == 1 {
				calledAt <- time.Now()
			}
			return Result{Message: "on time"}, nil
		}))
	})
	c := s.conn()
	if !slices.Contains(c.hello.Features, protocol.FeatureStartAt) {
		t.Errorf("hello.features %v lack %s", c.hello.Features, protocol.FeatureStartAt)
	}
	held, late := goTask(1, "at"), goTask(2, "at")
	held.StartAt = time.Now().Add(200 * time.Millisecond)
	late.StartAt = time.Now().Add(-time.Minute)
	if ack := c.dispatch(1, held, late); !slices.Equal(ack.Accepted, []int64{1, 2}) {
		t.Fatalf("ack %+v; want both accepted", ack)
	}
	h := s.history(1, 2)
	if got := statuses(h[2]); !slices.Equal(got, []string{protocol.TaskRunning, protocol.TaskSucceeded}) {
		t.Errorf("task 2, its start time past: reports %v; want RUNNING, SUCCEEDED", got)
	}
	if got := statuses(h[1]); !slices.Equal(got, []string{protocol.TaskRunning, protocol.TaskSucceeded}) || h[1][1].Result != "on time" {
		t.Fatalf("task 1: reports %+v; want RUNNING, SUCCEEDED", h[1])
	}
	if at := h[1][0].At; at.Before(held.StartAt) {
		t.Errorf("task 1 reported RUNNING at %s, before its start time %s", at.Format(time.RFC3339Nano), held.StartAt.Format(time.RFC3339Nano))
	}
	if at := recv(t, calledAt, "task 1's processor"); at.Before(held.StartAt) {
		t.Errorf("task 1's processor was called at %s, before its start time %s", at.Format(time.RFC3339Nano), held.StartAt.Format(time.RFC3339Nano))
	}
}

// A held task is the server's as a running one is: it takes a slot from
// its acceptance, heartbeats and a reconnection's hello list it, and a
// dispatch of it again is accepted once. Stopped before its start time, it
// ends STOPPED without a RUNNING report and without running.
func TestHeldTaskIsListedAndStopsWithoutRunning(t *testing.T) {
	s := newFakeServer(t)
	s.heartbeatMs.Store(10)
	testWorker(t, s, func(c *Config) { c.Slots = 2 }, func(w *Worker) {
		w.Register("later", mustNotRun(t))
	})
	c := s.conn()
	a, b, full := goTask(1, "later"), goTask(2, "later"), goTask(3, "later")
	a.StartAt = time.Now().Add(time.Hour)
	b.StartAt, full.StartAt = a.StartAt, a.StartAt
	if ack := c.dispatch(1, a, b, full); !slices.Equal(ack.Accepted, []int64{1, 2}) || len(ack.Rejected) != 1 || ack.Rejected[0].Code != protocol.RejectFull {
		t.Fatalf("ack %+v; want 1 and 2 accepted and 3 rejected FULL: held tasks take their slots", ack)
	}
	if ack := c.dispatch(1, a); !slices.Equal(ack.Accepted, []int64{1}) {
		t.Errorf("task 1 dispatched again: ack %+v; want it accepted (once)", ack)
	}
	giveUp := time.After(failsafe) // heartbeats keep coming: bound the wait as a whole
	for listed := false; !listed; {
		select {
		case hb := <-s.beats:
			listed = slices.Equal(hb.Running, []int64{1, 2})
		case <-giveUp:
			t.Fatal("no heartbeat listed the held tasks [1 2]")
		}
	}
	c.drop()
	c = s.conn()
	if !slices.Equal(c.hello.Running, []int64{1, 2}) {
		t.Errorf("hello.running %v after a reconnect; want the held tasks [1 2]", c.hello.Running)
	}
	c.request(protocol.TypeStop, &protocol.Stop{InstanceID: 101, Reason: "asked by alice"})
	c.request(protocol.TypeStop, &protocol.Stop{TaskIDs: []int64{2}, Reason: "no longer assigned"})
	h := s.history(1, 2)
	for id, want := range map[int64]string{1: "stopped before it started: asked by alice", 2: "stopped before it started: no longer assigned"} {
		if rs := h[id]; len(rs) != 1 || rs[0].Status != protocol.TaskStopped || rs[0].Result != want {
			t.Errorf("task %d: reports %+v; want only STOPPED %q", id, rs, want)
		}
	}
}

// A stop with Unstarted takes back the named tasks not started yet
// (FAILED, HANDED_BACK, no RUNNING) and leaves a started one running.
func TestTakeBackEndsOnlyUnstartedTasks(t *testing.T) {
	s := newFakeServer(t)
	started, finish := make(chan struct{}), make(chan struct{})
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("later", mustNotRun(t))
		w.Register("now", Func(func(ctx TaskContext) (Result, error) {
			close(started)
			select {
			case <-finish:
				return Result{Message: "finished"}, nil
			case <-ctx.Done():
				return Result{}, context.Cause(ctx)
			}
		}))
	})
	c := s.conn()
	held, running := goTask(1, "later"), goTask(2, "now")
	held.StartAt = time.Now().Add(time.Hour)
	running.InstanceID = held.InstanceID
	c.dispatch(1, held, running)
	recv(t, started, "task 2 to start")
	if ack := c.request(protocol.TypeStop, &protocol.Stop{InstanceID: held.InstanceID, TaskIDs: []int64{1, 2},
		Reason: "the job changed", Unstarted: true}); !ack.OK {
		t.Errorf("stop ack %+v", ack)
	}
	h := s.history(1)
	if rs := h[1]; len(rs) != 1 || rs[0].Status != protocol.TaskFailed || rs[0].Reason != protocol.ReasonHandedBack ||
		rs[0].Result != "handed back before it started: the job changed" {
		t.Errorf("task 1: reports %+v; want only FAILED, HANDED_BACK", rs)
	}
	for _, r := range h[2] {
		if r.Status != protocol.TaskRunning {
			t.Fatalf("task 2, started, was ended by a take-back: %+v", r)
		}
	}
	// The stop handled both tasks before task 1's report was queued: task
	// 2, had the take-back cancelled it, would end now by itself.
	close(finish)
	if r := s.final(2); r.Status != protocol.TaskSucceeded || r.Result != "finished" {
		t.Errorf("task 2, started, was ended by a take-back: %+v", r)
	}
}

// A draining worker hands its held tasks back as the drain begins, while
// a running task may still finish.
func TestDrainHandsBackHeldTasksAtOnce(t *testing.T) {
	s := newFakeServer(t)
	started, finish := make(chan struct{}), make(chan struct{})
	_, cancel, done := testWorker(t, s, func(c *Config) { c.DrainTimeout = time.Hour }, func(w *Worker) {
		w.Register("later", mustNotRun(t))
		w.Register("now", Func(func(ctx TaskContext) (Result, error) {
			close(started)
			<-finish
			return Result{Message: "finished"}, nil
		}))
	})
	c := s.conn()
	held := goTask(1, "later")
	held.StartAt = time.Now().Add(time.Hour)
	c.dispatch(1, held, goTask(2, "now"))
	recv(t, started, "task 2 to start")
	cancel()
	rs := s.history(1)[1]
	if len(rs) != 1 || rs[0].Status != protocol.TaskFailed || rs[0].Reason != protocol.ReasonHandedBack ||
		!strings.HasPrefix(rs[0].Result, "handed back before it started: ") {
		t.Errorf("task 1, held when the drain began: reports %+v; want only FAILED, HANDED_BACK", rs)
	}
	// Task 2 still runs: the held task did not wait for the drain to end.
	close(finish)
	if r := s.final(2); r.Status != protocol.TaskSucceeded {
		t.Errorf("task 2: final %+v; want SUCCEEDED", r)
	}
	if err := recv(t, done, "Run to return"); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// A deadline that comes before the start time fails the held task with
// TIMEOUT, without running it.
func TestDeadlineBeforeStartAtTimesOutWithoutRunning(t *testing.T) {
	s := newFakeServer(t)
	testWorker(t, s, nil, func(w *Worker) { w.Register("later", mustNotRun(t)) })
	task := goTask(1, "later")
	task.StartAt = time.Now().Add(time.Hour)
	task.Deadline = time.Now().Add(20 * time.Millisecond)
	s.conn().dispatch(1, task)
	rs := s.history(1)[1]
	if len(rs) != 1 || rs[0].Status != protocol.TaskFailed || rs[0].Reason != protocol.ReasonTimeout ||
		!strings.HasPrefix(rs[0].Result, "timed out before it started") {
		t.Errorf("reports %+v; want only FAILED, TIMEOUT", rs)
	}
}
