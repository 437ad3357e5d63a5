package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// TestWorkerChannelAbuse (issue 19, item 4): against a real server on
// PostgreSQL, while app orders' agent runs instances, the worker channel
// is abused — malformed, binary and oversized frames; a worker of app beta
// reporting, mapping and logging for orders' tasks and instance; a flood
// of hellos with a wrong secret; a worker of orders that takes work and
// never acks it. Every abuse is refused, the flood is logged once (and
// once more when the limit starts); the server stays healthy; orders'
// instances all succeed on the good agent with their own log line only;
// and a second good agent connects during the flood.
func TestWorkerChannelAbuse(t *testing.T) {
	t.Parallel()
	srv := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbtest.NewSchema(t)})
	c := srv.Client()
	_, secret, err := c.CreateApp("orders")
	if err != nil {
		t.Fatal(err)
	}
	_, betaSecret, err := c.CreateApp("beta")
	if err != nil {
		t.Fatal(err)
	}
	good := harness.StartAgent(t, harness.AgentOptions{Servers: []string{srv.URL}, App: "orders", Secret: secret, Name: "good"})
	if _, err := c.WaitWorkers("orders", 1, connect); err != nil {
		t.Fatal(err)
	}
	job, err := c.CreateJob(map[string]any{"app": "orders", "name": "tick", "scheduleType": "API", "processorType": "SHELL", "processor": "sleep 1; echo ok", "maxInstances": 50})
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.RunJob(job, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitInstance(first, settle, "SUCCEEDED"); err != nil {
		t.Fatal(err)
	}

	// A worker of orders that takes dispatches and never answers them,
	// while heart-beating so it is never found lost.
	silent, dispatches := silentWorker(t, srv.URL, "orders", secret)
	if _, err := c.WaitWorkers("orders", 2, connect); err != nil {
		t.Fatal(err)
	}

	// A worker of beta, connected before the flood of wrong secrets from
	// its address (a secret never seen before waits out such a flood).
	mallory := dialWorker(t, srv.URL, "beta", betaSecret)
	ws := "ws" + strings.TrimPrefix(srv.URL, "http") + protocol.ConnectPath
	var wg sync.WaitGroup
	abuse := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	// Malformed, binary and oversized frames: each connection is closed.
	abuse(func() {
		for i := 0; i < 30; i++ {
			conn, _, err := websocket.DefaultDialer.Dial(ws, nil)
			if err != nil {
				t.Errorf("dialing: %v", err)
				return
			}
			switch i % 3 {
			case 0:
				_ = conn.WriteMessage(websocket.TextMessage, []byte(`{"type":`))
			case 1:
				_ = conn.WriteMessage(websocket.BinaryMessage, []byte{0, 1, 2})
			case 2:
				_ = conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"hello","body":"`+strings.Repeat("x", protocol.MaxFrameBytes)+`"}`))
			}
			_ = conn.SetReadDeadline(time.Now().Add(connect))
			for {
				if _, _, err := conn.ReadMessage(); err != nil {
					if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
						t.Errorf("a bad frame's connection stayed open")
					}
					break
				}
			}
			_ = conn.Close()
		}
	})
	// Hellos with a wrong secret, more than the limit lets through.
	var refused, limited atomic.Int64
	abuse(func() {
		for i := 0; i < 60; i++ {
			conn, _, err := websocket.DefaultDialer.Dial(ws, nil)
			if err != nil {
				t.Errorf("dialing: %v", err)
				return
			}
			b, _ := protocol.Encode(1, 0, protocol.TypeHello, &protocol.Hello{App: "orders", WorkerID: "intruder", Host: "intruder", Slots: 1,
				Auth: "jwa_wrong", Protocol: protocol.Version})
			_ = conn.WriteMessage(websocket.TextMessage, b)
			_ = conn.SetReadDeadline(time.Now().Add(connect))
			if _, data, err := conn.ReadMessage(); err == nil {
				if _, body, _ := protocol.Decode(data); body != nil {
					if e, ok := body.(*protocol.Error); ok && e.Code == protocol.CodeAuth {
						refused.Add(1)
					} else if ok && e.Code == protocol.CodeInternal {
						limited.Add(1)
					}
				}
			}
			_ = conn.Close()
		}
	})
	// Orders runs work meanwhile.
	var ids []string
	for i := 0; i < 10; i++ {
		id, err := c.RunJob(job, "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// A worker of beta acting on orders' tasks and instance.
	var firstID int64
	if _, err := fmt.Sscan(first, &firstID); err != nil {
		t.Fatal(err)
	}
	// It reports every task id orders may have (its own app's registry
	// must not apply them: orders' tasks run meanwhile), maps under them,
	// and logs into orders' instances, until orders' instances ended.
	var sentMu sync.Mutex
	sent := map[int64]string{}
	forging := make(chan struct{})
	forged := make(chan struct{})
	go func() {
		defer close(forged)
		for {
			for task := int64(1); task <= 20; task++ { // instances first … first+10 exist
				id := mallory.send(protocol.TypeReport, &protocol.Report{Items: []protocol.TaskReport{{TaskID: task, InstanceID: firstID + task/2,
					Status: protocol.TaskFailed, Result: "forged", At: time.Now()}}})
				m := mallory.send(protocol.TypeMap, &protocol.Map{InstanceID: firstID + task/2, ParentTaskID: task, Name: "forged", Payloads: []string{"x"}})
				l := mallory.send(protocol.TypeLogs, &protocol.Logs{Lines: []protocol.LogLine{{InstanceID: firstID + task/2, Seq: task, Time: time.Now(), Level: "INFO", Text: "forged"}}})
				sentMu.Lock()
				sent[id], sent[m], sent[l] = "report", "map", fmt.Sprintf("logs into instance %d", firstID+task/2)
				sentMu.Unlock()
			}
			select {
			case <-forging:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	// It heart-beats until the end, so it is not dropped as lost while
	// the server works through what it sent.
	beating := make(chan struct{})
	defer close(beating)
	go func() {
		for {
			select {
			case <-beating:
				return
			case <-time.After(time.Second):
			}
			mallory.send(protocol.TypeHeartbeat, &protocol.Heartbeat{})
		}
	}()

	// A second good agent joins meanwhile.
	second := harness.StartAgent(t, harness.AgentOptions{Servers: []string{srv.URL}, App: "orders", Secret: secret, Name: "second"})
	wg.Wait()
	if _, err := c.WaitWorkers("orders", 3, connect); err != nil {
		t.Fatalf("the second good agent during the flood: %v\n%s", err, tail(second.Output(), 20))
	}

	// Every instance ends: on a good agent with its own line only, or —
	// handed to the silent worker, which never accepted it and whose
	// heartbeats do not list it — failed WORKER_LOST; none stays stuck.
	lost := 0
	for _, id := range append(ids, first) {
		in, err := c.WaitInstance(id, 3*settle, "SUCCEEDED", "FAILED", "CANCELED", "STOPPED")
		if err != nil {
			t.Fatalf("instance %s: %+v %v\nserver:\n%s", id, in, err, tail(srv.Output(), 40))
		}
		switch {
		case in.Status == "FAILED" && in.Reason == "WORKER_LOST" && strings.Contains(in.Result, "silent"):
			lost++
		case in.Status != "SUCCEEDED":
			t.Fatalf("instance %s: %+v", id, in)
		case in.Worker == nil || in.Worker.Host == "silent":
			t.Fatalf("instance %s ran on %+v", id, in.Worker)
		}
		if got := texts(in); in.Status == "SUCCEEDED" && (len(got) != 1 || got[0] != "ok") {
			t.Fatalf("instance %s's log: %q, want only its own line", id, got)
		}
	}
	close(forging)
	<-forged
	// With the silent worker gone, the good agents run everything.
	silent.Close()
	after, err := c.RunJob(job, "")
	if err != nil {
		t.Fatal(err)
	}
	if in, err := c.WaitInstance(after, settle, "SUCCEEDED", "FAILED"); err != nil || in.Status != "SUCCEEDED" || len(in.Logs.Lines) != 1 {
		t.Fatalf("an instance after the silent worker left: %+v %v", in, err)
	}
	if !testkit.Poll(settle, func() bool {
		for id := range sent {
			if mallory.ack(id) == nil {
				return false
			}
		}
		return true
	}) {
		missing := map[string]int{}
		for id, what := range sent {
			if mallory.ack(id) == nil {
				missing[what]++
			}
		}
		var lines []string
		for _, l := range strings.Split(srv.Output(), "\n") {
			if strings.Contains(l, "mallory") || strings.Contains(l, "app=2") {
				lines = append(lines, l)
			}
		}
		t.Fatalf("not every frame of beta's worker was answered: %v of %d unanswered\n%s", missing, len(sent), tail(strings.Join(lines, "\n"), 20))
	}
	// Logs and maps are refused; reports of tasks the app does not have
	// are acked and ignored (as a worker's report of a task already
	// settled is), which the instances above show.
	for id, what := range sent {
		if a := mallory.ack(id); what != "report" && a.OK || len(a.Accepted) > 0 {
			t.Fatalf("beta's %s for orders was accepted: %+v", what, a)
		}
	}
	if refused.Load() == 0 || limited.Load() == 0 || refused.Load()+limited.Load() != 60 {
		t.Fatalf("wrong secrets: %d refused AUTH, %d told to wait; want both, 60 in all", refused.Load(), limited.Load())
	}
	out := srv.Output()
	if n := strings.Count(out, "worker refused: unknown app or wrong secret") + strings.Count(out, "too many wrong app secrets"); n != 2 {
		t.Fatalf("the flood of wrong secrets took %d log lines, want 2:\n%s", n, tail(out, 40))
	}
	resp, err := http.Get(srv.URL + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	_ = resp.Body.Close()
	if strings.Contains(good.Output(), "refused") {
		t.Fatalf("the good agent was refused something:\n%s", tail(good.Output(), 20))
	}
	if !strings.Contains(out, "did not answer a message; disconnecting it") {
		t.Fatalf("the silent worker was not disconnected:\n%s", tail(out, 40))
	}
	t.Logf("the silent worker was sent %d dispatches and answered none; %d of %d instances failed WORKER_LOST with it",
		dispatches.Load(), lost, len(ids)+1)
}

// silentWorker connects as a worker of app that runs SHELL with many free
// slots, heart-beats every second, and never answers anything it is sent.
func silentWorker(t *testing.T, serverURL, app, secret string) (*websocket.Conn, *atomic.Int64) {
	t.Helper()
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(serverURL, "http")+protocol.ConnectPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	var mu sync.Mutex
	write := func(id int64, typ string, body any) error {
		b, err := protocol.Encode(id, 0, typ, body)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		return conn.WriteMessage(websocket.TextMessage, b)
	}
	if err := write(1, protocol.TypeHello, &protocol.Hello{App: app, WorkerID: "silent", Host: "silent", Slots: 64, Types: []string{"SHELL"},
		Auth: secret, Protocol: protocol.Version, Metrics: protocol.Metrics{CPUCores: 64}}); err != nil {
		t.Fatal(err)
	}
	if _, data, err := conn.ReadMessage(); err != nil {
		t.Fatal(err)
	} else if f, _, err := protocol.Decode(data); err != nil || f.Type != protocol.TypeWelcome {
		t.Fatalf("silent worker's hello: %s %v", data, err)
	}
	dispatches := &atomic.Int64{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			_, data, err := conn.ReadMessage()
			if err != nil {
				return
			}
			if f, _, err := protocol.Decode(data); err == nil && f.Type == protocol.TypeDispatch {
				dispatches.Add(1)
			}
		}
	}()
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Second):
			}
			if write(0, protocol.TypeHeartbeat, &protocol.Heartbeat{Metrics: protocol.Metrics{CPUCores: 64}}) != nil {
				return
			}
		}
	}()
	return conn, dispatches
}
