package graph

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/live"
)

// Error codes in extensions.code (docs/design.md §9.4).
const (
	CodeUnauthenticated = "UNAUTHENTICATED"
	CodeForbidden       = "FORBIDDEN"
	CodeBadInput        = "BAD_INPUT"
	CodeNotFound        = "NOT_FOUND"
	CodeConflict        = "CONFLICT"
	CodeInternal        = "INTERNAL"
	// CodeRateLimited: too many attempts (logins); extensions.retryAfter
	// says in how many seconds to try again.
	CodeRateLimited = "RATE_LIMITED"
	// Subscriptions only: the client did not keep up, or the server is
	// stopping; subscribe again.
	CodeSlowConsumer = "SLOW_CONSUMER"
	CodeUnavailable  = "UNAVAILABLE"
)

// errorPresenter gives every error one shape: a message for people and
// extensions.code for programs (plus extensions.field for BAD_INPUT).
// Errors the server did not mean to show are logged with a reference and
// replaced by that reference, so internals never leak.
func errorPresenter(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		var (
			input   *fault.Input
			coded   *live.Error
			limited *fault.Limited
			code    string
		)
		switch {
		case errors.As(err, &input):
			code = CodeBadInput
			field := input.Field
			if field == "" {
				// A scalar's own check (Time): the field is where it was.
				field = argumentField(gqlErr.Path)
			}
			gqlErr.Message = field + ": " + input.Reason
			setExt(gqlErr, "field", field)
		case errors.As(err, &limited):
			code = CodeRateLimited
			gqlErr.Message = limited.Error()
			setExt(gqlErr, "retryAfter", int(limited.RetryAfter.Seconds()))
		case errors.Is(err, fault.ErrUnauthenticated):
			code = CodeUnauthenticated
		case errors.Is(err, fault.ErrForbidden):
			code = CodeForbidden
		case errors.Is(err, fault.ErrNotFound):
			code = CodeNotFound
		case errors.Is(err, fault.ErrConflict):
			code = CodeConflict
		case errors.As(err, &coded):
			code = coded.Code()
		case gqlErr.Extensions["code"] == CodeBadInput && gqlErr.Err == nil:
			// Made by this package's own extensions (the depth limit).
			code = CodeBadInput
		case isGraphQLRequestError(gqlErr), isTransportError(err, gqlErr):
			// Parse and validation errors from gqlgen are about the request
			// the caller wrote; their messages are meant for them.
			code = CodeBadInput
			if field := variableField(gqlErr.Path); field != "" {
				setExt(gqlErr, "field", field)
				if name, ok := gqlErr.Path[1].(ast.PathName); ok && !strings.Contains(gqlErr.Message, "$"+string(name)) {
					gqlErr.Message = "variable $" + string(name) + ": " + gqlErr.Message
				}
			}
		case ctx.Err() != nil:
			// The client went away (or the server is stopping) while the
			// request ran: not a server error, and nobody reads the answer.
			log.DebugContext(ctx, "graphql: request ended before it finished", "path", gqlErr.Path.String(), "err", err)
			gqlErr.Message = "the request was cancelled before it finished"
			code = CodeUnavailable
		default:
			ref := newRef()
			log.ErrorContext(ctx, "graphql: internal error", "ref", ref, "path", gqlErr.Path.String(), "err", err)
			gqlErr.Message = fmt.Sprintf("internal error (reference %s; the server log has the details)", ref)
			code = CodeInternal
		}
		setExt(gqlErr, "code", code)
		return gqlErr
	}
}

func isGraphQLRequestError(e *gqlerror.Error) bool {
	c, _ := e.Extensions["code"].(string)
	return c == errcode.ValidationFailed || c == errcode.ParseFailed ||
		c == "COMPLEXITY_LIMIT_EXCEEDED" || c == "PERSISTED_QUERY_NOT_FOUND"
}

// isTransportError reports whether gqlgen itself made the error about the
// request (a form it could not decode, say): such errors wrap no cause and
// have no path.
func isTransportError(err error, e *gqlerror.Error) bool {
	var g *gqlerror.Error
	return errors.As(err, &g) && g.Err == nil && len(e.Path) == 0 && e.Extensions["code"] == nil
}

func setExt(e *gqlerror.Error, k string, v any) {
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions[k] = v
}

// recoverFunc turns a resolver panic into an internal error after logging it.
func recoverFunc(log *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		log.ErrorContext(ctx, "graphql: panic in resolver", "panic", p, "stack", string(debug.Stack()))
		return fmt.Errorf("panic: %v", p)
	}
}

func newRef() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// variableField names the input field a variable coercion error is about:
// the path ["variable", "in", "workerFilter", "maxWorkers"] names
// "workerFilter.maxWorkers" (the variable itself when it is a scalar).
func variableField(path ast.Path) string {
	if len(path) < 2 || path[0] != ast.PathName("variable") {
		return ""
	}
	var parts []string
	for _, el := range path[2:] {
		if name, ok := el.(ast.PathName); ok {
			parts = append(parts, string(name))
		}
	}
	if len(parts) == 0 {
		if name, ok := path[1].(ast.PathName); ok {
			return string(name)
		}
	}
	return strings.Join(parts, ".")
}

// argumentField names the argument (or input field) at the end of an
// argument error's path.
func argumentField(path ast.Path) string {
	for i := len(path) - 1; i >= 0; i-- {
		if name, ok := path[i].(ast.PathName); ok {
			return string(name)
		}
	}
	return ""
}
