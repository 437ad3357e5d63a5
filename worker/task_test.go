package worker

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

func TestDispatchRunReport(t *testing.T) {
	s := newFakeServer(t)
	seen := make(chan string, 1)
	w, _, _ := testWorker(t, s, nil, func(w *Worker) {
		w.Register("sync-orders", Func(func(ctx TaskContext) (Result, error) {
			seen <- fmt.Sprintf("%s|%s|%s|%d|%t|%s|%d", ctx.JobParams(), ctx.InstanceParams(), ctx.Kind(), ctx.Attempt(), ctx.IsRoot(), ctx.TaskName(), ctx.InstanceID())
			return Result{Message: "synced 42 orders"}, nil
		}))
	})
	c := s.conn()
	task := goTask(1, "sync-orders")
	task.JobParams, task.Params = "jp", "ip"
	ack := c.dispatch(1, task)
	if !ack.OK || !slices.Equal(ack.Accepted, []int64{1}) || len(ack.Rejected) != 0 {
		t.Fatalf("ack %+v", ack)
	}
	if got := recv(t, seen, "the processor"); got != "jp|ip|ROOT|1|true|ROOT|101" {
		t.Errorf("the processor saw %s", got)
	}
	running := s.report(1, protocol.TaskRunning)
	final := s.final(1)
	if running.InstanceID != 101 || final.Status != protocol.TaskSucceeded || final.Result != "synced 42 orders" || final.At.Before(running.At) {
		t.Errorf("reports %+v then %+v", running, final)
	}
	// Acknowledged: nothing is left to send, and the slot is free again.
	testkit.EventuallyWithin(t, failsafe, "the outbox to be empty", func() bool { return !w.out.pending() })
	testkit.EventuallyWithin(t, failsafe, "the task to leave", func() bool { return len(w.runningIDs(false)) == 0 })
}

func TestErrorAndPanicFail(t *testing.T) {
	s := newFakeServer(t)
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("fail", Func(func(TaskContext) (Result, error) { return Result{}, errors.New("no orders table") }))
		w.Register("panic", Func(func(TaskContext) (Result, error) { panic("boom") }))
	})
	c := s.conn()
	c.dispatch(1, goTask(1, "fail"), goTask(2, "panic"))
	finals := s.finals(1, 2)
	for id, want := range map[int64]string{1: "no orders table", 2: "panic: boom"} {
		if r := finals[id]; r.Status != protocol.TaskFailed || r.Result != want {
			t.Errorf("task %d: %+v", id, r)
		}
	}
}

func TestPanicStackIsLogged(t *testing.T) {
	s := newFakeServer(t)
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("panic", Func(func(TaskContext) (Result, error) { panic("boom") }))
	})
	s.conn().dispatch(1, goTask(1, "panic"))
	for {
		l := recv(t, s.logs, "the panic's log line")
		if len(l.Lines) > 0 && strings.HasPrefix(l.Lines[0].Text, "panic: boom\ngoroutine") {
			if l.Lines[0].Level != "ERROR" {
				t.Errorf("level %s", l.Lines[0].Level)
			}
			return
		}
	}
}

func TestRejections(t *testing.T) {
	s := newFakeServer(t)
	s.epoch.Store(5)
	release := make(chan struct{})
	defer close(release)
	testWorker(t, s, func(c *Config) { c.Slots = 1 }, func(w *Worker) {
		w.Register("block", Func(func(ctx TaskContext) (Result, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return Result{}, nil
		}))
	})
	c := s.conn()
	reason := func(ack protocol.Ack, id int64) string {
		for _, r := range ack.Rejected {
			if r.TaskID == id {
				return r.Reason
			}
		}
		return ""
	}
	// Fencing: the welcome said epoch 5.
	if ack := c.dispatch(4, goTask(1, "block")); !strings.Contains(reason(ack, 1), "stale epoch 4") || len(ack.Accepted) != 0 {
		t.Errorf("stale dispatch: %+v", ack)
	}
	unknown := goTask(2, "nope")
	shell := goTask(3, "echo hi")
	shell.ProcessorType = "SHELL"
	kind := goTask(4, "block")
	kind.Kind = "LAUNCH"
	ack := c.dispatch(6, unknown, shell, kind)
	for id, want := range map[int64]string{2: `no GO processor named "nope" is registered`, 3: `processor type "SHELL" is not supported`, 4: `unknown task kind "LAUNCH"`} {
		if !strings.Contains(reason(ack, id), want) {
			t.Errorf("task %d: %+v", id, ack)
		}
	}
	// One slot: the second task is refused, the first sent again is not
	// run twice.
	if ack := c.dispatch(6, goTask(5, "block")); !slices.Equal(ack.Accepted, []int64{5}) {
		t.Fatalf("ack %+v", ack)
	}
	ack = c.dispatch(6, goTask(6, "block"), goTask(5, "block"))
	if !strings.Contains(reason(ack, 6), "no free slot") || !slices.Equal(ack.Accepted, []int64{5}) {
		t.Errorf("full worker: %+v", ack)
	}
	// The epoch seen only grows: 6 now, so 5 is stale.
	if ack := c.dispatch(5, goTask(7, "block")); !strings.Contains(reason(ack, 7), "stale epoch 5") {
		t.Errorf("after epoch 6: %+v", ack)
	}
}

func TestStopCancelsTheTask(t *testing.T) {
	s := newFakeServer(t)
	started := make(chan int64, 2)
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("wait", Func(func(ctx TaskContext) (Result, error) {
			started <- ctx.TaskID()
			<-ctx.Done()
			return Result{}, ctx.Err()
		}))
	})
	c := s.conn()
	other := goTask(2, "wait")
	other.InstanceID = 999
	c.dispatch(1, goTask(1, "wait"), other)
	recv(t, started, "a task to start")
	recv(t, started, "a task to start")
	if ack := c.request(protocol.TypeStop, &protocol.Stop{InstanceID: 101, Reason: "asked by alice"}); !ack.OK {
		t.Errorf("stop ack %+v", ack)
	}
	if r := s.final(1); r.Status != protocol.TaskStopped || r.Result != "stopped: asked by alice" {
		t.Errorf("final %+v", r)
	}
	// Only the named instance stops; then stop the other by task id alone,
	// as the server does for a task it no longer assigns to the worker.
	c.request(protocol.TypeStop, &protocol.Stop{TaskIDs: []int64{2}, Reason: "the task is no longer assigned to this worker"})
	if r := s.final(2); r.Status != protocol.TaskStopped || !strings.Contains(r.Result, "no longer assigned") {
		t.Errorf("final %+v", r)
	}
}

// What a processor returns along with an error — a script's last output
// lines — follows the reason in the result of a failed, stopped or
// timed-out task, so the result says how far it got.
func TestResultKeepsTheOutputOfAnUnsuccessfulTask(t *testing.T) {
	s := newFakeServer(t)
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("fails", Func(func(ctx TaskContext) (Result, error) {
			return Result{Message: "step 1\nstep 2"}, errors.New("exit status 3")
		}))
		w.Register("waits", Func(func(ctx TaskContext) (Result, error) {
			<-ctx.Done()
			return Result{Message: "step 1\nstep 2"}, ctx.Err()
		}))
	})
	c := s.conn()
	slow := goTask(3, "waits")
	slow.InstanceID = 303
	slow.Deadline = time.Now().Add(30 * time.Millisecond)
	c.dispatch(1, goTask(1, "fails"), goTask(2, "waits"), slow) // accepted: running
	c.request(protocol.TypeStop, &protocol.Stop{InstanceID: 102, Reason: "asked by alice"})
	finals := s.finals(1, 2, 3)
	if r := finals[1]; r.Status != protocol.TaskFailed || r.Result != "exit status 3\nstep 1\nstep 2" {
		t.Errorf("failed: %+v", r)
	}
	if r := finals[2]; r.Status != protocol.TaskStopped || r.Result != "stopped: asked by alice\nstep 1\nstep 2" {
		t.Errorf("stopped: %+v", r)
	}
	if r := finals[3]; r.Status != protocol.TaskFailed || !strings.HasPrefix(r.Result, "timed out after ") || !strings.HasSuffix(r.Result, "\nstep 1\nstep 2") {
		t.Errorf("timed out: %+v", r)
	}
}

func TestDeadlineFailsTheTask(t *testing.T) {
	s := newFakeServer(t)
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("slow", Func(func(ctx TaskContext) (Result, error) {
			<-ctx.Done()
			return Result{}, ctx.Err()
		}))
	})
	task := goTask(1, "slow")
	task.Deadline = time.Now().Add(30 * time.Millisecond)
	s.conn().dispatch(1, task)
	if r := s.final(1); r.Status != protocol.TaskFailed || !strings.HasPrefix(r.Result, "timed out after ") {
		t.Errorf("final %+v", r)
	}
}

func TestAbandonedProcessorIsReported(t *testing.T) {
	s := newFakeServer(t)
	release := make(chan struct{})
	w, _, _ := testWorker(t, s, func(c *Config) { c.AbandonAfter = time.Millisecond }, func(w *Worker) {
		w.Register("deaf", Func(func(ctx TaskContext) (Result, error) {
			<-release // ignores its context
			return Result{}, nil
		}))
	})
	c := s.conn()
	c.dispatch(1, goTask(1, "deaf"))
	s.report(1, protocol.TaskRunning)
	c.request(protocol.TypeStop, &protocol.Stop{InstanceID: 101, Reason: "enough"})
	if r := s.final(1); r.Status != protocol.TaskStopped {
		t.Errorf("final %+v", r)
	}
	// Reported and acked: no longer listed as running, but its slot stays taken.
	testkit.EventuallyWithin(t, failsafe, "the final report to be acked", func() bool { return len(w.runningIDs(true)) == 0 })
	if ids := w.runningIDs(false); !slices.Equal(ids, []int64{1}) {
		t.Errorf("slots taken by %v", ids)
	}
	close(release)
	testkit.EventuallyWithin(t, failsafe, "the slot to be freed", func() bool { return len(w.runningIDs(false)) == 0 })
}

type broadcaster struct{ pre chan string }

func (b broadcaster) Process(ctx TaskContext) (Result, error) { return Result{Message: "host-a"}, nil }
func (b broadcaster) PreProcess(ctx TaskContext) error        { b.pre <- ctx.Kind(); return nil }
func (b broadcaster) PostProcess(ctx TaskContext, rs []TaskResult) (Result, error) {
	return Result{Message: fmt.Sprintf("%d results, first %s", len(rs), rs[0].Result)}, nil
}

type reducer struct{}

func (reducer) Process(ctx TaskContext) (Result, error) { return Result{}, nil }
func (reducer) Reduce(ctx TaskContext, rs []TaskResult) (Result, error) {
	sum := 0
	for _, r := range rs {
		var n int
		_, _ = fmt.Sscan(r.Result, &n)
		sum += n
	}
	return Result{Message: fmt.Sprint(sum)}, nil
}

func TestKinds(t *testing.T) {
	s := newFakeServer(t)
	pre := make(chan string, 1)
	testWorker(t, s, func(c *Config) { c.Slots = 10 }, func(w *Worker) {
		w.Register("bc", broadcaster{pre: pre})
		w.Register("mr", reducer{})
		w.Register("plain", nop())
	})
	results := []TaskResult{{TaskID: 1, Name: "a", Success: true, Result: "20"}, {TaskID: 2, Name: "b", Success: false, Result: "22"}}
	task := func(id int64, kind, proc string) protocol.Task {
		t := goTask(id, proc)
		t.Kind, t.Results = kind, results
		return t
	}
	s.conn().dispatch(1,
		task(1, protocol.KindPre, "bc"), task(2, protocol.KindPost, "bc"), task(3, protocol.KindBroadcast, "bc"),
		task(4, protocol.KindPre, "plain"), task(5, protocol.KindPost, "plain"),
		task(6, protocol.KindReduce, "mr"), task(7, protocol.KindReduce, "plain"))
	if k := recv(t, pre, "PreProcess"); k != protocol.KindPre {
		t.Errorf("PreProcess saw kind %s", k)
	}
	want := map[int64]string{
		1: "SUCCEEDED ", 2: "SUCCEEDED 2 results, first 20", 3: "SUCCEEDED host-a",
		4: "SUCCEEDED no pre-process", 5: "SUCCEEDED no post-process; 1 of 2 tasks succeeded",
		6: "SUCCEEDED 42", 7: `FAILED processor "plain" cannot reduce`,
	}
	finals := s.finals(1, 2, 3, 4, 5, 6, 7)
	for id, w := range want {
		r := finals[id]
		if got := r.Status + " " + r.Result; !strings.HasPrefix(got, w) {
			t.Errorf("task %d: %q, want %q", id, got, w)
		}
	}
}

func TestWorkflowContext(t *testing.T) {
	s := newFakeServer(t)
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("wf", Func(func(ctx TaskContext) (Result, error) {
			if ctx.WorkflowContext()["region"] != "eu" || ctx.Upstream()["extract"] != "10 rows" {
				return Result{}, fmt.Errorf("saw %v and %v", ctx.WorkflowContext(), ctx.Upstream())
			}
			ctx.SetWorkflowValue("rows", 10)
			if ctx.WorkflowContext()["rows"] != 10 {
				return Result{}, errors.New("addition not visible")
			}
			return Result{Message: "ok"}, nil
		}))
		w.Register("bad", Func(func(ctx TaskContext) (Result, error) {
			ctx.SetWorkflowValue("ch", make(chan int))
			return Result{}, nil
		}))
	})
	task := goTask(1, "wf")
	task.WorkflowContext = map[string]any{"region": "eu"}
	task.Upstream = map[string]string{"extract": "10 rows"}
	s.conn().dispatch(1, task, goTask(2, "bad"))
	finals := s.finals(1, 2)
	r := finals[1]
	if b, _ := json.Marshal(r.WorkflowContext); r.Status != protocol.TaskSucceeded || string(b) != `{"rows":10}` {
		t.Errorf("final %+v, context %s", r, b)
	}
	if r := finals[2]; r.Status != protocol.TaskFailed || !strings.Contains(r.Result, `workflow context value "ch" cannot be encoded`) {
		t.Errorf("final %+v", r)
	}
}

func TestLogsBatchedWithIncreasingSeq(t *testing.T) {
	s := newFakeServer(t)
	const n = 500
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("chatty", Func(func(ctx TaskContext) (Result, error) {
			log := ctx.Logger().With("job", "chatty")
			for i := range n {
				log.Info("line", "i", i)
			}
			log.Warn("careful", "path", "/a b")
			return Result{}, nil
		}))
	})
	s.conn().dispatch(1, goTask(1, "chatty"))
	var lines []protocol.LogLine
	msgs := 0
	for len(lines) < n+1 {
		l := recv(t, s.logs, "log lines")
		msgs++
		lines = append(lines, l.Lines...)
	}
	for i, l := range lines[:n] {
		if l.Text != fmt.Sprintf("line job=chatty i=%d", i) || l.Level != "INFO" || l.InstanceID != 101 || l.TaskID != 1 {
			t.Fatalf("line %d: %+v", i, l)
		}
		if i > 0 && l.Seq != lines[i-1].Seq+1 {
			t.Fatalf("seq %d after %d", l.Seq, lines[i-1].Seq)
		}
	}
	if last := lines[n]; last.Level != "WARN" || last.Text != `careful job=chatty path="/a b"` {
		t.Errorf("last line %+v", last)
	}
	if msgs >= n {
		t.Errorf("%d lines came in %d messages: not batched", n, msgs)
	}
}

// A worker whose own log is quiet (WARN, as the demo agent's) still ships
// every line its tasks write, DEBUG and INFO included: its level is about
// its own log, never about what a task writes. With TaskLogLevel set, the
// lines below it stay local.
func TestTaskLinesShippedWhateverTheWorkerLogLevel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		level slog.Leveler
		want  []string
	}{
		{"default", nil, []string{"DEBUG d", "INFO i", "WARN w", "ERROR e"}},
		{"TaskLogLevel WARN", slog.LevelWarn, []string{"WARN w", "ERROR e"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeServer(t)
			testWorker(t, s, func(c *Config) {
				c.Logger = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn})) //nolint:sloglint // the point: a quiet worker log must not filter task lines
				c.TaskLogLevel = tc.level
			}, func(w *Worker) {
				w.Register("talk", Func(func(ctx TaskContext) (Result, error) {
					ctx.Logger().Debug("d")
					ctx.Logger().Info("i")
					ctx.Logger().Warn("w")
					ctx.Logger().Error("e")
					return Result{}, nil
				}))
			})
			s.conn().dispatch(1, goTask(1, "talk"))
			s.final(1) // sent only once the task's lines are stored
			var got []string
			for len(s.logs) > 0 {
				for _, l := range (<-s.logs).Lines {
					got = append(got, l.Level+" "+l.Text)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("shipped %q; want %q", got, tc.want)
			}
		})
	}
}

func TestMapWaitsForTheAck(t *testing.T) {
	s := newFakeServer(t)
	mapped := make(chan error, 1)
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("mr", Func(func(ctx TaskContext) (Result, error) {
			if !ctx.IsRoot() {
				return Result{}, nil
			}
			mapped <- ctx.Map([]any{1, 2, "three"}, "square")
			return Result{}, ctx.Map([]any{4}, "square")
		}))
	})
	task := goTask(1, "mr")
	task.ExecutionMode = "MAP_REDUCE"
	s.conn().dispatch(1, task)
	req := recv(t, s.maps, "a map request")
	if req.m.InstanceID != 101 || req.m.ParentTaskID != 1 || req.m.Name != "square" || !slices.Equal(req.m.Payloads, []string{"1", "2", `"three"`}) {
		t.Errorf("map %+v", req.m)
	}
	select {
	case err := <-mapped:
		t.Fatalf("Map returned (%v) before the server stored the subtasks", err)
	default:
	}
	req.conn.send(0, req.id, protocol.TypeAck, &protocol.Ack{OK: true})
	if err := recv(t, mapped, "Map to return"); err != nil {
		t.Fatalf("Map: %v", err)
	}
	// A refusal is Map's error, and the task's.
	req = recv(t, s.maps, "the second map request")
	req.conn.send(0, req.id, protocol.TypeAck, &protocol.Ack{Error: "instance 101 has ended"})
	if r := s.final(1); r.Status != protocol.TaskFailed || !strings.Contains(r.Result, "the server refused subtasks 0..0: instance 101 has ended") {
		t.Errorf("final %+v", r)
	}
}

func TestMapSplitsLargeCalls(t *testing.T) {
	s := newFakeServer(t)
	s.ackMaps.Store(true)
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("mr", Func(func(ctx TaskContext) (Result, error) {
			sub := make([]any, 2500)
			for i := range sub {
				sub[i] = i
			}
			return Result{}, ctx.Map(sub, "part")
		}))
	})
	task := goTask(1, "mr")
	task.ExecutionMode = "MAP"
	s.conn().dispatch(1, task)
	var sizes []int
	var all []string
	for len(all) < 2500 {
		m := recv(t, s.maps, "map requests").m
		sizes = append(sizes, len(m.Payloads))
		all = append(all, m.Payloads...)
	}
	if !slices.Equal(sizes, []int{1000, 1000, 500}) || all[1234] != "1234" {
		t.Errorf("chunks of %v", sizes)
	}
	if r := s.final(1); r.Status != protocol.TaskSucceeded {
		t.Errorf("final %+v", r)
	}
}

func TestMapNeedsAMapJob(t *testing.T) {
	s := newFakeServer(t)
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("mr", Func(func(ctx TaskContext) (Result, error) { return Result{}, ctx.Map([]any{1}, "x") }))
	})
	s.conn().dispatch(1, goTask(1, "mr"))
	if r := s.final(1); !strings.Contains(r.Result, "only MAP and MAP_REDUCE jobs can emit subtasks") {
		t.Errorf("final %+v", r)
	}
}

func TestMapFailsAfterItsBoundWhileDisconnected(t *testing.T) {
	s := newFakeServer(t)
	mapNow := make(chan struct{})
	mapErr := make(chan error, 1)
	testWorker(t, s, func(c *Config) { c.MapTimeout = 50 * time.Millisecond }, func(w *Worker) {
		w.Register("mr", Func(func(ctx TaskContext) (Result, error) {
			<-mapNow
			err := ctx.Map([]any{1}, "x")
			mapErr <- err
			return Result{}, err
		}))
	})
	c := s.conn()
	task := goTask(1, "mr")
	task.ExecutionMode = "MAP"
	c.dispatch(1, task)
	s.report(1, protocol.TaskRunning)
	s.down.Store(true) // no reconnection until Map gave up
	c.drop()
	close(mapNow)
	err := recv(t, mapErr, "Map to give up")
	if err == nil || !strings.Contains(err.Error(), "did not confirm storing the subtasks within 50ms") {
		t.Fatalf("Map: %v", err)
	}
	s.down.Store(false)
	if r := s.final(1); r.Status != protocol.TaskFailed || r.Result != err.Error() {
		t.Errorf("final %+v", r)
	}
}

// A heartbeat lists every task the server must still count as running:
// one taken while a task ends must list it, either as running or as a
// final report the server has not acked, or the server would take the
// task for lost and run it a second time.
func TestHeartbeatNeverMissesAnEndingTask(t *testing.T) {
	s := newFakeServer(t)
	s.holdAcks.Store(true) // nothing is ever acked: every task stays listed
	const n = 2000
	// Its reports are never acked: it stops without waiting for them.
	w, _, _ := testWorker(t, s, func(c *Config) { c.Slots, c.ShutdownTimeout = n, time.Millisecond }, func(w *Worker) { w.Register("nop", nop()) })
	c := s.conn()
	stop := make(chan struct{})
	missed := make(chan int64, 1)
	go func() {
		// Poll as the heartbeat does while the tasks end: a task seen
		// once must be in every later list.
		seen := map[int64]bool{}
		for {
			select {
			case <-stop:
				return
			default:
			}
			ids := w.runningIDs(true)
			listed := make(map[int64]bool, len(ids))
			for _, id := range ids {
				listed[id] = true
				seen[id] = true
			}
			for id := range seen {
				if !listed[id] {
					missed <- id
					return
				}
			}
		}
	}()
	tasks := make([]protocol.Task, n)
	for i := range tasks {
		tasks[i] = goTask(int64(i+1), "nop")
	}
	c.dispatch(1, tasks...)
	testkit.EventuallyWithin(t, failsafe, "every task to end", func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.busy == 0
	})
	close(stop)
	select {
	case id := <-missed:
		t.Fatalf("task %d ended unacked but a heartbeat did not list it", id)
	default:
	}
	if ids := w.runningIDs(true); len(ids) != n {
		t.Errorf("%d tasks listed once ended with nothing acked; want %d", len(ids), n)
	}
}

// A server that stores this worker's subtasks more slowly than its tasks
// map them holds Map back rather than failing it: MapTimeout counts only
// while nothing at all is stored. Task 1's one chunk waits behind task 2's
// many, acked one at a time, for much longer than MapTimeout in all.
func TestMapWaitsWhileTheServerStoresSlowly(t *testing.T) {
	s := newFakeServer(t)
	const timeout = time.Second
	testWorker(t, s, func(c *Config) { c.MapTimeout = timeout }, func(w *Worker) {
		w.Register("one", Func(func(ctx TaskContext) (Result, error) { return Result{}, ctx.Map([]any{1}, "one") }))
		w.Register("many", Func(func(ctx TaskContext) (Result, error) {
			sub := make([]any, 15_000) // 15 chunks of 1,000
			for i := range sub {
				sub[i] = i
			}
			return Result{}, ctx.Map(sub, "many")
		}))
	})
	one, many := goTask(1, "one"), goTask(2, "many")
	one.ExecutionMode, many.ExecutionMode = "MAP", "MAP"
	c := s.conn()
	c.dispatch(1, many)
	first := recv(t, s.maps, "task 2's first chunk")
	c.dispatch(1, one)
	var held *mapRequest
	pending := []mapRequest{first}
	start := time.Now()
	for acked := 0; acked < 15; {
		// Take what arrived, hold task 1's chunk, ack one of task 2's.
	drain:
		for {
			select {
			case r := <-s.maps:
				if r.m.Payloads[0] == "1" && len(r.m.Payloads) == 1 {
					held = &r
				} else {
					pending = append(pending, r)
				}
			default:
				break drain
			}
		}
		if len(pending) == 0 {
			pending = append(pending, recv(t, s.maps, "task 2's next chunk"))
			continue
		}
		r := pending[0]
		pending = pending[1:]
		r.conn.send(0, r.id, protocol.TypeAck, &protocol.Ack{OK: true})
		acked++
		time.Sleep(timeout / 10) // the server is slow: storing all takes longer than MapTimeout
	}
	if held == nil {
		held = ptrTo(recv(t, s.maps, "task 1's chunk"))
	}
	if waited := time.Since(start); waited <= timeout {
		t.Fatalf("task 1's chunk waited %s, not longer than MapTimeout: the test proves nothing", waited)
	}
	held.conn.send(0, held.id, protocol.TypeAck, &protocol.Ack{OK: true})
	finals := s.finals(1, 2)
	for id, r := range finals {
		if r.Status != protocol.TaskSucceeded {
			t.Errorf("task %d: %+v", id, r)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
