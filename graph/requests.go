package graph

import (
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"

	"github.com/jobwheel/jobwheel/server/api/auth"
)

// DefaultMaxRequestsPerUser is HandlerConfig.MaxRequestsPerUser's default.
// The attacker probe (G21) sent 200 requests at once, each three pages of
// 500 instances with their attempts and log lines, every one within the
// complexity budget, as one EDITOR: the server held 2 GB and took 40 s of
// CPU answering them, and another app's fires ran up to 2.4 s late.
// Websocket operations have bounds of their own (wsauth.go).
const DefaultMaxRequestsPerUser = 32

// requestsInFlight counts the HTTP operations each principal has under
// way on this server, and refuses the next past max with RATE_LIMITED
// before it runs: a user's parallel requests cost at most max requests'
// memory and database connections, whatever each is within its budget.
type requestsInFlight struct {
	max   int
	mu    sync.Mutex
	byKey map[string]int
}

func newRequestsInFlight(max int) *requestsInFlight {
	return &requestsInFlight{max: max, byKey: map[string]int{}}
}

// bound is the operation middleware. Anonymous operations (logins) and
// websocket ones are not counted here.
func (q *requestsInFlight) bound(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	p := auth.FromContext(ctx)
	if p == nil || socketFrom(ctx) != nil {
		return next(ctx)
	}
	key := principalKey(p)
	q.mu.Lock()
	if q.byKey[key] >= q.max {
		q.mu.Unlock()
		return rateLimited("you have %d API requests under way on this server, the most one user or token may have; wait for one to end", q.max)
	}
	q.byKey[key]++
	q.mu.Unlock()
	// The request's context ends when its answer has been written.
	context.AfterFunc(ctx, func() {
		q.mu.Lock()
		if q.byKey[key]--; q.byKey[key] <= 0 {
			delete(q.byKey, key)
		}
		q.mu.Unlock()
	})
	return next(ctx)
}
