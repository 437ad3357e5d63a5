package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	coderws "github.com/coder/websocket"

	"github.com/jobwheel/jobwheel/server/platform/live"
)

// Close codes this server gives API websockets (graphql-transport-ws
// reserves 4400-4499; 4403 is "Forbidden", which clients such as
// graphql-ws do not retry).
const (
	closeUnauthenticated = 4403
	closeInternal        = 1011
	// closeSlowConsumer: the client did not keep up (1008, policy
	// violation); it may connect again.
	closeSlowConsumer = 1008
	// closeTryAgainLater: a bound of the server (the sockets one user may
	// have open) refused the socket for now (1013).
	closeTryAgainLater = 1013
)

// wsAccept accepts API websockets as wsConns.
type wsAccept struct {
	opts         coderws.AcceptOptions
	writeTimeout time.Duration
}

func (a wsAccept) Accept(w http.ResponseWriter, r *http.Request, o transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	for k, vs := range o.ResponseHeader {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	opts := a.opts
	opts.Subprotocols = slices.Clone(opts.Subprotocols)
	for _, p := range o.Subprotocols {
		if !slices.Contains(opts.Subprotocols, p) {
			opts.Subprotocols = append(opts.Subprotocols, p)
		}
	}
	c, err := coderws.Accept(w, r, &opts)
	if err != nil {
		return nil, err
	}
	conn := &wsConn{c: c, writeTimeout: a.writeTimeout, active: map[string]bool{}}
	if s := socketFrom(r.Context()); s != nil {
		s.conn = conn // connection_init's context is this request's
	}
	return conn, nil
}

// wsConn is one API websocket. Beyond carrying gqlgen's messages it:
//
//   - bounds each write by writeTimeout, so a client whose connection is
//     stuck cannot hold its writer (and every subscription on it) forever;
//   - treats a client that misses its pongs (gqlgen's read deadline) as a
//     slow consumer: each of its open subscriptions gets the documented
//     SLOW_CONSUMER error, then the socket is closed with closeSlowConsumer
//     and the reason "SLOW_CONSUMER: …" (as far as the connection still
//     takes writes: one whose buffers are full gets nothing more);
//   - closes with the code and reason set by kill (a credential that died)
//     instead of the normal closure gqlgen asks for.
type wsConn struct {
	c            *coderws.Conn
	writeTimeout time.Duration

	mu          sync.Mutex
	active      map[string]bool // operation ids the client started and the server has not ended
	deadline    *time.Timer
	closing     bool // a close handshake has started
	closeCode   int  // set by kill: replaces gqlgen's close code
	closeReason string
	handshake   chan struct{}
}

var (
	_ transport.WebsocketConn          = (*wsConn)(nil)
	_ transport.WebsocketReadLimiter   = (*wsConn)(nil)
	_ transport.WebsocketReadDeadliner = (*wsConn)(nil)
)

func (c *wsConn) Subprotocol() string      { return c.c.Subprotocol() }
func (c *wsConn) SetReadLimit(limit int64) { c.c.SetReadLimit(limit) }

// NextReader reads the next message, noting which operations the client
// starts and stops.
func (c *wsConn) NextReader() (int, io.Reader, error) {
	typ, data, err := c.c.Read(context.Background())
	if err != nil {
		switch coderws.CloseStatus(err) {
		case coderws.StatusNormalClosure, coderws.StatusNoStatusRcvd:
			return int(typ), nil, transport.ErrWebsocketClosed
		}
		return int(typ), nil, err
	}
	var m struct{ ID, Type string }
	if json.Unmarshal(data, &m) == nil && m.ID != "" {
		c.mu.Lock()
		switch m.Type {
		case "subscribe", "start":
			c.active[m.ID] = true
		case "complete", "stop":
			delete(c.active, m.ID)
		}
		c.mu.Unlock()
	}
	return int(typ), bytes.NewReader(data), nil
}

// WriteJSON writes one message, at most writeTimeout long: past it the
// connection is closed (coder/websocket closes on a cancelled write).
func (c *wsConn) WriteJSON(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if typ, id := messageTypeAndID(v); id != "" && (typ == "complete" || typ == "error") {
		c.mu.Lock()
		delete(c.active, id)
		c.mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.writeTimeout)
	defer cancel()
	return c.c.Write(ctx, coderws.MessageText, data)
}

// messageTypeAndID reads the type and id of a gqlgen websocket message
// (an unexported struct with exported ID and Type fields).
func messageTypeAndID(v any) (typ, id string) {
	rv := reflect.Indirect(reflect.ValueOf(v))
	if rv.Kind() != reflect.Struct {
		return "", ""
	}
	if f := rv.FieldByName("Type"); f.IsValid() && f.Kind() == reflect.String {
		typ = f.String()
	}
	if f := rv.FieldByName("ID"); f.IsValid() && f.Kind() == reflect.String {
		id = f.String()
	}
	return typ, id
}

// WriteClose starts the close handshake in the background (it waits for
// the client's answer up to 5 s) with code and reason, or with those kill
// set.
func (c *wsConn) WriteClose(code int, reason string) error {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return nil
	}
	c.closing = true
	c.stopDeadlineLocked()
	if c.closeCode != 0 {
		code, reason = c.closeCode, c.closeReason
	}
	done := make(chan struct{})
	c.handshake = done
	c.mu.Unlock()
	go func() {
		defer close(done)
		_ = c.c.Close(coderws.StatusCode(code), closeReason(reason))
	}()
	return nil
}

// Close drops the connection, unless a close handshake owns that.
func (c *wsConn) Close() error {
	c.mu.Lock()
	c.stopDeadlineLocked()
	inHandshake := c.handshake != nil
	c.mu.Unlock()
	if inHandshake {
		return nil
	}
	return c.c.CloseNow()
}

// SetReadDeadline is how gqlgen enforces pongs: past the deadline the
// client is a slow consumer.
func (c *wsConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopDeadlineLocked()
	if t.IsZero() || c.closing {
		return nil
	}
	c.deadline = time.AfterFunc(time.Until(t), c.slowConsumer)
	return nil
}

func (c *wsConn) stopDeadlineLocked() {
	if c.deadline != nil {
		c.deadline.Stop()
		c.deadline = nil
	}
}

// slowConsumer ends every open operation with SLOW_CONSUMER and closes the
// connection.
func (c *wsConn) slowConsumer() {
	c.end(closeSlowConsumer, CodeSlowConsumer, live.ErrSlowConsumer.Error(),
		CodeSlowConsumer+": the client did not answer pings in time (it is not reading); connect again")
}

// kill ends every open operation with an UNAUTHENTICATED error and makes
// the connection's close use code 4403 and the reason "UNAUTHENTICATED:
// <why>"; the caller then ends the connection.
func (c *wsConn) kill(why string) {
	c.mu.Lock()
	if c.closeCode == 0 {
		c.closeCode, c.closeReason = closeUnauthenticated, CodeUnauthenticated+": "+why
	}
	c.mu.Unlock()
	c.endOperations(CodeUnauthenticated, why)
}

// end ends every open operation with an error of code, then closes.
func (c *wsConn) end(closeCode int, code, msg, reason string) {
	if c.endOperations(code, msg) {
		_ = c.WriteClose(closeCode, reason)
	}
}

// endOperations sends each open operation an error of code; false if the
// connection was already closing. Each write is bounded: a client whose
// buffers are full gets what fits.
func (c *wsConn) endOperations(code, msg string) bool {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return false
	}
	ids := make([]string, 0, len(c.active))
	for id := range c.active {
		ids = append(ids, id)
	}
	c.active = map[string]bool{}
	c.mu.Unlock()
	slices.Sort(ids)
	errs := []map[string]any{{"message": msg, "extensions": map[string]any{"code": code}}}
	for _, id := range ids {
		data, _ := json.Marshal(map[string]any{"id": id, "type": "error", "payload": errs})
		ctx, cancel := context.WithTimeout(context.Background(), min(c.writeTimeout, 2*time.Second))
		err := c.c.Write(ctx, coderws.MessageText, data)
		cancel()
		if err != nil {
			break
		}
	}
	return true
}

// closeReason fits a reason into a close frame (at most 123 bytes).
func closeReason(s string) string {
	if len(s) <= 123 {
		return s
	}
	s = s[:120]
	for len(s) > 0 && s[len(s)-1]&0xC0 == 0x80 {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xC0 {
		s = s[:len(s)-1]
	}
	return s + "..."
}
