package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// The kit's server: two endpoints on loopback ("A" and "B", so a redirect
// has somewhere to go), each serving discovery and the worker websocket as
// a jobwheel server does. Everything the worker does — discovery requests,
// connections, frames, pongs, closes, its process ending — is recorded as
// an event in one ordered log that the checks read (recorder). Routine
// answers (welcome, acks) are given by the connection's reader at once,
// following the policy the running check has set, so the worker never
// waits on the checks.

// readLimit is far above protocol.MaxFrameBytes so that an oversized frame
// is recorded and reported rather than ending the connection.
const readLimit = 64 << 20

// extraField is added to every frame, body and task the kit sends: a
// worker must ignore fields it does not know (docs/protocol.md §15).
const extraField = "conformanceUnknownField"

type evKind int

const (
	evDiscover evKind = iota // a discovery request
	evOpen                   // a websocket opened
	evFrame                  // a message from the worker
	evPong                   // a pong from the worker
	evClosed                 // a connection ended
	evExit                   // the worker process ended
	evSent                   // a frame the kit sent (for ordering)
)

// event is one thing the worker did, or a frame the kit sent.
type event struct {
	idx  int
	at   time.Time
	kind evKind
	ep   string // endpoint: "A" or "B"
	conn *wconn

	// evDiscover
	app string
	// evFrame / evSent
	raw   []byte
	size  int
	frame protocol.Frame
	body  any   // decoded body (nil if it did not decode)
	err   error // decode error; for evClosed the reason
	// evPong
	payload string
	// evClosed
	closeCode int
	// evExit
	exitCode int
}

func (e *event) is(typ string) bool { return e.kind == evFrame && e.body != nil && e.frame.Type == typ }

func (e *event) hello() *protocol.Hello         { h, _ := e.body.(*protocol.Hello); return h }
func (e *event) heartbeat() *protocol.Heartbeat { h, _ := e.body.(*protocol.Heartbeat); return h }
func (e *event) report() *protocol.Report       { r, _ := e.body.(*protocol.Report); return r }
func (e *event) logs() *protocol.Logs           { l, _ := e.body.(*protocol.Logs); return l }
func (e *event) mapReq() *protocol.Map          { m, _ := e.body.(*protocol.Map); return m }
func (e *event) resultsReq() *protocol.Results  { r, _ := e.body.(*protocol.Results); return r }
func (e *event) ack() *protocol.Ack             { a, _ := e.body.(*protocol.Ack); return a }
func (e *event) errFrame() *protocol.Error      { x, _ := e.body.(*protocol.Error); return x }

// recorder is the ordered log of events. Checks remember a position
// (mark) and wait for an event after it.
type recorder struct {
	mu      sync.Mutex
	events  []*event
	changed chan struct{} // closed and replaced at each new event
	verbose func(e *event)
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) add(e *event) {
	r.mu.Lock()
	e.idx = len(r.events)
	if e.at.IsZero() {
		e.at = time.Now()
	}
	r.events = append(r.events, e)
	close(r.changed)
	r.changed = make(chan struct{})
	v := r.verbose
	r.mu.Unlock()
	if v != nil {
		v(e)
	}
}

// mark is the position the next event will have.
func (r *recorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// since returns the events from position from on.
func (r *recorder) since(from int) []*event {
	r.mu.Lock()
	defer r.mu.Unlock()
	if from >= len(r.events) {
		return nil
	}
	return slices.Clone(r.events[from:])
}

// wait returns the first event at or after from that matches, waiting up
// to d for it; nil if none came.
func (r *recorder) wait(ctx context.Context, from int, d time.Duration, match func(*event) bool) *event {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		// Events are only appended, so the slice read under the lock can be
		// walked without it (match may read the recorder itself).
		r.mu.Lock()
		events, ch := r.events, r.changed
		r.mu.Unlock()
		for ; from < len(events); from++ {
			if match(events[from]) {
				return events[from]
			}
		}
		select {
		case <-ch:
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// helloAction is how the server answers a hello.
type helloAction struct {
	code     string // an error code to answer with; "" for welcome
	message  string // the error's message; "" for the kit's own
	redirect bool   // answer with a redirect to server
	server   string
}

// server plays the jobwheel server.
type server struct {
	app, secret string
	heartbeatMs int
	rec         *recorder
	epoch       atomic.Int64

	eps [2]*endpoint // A and B

	mu        sync.Mutex
	plan      []helloAction // answers for the next hellos; welcome when empty
	planOther bool          // the redirects in plan name the other endpoint of the hello's
	fail503   int           // discovery requests still to answer 503
	hold      map[string]bool
	holdConn  *wconn // holding applies to this connection only
	held      []heldMsg
	refuse    func(*event) bool // answer these report, logs and map messages ok: false
	pages     pagePlan          // how results requests are answered
	current   *wconn            // the newest welcomed connection
	conns     map[*wconn]bool
	violation []string // breaches of the framing rules, as they happen
	// declared are the jobs declared in code so far, by set and name, as
	// a server keeps them (the disabled ones left out), for jobChanges.
	declared map[string]map[string]protocol.DeclaredJob
	nextConn int
}

// pagePlan is what the kit answers to results requests (docs/protocol.md
// §11.1): pages of results for one task, except that the requests on
// holdConn from holdAfter on are left unanswered (a read cut off by a lost
// connection).
type pagePlan struct {
	task      int64
	results   []protocol.TaskResult
	holdConn  *wconn
	holdAfter int64
}

// heldMsg is a report, logs or map message the kit has not acked yet.
type heldMsg struct {
	conn *wconn
	id   int64
	typ  string
}

type endpoint struct {
	name string
	url  string
	ln   net.Listener
	srv  *http.Server
}

// wconn is one worker connection.
type wconn struct {
	s   *server
	n   int
	ep  *endpoint
	ws  *websocket.Conn
	wmu sync.Mutex

	mu          sync.Mutex
	welcomed    bool
	hello       *protocol.Hello
	ids         int64          // the kit's frame ids on this connection
	sentIDs     map[int64]bool // ids the kit sent that want a reply
	outstanding map[int64]bool // the worker's ids awaiting the kit's ack
	closed      bool
}

func newServer(app, secret string, heartbeat time.Duration, rec *recorder) (*server, error) {
	s := &server{app: app, secret: secret, heartbeatMs: int(heartbeat / time.Millisecond), rec: rec,
		hold: map[string]bool{}, conns: map[*wconn]bool{},
		declared: map[string]map[string]protocol.DeclaredJob{}}
	s.epoch.Store(5)
	for i, name := range []string{"A", "B"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			s.close()
			return nil, fmt.Errorf("listening on loopback: %w", err)
		}
		ep := &endpoint{name: name, url: "http://" + ln.Addr().String(), ln: ln}
		mux := http.NewServeMux()
		mux.HandleFunc(protocol.DiscoverPath, func(w http.ResponseWriter, r *http.Request) { s.discover(ep, w, r) })
		mux.HandleFunc(protocol.ConnectPath, func(w http.ResponseWriter, r *http.Request) { s.connect(ep, w, r) })
		ep.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		s.eps[i] = ep
		go func() { _ = ep.srv.Serve(ln) }()
	}
	return s, nil
}

func (s *server) close() {
	for _, ep := range s.eps {
		if ep != nil {
			_ = ep.srv.Close()
		}
	}
	s.mu.Lock()
	conns := make([]*wconn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.drop()
	}
}

func (s *server) other(ep *endpoint) *endpoint {
	if ep == s.eps[0] {
		return s.eps[1]
	}
	return s.eps[0]
}

func (s *server) urls() []string { return []string{s.eps[0].url, s.eps[1].url} }

func (s *server) violate(format string, args ...any) {
	s.mu.Lock()
	s.violation = append(s.violation, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

func (s *server) violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.violation)
}

// setPlan sets how the next hellos are answered.
func (s *server) setPlan(other bool, actions ...helloAction) {
	s.mu.Lock()
	s.plan, s.planOther = actions, other
	s.mu.Unlock()
}

// setRefuse makes the kit answer ok: false to the report, logs and map
// messages refuse picks (called with the server's lock held); nil stops.
func (s *server) setRefuse(refuse func(*event) bool) {
	s.mu.Lock()
	s.refuse = refuse
	s.mu.Unlock()
}

// setPages sets how results requests are answered.
func (s *server) setPages(p pagePlan) {
	s.mu.Lock()
	s.pages = p
	s.mu.Unlock()
}

func (s *server) setFail503(n int) {
	s.mu.Lock()
	s.fail503 = n
	s.mu.Unlock()
}

// setHold makes the kit keep, unacknowledged, the messages of the given
// types (report, logs, map) that arrive on connection c, until release or
// forget. Other connections are answered as usual, so a worker that
// reconnects meanwhile is not held.
func (s *server) setHold(c *wconn, types ...string) {
	s.mu.Lock()
	s.hold, s.holdConn = map[string]bool{}, c
	for _, t := range types {
		s.hold[t] = true
	}
	s.mu.Unlock()
}

// release stops holding and acknowledges what was held on connections
// still open, newest first (acks may come in any order).
func (s *server) release() {
	s.mu.Lock()
	held := s.held
	s.held, s.hold, s.holdConn = nil, map[string]bool{}, nil
	s.mu.Unlock()
	for i := len(held) - 1; i >= 0; i-- {
		h := held[i]
		h.conn.ack(h.id, &protocol.Ack{OK: true})
	}
}

// forget stops holding and drops what was held without acknowledging it
// (its connection is being dropped: the ack is lost).
func (s *server) forget() {
	s.mu.Lock()
	s.held, s.hold, s.holdConn = nil, map[string]bool{}, nil
	s.mu.Unlock()
}

func (s *server) currentConn() *wconn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current == nil || s.current.isClosed() {
		return nil
	}
	return s.current
}

func (s *server) discover(ep *endpoint, w http.ResponseWriter, r *http.Request) {
	app := r.URL.Query().Get("app")
	s.rec.add(&event{kind: evDiscover, ep: ep.name, app: app})
	w.Header().Set("Content-Type", "application/json")
	s.mu.Lock()
	fail := s.fail503 > 0
	if fail {
		s.fail503--
	}
	s.mu.Unlock()
	switch {
	case app == "":
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "query parameter app is required"})
	case app != s.app:
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": fmt.Sprintf("no app named %q", app)})
	case fail:
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "no server owns the app right now; try again"})
	default:
		_ = json.NewEncoder(w).Encode(map[string]any{"server": s.eps[0].url, "servers": s.urls(), extraField: true})
	}
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func (s *server) connect(ep *endpoint, w http.ResponseWriter, r *http.Request) {
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	ws.SetReadLimit(readLimit)
	s.mu.Lock()
	s.nextConn++
	c := &wconn{s: s, n: s.nextConn, ep: ep, ws: ws, sentIDs: map[int64]bool{}, outstanding: map[int64]bool{}}
	s.conns[c] = true
	s.mu.Unlock()
	ws.SetPongHandler(func(p string) error {
		s.rec.add(&event{kind: evPong, ep: ep.name, conn: c, payload: p})
		return nil
	})
	s.rec.add(&event{kind: evOpen, ep: ep.name, conn: c})
	c.read()
}

// read records the worker's frames and gives the routine answers.
func (c *wconn) read() {
	s := c.s
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	first := true
	for {
		typ, data, err := c.ws.ReadMessage()
		if err != nil {
			code := 0
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				code = ce.Code
			}
			c.mu.Lock()
			c.closed = true
			c.mu.Unlock()
			_ = c.ws.Close()
			s.rec.add(&event{kind: evClosed, ep: c.ep.name, conn: c, closeCode: code, err: err})
			return
		}
		e := &event{kind: evFrame, ep: c.ep.name, conn: c, raw: data, size: len(data)}
		if typ != websocket.TextMessage {
			e.err = errors.New("a binary frame; every message must be a text frame")
		} else if len(data) > protocol.MaxFrameBytes {
			e.err = fmt.Errorf("a %d-byte frame; at most %d", len(data), protocol.MaxFrameBytes)
		} else {
			e.frame, e.body, e.err = protocol.Decode(data)
			if e.err != nil {
				e.body = nil
			}
		}
		c.police(e, first)
		first = false
		s.rec.add(e)
		if e.body != nil {
			c.answer(e)
		}
	}
}

// police records breaches of the framing rules (docs/protocol.md §3, §4).
func (c *wconn) police(e *event, first bool) {
	s := c.s
	where := fmt.Sprintf("connection %d", c.n)
	if e.err != nil {
		s.violate("%s: bad frame: %v", where, e.err)
		return
	}
	f := e.frame
	c.mu.Lock()
	defer c.mu.Unlock()
	if first && f.Type != protocol.TypeHello {
		s.violate("%s: the first frame is %s, not hello", where, f.Type)
	}
	switch f.Type {
	case protocol.TypeHello:
		if !first {
			s.violate("%s: hello sent again on an open connection", where)
		}
		if f.ID <= 0 {
			s.violate("%s: hello without an id", where)
		}
	case protocol.TypeReport, protocol.TypeLogs, protocol.TypeMap, protocol.TypeResults:
		if f.Type == protocol.TypeResults && (c.hello == nil || !slices.Contains(c.hello.Features, protocol.FeaturePagedResults)) {
			s.violate("%s: a results request from a worker that did not name %s in its hello", where, protocol.FeaturePagedResults)
		}
		if f.ID <= 0 {
			s.violate("%s: a %s message without an id cannot be acknowledged", where, f.Type)
		} else if c.outstanding[f.ID] {
			s.violate("%s: id %d reused by a %s message while the kit's reply to it is outstanding", where, f.ID, f.Type)
		}
		c.outstanding[f.ID] = true
	case protocol.TypeHeartbeat, protocol.TypeError:
	case protocol.TypeAck:
		if !c.sentIDs[f.Re] {
			s.violate("%s: an ack with re %d, which answers no message the kit sent", where, f.Re)
		}
		delete(c.sentIDs, f.Re)
	default:
		s.violate("%s: a worker may not send %s", where, f.Type)
	}
}

// answer gives the routine answers: welcome (or the planned refusal) to
// hello, acks to report, logs and map unless held.
func (c *wconn) answer(e *event) {
	s := c.s
	switch b := e.body.(type) {
	case *protocol.Hello:
		s.mu.Lock()
		act := helloAction{}
		if len(s.plan) > 0 {
			act = s.plan[0]
			s.plan = s.plan[1:]
			if act.redirect && s.planOther {
				act.server = s.other(c.ep).url
			}
		}
		s.mu.Unlock()
		c.mu.Lock()
		c.hello = b
		c.mu.Unlock()
		switch {
		case act.redirect:
			c.closeWith(protocol.TypeRedirect, map[string]any{"server": act.server, "reason": "conformance kit: another server owns this app"})
		case act.code != "":
			msg := cmp.Or(act.message, "conformance kit: refused with "+act.code)
			c.closeWith(protocol.TypeError, map[string]any{"code": act.code, "message": msg})
		case b.Auth != s.secret:
			c.closeWith(protocol.TypeError, map[string]any{"code": protocol.CodeAuth, "message": "the app secret is wrong (conformance kit)"})
		default:
			c.mu.Lock()
			c.welcomed = true
			c.mu.Unlock()
			welcome := map[string]any{"serverId": "conformance-" + c.ep.name,
				"epoch": s.epoch.Load(), "servers": s.urls(), "heartbeatMs": s.heartbeatMs}
			if b.JobSet != "" {
				welcome["jobChanges"] = s.declare(b)
			}
			_ = c.send(0, e.frame.ID, protocol.TypeWelcome, welcome)
			s.mu.Lock()
			s.current = c
			s.mu.Unlock()
		}
	case *protocol.Report, *protocol.Logs, *protocol.Map:
		if e.frame.ID <= 0 {
			return
		}
		s.mu.Lock()
		refused := s.refuse != nil && s.refuse(e)
		held := !refused && s.hold[e.frame.Type] && s.holdConn == c
		if held {
			s.held = append(s.held, heldMsg{conn: c, id: e.frame.ID, typ: e.frame.Type})
		}
		s.mu.Unlock()
		switch {
		case refused:
			c.ack(e.frame.ID, &protocol.Ack{OK: false, Error: "conformance kit: refused for now; send it again"})
		case !held:
			c.ack(e.frame.ID, &protocol.Ack{OK: true})
		}
	case *protocol.Results:
		if e.frame.ID <= 0 {
			return
		}
		s.mu.Lock()
		p := s.pages
		s.mu.Unlock()
		if p.holdConn == c && b.After >= p.holdAfter {
			return
		}
		if b.Limit < 1 || b.Limit > protocol.MaxBatch {
			s.violate("connection %d: a results request for %d results; the limit is 1 to %d", c.n, b.Limit, protocol.MaxBatch)
			c.ack(e.frame.ID, &protocol.Ack{OK: false, Code: protocol.CodeBadFrame, Error: "conformance kit: limit out of bounds"})
			return
		}
		if b.TaskID != p.task || p.task == 0 {
			c.ack(e.frame.ID, &protocol.Ack{OK: false, Code: protocol.CodeRefused,
				Error: fmt.Sprintf("conformance kit: task %d was not dispatched with resultsPaged", b.TaskID)})
			return
		}
		i, _ := slices.BinarySearchFunc(p.results, b.After, func(r protocol.TaskResult, after int64) int {
			return cmp.Compare(r.TaskID, after+1)
		})
		page := p.results[i:min(i+b.Limit, len(p.results))]
		c.ack(e.frame.ID, &protocol.Ack{OK: true, Results: page, More: i+len(page) < len(p.results)})
	}
}

// ack answers the worker's message id.
func (c *wconn) ack(id int64, a *protocol.Ack) {
	c.mu.Lock()
	delete(c.outstanding, id)
	c.mu.Unlock()
	_ = c.send(0, id, protocol.TypeAck, a)
}

// send writes a frame with the kit's unknown fields added to the frame and
// its body. wantReply gives it the next id.
func (c *wconn) send(id, re int64, typ string, body any) error {
	raw, err := withExtra(body)
	if err != nil {
		return err
	}
	frame := map[string]any{"type": typ, "body": raw, extraField: 1}
	if id > 0 {
		frame["id"] = id
	}
	if re > 0 {
		frame["re"] = re
	}
	data, err := json.Marshal(frame)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", typ, err)
	}
	return c.write(websocket.TextMessage, data)
}

// request sends a frame that wants a reply and returns its id.
func (c *wconn) request(typ string, body any) (int64, error) {
	c.mu.Lock()
	c.ids++
	id := c.ids
	c.sentIDs[id] = true
	c.mu.Unlock()
	return id, c.send(id, 0, typ, body)
}

func (c *wconn) write(typ int, data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	// Recorded under the write lock: a check that sees this frame sent
	// and answers on the same connection (a stop right after the welcome)
	// writes after it. Recorded before the lock, the answer could win the
	// lock and reach the worker first ("expected welcome, got stop").
	if typ == websocket.TextMessage {
		c.s.rec.add(&event{kind: evSent, ep: c.ep.name, conn: c, raw: data, size: len(data)})
	}
	_ = c.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := c.ws.WriteMessage(typ, data); err != nil {
		return fmt.Errorf("writing to the worker: %w", err)
	}
	return nil
}

func (c *wconn) ping(payload string) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.ws.WriteControl(websocket.PingMessage, []byte(payload), time.Now().Add(10*time.Second))
}

// closeWith sends a last frame and a close frame, then closes, as the
// server does after error and redirect.
func (c *wconn) closeWith(typ string, body any) {
	_ = c.send(0, 0, typ, body)
	c.wmu.Lock()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(2*time.Second))
	c.wmu.Unlock()
	c.drop()
}

// drop closes the TCP connection without a word: a lost connection.
func (c *wconn) drop() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	_ = c.ws.NetConn().Close()
}

func (c *wconn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

func (c *wconn) helloOf() *protocol.Hello {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hello
}

// withExtra turns a body into a JSON object with the kit's unknown field.
func withExtra(body any) (json.RawMessage, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding a body: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("a body must be a JSON object: %w", err)
	}
	m[extraField] = map[string]any{"ignore": "me"}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding a body: %w", err)
	}
	return out, nil
}

// declare answers a hello's jobs declared in code as a server does
// (docs/protocol.md §5.1): CREATE, UPDATE with the changed fields,
// UNCHANGED, and DISABLE for the set's jobs no longer declared.
func (s *server) declare(h *protocol.Hello) []protocol.JobChange {
	s.mu.Lock()
	defer s.mu.Unlock()
	had := s.declared[h.JobSet]
	now := make(map[string]protocol.DeclaredJob, len(h.Jobs))
	changes := []protocol.JobChange{}
	for _, j := range h.Jobs {
		now[j.Name] = j
		old, ok := had[j.Name]
		switch fields := changedFields(old, j); {
		case !ok:
			changes = append(changes, protocol.JobChange{Name: j.Name, Action: protocol.JobCreate})
		case len(fields) > 0:
			changes = append(changes, protocol.JobChange{Name: j.Name, Action: protocol.JobUpdate, Fields: fields})
		default:
			changes = append(changes, protocol.JobChange{Name: j.Name, Action: protocol.JobUnchanged})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(had)) {
		if _, ok := now[name]; !ok {
			changes = append(changes, protocol.JobChange{Name: name, Action: protocol.JobDisable})
		}
	}
	if !h.JobsDryRun {
		s.declared[h.JobSet] = now
	}
	return changes
}

// changedFields lists the wire fields in which two declarations differ.
func changedFields(a, b protocol.DeclaredJob) []string {
	var ma, mb map[string]any
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	_ = json.Unmarshal(ra, &ma)
	_ = json.Unmarshal(rb, &mb)
	var out []string
	for k := range mb {
		if !reflect.DeepEqual(ma[k], mb[k]) {
			out = append(out, k)
		}
	}
	for k := range ma {
		if _, ok := mb[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
