package worker

import (
	"slices"
	"testing"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// A dropped connection does not stop a running task; what the server had
// not acknowledged is sent again on the next connection, and the task's
// later logs and final report arrive there.
func TestReconnectKeepsTasksAndResendsUnacked(t *testing.T) {
	s := newFakeServer(t)
	step := make(chan struct{})
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("long", Func(func(ctx TaskContext) (Result, error) {
			ctx.Logger().Info("before the drop")
			<-step
			ctx.Logger().Info("after the drop")
			return Result{Message: "done"}, nil
		}))
	})
	c := s.conn()
	s.holdAcks.Store(true)
	c.dispatch(1, goTask(1, "long"))
	first := s.logLine("before the drop")
	s.report(1, protocol.TaskRunning)
	c.drop()
	s.holdAcks.Store(false)

	c2 := s.conn()
	if !slices.Equal(c2.hello.Running, []int64{1}) {
		t.Errorf("hello after the reconnect lists running %v, want [1]", c2.hello.Running)
	}
	// Unacknowledged: sent again, with the same sequence number.
	if again := s.logLine("before the drop"); again.Seq != first.Seq {
		t.Errorf("re-sent line has seq %d, first %d", again.Seq, first.Seq)
	}
	s.report(1, protocol.TaskRunning)
	close(step)
	if l := s.logLine("after the drop"); l.Seq <= first.Seq {
		t.Errorf("seq %d after %d", l.Seq, first.Seq)
	}
	if r := s.final(1); r.Status != protocol.TaskSucceeded || r.Result != "done" {
		t.Errorf("final %+v", r)
	}
}

// While disconnected, log lines beyond the bound are dropped oldest first,
// and the count reaches the server with the next batch.
func TestLogBufferDropsOldestAndTellsDropped(t *testing.T) {
	s := newFakeServer(t)
	logNow, logged := make(chan struct{}), make(chan struct{})
	testWorker(t, s, func(c *Config) { c.MaxBufferedLogLines = 10 }, func(w *Worker) {
		w.Register("chatty", Func(func(ctx TaskContext) (Result, error) {
			<-logNow
			for i := range 25 {
				ctx.Logger().Info("line", "i", i)
			}
			close(logged)
			return Result{}, nil
		}))
	})
	c := s.conn()
	c.dispatch(1, goTask(1, "chatty"))
	s.report(1, protocol.TaskRunning)
	s.down.Store(true)
	c.drop()
	close(logNow)
	<-logged
	s.down.Store(false)
	s.conn()

	var texts []string
	var dropped int64
	for len(texts) < 10 {
		l := recv(t, s.logs, "log lines")
		for _, line := range l.Lines {
			texts = append(texts, line.Text)
		}
		dropped += l.Dropped[101]
	}
	if texts[0] != "line i=15" || texts[9] != "line i=24" || dropped != 15 {
		t.Errorf("got lines %v and %d dropped; want lines 15..24 and 15 dropped", texts, dropped)
	}
}

func TestRedirectReconnectsToTheNewServer(t *testing.T) {
	a, b := newFakeServer(t), newFakeServer(t)
	testWorker(t, a, nil, nil)
	c := a.conn()
	c.send(0, 0, protocol.TypeRedirect, &protocol.Redirect{Server: b.URL(), Reason: "lease moved"})
	if h := recv(t, b.hellos, "hello on the new server"); h.App != "orders" {
		t.Errorf("hello %+v", h)
	}
	b.conn()
}

func TestNotOwnerRediscovers(t *testing.T) {
	a, b := newFakeServer(t), newFakeServer(t)
	// a answers discovery with itself, refuses the hello with NOT_OWNER,
	// and from then on points to b.
	a.notOwner.Store(1)
	a.owner.Store(b.URL())
	testWorker(t, a, nil, nil)
	recv(t, a.hellos, "the hello a refuses")
	b.conn()
}

func TestMalformedFrameReconnects(t *testing.T) {
	s := newFakeServer(t)
	testWorker(t, s, nil, nil)
	s.conn().sendRaw([]byte(`{"type":`))
	if e := recv(t, s.errs, "the worker's error frame"); e.Code != protocol.CodeBadFrame {
		t.Errorf("error frame %+v", e)
	}
	// Reconnected. A frame the server must not send is a protocol error,
	// with the same remedy.
	s.conn().send(0, 0, protocol.TypeHeartbeat, &protocol.Heartbeat{})
	if e := recv(t, s.errs, "the worker's error frame"); e.Code != protocol.CodeProtocol {
		t.Errorf("error frame %+v", e)
	}
	s.conn()
}

func TestServerErrorReconnects(t *testing.T) {
	s := newFakeServer(t)
	testWorker(t, s, nil, nil)
	s.conn().send(0, 0, protocol.TypeError, &protocol.Error{Code: protocol.CodeInternal, Message: "db down"})
	s.conn()
}

func TestConnectURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:7700":        "ws://h:7700/worker/connect",
		"https://h/jobwheel/":  "wss://h/jobwheel/worker/connect",
		"http://h:1/?x=y#frag": "ws://h:1/worker/connect",
	} {
		if got, err := connectURL(in); err != nil || got != want {
			t.Errorf("%s: %s, %v", in, got, err)
		}
	}
	if _, err := connectURL("ftp://h"); err == nil {
		t.Error("ftp accepted")
	}
}

func TestBackoffIsJitteredAndBounded(t *testing.T) {
	w := New(Config{})
	for n := range 20 {
		for range 50 {
			d := w.backoff(n)
			if d <= 0 || d > backoffMaxDefault || (n == 0 && d > backoffMinDefault) {
				t.Fatalf("backoff(%d) = %s", n, d)
			}
		}
	}
}

// A map request the server did not acknowledge before the connection
// dropped is sent again, and Map returns once that one is acknowledged.
func TestMapSurvivesAReconnect(t *testing.T) {
	s := newFakeServer(t)
	mapped := make(chan error, 1)
	testWorker(t, s, nil, func(w *Worker) {
		w.Register("mr", Func(func(ctx TaskContext) (Result, error) {
			err := ctx.Map([]any{"a"}, "sub")
			mapped <- err
			return Result{}, err
		}))
	})
	c := s.conn()
	task := goTask(1, "mr")
	task.ExecutionMode = "MAP"
	c.dispatch(1, task)
	first := recv(t, s.maps, "the map request")
	c.drop()
	again := recv(t, s.maps, "the map request, again")
	if again.conn == first.conn || !slices.Equal(again.m.Payloads, first.m.Payloads) {
		t.Fatalf("re-sent %+v", again)
	}
	select {
	case err := <-mapped:
		t.Fatalf("Map returned (%v) before any ack", err)
	default:
	}
	again.conn.send(0, again.id, protocol.TypeAck, &protocol.Ack{OK: true})
	if err := recv(t, mapped, "Map to return"); err != nil {
		t.Fatal(err)
	}
}
