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
// requests of 9 appStats each counted the app's instances 900 times at
// once, and another app's workflow ran 3 s late. Callers that come while
// an app's counts are being read, whatever window they ask for, wait for
// that read: the instances are counted once.
func TestStatsCountedOnceForConcurrentCallers(t *testing.T) {
	t.Parallel()
	// PostgreSQL: on SQLite's one connection, callers that read on their
	// own would wait for the held read instead of showing themselves.
	d := dbtest.Open(t, db.Postgres)
	w := newWorld(t, d)
	h := &holdOutcomes{first: make(chan struct{}), release: make(chan struct{})}
	d.Bun().AddQueryHook(h)
	hours := []int{24, 1, 168, 24, 6, 24, 72, 12}
	errs := make(chan error, len(hours))
	call := func(hours int, who context.Context) {
		st, err := w.svc.Stats(who, "a", hours)
		if err == nil && st.Hours != hours {
			t.Errorf("asked for %d hours, got %d", hours, st.Hours)
		}
		errs <- err
	}
	go call(hours[0], w.vi)
	<-h.first // the first caller's counts are being read
	for i, hr := range hours[1:] {
		who := w.vi
		if i%2 == 0 {
			who = w.ed
		}
		go call(hr, who)
	}
	// Each of the others joins it or reads on its own; then it may end.
	for jobs.CountsJoined(w.svc)+int64(h.reads.Load())-1 < int64(len(hours)-1) {
		runtime.Gosched()
	}
	close(h.release)
	for range hours {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if r := h.reads.Load(); r != 1 {
		t.Errorf("%d concurrent callers counted the outcomes %d times; want once", len(hours), r)
	}
	// A caller after the read reads afresh.
	if _, err := w.svc.Stats(w.vi, "a", 24); err != nil {
		t.Fatal(err)
	}
	if r := h.reads.Load(); r != 2 {
		t.Errorf("a later caller: %d reads in all; want 2", r)
	}
}

// holdOutcomes counts the reads of instance outcomes and holds the first
// until released.
type holdOutcomes struct {
	reads          atomic.Int32
	first, release chan struct{}
}

func (h *holdOutcomes) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if strings.Contains(e.Query, "AS hour, status") && h.reads.Add(1) == 1 {
		close(h.first)
		<-h.release
	}
	return ctx
}

func (h *holdOutcomes) AfterQuery(context.Context, *bun.QueryEvent) {}
