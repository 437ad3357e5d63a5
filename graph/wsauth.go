package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// A websocket authenticates once, in connection_init, but lives for hours,
// and rights change meanwhile: a token is revoked, a session ends (logout,
// a password change), a role is taken away, a user is removed. So:
//
//   - every operation on a socket is authorized as of now: the credential
//     is read again from the database (auth.Refresh) before it runs, and
//     roles are looked up per request as for HTTP;
//   - each socket re-checks its credential when rights change (a hint on
//     the bus, from any server) and every recheckEvery (sessions expire,
//     hints can be lost), and a socket whose credential died is closed
//     with code 4403 and the reason "UNAUTHENTICATED: <why>". Its
//     subscriptions end with it.

// socket is one API websocket: its connection, and what ends it.
type socket struct {
	conn    *wsConn // set when the upgrade is accepted
	cancel  context.CancelFunc
	recheck chan struct{}
	// active counts the socket's operations under way (subscriptions
	// until they end), at most MaxOperationsPerSocket.
	active atomic.Int32
	// user is what the socket's principal has open, across its sockets.
	user *userUse
}

// userUse is what one principal (a user's logins, or one API token) has
// open on this server: sockets, and operations under way on them.
type userUse struct {
	sockets int // under sockets.mu
	ops     atomic.Int32
}

// Defaults of the per-user bounds (HandlerConfig.MaxSocketsPerUser,
// MaxOperationsPerUser). The per-socket bound alone let one EDITOR open
// 300 sockets of 20 subscriptions each, and another app's workflow ran up
// to 10 s late (attacker probe, docs/security.md). The console opens one
// socket per tab with a page's few subscriptions on it.
const (
	DefaultMaxSocketsPerUser    = 32
	DefaultMaxOperationsPerUser = 1000
)

// principalKey names whose sockets and operations are counted together:
// an API token on its own, a user's console logins together.
func principalKey(p *auth.Principal) string {
	if p.Token != nil {
		return "token:" + strconv.FormatInt(p.Token.ID, 10)
	}
	return "user:" + strconv.FormatInt(p.User.ID, 10)
}

// MaxOperationsPerSocket bounds the operations one websocket may have
// under way at once: the console multiplexes a page's few subscriptions
// on one socket. Past it an operation is refused with RATE_LIMITED (its
// socket goes on). The attacker probe opened 20,000 subscriptions on one
// socket in a second, each checked against the database and fed by the
// app's changes: another app's job fired 8 s late.
const MaxOperationsPerSocket = 100

type socketKey struct{}

func withSocket(ctx context.Context) context.Context {
	return context.WithValue(ctx, socketKey{}, &socket{recheck: make(chan struct{}, 1)})
}

// socketFrom returns the websocket a context belongs to, or nil (HTTP).
func socketFrom(ctx context.Context) *socket {
	s, _ := ctx.Value(socketKey{}).(*socket)
	return s
}

// kill closes the socket because its credential died.
func (s *socket) kill(err error) {
	if s.conn != nil {
		s.conn.kill(err.Error())
	}
	if s.cancel != nil {
		s.cancel() // gqlgen closes the connection when its context ends
	}
}

// sockets are this server's open API websockets.
type sockets struct {
	auth  *auth.Service
	log   *slog.Logger
	every time.Duration
	// maxSockets and maxOps bound what one principal has open.
	maxSockets, maxOps int

	mu    sync.Mutex
	set   map[*socket]struct{}
	users map[string]*userUse
}

func newSockets(svc *auth.Service, log *slog.Logger, every time.Duration, maxSockets, maxOps int) *sockets {
	return &sockets{auth: svc, log: log, every: every, maxSockets: maxSockets, maxOps: maxOps,
		set: map[*socket]struct{}{}, users: map[string]*userUse{}}
}

// errTooManySockets refuses a principal's socket past maxSockets.
type errTooManySockets struct{ max int }

func (e errTooManySockets) Error() string {
	return fmt.Sprintf("%s: you have %d websockets open on this server, the most one user or token may have; close some", CodeRateLimited, e.max)
}

// changed tells every socket to re-check its credential (rights changed
// somewhere).
func (ss *sockets) changed() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for s := range ss.set {
		select {
		case s.recheck <- struct{}{}:
		default:
		}
	}
}

// count is how many sockets are open (tests).
func (ss *sockets) count() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.set)
}

// opened starts watching an authenticated socket; ctx carries its
// principal and lives as long as the connection. It returns the context
// gqlgen should use for the connection, or errTooManySockets when the
// principal has maxSockets open already.
func (ss *sockets) opened(ctx context.Context) (context.Context, error) {
	s := socketFrom(ctx)
	if s == nil {
		return ctx, nil
	}
	key := principalKey(auth.FromContext(ctx))
	ss.mu.Lock()
	u := ss.users[key]
	if u == nil {
		u = &userUse{}
		ss.users[key] = u
	}
	if u.sockets >= ss.maxSockets {
		ss.mu.Unlock()
		return ctx, errTooManySockets{ss.maxSockets}
	}
	u.sockets++
	s.user = u
	ctx, s.cancel = context.WithCancel(ctx)
	ss.set[s] = struct{}{}
	ss.mu.Unlock()
	go ss.watch(ctx, s, key)
	return ctx, nil
}

func (ss *sockets) watch(ctx context.Context, s *socket, key string) {
	defer func() {
		ss.mu.Lock()
		delete(ss.set, s)
		s.user.sockets--
		if s.user.sockets == 0 && s.user.ops.Load() == 0 && ss.users[key] == s.user {
			delete(ss.users, key)
		}
		ss.mu.Unlock()
	}()
	t := time.NewTicker(ss.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.recheck:
		case <-t.C:
		}
		if _, err := ss.auth.Refresh(ctx); err != nil {
			if errors.Is(err, fault.ErrUnauthenticated) {
				ss.log.InfoContext(ctx, "graphql: closing a websocket whose credential ended", "reason", err)
				s.kill(err)
				return
			}
			if ctx.Err() == nil {
				ss.log.WarnContext(ctx, "graphql: re-checking a websocket's credential", "err", err)
			}
		}
	}
}

// closed ends the watch of a socket gqlgen closed.
func (ss *sockets) closed(ctx context.Context, _ int) {
	if s := socketFrom(ctx); s != nil && s.cancel != nil {
		s.cancel()
	}
}

// authorizeNow runs an operation of a websocket with its credential as it
// is now; one whose credential died gets UNAUTHENTICATED and its socket
// is closed.
func (ss *sockets) authorizeNow(present graphql.ErrorPresenterFunc) graphql.OperationMiddleware {
	return func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		s := socketFrom(ctx)
		if s == nil || auth.FromContext(ctx) == nil {
			return next(ctx)
		}
		// gqlgen cancels an operation's context when it ends, whichever
		// way; the counts are checked before anything reads the database.
		if s.active.Add(1) > MaxOperationsPerSocket {
			s.active.Add(-1)
			return rateLimited("this websocket has %d operations under way, the most one socket may have; end some (complete) or open another socket",
				MaxOperationsPerSocket)
		}
		if u := s.user; u != nil {
			if int(u.ops.Add(1)) > ss.maxOps {
				u.ops.Add(-1)
				s.active.Add(-1)
				return rateLimited("you have %d operations under way on your websockets on this server, the most one user or token may have; end some (complete)",
					ss.maxOps)
			}
			context.AfterFunc(ctx, func() { u.ops.Add(-1) })
		}
		context.AfterFunc(ctx, func() { s.active.Add(-1) })
		fresh, err := ss.auth.Refresh(ctx)
		if err != nil {
			if errors.Is(err, fault.ErrUnauthenticated) {
				s.kill(err)
			}
			return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{present(ctx, err)}})
		}
		return next(fresh)
	}
}

// rateLimited answers an operation refused by a bound, with RATE_LIMITED.
func rateLimited(format string, args ...any) graphql.ResponseHandler {
	e := gqlerror.Errorf(format, args...)
	e.Extensions = map[string]any{"code": CodeRateLimited}
	return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{e}})
}

// wsInit authenticates a websocket from its connection_init payload
// ({"Authorization": "Bearer <token>"}), falling back to the session cookie
// of the upgrade request. An anonymous websocket is refused.
func wsInit(svc *auth.Service, ss *sockets) transport.WebsocketInitFunc {
	return func(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
		if h := payload.Authorization(); h != "" {
			t, ok := cutBearer(h)
			if !ok {
				return refuse(ctx, fault.Unauthenticated("connection_init: Authorization must be 'Bearer <token>'"))
			}
			p, err := svc.Authenticate(ctx, t)
			if err != nil {
				return refuse(ctx, err)
			}
			ctx = auth.WithPrincipal(ctx, p)
		} else if auth.FromContext(ctx) == nil {
			return refuse(ctx, fault.ErrUnauthenticated)
		}
		ctx, err := ss.opened(ctx)
		if err != nil {
			return refuse(ctx, err)
		}
		return ctx, nil, nil
	}
}

// refuse closes a websocket whose connection_init failed, with a close
// code and a reason "<CODE>: <message>" (at most 123 bytes, the limit of a
// close frame). Internal failures say no more than that.
func refuse(ctx context.Context, err error) (context.Context, *transport.InitPayload, error) {
	code, reason := closeUnauthenticated, CodeUnauthenticated+": "+err.Error()
	var many errTooManySockets
	switch {
	case errors.As(err, &many):
		// "Try again later": clients reconnect after a pause.
		code, reason = closeTryAgainLater, err.Error()
	case !errors.Is(err, fault.ErrUnauthenticated):
		code, reason = closeInternal, CodeInternal+": authentication is unavailable; try again"
	}
	reason = closeReason(reason)
	ctx = transport.WithWebsocketCloseCode(ctx, code)
	ctx = transport.AppendCloseReason(ctx, reason)
	return ctx, nil, errors.New(reason)
}
