package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// The connection loop. One session at a time: discover the owner of the
// app (or take the server a redirect named), dial, hello → welcome, then
// serve with one reader and one writer goroutine until the connection
// ends. The outbox and the running tasks outlive sessions; at the end of
// each, unacknowledged messages are queued again for the next.
//
// Retry policy: a refused secret ends Run; NOT_OWNER and redirect go to
// the new owner at once (twice; then back-off, in case servers disagree);
// anything else waits a full-jitter exponential back-off (backoffMin
// doubling up to backoffMax), reset by every successful welcome.

// serverError is an error frame from the server.
type serverError struct{ code, msg string }

func (e *serverError) Error() string { return "server error " + e.code + ": " + e.msg }

// redirectError ends a session whose app moved to another server.
type redirectError struct{ server, reason string }

func (e *redirectError) Error() string {
	if e.server == "" {
		return "redirected (" + orUnknown(e.reason) + "); discovering the app's server again"
	}
	return "redirected to " + e.server + " (" + orUnknown(e.reason) + ")"
}

// errMalformed ends a session whose server sent a frame we cannot use.
var errMalformed = errors.New("malformed frame from the server")

// rehome reports whether err means the app lives elsewhere now.
func rehome(err error) bool {
	var se *serverError
	var re *redirectError
	return errors.As(err, &re) || (errors.As(err, &se) && se.code == protocol.CodeNotOwner)
}

// connectLoop runs sessions until ctx is done (nil) or the server refuses
// the secret (an ErrAuth error).
func (w *Worker) connectLoop(ctx context.Context) error {
	fails := 0 // consecutive attempts that did not reach welcome
	for {
		established, err := w.connectOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, ErrAuth) {
			w.log.Error("stopping: the server refused the app secret", "error", err)
			return err
		}
		if established {
			fails = 0
		} else {
			fails++
		}
		delay := w.backoff(fails)
		if rehome(err) && fails <= 2 {
			delay = 0
		}
		msg := "connecting to the server failed; retrying"
		if established {
			msg = "disconnected from the server; reconnecting"
		}
		w.log.Warn(msg, "error", err, "in", delay.Round(time.Millisecond))
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
		}
	}
}

// backoff is a full-jitter delay after n consecutive failures.
func (w *Worker) backoff(n int) time.Duration {
	d := w.backoffMin
	for i := 0; i < n && d < w.backoffMax; i++ {
		d *= 2
	}
	d = min(d, w.backoffMax)
	return rand.N(d) + 1
}

// connectOnce runs one session; established says it got a welcome.
func (w *Worker) connectOnce(ctx context.Context) (established bool, err error) {
	w.mu.Lock()
	target := w.redirectTo
	w.redirectTo = ""
	w.mu.Unlock()
	if target == "" {
		if target, err = w.discover(ctx); err != nil {
			return false, err
		}
	}
	wsURL, err := connectURL(target)
	if err != nil {
		return false, err
	}
	dialer := websocket.Dialer{HandshakeTimeout: handshakeTimeout, Proxy: http.ProxyFromEnvironment}
	conn, resp, err := dialer.DialContext(ctx, wsURL, nil) //nolint:bodyclose // gorilla: a handshake response body needs no closing
	if err != nil {
		if resp != nil {
			err = fmt.Errorf("%w (HTTP %s)", err, resp.Status)
		}
		return false, fmt.Errorf("connecting to %s: %w", wsURL, err)
	}
	conn.SetReadLimit(protocol.MaxFrameBytes)
	s := &session{w: w, conn: conn, url: wsURL, ctrl: make(chan []byte, 64), done: make(chan struct{})}
	stop := context.AfterFunc(ctx, func() { s.end(nil, nil) })
	defer stop()

	welcome, err := s.handshake()
	if err != nil {
		conn.Close()
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, err
	}
	w.welcomed(welcome, wsURL)
	defer func() {
		w.setConnected(false)
		w.out.requeue()
	}()
	return true, s.serve(welcome)
}

// welcomed records what a welcome says.
func (w *Worker) welcomed(wl *protocol.Welcome, url string) {
	w.mu.Lock()
	if wl.Epoch < w.epoch {
		w.log.Warn("the server's epoch is older than one seen before; its dispatches will be rejected",
			"server", wl.ServerID, "epoch", wl.Epoch, "seen", w.epoch)
	}
	w.epoch = max(w.epoch, wl.Epoch)
	if len(wl.Servers) > 0 {
		w.learned = slices.Clone(wl.Servers)
	}
	w.connected = true
	if w.cfg.JobSet != "" {
		w.jobChanges = slices.Clone(wl.JobChanges)
	}
	w.mu.Unlock()
	w.log.Info("connected", "server", wl.ServerID, "url", url, "epoch", wl.Epoch)
	for _, c := range wl.JobChanges {
		if c.Action == protocol.JobRefused {
			// A job of that name that this set does not manage: the server
			// left it alone (and recorded the clash in the app's audit log).
			w.log.Warn("declared job refused", "set", w.cfg.JobSet, "job", c.Name, "reason", c.Error, "dryRun", w.cfg.JobsDryRun)
			continue
		}
		if c.Action != protocol.JobUnchanged || w.cfg.JobsDryRun {
			w.log.Info("declared job", "set", w.cfg.JobSet, "job", c.Name, "action", c.Action, "fields", c.Fields, "dryRun", w.cfg.JobsDryRun)
		}
	}
}

// JobChanges returns what the server did with the jobs declared in code
// (Config.Jobs) at the last connect, or in a dry run would do; nil before
// the first connect.
func (w *Worker) JobChanges() []protocol.JobChange {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.jobChanges)
}

func (w *Worker) setConnected(v bool) {
	w.mu.Lock()
	w.connected = v
	w.mu.Unlock()
}

func (w *Worker) isConnected() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.connected
}

// discover asks the known servers, in turn, which one owns the app.
func (w *Worker) discover(ctx context.Context) (string, error) {
	var errs []string
	for _, base := range w.serverList() {
		owner, err := w.discoverAt(ctx, base)
		if err == nil {
			return owner, nil
		}
		if errors.Is(err, ErrAuth) {
			return "", err
		}
		errs = append(errs, err.Error())
		if ctx.Err() != nil {
			break
		}
	}
	return "", fmt.Errorf("discovery failed: %s", strings.Join(errs, "; "))
}

// serverList is the configured servers then those learned from the
// servers, without duplicates, starting one further each call so a dead
// server does not always cost the first try.
func (w *Worker) serverList() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var list []string
	for _, s := range slices.Concat(w.cfg.Servers, w.learned) {
		s = strings.TrimRight(s, "/")
		if s != "" && !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	if len(list) > 0 {
		k := w.rotate % len(list)
		list = append(list[k:], list[:k]...)
		w.rotate++
	}
	return list
}

func (w *Worker) discoverAt(ctx context.Context, base string) (string, error) {
	u := base + protocol.DiscoverPath + "?app=" + url.QueryEscape(w.cfg.App)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", u, err)
	}
	// Discovery answers only those who know the app's secret.
	req.Header.Set("Authorization", "Bearer "+w.cfg.Secret)
	resp, err := w.cfg.HTTPClient.Do(req)
	if err != nil {
		return "", err // already says GET and the URL
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", fmt.Errorf("GET %s: reading the answer: %w", u, err)
	}
	if resp.StatusCode == http.StatusForbidden {
		return "", fmt.Errorf("%w: GET %s: the server refused the app secret for app %q: %s", ErrAuth, u, w.cfg.App,
			protocol.Truncate(strings.TrimSpace(string(body)), 300))
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s: %s", u, resp.Status, protocol.Truncate(strings.TrimSpace(string(body)), 300))
	}
	var d protocol.DiscoverResponse
	if err := json.Unmarshal(body, &d); err != nil {
		return "", fmt.Errorf("GET %s: bad answer: %w", u, err)
	}
	if d.Server == "" {
		return "", fmt.Errorf("GET %s: no server owns app %q yet", u, w.cfg.App)
	}
	if len(d.Servers) > 0 {
		w.mu.Lock()
		w.learned = slices.Clone(d.Servers)
		w.mu.Unlock()
	}
	return d.Server, nil
}

// connectURL turns a server's base URL into its websocket endpoint.
func connectURL(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("server URL %q: %w", base, err)
	}
	switch u.Scheme {
	case "http", "ws":
		u.Scheme = "ws"
	case "https", "wss":
		u.Scheme = "wss"
	default:
		return "", fmt.Errorf("server URL %q: scheme must be http or https", base)
	}
	u.Path = strings.TrimRight(u.Path, "/") + protocol.ConnectPath
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

// session is one websocket connection.
type session struct {
	w    *Worker
	conn *websocket.Conn
	url  string
	ids  atomic.Int64 // frame ids, per connection
	ctrl chan []byte  // frames for the writer: acks, heartbeats

	endOnce sync.Once
	done    chan struct{} // closed by end
	err     error         // why it ended; nil for a shutdown
	final   []byte        // an error frame to send before closing
}

func (s *session) nextID() int64 { return s.ids.Add(1) }

// end ends the session once: the writer says goodbye (final first, if
// any) and closes the connection, which stops the reader.
func (s *session) end(err error, final []byte) {
	s.endOnce.Do(func() {
		s.err, s.final = err, final
		close(s.done)
	})
}

// handshake sends hello and reads the answer.
func (s *session) handshake() (*protocol.Welcome, error) {
	b, err := protocol.Encode(s.nextID(), 0, protocol.TypeHello, s.w.hello())
	if err != nil {
		return nil, err
	}
	// Close the connection if the session ends (shutdown) mid-handshake.
	handshaking := make(chan struct{})
	defer close(handshaking)
	go func() {
		select {
		case <-s.done:
			s.conn.Close()
		case <-handshaking:
		}
	}()
	deadline := time.Now().Add(handshakeTimeout)
	_ = s.conn.SetWriteDeadline(deadline)
	if err := s.conn.WriteMessage(websocket.TextMessage, b); err != nil {
		return nil, fmt.Errorf("sending hello to %s: %w", s.url, err)
	}
	_ = s.conn.SetReadDeadline(deadline)
	_, data, err := s.conn.ReadMessage()
	if err != nil {
		return nil, fmt.Errorf("waiting for welcome from %s: %w", s.url, err)
	}
	_, body, err := protocol.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w: answer to hello: %w", errMalformed, err)
	}
	switch b := body.(type) {
	case *protocol.Welcome:
		return b, nil
	case *protocol.Error:
		return nil, s.w.serverErr(b)
	case *protocol.Redirect:
		s.w.redirect(b)
		return nil, &redirectError{server: b.Server, reason: b.Reason}
	}
	return nil, fmt.Errorf("%w: expected welcome, got %s", errMalformed, typeOf(data))
}

// serverErr turns an error frame into an error; AUTH wraps ErrAuth.
func (w *Worker) serverErr(e *protocol.Error) error {
	if e.Code == protocol.CodeAuth {
		return fmt.Errorf("%w: the server refused the app secret for app %q: %s", ErrAuth, w.cfg.App, orUnknown(e.Message))
	}
	return &serverError{code: e.Code, msg: e.Message}
}

// redirect remembers where the next connection goes.
func (w *Worker) redirect(r *protocol.Redirect) {
	w.mu.Lock()
	w.redirectTo = r.Server
	w.mu.Unlock()
}

// serve runs the reader and writer until the session ends.
func (s *session) serve(wl *protocol.Welcome) error {
	hb := time.Duration(wl.HeartbeatMs) * time.Millisecond
	if hb <= 0 {
		hb = defaultHeartbeat
	}
	hb = max(hb, minHeartbeat) // a sanity bound on what the server asks
	// The server answers pings; silence for this long means it is gone.
	readTimeout := hb * (protocol.LostAfterBeats + 1)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.reader(readTimeout) }()
	go func() { defer wg.Done(); s.writer(hb) }()
	s.w.out.poke() // send what waited for this connection
	<-s.done
	// The writer closes the connection after its goodbye; if it is stuck
	// in a write to a server that stopped reading, do not wait for the
	// write timeout.
	force := time.AfterFunc(2*time.Second, func() { s.conn.Close() })
	wg.Wait()
	force.Stop()
	return s.err
}

// send hands a frame to the writer, unless the session is over.
func (s *session) send(b []byte) {
	select {
	case s.ctrl <- b:
	case <-s.done:
	}
}

// reader reads and handles the server's frames.
func (s *session) reader(readTimeout time.Duration) {
	w := s.w
	extend := func() { _ = s.conn.SetReadDeadline(time.Now().Add(readTimeout)) }
	extend()
	s.conn.SetPongHandler(func(string) error { extend(); return nil })
	for {
		typ, data, err := s.conn.ReadMessage()
		if err != nil {
			s.end(fmt.Errorf("reading from %s: %w", s.url, err), nil)
			return
		}
		extend()
		if typ != websocket.TextMessage {
			s.malformed(fmt.Errorf("%w: a binary frame", protocol.ErrBadFrame))
			return
		}
		f, body, err := protocol.Decode(data)
		if err != nil {
			s.malformed(err)
			return
		}
		switch b := body.(type) {
		case *protocol.Ack:
			w.out.ack(f.Re, b)
		case *protocol.Dispatch:
			ack := w.accept(b)
			if len(ack.Rejected) > 0 {
				w.log.Warn("rejected dispatched tasks", "rejected", ack.Rejected)
			}
			s.reply(f.ID, ack)
		case *protocol.Stop:
			w.log.Info("stop", "instance", b.InstanceID, "tasks", b.TaskIDs, "reason", b.Reason)
			w.stop(b)
			s.reply(f.ID, &protocol.Ack{OK: true})
		case *protocol.Redirect:
			w.redirect(b)
			s.end(&redirectError{server: b.Server, reason: b.Reason}, nil)
			return
		case *protocol.Error:
			s.end(w.serverErr(b), nil)
			return
		default: // hello, welcome, heartbeat, report, logs, map: not the server's to send now
			err := fmt.Errorf("unexpected %s frame", f.Type)
			final, _ := protocol.Encode(0, 0, protocol.TypeError, &protocol.Error{Code: protocol.CodeProtocol, Message: err.Error()})
			w.log.Error("protocol error from the server; reconnecting", "error", err)
			s.end(fmt.Errorf("%w: %w", errMalformed, err), final)
			return
		}
	}
}

// malformed ends the session after a frame that cannot be decoded, telling
// the server why, as the protocol asks.
func (s *session) malformed(err error) {
	s.w.log.Error("malformed frame from the server; reconnecting", "error", err)
	final, _ := protocol.Encode(0, 0, protocol.TypeError, &protocol.Error{Code: protocol.CodeBadFrame, Message: err.Error()})
	s.end(fmt.Errorf("%w: %w", errMalformed, err), final)
}

// reply acks message id, if the server asked for a reply.
func (s *session) reply(id int64, ack *protocol.Ack) {
	if id <= 0 {
		return
	}
	b, err := protocol.Encode(0, id, protocol.TypeAck, ack)
	if err != nil {
		s.w.log.Error("cannot encode an ack", "error", err)
		return
	}
	s.send(b)
}

// writer is the only goroutine writing frames (gorilla allows one): acks,
// heartbeats with pings, and the outbox's batches, at every flush tick or
// when poked.
func (s *session) writer(hb time.Duration) {
	w := s.w
	heart := time.NewTicker(hb)
	defer heart.Stop()
	flush := time.NewTicker(w.cfg.FlushInterval)
	defer flush.Stop()
	for {
		var err error
		select {
		case <-s.done:
			s.goodbye()
			return
		case b := <-s.ctrl:
			err = s.write(b)
		case <-heart.C:
			err = s.heartbeat()
		case <-w.beat:
			err = s.heartbeat()
		case <-flush.C:
			err = s.flush()
		case <-w.out.wake:
			err = s.flush()
		}
		if err != nil {
			s.end(fmt.Errorf("writing to %s: %w", s.url, err), nil)
		}
	}
}

const writeTimeout = 10 * time.Second

func (s *session) write(b []byte) error {
	_ = s.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	return s.conn.WriteMessage(websocket.TextMessage, b)
}

func (s *session) heartbeat() error {
	hb := protocol.Heartbeat{Metrics: collectMetrics(s.w.cfg.WorkDir), Running: s.w.runningIDs(true), Draining: s.w.draining.Load()}
	b, err := protocol.Encode(0, 0, protocol.TypeHeartbeat, &hb)
	if err != nil {
		return err
	}
	if err := s.write(b); err != nil {
		return err
	}
	return s.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeTimeout))
}

// flush sends what the outbox has, as far as the in-flight window allows.
func (s *session) flush() error {
	for _, m := range s.w.out.take(s.nextID) {
		b, err := protocol.Encode(m.id, 0, m.typ, m.body())
		if err != nil {
			s.w.out.discard(m.id, err)
			continue
		}
		if err := s.write(b); err != nil {
			return err
		}
	}
	return nil
}

// goodbye sends the final error frame, if any, and a close frame, then
// closes the connection.
func (s *session) goodbye() {
	deadline := time.Now().Add(time.Second)
	if s.final != nil {
		_ = s.conn.SetWriteDeadline(deadline)
		_ = s.conn.WriteMessage(websocket.TextMessage, s.final)
	}
	code, text := websocket.CloseNormalClosure, "worker shutting down"
	if s.err != nil {
		code, text = websocket.CloseGoingAway, "reconnecting"
	}
	_ = s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), deadline)
	s.conn.Close()
}

// typeOf names a frame's type for errors.
func typeOf(data []byte) string {
	var f struct{ Type string }
	_ = json.Unmarshal(data, &f)
	return quote(f.Type)
}
