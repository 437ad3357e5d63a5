package worker

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// fakeServer is a small jobwheel server for the SDK tests: it speaks
// protocol.go over a real websocket, answers discovery, and hands what
// workers send to the test through channels that outlive connections.
type fakeServer struct {
	t   *testing.T
	srv *httptest.Server
	id  string

	secret      string
	epoch       atomic.Int64
	heartbeatMs atomic.Int64
	down        atomic.Bool  // discovery answers 503: the worker cannot reconnect
	holdAcks    atomic.Bool  // reports and logs are not acknowledged
	ackMaps     atomic.Bool  // maps are acknowledged by the server itself
	notOwner    atomic.Int64 // hellos still to answer with NOT_OWNER
	owner       atomic.Value // string: what discovery points to (default: itself)
	servers     []string     // welcome.servers

	conns    chan *fakeConn // sessions after welcome
	hellos   chan protocol.Hello
	reports  chan protocol.TaskReport
	logs     chan protocol.Logs
	maps     chan mapRequest
	errs     chan protocol.Error // error frames from workers
	beats    chan protocol.Heartbeat
	closures chan int // close codes received from workers
}

type mapRequest struct {
	conn *fakeConn
	id   int64
	m    protocol.Map
}

// fakeConn is one worker connection on the fake server.
type fakeConn struct {
	s     *fakeServer
	ws    *websocket.Conn
	hello protocol.Hello
	wmu   sync.Mutex
	ids   atomic.Int64
	mu    sync.Mutex
	acks  map[int64]chan protocol.Ack
	gone  chan struct{}
}

const failsafe = 20 * time.Second // only so a broken test fails instead of hanging

func newFakeServer(t *testing.T) *fakeServer {
	s := &fakeServer{
		t: t, id: "srv-" + t.Name(), secret: "s3cret",
		conns:    make(chan *fakeConn, 16),
		hellos:   make(chan protocol.Hello, 64),
		reports:  make(chan protocol.TaskReport, 10000),
		logs:     make(chan protocol.Logs, 10000),
		maps:     make(chan mapRequest, 100),
		errs:     make(chan protocol.Error, 16),
		beats:    make(chan protocol.Heartbeat, 1000),
		closures: make(chan int, 16),
	}
	s.epoch.Store(1)
	s.heartbeatMs.Store(1000)
	mux := http.NewServeMux()
	mux.HandleFunc(protocol.DiscoverPath, s.discover)
	mux.HandleFunc(protocol.ConnectPath, s.connect)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *fakeServer) URL() string { return s.srv.URL }

func (s *fakeServer) discover(w http.ResponseWriter, r *http.Request) {
	if s.down.Load() {
		http.Error(w, "down for the test", http.StatusServiceUnavailable)
		return
	}
	// As the real server: only for the app's secret, and an unknown app
	// looks like a wrong secret.
	if r.URL.Query().Get("app") != "orders" || r.Header.Get("Authorization") != "Bearer s3cret" {
		http.Error(w, "unknown app or wrong app secret", http.StatusForbidden)
		return
	}
	owner, _ := s.owner.Load().(string)
	if owner == "" || s.notOwner.Load() > 0 {
		owner = s.URL()
	}
	_ = json.NewEncoder(w).Encode(protocol.DiscoverResponse{Server: owner, Servers: []string{s.URL()}})
}

var upgrader = websocket.Upgrader{}

func (s *fakeServer) connect(w http.ResponseWriter, r *http.Request) {
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	ws.SetReadLimit(protocol.MaxFrameBytes)
	_, data, err := ws.ReadMessage()
	if err != nil {
		return
	}
	f, body, err := protocol.Decode(data)
	hello, ok := body.(*protocol.Hello)
	if err != nil || !ok || f.ID <= 0 {
		s.t.Errorf("first frame is not a valid hello: %v %s", err, data)
		return
	}
	s.hellos <- *hello
	c := &fakeConn{s: s, ws: ws, hello: *hello, acks: map[int64]chan protocol.Ack{}, gone: make(chan struct{})}
	defer close(c.gone)
	switch {
	case hello.Auth != s.secret:
		c.send(0, f.ID, protocol.TypeError, &protocol.Error{Code: protocol.CodeAuth, Message: "wrong secret"})
		return
	case s.notOwner.Load() > 0:
		s.notOwner.Add(-1)
		c.send(0, f.ID, protocol.TypeError, &protocol.Error{Code: protocol.CodeNotOwner, Message: "app moved"})
		return
	}
	c.send(0, f.ID, protocol.TypeWelcome, &protocol.Welcome{
		ServerID: s.id, Epoch: s.epoch.Load(), Servers: s.servers, HeartbeatMs: int(s.heartbeatMs.Load()),
	})
	s.conns <- c
	c.read()
}

// read handles the worker's frames until the connection ends.
func (c *fakeConn) read() {
	s := c.s
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				s.closures <- ce.Code
			}
			return
		}
		f, body, err := protocol.Decode(data)
		if err != nil {
			s.t.Errorf("the worker sent a bad frame: %v", err)
			return
		}
		switch b := body.(type) {
		case *protocol.Ack:
			c.mu.Lock()
			ch := c.acks[f.Re]
			c.mu.Unlock()
			if ch != nil {
				ch <- *b
			}
		case *protocol.Heartbeat:
			select {
			case s.beats <- *b:
			default:
			}
		case *protocol.Report:
			for _, it := range b.Items {
				s.reports <- it
			}
			if !s.holdAcks.Load() {
				c.send(0, f.ID, protocol.TypeAck, &protocol.Ack{OK: true})
			}
		case *protocol.Logs:
			s.logs <- *b
			if !s.holdAcks.Load() {
				c.send(0, f.ID, protocol.TypeAck, &protocol.Ack{OK: true})
			}
		case *protocol.Map:
			if s.ackMaps.Load() {
				c.send(0, f.ID, protocol.TypeAck, &protocol.Ack{OK: true})
			}
			s.maps <- mapRequest{conn: c, id: f.ID, m: *b}
		case *protocol.Error:
			s.errs <- *b
		default:
			s.t.Errorf("unexpected %s frame from the worker", f.Type)
		}
	}
}

// send writes a frame; errors mean the connection is gone, which tests
// notice otherwise.
func (c *fakeConn) send(id, re int64, typ string, body any) {
	b, err := protocol.Encode(id, re, typ, body)
	if err != nil {
		c.s.t.Errorf("encoding %s: %v", typ, err)
		return
	}
	c.sendRaw(b)
}

func (c *fakeConn) sendRaw(b []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.ws.WriteMessage(websocket.TextMessage, b)
}

// request sends a message that wants a reply and waits for the ack.
func (c *fakeConn) request(typ string, body any) protocol.Ack {
	c.s.t.Helper()
	id := c.ids.Add(1)
	ch := make(chan protocol.Ack, 1)
	c.mu.Lock()
	c.acks[id] = ch
	c.mu.Unlock()
	c.send(id, 0, typ, body)
	select {
	case a := <-ch:
		return a
	case <-c.gone:
		c.s.t.Fatalf("connection closed while waiting for the ack of %s", typ)
	case <-time.After(failsafe):
		c.s.t.Fatalf("no ack for %s", typ)
	}
	return protocol.Ack{}
}

func (c *fakeConn) dispatch(epoch int64, tasks ...protocol.Task) protocol.Ack {
	c.s.t.Helper()
	return c.request(protocol.TypeDispatch, &protocol.Dispatch{App: "orders", Epoch: epoch, Tasks: tasks})
}

// drop ends the connection abruptly, as a crash or network failure would.
func (c *fakeConn) drop() {
	c.ws.NetConn().Close()
	<-c.gone
}

// recv waits for a value on ch; the failsafe only turns a hang into a failure.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(failsafe):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

func (s *fakeServer) conn() *fakeConn {
	s.t.Helper()
	return recv(s.t, s.conns, "a worker connection")
}

// report waits for the report of task with the given status, skipping others.
func (s *fakeServer) report(task int64, status string) protocol.TaskReport {
	s.t.Helper()
	for {
		r := recv(s.t, s.reports, "a "+status+" report")
		if r.TaskID == task && r.Status == status {
			return r
		}
	}
}

// final waits for the final report of task, skipping other reports.
func (s *fakeServer) final(task int64) protocol.TaskReport {
	s.t.Helper()
	return s.finals(task)[task]
}

// finals waits for the final reports of all the tasks, skipping other
// reports.
func (s *fakeServer) finals(tasks ...int64) map[int64]protocol.TaskReport {
	s.t.Helper()
	got := map[int64]protocol.TaskReport{}
	for len(got) < len(tasks) {
		r := recv(s.t, s.reports, "final reports")
		if r.Status != protocol.TaskRunning && slices.Contains(tasks, r.TaskID) {
			got[r.TaskID] = r
		}
	}
	return got
}

// logLine waits for the log line with the given text.
func (s *fakeServer) logLine(text string) protocol.LogLine {
	s.t.Helper()
	for {
		l := recv(s.t, s.logs, "log line "+text)
		for _, line := range l.Lines {
			if line.Text == text {
				return line
			}
		}
	}
}

// testWorker starts a worker on s with quick test settings; edit adjusts
// its config. The worker stops at the end of the test.
func testWorker(t *testing.T, s *fakeServer, edit func(*Config), register func(*Worker)) (*Worker, context.CancelFunc, <-chan error) {
	t.Helper()
	cfg := Config{
		App: "orders", Secret: "s3cret", Servers: []string{s.URL()}, Name: "test", Slots: 4,
		FlushInterval: 5 * time.Millisecond, WorkDir: t.TempDir(),
		Logger: slog.New(slog.DiscardHandler),
	}
	if testing.Verbose() {
		cfg.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if edit != nil {
		edit(&cfg)
	}
	w := New(cfg)
	w.backoffMin, w.backoffMax = 2*time.Millisecond, 20*time.Millisecond
	if register != nil {
		register(w)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	returned := make(chan struct{})
	go func() {
		done <- w.Run(ctx)
		close(returned)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-returned:
		case <-time.After(failsafe):
			t.Error("Run did not return after cancel")
		}
	})
	return w, cancel, done
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// eventually polls cond: for states no message announces.
