package graph

import (
	"context"
	"errors"

	"github.com/99designs/gqlgen/graphql"

	"github.com/jobwheel/jobwheel/server/api/audit"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/live"
)

// auditMutations records every mutation's root field in the audit log:
// the object as it was before the resolver ran, and as it is after.
// Fields below the root, and queries, pass straight through.
func auditMutations(log *audit.Service) graphql.FieldMiddleware {
	return func(ctx context.Context, next graphql.Resolver) (any, error) {
		fc := graphql.GetFieldContext(ctx)
		if fc == nil || fc.Object != "Mutation" || fc.Field.Name == "__typename" {
			return next(ctx)
		}
		rec := log.Begin(ctx, fc.Field.Name, fc.Args)
		// A service may write the entry with its change (runJob).
		res, err := next(audit.WithRecord(ctx, rec))
		code := outcomeCode(ctx, err)
		rec.End(ctx, res, code, outcomeMessage(code, err))
		return res, err
	}
}

// outcomeCode is the code an error will be answered with (errorPresenter's
// cases), or "" for none.
func outcomeCode(ctx context.Context, err error) string {
	if err == nil {
		return ""
	}
	var (
		input   *fault.Input
		limited *fault.Limited
		coded   *live.Error
	)
	switch {
	case errors.As(err, &input):
		return CodeBadInput
	case errors.As(err, &limited):
		return CodeRateLimited
	case errors.Is(err, fault.ErrUnauthenticated):
		return CodeUnauthenticated
	case errors.Is(err, fault.ErrForbidden):
		return CodeForbidden
	case errors.Is(err, fault.ErrNotFound):
		return CodeNotFound
	case errors.Is(err, fault.ErrConflict):
		return CodeConflict
	case errors.As(err, &coded):
		return coded.Code()
	case ctx.Err() != nil:
		return CodeUnavailable
	}
	return CodeInternal
}

// outcomeMessage is what the caller of a refused mutation reads (as
// errorPresenter words it), for the audit log: never an internal error's
// details, which only the server log has.
func outcomeMessage(code string, err error) string {
	if err == nil {
		return ""
	}
	var input *fault.Input
	switch {
	case errors.As(err, &input):
		if input.Field == "" {
			return input.Reason
		}
		return input.Field + ": " + input.Reason
	case code == CodeInternal:
		return "internal error (the server log has the details)"
	case code == CodeUnavailable:
		return "the request was cancelled before it finished"
	}
	return err.Error()
}

// nonEmpty is s, or nil when it is empty (a nullable field).
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// intOr is *p, or def when p is nil.
func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}
