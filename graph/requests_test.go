package graph

import (
	"context"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/server/api/auth"
)

// The attacker probe's G21: one user's parallel requests, each within the
// complexity budget, are bounded in number per server. Past the bound the
// next is refused with RATE_LIMITED before it runs; one ending frees its
// place; another user, an API token of the same user, and anonymous
// calls are not held back.
func TestRequestsPerUserBounded(t *testing.T) {
	q := newRequestsInFlight(2)
	ran := 0
	next := func(ctx context.Context) graphql.ResponseHandler {
		ran++
		return graphql.OneShot(&graphql.Response{})
	}
	as := func(p *auth.Principal) (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		if p != nil {
			ctx = auth.WithPrincipal(ctx, p)
		}
		return ctx, cancel
	}
	refused := func(h graphql.ResponseHandler) bool {
		r := h(context.Background())
		return len(r.Errors) == 1 && r.Errors[0].Extensions["code"] == CodeRateLimited &&
			strings.Contains(r.Errors[0].Message, "2 API requests under way")
	}
	alice := &auth.Principal{User: db.User{ID: 1}}
	first, endFirst := as(alice)
	second, endSecond := as(alice)
	defer endSecond()
	for _, ctx := range []context.Context{first, second} {
		if refused(q.bound(ctx, next)) {
			t.Fatal("a request within the bound was refused")
		}
	}
	third, endThird := as(alice)
	defer endThird()
	if !refused(q.bound(third, next)) || ran != 2 {
		t.Fatalf("the third request under way was not refused (ran %d)", ran)
	}
	for _, p := range []*auth.Principal{{User: db.User{ID: 2}}, {User: db.User{ID: 1}, Token: &db.APIToken{ID: 7}}, nil} {
		ctx, end := as(p)
		if refused(q.bound(ctx, next)) {
			t.Fatalf("%+v was held back by alice's requests", p)
		}
		end()
	}
	endFirst() // its answer written: a place is free (released on a goroutine of its own)
	testkit.Eventually(t, "the ended request's place freed", func() bool {
		ctx, end := as(alice)
		defer end()
		return !refused(q.bound(ctx, next))
	})
}
