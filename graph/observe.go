package graph

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// observe tells o of every operation srv answers. Queries and mutations
// are counted with their first error's code when their response is
// complete; a subscription once, when it starts; a request that did not
// parse or validate as type and operation "invalid".
func observe(srv interface {
	AroundResponses(graphql.ResponseMiddleware)
	AroundOperations(graphql.OperationMiddleware)
}, o Observer) {
	srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		if oc := graphql.GetOperationContext(ctx); oc.Operation != nil && oc.Operation.Operation == ast.Subscription {
			o.GraphQLRequest(string(ast.Subscription), rootField(oc.Operation), "OK", 0)
		}
		return next(ctx)
	})
	srv.AroundResponses(func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		resp := next(ctx)
		opType, op, took := "invalid", "invalid", time.Duration(0)
		if graphql.HasOperationContext(ctx) {
			oc := graphql.GetOperationContext(ctx)
			if oc.Operation != nil {
				if oc.Operation.Operation == ast.Subscription {
					return resp // counted when it started
				}
				opType, op = string(oc.Operation.Operation), rootField(oc.Operation)
				took = time.Since(oc.Stats.OperationStart)
			}
		}
		code := "OK"
		if resp != nil && len(resp.Errors) > 0 {
			code = CodeInternal
			if c, ok := resp.Errors[0].Extensions["code"].(string); ok && c != "" {
				code = c
			}
		}
		o.GraphQLRequest(opType, op, code, took)
		return resp
	})
}

// rootField names an operation by its first root field other than
// __typename: bounded by the schema, unlike the operation's own name.
func rootField(op *ast.OperationDefinition) string {
	for _, sel := range op.SelectionSet {
		if f, ok := sel.(*ast.Field); ok && f.Name != "__typename" {
			return f.Name
		}
	}
	return "__typename"
}
