package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"
)

// CloseError is returned when the server closed the connection.
type CloseError struct {
	Code   int
	Reason string
}

func (e *CloseError) Error() string { return fmt.Sprintf("websocket closed: %d %s", e.Code, e.Reason) }

// Options tune a connection.
type Options struct {
	// Token is sent in connection_init as {"Authorization": "Bearer <token>"}.
	Token string
	// Header is sent with the upgrade request (e.g. a Cookie).
	Header http.Header
	// NoPong makes the client ignore the server's pings (tests).
	NoPong bool
	// OnPing is called for each ping from the server (tests).
	OnPing func()
}

// Conn is one websocket with its subscriptions.
type Conn struct {
	ws   *websocket.Conn
	opts Options

	noPong atomic.Bool // starts as opts.NoPong; SetNoPong changes it

	mu     sync.Mutex
	subs   map[string]*Sub
	nextID int
	err    error
	done   chan struct{}
}

// Subscriptions: graphql-transport-ws (the protocol of the graphql-ws npm
// package) over one websocket, authenticated in connection_init.

// Dial opens a websocket to the GraphQL endpoint (http(s)://host/graphql
// or ws(s)://…) and completes connection_init. A refused init is a
// *CloseError with the server's code (4403 for a missing or bad token).
func Dial(ctx context.Context, url string, opts Options) (*Conn, error) {
	url = strings.Replace(strings.Replace(url, "http://", "ws://", 1), "https://", "wss://", 1)
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: opts.Header}) //nolint:bodyclose // coder/websocket: the response body never needs closing
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(16 << 20)
	init := map[string]any{"type": "connection_init"}
	if opts.Token != "" {
		init["payload"] = map[string]string{"Authorization": "Bearer " + opts.Token}
	}
	if err := write(ctx, ws, init); err != nil {
		ws.CloseNow()
		return nil, err
	}
	for {
		m, err := read(ctx, ws)
		if err != nil {
			ws.CloseNow()
			return nil, closeErr(err)
		}
		if m.Type == "connection_ack" {
			break
		}
		if m.Type == "ping" && !opts.NoPong {
			_ = write(ctx, ws, map[string]any{"type": "pong"})
		}
	}
	c := &Conn{ws: ws, opts: opts, subs: map[string]*Sub{}, done: make(chan struct{})}
	c.noPong.Store(opts.NoPong)
	go c.readLoop()
	return c, nil
}

// SetNoPong makes the client ignore (or answer again) the server's pings
// from now on (tests: a client that turns slow once its subscriptions are
// open, however long opening them took).
func (c *Conn) SetNoPong(v bool) { c.noPong.Store(v) }

// Close closes the connection (as a client disconnecting would).
func (c *Conn) Close() { _ = c.ws.Close(websocket.StatusNormalClosure, "bye") }

// CloseNow drops the connection without a close handshake.
func (c *Conn) CloseNow() { _ = c.ws.CloseNow() }

// Done is closed when the connection ended; Err says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the connection ended.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

type message struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

func write(ctx context.Context, ws *websocket.Conn, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return ws.Write(ctx, websocket.MessageText, b)
}

func read(ctx context.Context, ws *websocket.Conn) (message, error) {
	_, b, err := ws.Read(ctx)
	if err != nil {
		return message{}, err
	}
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		return message{}, fmt.Errorf("undecodable message %q: %w", b, err)
	}
	return m, nil
}

func closeErr(err error) error {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return &CloseError{Code: int(ce.Code), Reason: ce.Reason}
	}
	return err
}

func (c *Conn) readLoop() {
	var err error
	defer func() {
		c.mu.Lock()
		c.err = closeErr(err)
		subs := c.subs
		c.subs = map[string]*Sub{}
		c.mu.Unlock()
		for _, s := range subs {
			s.push(event{err: c.err})
		}
		close(c.done)
	}()
	ctx := context.Background()
	for {
		var m message
		if m, err = read(ctx, c.ws); err != nil {
			return
		}
		switch m.Type {
		case "ping":
			if c.opts.OnPing != nil {
				c.opts.OnPing()
			}
			if !c.noPong.Load() {
				_ = write(ctx, c.ws, map[string]any{"type": "pong"})
			}
		case "next", "error", "complete":
			c.mu.Lock()
			s := c.subs[m.ID]
			if m.Type != "next" {
				delete(c.subs, m.ID)
			}
			c.mu.Unlock()
			if s == nil {
				continue
			}
			switch m.Type {
			case "next":
				var r struct {
					Data   json.RawMessage `json:"data"`
					Errors Errors          `json:"errors"`
				}
				if e := json.Unmarshal(m.Payload, &r); e != nil {
					s.push(event{err: e})
				} else if len(r.Errors) > 0 {
					s.push(event{err: r.Errors})
				} else {
					s.push(event{data: r.Data})
				}
			case "error":
				var errs Errors
				_ = json.Unmarshal(m.Payload, &errs)
				s.push(event{err: errs})
				s.push(event{err: io.EOF})
			case "complete":
				s.push(event{err: io.EOF})
			}
		}
	}
}

// Sub is one subscription.
type Sub struct {
	c  *Conn
	id string

	mu    sync.Mutex
	queue []event
	wake  chan struct{}
}

type event struct {
	data json.RawMessage
	err  error
}

func (s *Sub) push(e event) {
	s.mu.Lock()
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Subscribe starts a subscription.
func (c *Conn) Subscribe(ctx context.Context, query string, vars map[string]any) (*Sub, error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.nextID++
	id := strconv.Itoa(c.nextID)
	s := &Sub{c: c, id: id, wake: make(chan struct{}, 1)}
	c.subs[id] = s
	c.mu.Unlock()
	err := write(ctx, c.ws, map[string]any{"id": id, "type": "subscribe",
		"payload": map[string]any{"query": query, "variables": vars}})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Next returns the next value's data. It returns io.EOF when the
// subscription completed, Errors for GraphQL errors, and the connection's
// error when it ended.
func (s *Sub) Next(ctx context.Context) (json.RawMessage, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			e := s.queue[0]
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return e.data, e.err
		}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.wake:
		}
	}
}

// Stop ends the subscription (the client's "complete").
func (s *Sub) Stop(ctx context.Context) error {
	s.c.mu.Lock()
	delete(s.c.subs, s.id)
	s.c.mu.Unlock()
	return write(ctx, s.c.ws, map[string]any{"id": s.id, "type": "complete"})
}
