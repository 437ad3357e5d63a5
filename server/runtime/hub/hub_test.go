package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/server/api/apps"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// owner says this server (s1) owns every app.
type owner struct{}

func (owner) Owner(context.Context, int64) (string, error)      { return "s1", nil }
func (directory) URLOf(context.Context, string) (string, error) { return "http://s1", nil }
func (directory) AliveURLs(context.Context) ([]string, error)   { return []string{"http://s1"}, nil }
func (directory) ID() string                                    { return "s1" }

type directory struct{}

// handler records what the hub routes to the execution side.
type handler struct {
	mu      sync.Mutex
	joined  chan WorkerInfo
	left    chan string
	reports chan *protocol.Report
	logs    chan *protocol.Logs
	// reportErr is what Report's done is given.
	reportErr error
}

func newHandler() *handler {
	return &handler{joined: make(chan WorkerInfo, 10), left: make(chan string, 10), reports: make(chan *protocol.Report, 10), logs: make(chan *protocol.Logs, 10)}
}

func (h *handler) WorkerJoined(w WorkerInfo)                       { h.joined <- w }
func (h *handler) WorkerLeft(id string)                            { h.left <- id }
func (h *handler) WorkerHeartbeat(string, *protocol.Heartbeat)     {}
func (h *handler) Map(_ string, _ *protocol.Map, done func(error)) { done(nil) }
func (h *handler) Results(_ string, _ *protocol.Results, done func([]protocol.TaskResult, bool, error)) {
	done(nil, false, nil)
}
func (h *handler) Report(_ string, r *protocol.Report, done func(error)) {
	h.reports <- r
	h.mu.Lock()
	err := h.reportErr
	h.mu.Unlock()
	done(err)
}
func (h *handler) Logs(_ int64, _ string, l *protocol.Logs, done func(error)) {
	h.logs <- l
	done(nil)
}

// registries runs one app's registry, as package owned would.
type registries struct {
	mu  sync.Mutex
	reg *Registry
}

func (r *registries) Registry(int64) (*Registry, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reg, r.reg != nil
}

type bundle struct {
	hub    *Hub
	reg    *Registry
	h      *handler
	url    string
	secret string
	d      *db.DB
	app    int64
}

func setup(t *testing.T) *bundle {
	t.Helper()
	return setupWith(t, func(d *db.DB) Store { return d })
}

// setupWith is setup with the hub's Store made from the database by store.
func setupWith(t *testing.T, store func(*db.DB) Store) *bundle {
	t.Helper()
	d := dbtest.Open(t, db.SQLite)
	log := slog.New(slog.DiscardHandler)
	authSvc := auth.New(auth.Config{}, d, log)
	appSvc := apps.New(d, authSvc, nil)
	secret := auth.NewSecret("jwa_")
	app, err := appSvc.CreateWithSecret(context.Background(), "orders", "", secret)
	if err != nil {
		t.Fatal(err)
	}
	h := newHandler()
	reg := NewRegistry(app.ID, 7, h)
	if err := reg.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	hb := New(Config{Heartbeat: time.Second}, Deps{Apps: appSvc, Owner: owner{}, Registries: &registries{reg: reg},
		Directory: directory{}, Store: store(d), Logs: h, Log: log})
	if err := hb.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+protocol.ConnectPath, hb.ServeConnect)
	mux.HandleFunc("GET "+protocol.DiscoverPath, hb.ServeDiscover)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		reg.Stop()
		hb.Stop()
		srv.Close()
	})
	return &bundle{hub: hb, reg: reg, h: h, url: srv.URL, secret: secret, d: d, app: app.ID}
}

func (b *bundle) dial(t *testing.T) *websocket.Conn {
	t.Helper()
	c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(b.url, "http")+protocol.ConnectPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func send(t *testing.T, c *websocket.Conn, id int64, typ string, body any) {
	t.Helper()
	b, err := protocol.Encode(id, 0, typ, body)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteMessage(websocket.TextMessage, b); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, c *websocket.Conn) (protocol.Frame, any) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, data, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("reading a frame: %v", err)
	}
	f, body, err := protocol.Decode(data)
	if err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return f, body
}

// closed waits for the server to close the connection.
func closed(t *testing.T, c *websocket.Conn) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
				t.Fatal("the connection was not closed")
			}
			return
		}
	}
}

func hello(secret string) *protocol.Hello {
	return &protocol.Hello{App: "orders", WorkerID: "w-1", Host: "h", Slots: 4, Auth: secret, Types: []string{"SHELL"}, Running: []int64{42}}
}

func TestWelcomeRoutingAndAcks(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.dial(t)
	send(t, c, 1, protocol.TypeHello, hello(b.secret))
	f, body := read(t, c)
	w, ok := body.(*protocol.Welcome)
	if !ok || f.Re != 1 || w.Epoch != 7 || w.ServerID != "s1" || len(w.Servers) != 1 {
		t.Fatalf("welcome = %+v %+v", f, body)
	}
	info := <-b.h.joined
	if info.ID != "w-1" || info.Slots != 4 || len(info.Running) != 1 || info.Running[0] != 42 {
		t.Fatalf("joined = %+v", info)
	}
	if ws := b.reg.Workers(); len(ws) != 1 {
		t.Fatalf("registry = %+v", ws)
	}

	// Reports and logs are routed and acked once handled.
	send(t, c, 2, protocol.TypeReport, &protocol.Report{Items: []protocol.TaskReport{{TaskID: 1, Status: protocol.TaskSucceeded}}})
	if r := <-b.h.reports; r.Items[0].TaskID != 1 {
		t.Fatalf("report = %+v", r)
	}
	if f, body := read(t, c); f.Re != 2 || !body.(*protocol.Ack).OK {
		t.Fatalf("report ack = %+v %+v", f, body)
	}
	send(t, c, 3, protocol.TypeLogs, &protocol.Logs{Lines: []protocol.LogLine{{InstanceID: 1, Seq: 1, Text: "x", Level: "INFO", Time: time.Now()}}})
	<-b.h.logs
	if f, _ := read(t, c); f.Re != 3 {
		t.Fatalf("logs ack = %+v", f)
	}

	// A dispatch gets the worker's ack back.
	acked := make(chan *protocol.Ack, 1)
	if err := b.reg.Send("w-1", protocol.TypeDispatch, &protocol.Dispatch{Epoch: 7}, func(a *protocol.Ack, err error) {
		if err != nil {
			t.Errorf("dispatch: %v", err)
		}
		acked <- a
	}); err != nil {
		t.Fatal(err)
	}
	f, _ = read(t, c)
	if f.Type != protocol.TypeDispatch {
		t.Fatalf("got %s, want dispatch", f.Type)
	}
	b2, _ := protocol.Encode(0, f.ID, protocol.TypeAck, &protocol.Ack{OK: true, Accepted: []int64{9}})
	_ = c.WriteMessage(websocket.TextMessage, b2)
	if a := <-acked; a == nil || a.Accepted[0] != 9 {
		t.Fatalf("dispatch ack = %+v", a)
	}

	// Stopping the app's registry (the lease was lost) redirects the
	// worker and forgets it.
	b.reg.Stop()
	f, body = read(t, c)
	if f.Type != protocol.TypeRedirect {
		t.Fatalf("got %s %+v, want redirect", f.Type, body)
	}
	if id := <-b.h.left; id != "w-1" {
		t.Fatalf("left = %s", id)
	}
}

// A worker's busy slots, as the dashboard and the metrics show them, are
// the tasks its hello and then each heartbeat list: in the registry at
// once, in the workers table with the heartbeats recorded.
func TestBusySlotsFromHeartbeats(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.dial(t)
	send(t, c, 1, protocol.TypeHello, hello(b.secret))
	read(t, c)
	<-b.h.joined
	if ws := b.reg.Workers(); len(ws) != 1 || ws[0].Busy != 1 {
		t.Fatalf("after hello listing one task: %+v", ws)
	}
	send(t, c, 0, protocol.TypeHeartbeat, &protocol.Heartbeat{Running: []int64{42, 43, 44}})
	testkit.Eventually(t, "the registry counts the heartbeat's 3 tasks", func() bool {
		ws := b.reg.Workers()
		return len(ws) == 1 && ws[0].Busy == 3
	})
	testkit.Eventually(t, "the recorded worker holds 3 tasks", func() bool {
		w, err := b.d.WorkerGet(context.Background(), b.app, "w-1")
		return err == nil && w.Metrics.Running == 3
	})
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cases := map[string]struct {
		frame    func(c *websocket.Conn)
		wantCode string
		wantText string
	}{
		"wrong secret": {func(c *websocket.Conn) { send(t, c, 1, protocol.TypeHello, hello("jwa_wrong")) }, protocol.CodeAuth, "secret"},
		"not hello first": {func(c *websocket.Conn) {
			send(t, c, 1, protocol.TypeHeartbeat, &protocol.Heartbeat{})
		}, protocol.CodeProtocol, "hello"},
		"malformed": {func(c *websocket.Conn) { _ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":`)) }, protocol.CodeBadFrame, "JSON"},
		"binary":    {func(c *websocket.Conn) { _ = c.WriteMessage(websocket.BinaryMessage, []byte{1, 2}) }, protocol.CodeBadFrame, "text"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := b.dial(t)
			tc.frame(c)
			f, body := read(t, c)
			e, ok := body.(*protocol.Error)
			if !ok || e.Code != tc.wantCode || !strings.Contains(e.Message, tc.wantText) {
				t.Fatalf("got %s %+v; want error %s mentioning %q", f.Type, body, tc.wantCode, tc.wantText)
			}
			closed(t, c)
		})
	}
	// An oversized frame is cut off by the websocket layer itself, which
	// closes with 1009 (message too big).
	big := b.dial(t)
	_ = big.WriteMessage(websocket.TextMessage, []byte(`{"type":"hello","body":"`+strings.Repeat("x", protocol.MaxFrameBytes+10)+`"}`))
	_ = big.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, _, err := big.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
		t.Fatalf("oversized frame: %v; want close 1009", err)
	}

	// A bad connection harms no other: a good worker still connects.
	c := b.dial(t)
	send(t, c, 1, protocol.TypeHello, hello(b.secret))
	if f, _ := read(t, c); f.Type != protocol.TypeWelcome {
		t.Fatalf("good worker after bad ones got %s", f.Type)
	}
	// A worker after hello may not send welcome.
	send(t, c, 2, protocol.TypeWelcome, &protocol.Welcome{})
	if _, body := read(t, c); body.(*protocol.Error).Code != protocol.CodeProtocol {
		t.Fatalf("unexpected frame was not refused: %+v", body)
	}
}

// TestDiscover: discovery names the owner to a caller with the app's
// secret, and tells anyone else nothing, not even whether the app exists
// (issue 11, item 12).
func TestDiscover(t *testing.T) {
	t.Parallel()
	b := setup(t)
	get := func(app, secret string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, b.url+protocol.DiscoverPath+"?app="+app, nil)
		if secret != "" {
			req.Header.Set("Authorization", "bearer "+secret)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	status, body := get("orders", b.secret)
	var d protocol.DiscoverResponse
	_ = json.Unmarshal([]byte(body), &d)
	if status != 200 || d.Server != "http://s1" {
		t.Fatalf("discover = %d %s", status, body)
	}
	refusedStatus, refused := get("orders", "jwa_wrong")
	for _, tc := range []struct{ app, secret string }{{"orders", ""}, {"nope", ""}, {"nope", b.secret}} {
		if status, body := get(tc.app, tc.secret); status != refusedStatus || body != refused || status != http.StatusForbidden {
			t.Fatalf("discover %q with secret %q = %d %s; want the same 403 as a wrong secret (%d %s)", tc.app, tc.secret, status, body, refusedStatus, refused)
		}
	}
}

// TestFrameFieldsChecked (issue 11, items 2 and 9): a hello whose fields
// cannot be stored (a 300-byte host) is refused with BAD_FRAME naming the
// field; a logs or report message with a bad field is refused by its ack,
// BAD_FRAME, and the connection goes on.
func TestFrameFieldsChecked(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.dial(t)
	h := hello(b.secret)
	h.Host = strings.Repeat("h", 300)
	send(t, c, 1, protocol.TypeHello, h)
	if _, body := read(t, c); body.(*protocol.Error).Code != protocol.CodeBadFrame || !strings.Contains(body.(*protocol.Error).Message, "host") {
		t.Fatalf("long host: %+v", body)
	}
	closed(t, c)

	c = b.dial(t)
	send(t, c, 1, protocol.TypeHello, hello(b.secret))
	if f, _ := read(t, c); f.Type != protocol.TypeWelcome {
		t.Fatalf("got %s, want welcome", f.Type)
	}
	<-b.h.joined
	year0 := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	send(t, c, 2, protocol.TypeLogs, &protocol.Logs{Lines: []protocol.LogLine{{InstanceID: 1, Seq: 1, Level: "INFO", Time: year0, Text: "x"}}})
	if f, body := read(t, c); f.Re != 2 || body.(*protocol.Ack).OK || body.(*protocol.Ack).Code != protocol.CodeBadFrame ||
		!strings.Contains(body.(*protocol.Ack).Error, "lines[0].time") {
		t.Fatalf("logs with year 0: %+v %+v", f, body)
	}
	send(t, c, 3, protocol.TypeLogs, &protocol.Logs{Lines: []protocol.LogLine{{InstanceID: 1, Seq: -1, Level: "INFO", Time: time.Now()}}})
	if _, body := read(t, c); body.(*protocol.Ack).Code != protocol.CodeBadFrame || !strings.Contains(body.(*protocol.Ack).Error, "seq") {
		t.Fatalf("logs with seq -1: %+v", body)
	}
	select {
	case l := <-b.h.logs:
		t.Fatalf("refused lines reached the log sink: %+v", l)
	default:
	}
	send(t, c, 4, protocol.TypeReport, &protocol.Report{Items: []protocol.TaskReport{{TaskID: 1, Status: "DONE"}}})
	if _, body := read(t, c); body.(*protocol.Ack).Code != protocol.CodeBadFrame {
		t.Fatalf("report with a bad status: %+v", body)
	}
	// Still connected: a good report goes through.
	send(t, c, 5, protocol.TypeReport, &protocol.Report{Items: []protocol.TaskReport{{TaskID: 1, Status: protocol.TaskSucceeded}}})
	<-b.h.reports
	if f, body := read(t, c); f.Re != 5 || !body.(*protocol.Ack).OK {
		t.Fatalf("good report after refused ones: %+v %+v", f, body)
	}
}

// failingUpsert is a Store that cannot record workers.
type failingUpsert struct{ Store }

func (failingUpsert) WorkerUpsert(context.Context, *db.Worker) error {
	return errors.New(`ERROR: value too long for type character varying(255) (SQLSTATE 22001)`)
}

// TestUnrecordedWorkerRefused (issue 11, item 9): a worker whose record
// the server cannot store (so the API could not list it) is refused with
// a coded error, without the database's words, rather than run unlisted.
func TestUnrecordedWorkerRefused(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(d *db.DB) Store { return failingUpsert{d} })
	c := b.dial(t)
	send(t, c, 1, protocol.TypeHello, hello(b.secret))
	var refusal *protocol.Error
	for refusal == nil {
		f, body := read(t, c)
		switch f.Type {
		case protocol.TypeWelcome: // the handshake passed; recording it comes next
		case protocol.TypeError:
			refusal = body.(*protocol.Error)
		default:
			t.Fatalf("got a %s frame, want the refusal", f.Type)
		}
	}
	if refusal.Code != protocol.CodeInternal || !strings.Contains(refusal.Message, "could not record this worker") ||
		strings.Contains(refusal.Message, "SQLSTATE") {
		t.Fatalf("refusal %+v", refusal)
	}
	closed(t, c)
	select {
	case w := <-b.h.joined:
		t.Fatalf("the unrecorded worker was given work: %+v", w)
	default:
	}
	if ws := b.reg.Workers(); len(ws) != 0 {
		t.Fatalf("the registry kept the unrecorded worker: %+v", ws)
	}
}

// TestAcksHideInternals (issue 11, item 2): a failure inside the server
// reaches the worker as INTERNAL with a reference, never the error's text;
// refusals meant for the worker keep their message.
func TestAcksHideInternals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.dial(t)
	send(t, c, 1, protocol.TypeHello, hello(b.secret))
	read(t, c)
	<-b.h.joined
	for i, tc := range []struct {
		err      error
		code     string
		contains string
		hidden   string
	}{
		{fmt.Errorf("writing a batch: %w", errors.New(`ERROR: invalid byte sequence for encoding "UTF8": 0x00 (SQLSTATE 22021)`)), protocol.CodeInternal, "reference", "SQLSTATE"},
		{&protocol.Error{Code: protocol.CodeRefused, Message: "not yours"}, protocol.CodeRefused, "not yours", ""},
		{errors.New("this server does not own the app now; reconnect"), protocol.CodeInternal, "does not own", ""},
	} {
		b.h.mu.Lock()
		b.h.reportErr = tc.err
		b.h.mu.Unlock()
		id := int64(10 + i)
		send(t, c, id, protocol.TypeReport, &protocol.Report{Items: []protocol.TaskReport{{TaskID: 1, Status: protocol.TaskSucceeded}}})
		<-b.h.reports
		f, body := read(t, c)
		a := body.(*protocol.Ack)
		if f.Re != id || a.OK || a.Code != tc.code || !strings.Contains(a.Error, tc.contains) || (tc.hidden != "" && strings.Contains(a.Error, tc.hidden)) {
			t.Fatalf("ack for %v: %+v", tc.err, a)
		}
	}
}
