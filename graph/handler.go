package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/99designs/gqlgen/graphql/playground"
	coderws "github.com/coder/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/jobwheel/jobwheel/graph/generated"
	"github.com/jobwheel/jobwheel/server/auth"
	"github.com/jobwheel/jobwheel/server/fault"
)

// SessionCookie is the HTTP-only cookie that carries a console login.
const SessionCookie = "jobwheel_session"

// Limits on what one request may ask for.
const (
	// MaxComplexity bounds the fields one operation may resolve: each field
	// counts 1, and a paged list (jobs, instances, an instance's logs, a
	// job's upcoming fires) multiplies what it selects by its page size, so
	// 500 instances with 25 fields each pass and 500 instances with 1000 log
	// lines each do not.
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
	// OriginPatterns are the extra origins (host[:port] patterns) allowed to
	// open subscription websockets; the server's own origin always is.
	OriginPatterns []string
	// PingInterval is how often websocket clients are pinged; one that has
	// not answered (pong) within two intervals is disconnected. Default 10s.
	PingInterval time.Duration
	// WriteTimeout bounds one websocket write: a client that stops reading
	// is disconnected after it, so it holds no server memory. Default 15s.
	WriteTimeout time.Duration
}

// NewHandler returns the /graphql endpoint: queries and mutations over POST,
// subscriptions over websocket (graphql-transport-ws), and GraphiQL for a
// browser's GET.
func NewHandler(cfg HandlerConfig) http.Handler {
	log := cfg.Log
	if cfg.PingInterval <= 0 {
		cfg.PingInterval = 10 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 15 * time.Second
	}
	r := cfg.Resolver
	r.present = errorPresenter(log)
	gcfg := generated.Config{Resolvers: r}
	setComplexity(&gcfg)
	srv := handler.New(generated.NewExecutableSchema(gcfg))
	// The websocket transport must come before the HTTP ones.
	srv.AddTransport(transport.Websocket{
		Implementation: writeTimeout{inner: transport.CoderWebsocketImplementation{AcceptOptions: coderws.AcceptOptions{
			OriginPatterns: cfg.OriginPatterns,
		}}, timeout: cfg.WriteTimeout},
		InitFunc:    wsInit(r.auth),
		InitTimeout: 10 * time.Second,
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
	srv.AddTransport(transport.POST{})
	// `curl -d '{"query":…}'` sends a form content type. Accepting it is safe
	// because the session cookie is SameSite=Strict, so another site's form
	// cannot post with it.
	srv.AddTransport(transport.UrlEncodedForm{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](100)})
	srv.Use(extension.FixedComplexityLimit(MaxComplexity))
	srv.Use(depthLimit{max: MaxDepth})
	srv.SetErrorPresenter(r.present)
	srv.SetRecoverFunc(recoverFunc(log))
	srv.AroundRootFields(requireLogin)
	// Every response (a request's, or a subscription event's) gets fresh
	// dataloaders and a fresh memo of the caller's roles.
	srv.AroundResponses(func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		return next(r.withRequestState(ctx))
	})

	graphiql := playground.Handler("jobwheel GraphQL", "/graphql")
	api := authenticate(cfg.Resolver.auth, log, srv)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Upgrade") == "" && strings.Contains(r.Header.Get("Accept"), "text/html") {
			graphiql.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
			if !checkBody(w, r) {
				return
			}
		}
		api.ServeHTTP(w, r)
	})
}

// checkBody reads a JSON POST's body and refuses one that is too large or
// not JSON with a GraphQL error of code BAD_INPUT (gqlgen would echo the
// whole body back in its message); the body is then handed on.
func checkBody(w http.ResponseWriter, r *http.Request) bool {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return true
	}
	body, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeRequestError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", MaxBodyBytes))
		return false
	case err != nil:
		writeRequestError(w, http.StatusBadRequest, "the request body could not be read: "+err.Error())
		return false
	case !json.Valid(body):
		writeRequestError(w, http.StatusBadRequest, "the request body is not valid JSON: send {\"query\": \"…\", \"variables\": {…}}")
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return true
}

func writeRequestError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]any{{
		"message": msg, "extensions": map[string]any{"code": CodeBadInput}}}})
}

// requireLogin refuses every root field not marked @public when the caller
// is anonymous. It is the one place authentication is enforced; rights on
// apps are checked by the server packages the resolvers call.
func requireLogin(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	rc := graphql.GetRootFieldContext(ctx)
	if rc == nil || auth.FromContext(ctx) != nil || rc.Field.Name == "__typename" {
		return next(ctx)
	}
	if def := rc.Field.Definition; def != nil && def.Directives.ForName("public") != nil {
		return next(ctx)
	}
	err := fault.ErrUnauthenticated
	if authErr, ok := ctx.Value(authErrKey{}).(error); ok {
		err = authErr
	}
	graphql.AddError(ctx, err)
	return graphql.Null
}

type authErrKey struct{}

type responseWriterKey struct{}

// authenticate resolves the caller from `Authorization: Bearer` or the
// session cookie and puts it in the request context. A bad token is not
// refused here, because @public fields (login) must still work; the error
// is kept for requireLogin to report.
func authenticate(svc *auth.Service, log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(r.Context(), responseWriterKey{}, w)
		token, fromCookie := bearerToken(r)
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
			default:
				log.ErrorContext(ctx, "graphql: authenticating request", "err", err)
				http.Error(w, "authentication is unavailable; try again", http.StatusServiceUnavailable)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

func bearerToken(r *http.Request) (token string, fromCookie bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		if t, ok := strings.CutPrefix(h, "Bearer "); ok {
			return strings.TrimSpace(t), false
		}
		return "", false
	}
	if c, err := r.Cookie(SessionCookie); err == nil {
		return c.Value, true
	}
	return "", false
}

// wsInit authenticates a websocket from its connection_init payload
// ({"Authorization": "Bearer <token>"}), falling back to the session cookie
// of the upgrade request. An anonymous websocket is refused.
func wsInit(svc *auth.Service) transport.WebsocketInitFunc {
	return func(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
		if h := payload.Authorization(); h != "" {
			t, ok := strings.CutPrefix(h, "Bearer ")
			if !ok {
				return refuse(ctx, fault.Unauthenticated("connection_init: Authorization must be 'Bearer <token>'"))
			}
			p, err := svc.Authenticate(ctx, strings.TrimSpace(t))
			if err != nil {
				return refuse(ctx, err)
			}
			return auth.WithPrincipal(ctx, p), nil, nil
		}
		if auth.FromContext(ctx) != nil {
			return ctx, nil, nil
		}
		return refuse(ctx, fault.ErrUnauthenticated)
	}
}

// Close codes of a refused websocket (graphql-transport-ws: 4403 is
// "Forbidden", which clients such as graphql-ws do not retry).
const (
	closeUnauthenticated = 4403
	closeInternal        = 1011
)

// refuse closes a websocket whose connection_init failed, with a close
// code and a reason "<CODE>: <message>" (at most 123 bytes, the limit of a
// close frame). Internal failures say no more than that.
func refuse(ctx context.Context, err error) (context.Context, *transport.InitPayload, error) {
	code, reason := closeUnauthenticated, CodeUnauthenticated+": "+err.Error()
	if !errors.Is(err, fault.ErrUnauthenticated) {
		code, reason = closeInternal, CodeInternal+": authentication is unavailable; try again"
	}
	if len(reason) > 123 {
		reason = reason[:120] + "..."
	}
	ctx = transport.WithWebsocketCloseCode(ctx, code)
	ctx = transport.AppendCloseReason(ctx, reason)
	return ctx, nil, errors.New(reason)
}

// setSessionCookie gives the browser the session as an HTTP-only cookie.
// SameSite=Strict plus the JSON-only POST transport keep other sites from
// riding on it.
func setSessionCookie(ctx context.Context, token string, expires time.Time) {
	w, ok := ctx.Value(responseWriterKey{}).(http.ResponseWriter)
	if !ok {
		return // a websocket operation; there is no response to set it on
	}
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: token, Path: "/", Expires: expires,
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
}

func clearSessionCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
}

// depthLimit refuses operations nested deeper than max, before any
// resolver runs.
type depthLimit struct{ max int }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit{}

func (depthLimit) ExtensionName() string                          { return "DepthLimit" }
func (depthLimit) Validate(schema graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(ctx context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	op := opCtx.Doc.Operations.ForName(opCtx.OperationName)
	if op == nil {
		return nil
	}
	if depth := selectionDepth(op.SelectionSet, opCtx.Doc.Fragments, 0); depth > d.max {
		err := gqlerror.Errorf("operation is nested %d levels deep; the limit is %d", depth, d.max)
		err.Extensions = map[string]any{"code": CodeBadInput}
		return err
	}
	return nil
}

func selectionDepth(set ast.SelectionSet, frags ast.FragmentDefinitionList, seen int) int {
	if seen > 64 { // fragment cycles are rejected by validation; this is a guard
		return seen
	}
	deepest := seen
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if len(s.SelectionSet) == 0 {
				d = seen + 1
			} else {
				d = selectionDepth(s.SelectionSet, frags, seen+1)
			}
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, frags, seen)
		case *ast.FragmentSpread:
			if f := frags.ForName(s.Name); f != nil {
				d = selectionDepth(f.SelectionSet, frags, seen)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}
