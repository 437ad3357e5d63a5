package graph

import (
	"io"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/jobwheel/jobwheel/graph/generated"
)

// setComplexity makes paged lists count their selection once per item
// they may return, clamped to each list's own limit (a larger page is
// refused by the resolver anyway, and clamping keeps the products from
// overflowing).
func setComplexity(c *generated.Config) {
	q := &c.Complexity
	q.Query.Instances = func(child int, _ string, _ *string, _ []string, _, _ *time.Time, first *int, _ *string) int {
		return 1 + times(page(first, 50, 500), child)
	}
	q.Query.Jobs = func(child int, _ string, first *int, _ *string, _ *string) int {
		return 1 + times(page(first, 50, 500), child)
	}
	q.Query.Workflows = func(child int, _ string, _ *string, first *int, _ *string) int {
		return 1 + times(page(first, 50, 500), child)
	}
	q.Query.WorkflowInstances = func(child int, _ string, _ *string, _ []string, first *int, _ *string) int {
		return 1 + times(page(first, 50, 500), child)
	}
	q.Instance.Logs = func(child int, _ *int, first *int) int {
		return 1 + times(page(first, 200, 1000), child)
	}
	q.Job.Upcoming = func(child int, count *int) int {
		return 1 + page(count, 5, 100)
	}
	q.Query.PreviewSchedule = func(child int, _ string, _ string, _ *string, count *int, _ *time.Time) int {
		return 1 + page(count, 5, 100)
	}
}

func page(n *int, def, limit int) int {
	switch {
	case n == nil:
		return def
	case *n < 1:
		return 1
	case *n > limit:
		return limit
	}
	return *n
}

// times multiplies, saturating far above any limit.
func times(a, b int) int {
	const ceiling = 1 << 40
	if a > 0 && b > ceiling/a {
		return ceiling
	}
	return a * b
}

// writeTimeout wraps a websocket implementation so one write may take at
// most timeout: a client that stops reading is disconnected instead of
// blocking its connection's writer (and every subscription on it) forever.
type writeTimeout struct {
	inner   transport.WebsocketImplementation
	timeout time.Duration
}

func (w writeTimeout) Accept(rw http.ResponseWriter, r *http.Request, opts transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	c, err := w.inner.Accept(rw, r, opts)
	if err != nil {
		return nil, err
	}
	return &timedConn{WebsocketConn: c, timeout: w.timeout}, nil
}

type timedConn struct {
	transport.WebsocketConn
	timeout time.Duration
}

var (
	_ transport.WebsocketReadLimiter   = (*timedConn)(nil)
	_ transport.WebsocketReadDeadliner = (*timedConn)(nil)
	_ io.Closer                        = (*timedConn)(nil)
)

func (c *timedConn) WriteJSON(v any) error {
	t := time.AfterFunc(c.timeout, func() { _ = c.WebsocketConn.Close() })
	defer t.Stop()
	return c.WebsocketConn.WriteJSON(v)
}

func (c *timedConn) SetReadLimit(limit int64) {
	if l, ok := c.WebsocketConn.(transport.WebsocketReadLimiter); ok {
		l.SetReadLimit(limit)
	}
}

func (c *timedConn) SetReadDeadline(t time.Time) error {
	if d, ok := c.WebsocketConn.(transport.WebsocketReadDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return nil
}
