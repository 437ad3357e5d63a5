package hub

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/apps"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// outboxSize bounds the frames queued for one worker. A worker that cannot
// keep up with this many is too slow to be trusted with work: it is
// disconnected and its tasks go elsewhere.
const outboxSize = 1024

// helloTimeout bounds the wait for the first frame.
const helloTimeout = 10 * time.Second

var errClosed = errors.New("worker connection closed")

// errSecretRefused: a hello with a wrong secret or for an unknown app,
// logged by the hub's limiter rather than one line each.
var errSecretRefused = errors.New("wrong secret or unknown app")

// conn is one worker connection.
type conn struct {
	hub    *Hub
	ws     *websocket.Conn
	reg    *Registry // the app's, once the handshake succeeded
	remote string
	info   WorkerInfo
	// busy is how many tasks the worker held at its last heartbeat.
	busy atomic.Int64

	out       chan []byte
	closing   chan struct{}
	closeOnce sync.Once
	// lastWords is sent, if set, before the connection closes.
	lastWords []byte

	mu      sync.Mutex
	nextID  int64
	pending map[int64]func(*protocol.Ack, error)
}

func newConn(h *Hub, ws *websocket.Conn, remote string) *conn {
	return &conn{hub: h, ws: ws, remote: remote, out: make(chan []byte, outboxSize),
		closing: make(chan struct{}), pending: map[int64]func(*protocol.Ack, error){}}
}

// run serves the connection until it ends.
func (c *conn) run(ctx context.Context) {
	log := c.hub.log.With("remote", c.remote)
	writerDone := make(chan struct{})
	go c.writeLoop(writerDone)
	defer func() {
		c.close()
		<-writerDone
		c.failPending()
	}()

	if err := c.handshake(ctx); err != nil {
		if !errors.Is(err, errSecretRefused) { // the limiter logs those, once
			log.Warn("hub: worker refused", "err", err)
		}
		return
	}
	log = log.With("app", c.info.AppID, "worker", c.info.ID)
	old, err := c.reg.join(c)
	if err != nil {
		c.closeWith(protocol.TypeRedirect, &protocol.Redirect{Reason: err.Error()})
		log.Info("hub: worker redirected: the app moved during its handshake")
		return
	}
	if old != nil {
		// The same worker process reconnected before its old connection
		// timed out: the old one is dead.
		old.close()
	}
	store, serverID := c.hub.deps.Store, c.hub.deps.Directory.ID()
	record := &db.Worker{AppID: c.info.AppID, ID: c.info.ID, ServerID: serverID, Host: c.info.Host,
		Version: "", Tags: nonNil(c.info.Tags), Processors: nonNil(append(append([]string{}, c.info.Processors...), c.info.Types...)),
		Slots: c.info.Slots, Metrics: toDBMetrics(c.info.Metrics, len(c.info.Running)), ConnectedAt: c.info.ConnectedAt, LastHeartbeat: c.info.ConnectedAt}
	if err := store.WorkerUpsert(ctx, record); err != nil {
		// A worker the API cannot list must not run work unseen.
		log.Warn("hub: recording worker failed; refusing it", "err", err)
		c.reg.leave(c)
		c.fail(protocol.CodeInternal, "the server could not record this worker; reconnect later")
		return
	}
	c.hub.workersChanged(c.info.AppID)
	log.Info("hub: worker connected", "host", c.info.Host, "slots", c.info.Slots, "running", len(c.info.Running))
	c.reg.handler.WorkerJoined(c.info)
	defer func() {
		if c.reg.leave(c) {
			c.hub.forgetBeat(c.info.AppID, c.info.ID)
			c.reg.handler.WorkerLeft(c.info.ID)
			if err := store.WorkerDisconnected(context.WithoutCancel(ctx), c.info.AppID, c.info.ID, serverID, db.Stamp(c.hub.clock.Now())); err != nil {
				log.Warn("hub: recording worker disconnect", "err", err)
			} else {
				c.hub.workersChanged(c.info.AppID)
			}
			log.Info("hub: worker disconnected")
		}
	}()

	err = c.readLoop()
	if websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseGoingAway) {
		log.Info("hub: the worker closed its connection", "err", err)
	} else {
		log.Warn("hub: closing worker connection", "err", err)
	}
}

// handshake reads hello, authenticates it, finds the app's registry (taking
// the app if no server owns it) and answers welcome; a worker of an app
// another server owns is redirected there.
func (c *conn) handshake(ctx context.Context) error {
	_ = c.ws.SetReadDeadline(time.Now().Add(helloTimeout))
	frame, body, err := c.read()
	if err != nil {
		return err
	}
	hello, ok := body.(*protocol.Hello)
	if !ok {
		c.fail(protocol.CodeProtocol, fmt.Sprintf("the first frame must be hello, not %s", frame.Type))
		return fmt.Errorf("first frame was %s", frame.Type)
	}
	if err := protocol.Validate(hello); err != nil {
		c.fail(protocol.CodeBadFrame, "hello: "+err.Error())
		return fmt.Errorf("hello: %w", err)
	}
	deps := c.hub.deps
	if c.hub.auth.limited(c.remote, hello.App, hello.Auth) {
		// Not AUTH, which makes an agent give up: a good worker beside a
		// flood retries and gets in once the window ends.
		c.fail(protocol.CodeInternal, "too many wrong app secrets from this address; reconnect later")
		return fmt.Errorf("app %q: %w (limited)", hello.App, errSecretRefused)
	}
	app, err := deps.Apps.VerifySecret(ctx, hello.App, hello.Auth)
	if errors.Is(err, apps.ErrBadSecret) {
		c.hub.auth.refused(c.remote, hello.App, "connect")
		c.fail(protocol.CodeAuth, fmt.Sprintf("the app secret for app %q is wrong, or there is no such app; check JOBWHEEL_APP and JOBWHEEL_APP_SECRET", hello.App))
		return fmt.Errorf("app %q: %w", hello.App, errSecretRefused)
	}
	if err != nil {
		c.fail(protocol.CodeInternal, "the server could not check the secret; retry later")
		return err
	}
	c.hub.auth.accepted(hello.App, hello.Auth)
	reg, owned := deps.Registries.Registry(app.ID)
	if !owned {
		// Nobody may own it yet: asking takes it for this server when this
		// server is below its fair share, and then the registry exists.
		owner, err := deps.Owner.Owner(ctx, app.ID)
		if err == nil && owner == deps.Directory.ID() {
			reg, owned = deps.Registries.Registry(app.ID)
		}
		if !owned {
			url := ""
			if err == nil && owner != "" {
				url, _ = deps.Directory.URLOf(ctx, owner)
			}
			c.closeWith(protocol.TypeRedirect, &protocol.Redirect{Server: url, Reason: "another server owns this app"})
			return fmt.Errorf("app %s is owned by %q, not here", hello.App, owner)
		}
	}
	c.reg = reg
	servers, _ := deps.Directory.AliveURLs(ctx)
	c.info = WorkerInfo{AppID: app.ID, ID: hello.WorkerID, Host: hello.Host, Tags: hello.Tags, Processors: hello.Processors,
		Types: hello.Types, Slots: hello.Slots, Metrics: hello.Metrics, Running: hello.Running, ConnectedAt: db.Stamp(c.hub.clock.Now()),
		Features: hello.Features}
	c.busy.Store(int64(len(hello.Running)))
	welcome := &protocol.Welcome{ServerID: deps.Directory.ID(), Epoch: reg.Epoch(), Servers: servers, HeartbeatMs: int(c.hub.cfg.Heartbeat / time.Millisecond)}
	if hello.JobSet != "" {
		if welcome.JobChanges, err = c.declare(ctx, app.ID, hello); err != nil {
			return err
		}
	}
	b, err := protocol.Encode(0, frame.ID, protocol.TypeWelcome, welcome)
	if err != nil {
		return err
	}
	return c.enqueue(b)
}

// declare applies the jobs a hello declares; a declaration the server
// refuses (a bad schedule, say) fails the handshake with the reason, which
// the worker's log shows.
func (c *conn) declare(ctx context.Context, appID int64, hello *protocol.Hello) ([]protocol.JobChange, error) {
	d := c.hub.deps.Declarations
	if d == nil {
		c.fail(protocol.CodeBadFrame, "hello: this server does not take jobs declared in code")
		return nil, errors.New("jobs declared, but the hub has no Declarations")
	}
	changes, err := d.Declare(ctx, appID, hello.WorkerID, hello)
	var in *fault.Input
	switch {
	case errors.As(err, &in):
		c.fail(protocol.CodeBadFrame, fmt.Sprintf("hello: %s: %s", in.Field, in.Reason))
		return nil, fmt.Errorf("declared jobs: %w", err)
	case err != nil:
		c.fail(protocol.CodeInternal, "the server could not apply the declared jobs; retry later")
		return nil, fmt.Errorf("declared jobs: %w", err)
	}
	return changes, nil
}

func (c *conn) readLoop() error {
	lostAfter := c.hub.cfg.Heartbeat * protocol.LostAfterBeats
	for {
		_ = c.ws.SetReadDeadline(time.Now().Add(lostAfter))
		frame, body, err := c.read()
		if err != nil {
			return err
		}
		if err := protocol.Validate(body); err != nil {
			if c.refuseInvalid(frame, err) {
				continue
			}
			return err
		}
		switch b := body.(type) {
		case *protocol.Heartbeat:
			c.busy.Store(int64(len(b.Running)))
			c.hub.noteBeat(c.info.AppID, c.info.ID, b)
			c.reg.handler.WorkerHeartbeat(c.info.ID, b)
		case *protocol.Report:
			c.reg.handler.Report(c.info.ID, b, c.acker(frame))
		case *protocol.Map:
			c.reg.handler.Map(c.info.ID, b, c.acker(frame))
		case *protocol.Logs:
			c.hub.deps.Logs.Logs(c.info.AppID, c.info.ID, b, c.acker(frame))
		case *protocol.Results:
			id := frame.ID
			c.reg.handler.Results(c.info.ID, b, func(page []protocol.TaskResult, more bool, err error) {
				a := c.ackFor(frame.Type, err)
				a.Results, a.More = page, more
				c.ack(id, a)
			})
		case *protocol.Ack:
			c.resolve(frame.Re, b)
		case *protocol.Error:
			// The worker is closing and says why (e.g. a frame of ours it
			// could not read).
			return fmt.Errorf("the worker closed with %s: %s", b.Code, b.Message)
		default:
			c.fail(protocol.CodeProtocol, fmt.Sprintf("a worker may not send %s", frame.Type))
			return fmt.Errorf("unexpected %s frame", frame.Type)
		}
	}
}

// read reads one frame; a bad frame is answered with an error frame.
func (c *conn) read() (protocol.Frame, any, error) {
	typ, data, err := c.ws.ReadMessage()
	if err != nil {
		if errors.Is(err, websocket.ErrReadLimit) {
			c.fail(protocol.CodeBadFrame, fmt.Sprintf("frame larger than %d bytes", protocol.MaxFrameBytes))
		}
		return protocol.Frame{}, nil, err
	}
	if typ != websocket.TextMessage {
		c.fail(protocol.CodeBadFrame, "frames must be JSON text")
		return protocol.Frame{}, nil, errors.New("binary frame")
	}
	frame, body, err := protocol.Decode(data)
	if err != nil {
		c.fail(protocol.CodeBadFrame, err.Error())
		return frame, nil, err
	}
	return frame, body, nil
}

// acker returns the done callback that acks a message (see ackFor for
// what a refusal tells the worker).
func (c *conn) acker(frame protocol.Frame) func(error) {
	return func(err error) {
		if frame.ID != 0 {
			c.ack(frame.ID, c.ackFor(frame.Type, err))
		}
	}
}

// send queues a message; onReply gets the ack.
func (c *conn) send(typ string, body any, onReply func(*protocol.Ack, error)) error {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	if onReply != nil {
		c.pending[id] = onReply
	}
	c.mu.Unlock()
	b, err := protocol.Encode(id, 0, typ, body)
	if err == nil {
		err = c.enqueue(b)
	}
	if err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		if onReply != nil {
			onReply(nil, err)
		}
		return err
	}
	if onReply != nil {
		time.AfterFunc(replyTimeout, func() {
			if cb := c.take(id); cb != nil {
				cb(nil, fmt.Errorf("worker %s did not answer %s in %s", c.info.ID, typ, replyTimeout))
				// A worker that takes messages and does not answer them
				// would otherwise go on being chosen for work (it has the
				// most free slots) and lose all of it: it is dropped, as
				// one that cannot keep up is, and may reconnect.
				c.hub.log.Warn("hub: worker did not answer a message; disconnecting it", "app", c.info.AppID, "worker", c.info.ID,
					"type", typ, "after", replyTimeout)
				c.close()
			}
		})
	}
	return nil
}

func (c *conn) resolve(re int64, ack *protocol.Ack) {
	if cb := c.take(re); cb != nil {
		cb(ack, nil)
	}
}

func (c *conn) take(id int64) func(*protocol.Ack, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cb := c.pending[id]
	delete(c.pending, id)
	return cb
}

func (c *conn) failPending() {
	c.mu.Lock()
	pending := c.pending
	c.pending = map[int64]func(*protocol.Ack, error){}
	c.mu.Unlock()
	for _, cb := range pending {
		cb(nil, errClosed)
	}
}

func (c *conn) enqueue(b []byte) error {
	select {
	case <-c.closing:
		return errClosed
	default:
	}
	select {
	case c.out <- b:
		return nil
	case <-c.closing:
		return errClosed
	default:
		c.hub.log.Warn("hub: worker is not reading; disconnecting it", "worker", c.info.ID)
		c.close()
		return errClosed
	}
}

func (c *conn) writeLoop(done chan struct{}) {
	defer close(done)
	for {
		select {
		case b := <-c.out:
			_ = c.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if err := c.ws.WriteMessage(websocket.TextMessage, b); err != nil {
				c.close()
				return
			}
		case <-c.closing:
			// Flush what is queued (acks the worker waits for), then the
			// last words, then close.
			for {
				select {
				case b := <-c.out:
					_ = c.ws.SetWriteDeadline(time.Now().Add(2 * time.Second))
					if c.ws.WriteMessage(websocket.TextMessage, b) != nil {
						_ = c.ws.Close()
						return
					}
					continue
				default:
				}
				break
			}
			_ = c.ws.SetWriteDeadline(time.Now().Add(2 * time.Second))
			if c.lastWords != nil {
				_ = c.ws.WriteMessage(websocket.TextMessage, c.lastWords)
			}
			_ = c.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
			_ = c.ws.Close()
			return
		}
	}
}

// fail sends an error frame and closes.
func (c *conn) fail(code, msg string) {
	c.closeWith(protocol.TypeError, &protocol.Error{Code: code, Message: msg})
}

// closeWith sends one last frame and closes.
func (c *conn) closeWith(typ string, body any) {
	b, err := protocol.Encode(0, 0, typ, body)
	c.closeOnce.Do(func() {
		if err == nil {
			c.lastWords = b
		}
		close(c.closing)
	})
}

func (c *conn) close() {
	c.closeOnce.Do(func() { close(c.closing) })
	// Unblock a reader waiting on a silent worker.
	_ = c.ws.SetReadDeadline(time.Now())
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
