package jobs_test

import (
	"context"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/uptrace/bun"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/server/api/jobs"
)

// The attacker probe (docs/security.md, "Attacker probe"): 100 parallel
// dashboard requests each missed the lag memo while the first was still
// computing it, and each read up to 20,000 instances, taking the database
// connections another app's schedule needed. Callers that come while a
// lag is being computed wait for it: the instances are read once.
func TestLagComputedOnceForConcurrentCallers(t *testing.T) {
	t.Parallel()
	// PostgreSQL: on SQLite's one connection, callers that read on their
	// own would wait for the held read instead of showing themselves.
	d := dbtest.Open(t, db.Postgres)
	w := newWorld(t, d)
	st, err := w.svc.Stats(w.vi, "a", 24)
	if err != nil {
		t.Fatal(err)
	}
	h := &holdTimings{first: make(chan struct{}), release: make(chan struct{})}
	d.Bun().AddQueryHook(h)
	const n = 8
	errs := make(chan error, n)
	call := func() {
		_, err := w.svc.Lag(w.vi, st)
		errs <- err
	}
	go call()
	<-h.first // the first computation is reading
	for range n - 1 {
		go call()
	}
	// Each of the others joins it or reads on its own; then it may end.
	for jobs.LagJoined(w.svc)+int64(h.reads.Load())-1 < n-1 {
		runtime.Gosched()
	}
	close(h.release)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if r := h.reads.Load(); r != 1 {
		t.Errorf("%d concurrent callers read the instances %d times; want once", n, r)
	}
}

// holdTimings counts the reads of instance timings and holds the first
// until released.
type holdTimings struct {
	reads          atomic.Int32
	first, release chan struct{}
}

func (h *holdTimings) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if strings.Contains(e.Query, "finished_at DESC") && h.reads.Add(1) == 1 {
		close(h.first)
		<-h.release
	}
	return ctx
}

func (h *holdTimings) AfterQuery(context.Context, *bun.QueryEvent) {}
