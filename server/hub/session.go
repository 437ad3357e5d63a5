package hub

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/apps"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// outboxSize bounds the frames queued for one worker. A worker that cannot
// keep up with this many is too slow to be trusted with work: it is
// disconnected and its tasks go elsewhere.
const outboxSize = 1024

// helloTimeout bounds the wait for the first frame.
const helloTimeout = 10 * time.Second

var errClosed = errors.New("worker connection closed")

// session is one worker connection.
type session struct {
	hub    *Hub
	conn   *websocket.Conn
	remote string
	info   WorkerInfo

	out       chan []byte
	closing   chan struct{}
	closeOnce sync.Once
	// lastWords is sent, if set, before the connection closes.
	lastWords []byte

	mu      sync.Mutex
	nextID  int64
	pending map[int64]func(*protocol.Ack, error)
}

func newSession(h *Hub, conn *websocket.Conn, remote string) *session {
	return &session{hub: h, conn: conn, remote: remote, out: make(chan []byte, outboxSize),
		closing: make(chan struct{}), pending: map[int64]func(*protocol.Ack, error){}}
}

// run serves the connection until it ends.
func (s *session) run(ctx context.Context) {
	log := s.hub.log.With("remote", s.remote)
	writerDone := make(chan struct{})
	go s.writeLoop(writerDone)
	defer func() {
		s.close()
		<-writerDone
		s.failPending()
	}()

	if err := s.handshake(ctx); err != nil {
		log.Warn("hub: worker refused", "err", err)
		return
	}
	log = log.With("app", s.info.AppID, "worker", s.info.ID)
	if old := s.hub.register(s); old != nil {
		// The same worker process reconnected before its old connection
		// timed out: the old one is dead.
		old.close()
	}
	record := &db.Worker{AppID: s.info.AppID, ID: s.info.ID, ServerID: s.hub.dir.ID(), Host: s.info.Host,
		Version: "", Tags: nonNil(s.info.Tags), Processors: nonNil(append(append([]string{}, s.info.Processors...), s.info.Types...)),
		Slots: s.info.Slots, Metrics: toDBMetrics(s.info.Metrics), ConnectedAt: s.info.ConnectedAt, LastHeartbeat: s.info.ConnectedAt}
	if err := s.hub.store.WorkerUpsert(ctx, record); err != nil {
		// A worker the API cannot list must not run work unseen.
		log.Warn("hub: recording worker failed; refusing it", "err", err)
		s.hub.unregister(s)
		s.fail(protocol.CodeInternal, "the server could not record this worker; reconnect later")
		return
	}
	s.hub.workersChanged(s.info.AppID)
	log.Info("hub: worker connected", "host", s.info.Host, "slots", s.info.Slots, "running", len(s.info.Running))
	s.hub.handler.WorkerJoined(s.info)
	defer func() {
		if s.hub.unregister(s) {
			s.hub.handler.WorkerLeft(s.info.AppID, s.info.ID)
			if err := s.hub.store.WorkerDisconnected(context.WithoutCancel(ctx), s.info.AppID, s.info.ID, s.hub.dir.ID(), s.hub.now()); err != nil {
				log.Warn("hub: recording worker disconnect", "err", err)
			} else {
				s.hub.workersChanged(s.info.AppID)
			}
			log.Info("hub: worker disconnected")
		}
	}()

	if err := s.readLoop(); err != nil {
		log.Warn("hub: closing worker connection", "err", err)
	}
}

// handshake reads hello, authenticates it and answers welcome.
func (s *session) handshake(ctx context.Context) error {
	_ = s.conn.SetReadDeadline(time.Now().Add(helloTimeout))
	frame, body, err := s.read()
	if err != nil {
		return err
	}
	hello, ok := body.(*protocol.Hello)
	if !ok {
		s.fail(protocol.CodeProtocol, fmt.Sprintf("the first frame must be hello, not %s", frame.Type))
		return fmt.Errorf("first frame was %s", frame.Type)
	}
	if err := protocol.Validate(hello); err != nil {
		s.fail(protocol.CodeBadFrame, "hello: "+err.Error())
		return fmt.Errorf("hello: %w", err)
	}
	app, err := s.hub.apps.VerifySecret(ctx, hello.App, hello.Auth)
	if errors.Is(err, apps.ErrBadSecret) {
		s.fail(protocol.CodeAuth, fmt.Sprintf("the app secret for app %q is wrong, or there is no such app; check JOBWHEEL_APP and JOBWHEEL_APP_SECRET", hello.App))
		return fmt.Errorf("app %q: wrong secret or unknown app", hello.App)
	}
	if err != nil {
		s.fail(protocol.CodeInternal, "the server could not check the secret; retry later")
		return err
	}
	epoch, owned := s.hub.owner.Epoch(app.ID)
	if !owned {
		owner, err := s.hub.owner.Owner(ctx, app.ID)
		if err == nil && owner == s.hub.dir.ID() {
			epoch, owned = s.hub.owner.Epoch(app.ID)
		}
		if !owned {
			url := ""
			if err == nil {
				url, _ = s.hub.dir.URLOf(ctx, owner)
			}
			s.closeWith(protocol.TypeRedirect, &protocol.Redirect{Server: url, Reason: "another server owns this app"})
			return fmt.Errorf("app %s is owned by %q, not here", hello.App, owner)
		}
	}
	servers, _ := s.hub.dir.AliveURLs(ctx)
	s.info = WorkerInfo{AppID: app.ID, ID: hello.WorkerID, Host: hello.Host, Tags: hello.Tags, Processors: hello.Processors,
		Types: hello.Types, Slots: hello.Slots, Metrics: hello.Metrics, Running: hello.Running, ConnectedAt: s.hub.now()}
	welcome := &protocol.Welcome{ServerID: s.hub.dir.ID(), Epoch: epoch, Servers: servers, HeartbeatMs: int(s.hub.cfg.Heartbeat / time.Millisecond)}
	b, err := protocol.Encode(0, frame.ID, protocol.TypeWelcome, welcome)
	if err != nil {
		return err
	}
	return s.enqueue(b)
}

func (s *session) readLoop() error {
	lostAfter := s.hub.cfg.Heartbeat * protocol.LostAfterBeats
	for {
		_ = s.conn.SetReadDeadline(time.Now().Add(lostAfter))
		frame, body, err := s.read()
		if err != nil {
			return err
		}
		if err := protocol.Validate(body); err != nil {
			if s.refuseInvalid(frame, err) {
				continue
			}
			return err
		}
		switch b := body.(type) {
		case *protocol.Heartbeat:
			s.hub.noteBeat(s.info.AppID, s.info.ID, b.Metrics)
			s.hub.handler.WorkerHeartbeat(s.info.AppID, s.info.ID, b)
		case *protocol.Report:
			s.hub.handler.Report(s.info.AppID, s.info.ID, b, s.acker(frame))
		case *protocol.Map:
			s.hub.handler.Map(s.info.AppID, s.info.ID, b, s.acker(frame))
		case *protocol.Logs:
			s.hub.logs.Logs(s.info.AppID, s.info.ID, b, s.acker(frame))
		case *protocol.Ack:
			s.resolve(frame.Re, b)
		case *protocol.Error:
			// The worker is closing and says why (e.g. a frame of ours it
			// could not read).
			return fmt.Errorf("the worker closed with %s: %s", b.Code, b.Message)
		default:
			s.fail(protocol.CodeProtocol, fmt.Sprintf("a worker may not send %s", frame.Type))
			return fmt.Errorf("unexpected %s frame", frame.Type)
		}
	}
}

// read reads one frame; a bad frame is answered with an error frame.
func (s *session) read() (protocol.Frame, any, error) {
	typ, data, err := s.conn.ReadMessage()
	if err != nil {
		if errors.Is(err, websocket.ErrReadLimit) {
			s.fail(protocol.CodeBadFrame, fmt.Sprintf("frame larger than %d bytes", protocol.MaxFrameBytes))
		}
		return protocol.Frame{}, nil, err
	}
	if typ != websocket.TextMessage {
		s.fail(protocol.CodeBadFrame, "frames must be JSON text")
		return protocol.Frame{}, nil, errors.New("binary frame")
	}
	frame, body, err := protocol.Decode(data)
	if err != nil {
		s.fail(protocol.CodeBadFrame, err.Error())
		return frame, nil, err
	}
	return frame, body, nil
}

// acker returns the done callback that acks a message (see ackFor for
// what a refusal tells the worker).
func (s *session) acker(frame protocol.Frame) func(error) {
	return func(err error) {
		if frame.ID != 0 {
			s.ack(frame.ID, s.ackFor(frame.Type, err))
		}
	}
}

// send queues a message; onReply gets the ack.
func (s *session) send(typ string, body any, onReply func(*protocol.Ack, error)) error {
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	if onReply != nil {
		s.pending[id] = onReply
	}
	s.mu.Unlock()
	b, err := protocol.Encode(id, 0, typ, body)
	if err == nil {
		err = s.enqueue(b)
	}
	if err != nil {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
		if onReply != nil {
			onReply(nil, err)
		}
		return err
	}
	if onReply != nil {
		time.AfterFunc(replyTimeout, func() {
			if cb := s.take(id); cb != nil {
				cb(nil, fmt.Errorf("worker %s did not answer %s in %s", s.info.ID, typ, replyTimeout))
			}
		})
	}
	return nil
}

func (s *session) resolve(re int64, ack *protocol.Ack) {
	if cb := s.take(re); cb != nil {
		cb(ack, nil)
	}
}

func (s *session) take(id int64) func(*protocol.Ack, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cb := s.pending[id]
	delete(s.pending, id)
	return cb
}

func (s *session) failPending() {
	s.mu.Lock()
	pending := s.pending
	s.pending = map[int64]func(*protocol.Ack, error){}
	s.mu.Unlock()
	for _, cb := range pending {
		cb(nil, errClosed)
	}
}

func (s *session) enqueue(b []byte) error {
	select {
	case <-s.closing:
		return errClosed
	default:
	}
	select {
	case s.out <- b:
		return nil
	case <-s.closing:
		return errClosed
	default:
		s.hub.log.Warn("hub: worker is not reading; disconnecting it", "worker", s.info.ID)
		s.close()
		return errClosed
	}
}

func (s *session) writeLoop(done chan struct{}) {
	defer close(done)
	for {
		select {
		case b := <-s.out:
			_ = s.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if err := s.conn.WriteMessage(websocket.TextMessage, b); err != nil {
				s.close()
				return
			}
		case <-s.closing:
			// Flush what is queued (acks the worker waits for), then the
			// last words, then close.
			for {
				select {
				case b := <-s.out:
					_ = s.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
					if s.conn.WriteMessage(websocket.TextMessage, b) != nil {
						_ = s.conn.Close()
						return
					}
					continue
				default:
				}
				break
			}
			_ = s.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
			if s.lastWords != nil {
				_ = s.conn.WriteMessage(websocket.TextMessage, s.lastWords)
			}
			_ = s.conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
			_ = s.conn.Close()
			return
		}
	}
}

// fail sends an error frame and closes.
func (s *session) fail(code, msg string) {
	s.closeWith(protocol.TypeError, &protocol.Error{Code: code, Message: msg})
}

// closeWith sends one last frame and closes.
func (s *session) closeWith(typ string, body any) {
	b, err := protocol.Encode(0, 0, typ, body)
	s.closeOnce.Do(func() {
		if err == nil {
			s.lastWords = b
		}
		close(s.closing)
	})
}

func (s *session) close() {
	s.closeOnce.Do(func() { close(s.closing) })
	// Unblock a reader waiting on a silent worker.
	_ = s.conn.SetReadDeadline(time.Now())
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
