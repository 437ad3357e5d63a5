package graph

import (
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/jobwheel/jobwheel/server/platform/live"
)

// forward hands a live stream to gqlgen. When the stream ends with an
// error (a slow consumer, lost rights, a shutdown), the error is sent to
// the client in the API's error shape before the subscription completes.
func forward[T any](ctx context.Context, r *Resolver, s *live.Stream[T]) <-chan T {
	out := make(chan T)
	go func() {
		defer close(out)
		for v := range s.C {
			select {
			case out <- v:
			case <-ctx.Done():
				return
			}
		}
		if err := s.Err(); err != nil && ctx.Err() == nil {
			if end := subscriptionEndOf(ctx); end != nil {
				end.set(r.present(ctx, err))
			} else {
				transport.AddSubscriptionError(ctx, r.present(ctx, err))
			}
		}
	}()
	return out
}

// subscriptionEnd carries the error a subscription's stream ended with
// from the goroutine forwarding it to gqlgen's own. gqlgen reads a
// subscription's errors (transport.AddSubscriptionError) in its websocket
// goroutine once the subscription ends, which it also does when the
// operation's context is cancelled without waiting for the stream's
// channel to close: an error added from the forwarding goroutine then
// raced that read (the race detector caught it when a revoked token ended
// a subscription and closed its socket at once). So the forwarding
// goroutine leaves the error here before it closes the channel, and
// endSubscriptions adds it from gqlgen's goroutine when the stream ends.
type subscriptionEnd struct {
	mu  sync.Mutex
	err *gqlerror.Error
}

type subscriptionEndKey struct{}

func (e *subscriptionEnd) set(err *gqlerror.Error) {
	e.mu.Lock()
	e.err = err
	e.mu.Unlock()
}

func (e *subscriptionEnd) take() *gqlerror.Error {
	e.mu.Lock()
	defer e.mu.Unlock()
	err := e.err
	e.err = nil
	return err
}

func subscriptionEndOf(ctx context.Context) *subscriptionEnd {
	e, _ := ctx.Value(subscriptionEndKey{}).(*subscriptionEnd)
	return e
}

// withSubscriptionEnd (AroundOperations) gives a subscription the place
// its resolvers leave the error its stream ended with.
func withSubscriptionEnd(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if oc := graphql.GetOperationContext(ctx); oc.Operation == nil || oc.Operation.Operation != ast.Subscription {
		return next(ctx)
	}
	return next(context.WithValue(ctx, subscriptionEndKey{}, &subscriptionEnd{}))
}

// endSubscriptions (AroundResponses) adds, in gqlgen's goroutine, the
// error a subscription's stream ended with, once the stream has ended.
func endSubscriptions(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil {
		if end := subscriptionEndOf(ctx); end != nil {
			if err := end.take(); err != nil {
				transport.AddSubscriptionError(ctx, err)
			}
		}
	}
	return resp
}
