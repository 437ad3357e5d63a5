package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobwheel/jobwheel/internal/tracing"
)

// traceOperations gives each operation a span ("graphql mutation
// runJob"), installed only when tracing is on. A job run through the API
// is traced under it: the instance remembers the span, and its fire's span
// is the child (package execution).
func traceOperations(srv interface {
	AroundOperations(graphql.OperationMiddleware)
}, tracer tracing.Tracer) {
	srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		oc := graphql.GetOperationContext(ctx)
		name, opType := "invalid", "invalid"
		if oc.Operation != nil {
			opType, name = string(oc.Operation.Operation), rootField(oc.Operation)
		}
		ctx, span := tracer.Start(ctx, "graphql "+opType+" "+name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
			attribute.String("graphql.operation.type", opType),
			attribute.String("graphql.operation.name", oc.OperationName),
			attribute.String("graphql.root_field", name),
		))
		h := next(ctx)
		if oc.Operation != nil && oc.Operation.Operation == ast.Subscription {
			// A stream: its span covers the start only.
			span.End()
			return h
		}
		return func(ctx context.Context) *graphql.Response {
			resp := h(ctx)
			if resp != nil && len(resp.Errors) > 0 {
				code, _ := resp.Errors[0].Extensions["code"].(string)
				span.SetStatus(codes.Error, code+": "+resp.Errors[0].Message)
			}
			span.End()
			return resp
		}
	})
}
