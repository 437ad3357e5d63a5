package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql/handler/transport"

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
			transport.AddSubscriptionError(ctx, r.present(ctx, err))
		}
	}()
	return out
}
