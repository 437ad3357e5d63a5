package graph

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	coderws "github.com/coder/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/jobwheel/jobwheel/graph/generated"
	"github.com/jobwheel/jobwheel/internal/tracing"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/httpsec"
)

// SessionCookie is the HTTP-only cookie that carries a console login.
const SessionCookie = "jobwheel_session"

// Limits on what one request may ask for.
const (
	// MaxComplexity bounds the fields one operation may resolve: each field
	// counts 1, and a paged list (jobs, instances, an instance's logs, a
	// job's upcoming fires) multiplies what it selects by its page size, so
	// 500 instances with 25 fields each pass and 500 instances with 1000 log
	// lines each do not. The dashboard's figures cost what they read
	// (AppStatsCost, LagCost): a request holds a few, never hundreds.
	MaxComplexity = 50000
	// MaxDepth bounds how deeply selections may nest.
	MaxDepth = 12
	// MaxBodyBytes bounds a POSTed request.
	MaxBodyBytes = 1 << 20
)

// HandlerConfig configures the GraphQL endpoint.
type HandlerConfig struct {
	Resolver *Resolver
	Log      *slog.Logger
	// OriginPatterns are the extra origins (host[:port] patterns) whose
	// pages may call the API with the session cookie and open subscription
	// websockets; the server's own origin always may.
	OriginPatterns []string
	// PingInterval is how often websocket clients are pinged; one that has
	// not answered (pong) within two intervals is a slow consumer and is
	// disconnected. Default 10s.
	PingInterval time.Duration
	// WriteTimeout bounds one websocket write: a client that stops reading
	// is disconnected after it, so it holds no server memory. Default 15s.
	WriteTimeout time.Duration
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is
	// believed, for the client address the login limits count.
	TrustedProxies httpsec.Proxies
	// AuthChanges registers a function to call whenever rights change on
	// any server (a token revoked, a logout, a role changed), so open
	// websockets re-check their credential at once. Nil: changes made
	// through this server only.
	AuthChanges func(func())
	// RecheckEvery is how often an open websocket re-checks its credential
	// without being told of a change. Default 10s.
	RecheckEvery time.Duration
	// MaxSocketsPerUser bounds the API websockets one principal (a user's
	// console logins together, or one API token) may have open on this
	// server; the next is closed with 1013 and "RATE_LIMITED: …". Default
	// DefaultMaxSocketsPerUser.
	MaxSocketsPerUser int
	// MaxOperationsPerUser bounds the operations (subscriptions) under way
	// across those sockets; the next is refused with RATE_LIMITED before
	// the database is read. Default DefaultMaxOperationsPerUser.
	MaxOperationsPerUser int
	// MaxRequestsPerUser bounds the HTTP operations one principal may have
	// under way on this server; the next is refused with RATE_LIMITED
	// before it runs. Default DefaultMaxRequestsPerUser.
	MaxRequestsPerUser int
	// Observer hears of each answered operation and each websocket (the
	// server's metrics); nil: nobody.
	Observer Observer
	// Tracer traces each operation (a span per query, mutation or
	// subscription); its zero value is off, and then nothing is added.
	Tracer tracing.Tracer
}

// Observer hears what the endpoint answers (package metrics).
type Observer interface {
	// GraphQLRequest is one answered query or mutation, or one started
	// subscription: its type, its first root field (bounded by the
	// schema; "invalid" when it did not parse or validate) and the first
	// error's code (OK when none).
	GraphQLRequest(opType, operation, code string, took time.Duration)
	WebsocketOpened()
	WebsocketClosed()
}

// NewHandler returns the /graphql endpoint: queries over GET and POST,
// mutations over POST (httpTransport), subscriptions (and anything else)
// over websocket (graphql-transport-ws). A browser opening /graphql is
// sent to the console's explorer at GraphiQLPath.
func NewHandler(cfg HandlerConfig) http.Handler {
	log := cfg.Log
	if cfg.PingInterval <= 0 {
		cfg.PingInterval = 10 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 15 * time.Second
	}
	if cfg.RecheckEvery <= 0 {
		cfg.RecheckEvery = 10 * time.Second
	}
	if cfg.MaxSocketsPerUser <= 0 {
		cfg.MaxSocketsPerUser = DefaultMaxSocketsPerUser
	}
	if cfg.MaxOperationsPerUser <= 0 {
		cfg.MaxOperationsPerUser = DefaultMaxOperationsPerUser
	}
	if cfg.MaxRequestsPerUser <= 0 {
		cfg.MaxRequestsPerUser = DefaultMaxRequestsPerUser
	}
	r := cfg.Resolver
	r.present = errorPresenter(log)
	gcfg := generated.Config{Resolvers: r}
	setComplexity(&gcfg)
	schema := generated.NewExecutableSchema(gcfg)
	srv := handler.New(schema)
	ss := newSockets(r.auth, log, cfg.RecheckEvery, cfg.MaxSocketsPerUser, cfg.MaxOperationsPerUser)
	if cfg.AuthChanges != nil {
		cfg.AuthChanges(ss.changed)
	} else {
		r.auth.OnChange(ss.changed)
	}
	// The websocket transport must come before the HTTP ones.
	srv.AddTransport(transport.Websocket{
		Implementation: wsAccept{opts: coderws.AcceptOptions{OriginPatterns: cfg.OriginPatterns}, writeTimeout: cfg.WriteTimeout},
		InitFunc:       wsInit(r.auth, ss),
		CloseFunc:      ss.closed,
		InitTimeout:    10 * time.Second,
		// graphql-transport-ws only honours PingPongInterval (the server
		// pings, and a client that does not pong within two intervals is
		// cut); KeepAlivePingInterval is for the legacy graphql-ws protocol.
		PingPongInterval:      cfg.PingInterval,
		KeepAlivePingInterval: cfg.PingInterval,
		ErrorFunc: func(ctx context.Context, err error) {
			log.DebugContext(ctx, "graphql: websocket", "err", err)
		},
	})
	srv.AddTransport(transport.Options{})
	srv.AddTransport(httpTransport{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](100)})
	// Before gqlgen parses and validates the query (the pairs its
	// validator would compare); after APQ has put the query in place.
	srv.Use(mergeBudget{})
	// The depth limit measures the operation within a budget before
	// gqlgen's complexity walk, which expands every fragment spread anew
	// (fragments that each spread the next twice would keep it busy for
	// ever).
	srv.Use(depthLimit{max: MaxDepth})
	srv.Use(extension.FixedComplexityLimit(MaxComplexity))
	srv.Use(strictVariables{schema: schema.Schema()})
	srv.Use(oneLogin{})
	srv.SetErrorPresenter(r.present)
	srv.SetRecoverFunc(recoverFunc(log))
	srv.AroundOperations(ss.authorizeNow(r.present))
	srv.AroundOperations(newRequestsInFlight(cfg.MaxRequestsPerUser).bound)
	srv.AroundOperations(withSubscriptionEnd)
	srv.AroundResponses(endSubscriptions)
	// First: an anonymous caller's refused mutation is not audited.
	srv.AroundFields(requireLogin)
	if r.audit != nil {
		srv.AroundFields(auditMutations(r.audit))
	}
	// Every response (a request's, or a subscription event's) gets fresh
	// dataloaders and a fresh memo of the caller's roles.
	srv.AroundResponses(func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		return next(r.withRequestState(ctx))
	})

	if cfg.Observer != nil {
		observe(srv, cfg.Observer)
	}
	if cfg.Tracer.On() {
		traceOperations(srv, cfg.Tracer)
	}

	api := authenticate(cfg.Resolver.auth, cfg.TrustedProxies, log, srv)
	h := &endpoint{api: api, origins: cfg.OriginPatterns, sockets: ss, observer: cfg.Observer}
	return h
}

// endpoint is /graphql in front of gqlgen: it sends browsers to the
// explorer, refuses cross-site requests and bounds bodies.
type endpoint struct {
	api      http.Handler
	origins  []string
	sockets  *sockets
	observer Observer
}

func (h *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if wantsHTML(r) {
		target := GraphiQLPath
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, target, http.StatusFound)
		return
	}
	if r.Header.Get("Upgrade") == "" {
		switch r.Method {
		case http.MethodGet, http.MethodPost, http.MethodOptions:
		default:
			w.Header().Set("Allow", "GET, POST, OPTIONS")
			writeError(w, mediaJSON, &requestError{http.StatusMethodNotAllowed, "use POST (or GET for queries)"})
			return
		}
		// Websockets check their Origin when they are accepted.
		if err := crossSite(r, h.origins); err != nil {
			writeResponse(w, mediaJSON, http.StatusForbidden, &graphql.Response{Errors: gqlerror.List{{
				Message: err.Error(), Extensions: map[string]any{"code": CodeForbidden}}}})
			return
		}
	}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	}
	if h.observer != nil && r.Header.Get("Upgrade") != "" {
		// A websocket is served for as long as it is open.
		h.observer.WebsocketOpened()
		defer h.observer.WebsocketClosed()
	}
	h.api.ServeHTTP(w, r)
}

// requireLogin refuses every root field not marked @public when the caller
// is anonymous. It is the one place authentication is enforced; rights on
// apps are checked by the server packages the resolvers call.
//
// It is a field middleware, not a root-field one, so a refused field is an
// error gqlgen's null handling sees: a refused non-null root field makes
// the whole data null, as the GraphQL spec says. A root-field middleware's
// own null skipped that, and answered {"appStats": null} for an
// AppStats!, which a client typed by the schema cannot expect.
func requireLogin(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !isRootField(fc) || auth.FromContext(ctx) != nil || fc.Field.Name == "__typename" {
		return next(ctx)
	}
	if def := fc.Field.Definition; def != nil && def.Directives.ForName("public") != nil {
		return next(ctx)
	}
	if authErr, ok := ctx.Value(authErrKey{}).(error); ok {
		return nil, authErr
	}
	return nil, fault.ErrUnauthenticated
}

// isRootField tells a field of the operation's root type (Query, Mutation,
// Subscription) from one below it: the only context above a root field is
// its root object's, which has no field.
func isRootField(fc *graphql.FieldContext) bool {
	p := fc.Parent
	for p != nil && p.Field.Field == nil && p.Index == nil {
		p = p.Parent
	}
	return p == nil
}

type authErrKey struct{}

type responseWriterKey struct{}

type secureKey struct{}

// authenticate resolves the caller from `Authorization: Bearer` or the
// session cookie and puts it in the request context, with the client's
// address (for login limits) and whether it came over HTTPS. A bad token
// is not refused here, because @public fields (login) must still work;
// the error is kept for requireLogin to report.
func authenticate(svc *auth.Service, proxies httpsec.Proxies, log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := proxies.ClientOf(r)
		ctx := context.WithValue(r.Context(), responseWriterKey{}, w)
		ctx = context.WithValue(ctx, secureKey{}, client.Secure)
		ctx = auth.WithClientAddr(ctx, client.Addr)
		if r.Header.Get("Upgrade") != "" {
			ctx = withSocket(ctx)
		}
		token, fromCookie, malformed := bearerToken(r)
		if malformed {
			ctx = context.WithValue(ctx, authErrKey{}, fault.Unauthenticated("the Authorization header must be 'Bearer <token>'"))
		}
		if token != "" {
			p, err := svc.Authenticate(ctx, token)
			switch {
			case err == nil:
				ctx = auth.WithPrincipal(ctx, p)
			case errors.Is(err, fault.ErrUnauthenticated):
				if fromCookie {
					clearSessionCookie(w)
				}
				ctx = context.WithValue(ctx, authErrKey{}, err)
			case r.Context().Err() != nil:
				log.DebugContext(ctx, "graphql: the client left while being authenticated", "err", err)
				return
			default:
				log.ErrorContext(ctx, "graphql: authenticating request", "err", err)
				writeResponse(w, mediaJSON, http.StatusServiceUnavailable, &graphql.Response{Errors: gqlerror.List{{
					Message: "authentication is unavailable; try again", Extensions: map[string]any{"code": CodeInternal}}}})
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// setSessionCookie gives the browser the session as an HTTP-only cookie,
// Secure when the client came over HTTPS. SameSite=Strict keeps other
// sites' links and forms from carrying it; pages of the same site on
// another port are kept out by crossSite.
func setSessionCookie(ctx context.Context, token string, expires time.Time) {
	w, ok := ctx.Value(responseWriterKey{}).(http.ResponseWriter)
	if !ok {
		return // a websocket operation; there is no response to set it on
	}
	secure, _ := ctx.Value(secureKey{}).(bool)
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: token, Path: "/", Expires: expires,
		HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode,
	})
}

func clearSessionCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
}
