package bus

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/lifecycle/startstoptest"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// recorder collects hints; wait blocks until one arrives.
type recorder struct {
	mu  sync.Mutex
	got []string
	ch  chan struct{}
}

func newRecorder() *recorder { return &recorder{ch: make(chan struct{}, 100)} }

func (r *recorder) handle(topic, data string) {
	r.mu.Lock()
	r.got = append(r.got, topic+" "+data)
	r.mu.Unlock()
	r.ch <- struct{}{}
}

func (r *recorder) wait(t *testing.T) {
	t.Helper()
	select {
	case <-r.ch:
	case <-time.After(30 * time.Second):
		t.Fatal("no hint arrived")
	}
}

func TestHintsCrossServers(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.Postgres)
	ns := d.Namespace()
	if ns == "" {
		t.Fatal("test schema has no namespace")
	}
	log := slog.New(slog.DiscardHandler)
	a := New("a", ns, d.Bun(), log)
	b := New("b", ns, d.Bun(), log)
	ra, rb := newRecorder(), newRecorder()
	a.Subscribe("jobs", ra.handle)
	b.Subscribe("jobs", rb.handle)
	reconnected := make(chan struct{}, 1)
	b.OnReconnect(func() { reconnected <- struct{}{} })
	ctx := context.Background()
	a.Start(ctx)
	b.Start(ctx)
	t.Cleanup(a.Stop)
	t.Cleanup(b.Stop)
	select {
	case <-reconnected: // b listens now
	case <-time.After(30 * time.Second):
		t.Fatal("b never started listening")
	}

	// Published many times at once: delivered locally each time, sent once.
	for i := 0; i < 5; i++ {
		a.Publish("jobs", "app:7")
	}
	for i := 0; i < 5; i++ {
		ra.wait(t)
	}
	rb.wait(t)
	a.Stop()
	b.Stop()
	rb.mu.Lock()
	defer rb.mu.Unlock()
	if len(rb.got) != 1 || rb.got[0] != "jobs app:7" {
		t.Fatalf("b got %q; want one coalesced hint", rb.got)
	}
	ra.mu.Lock()
	defer ra.mu.Unlock()
	if len(ra.got) != 5 {
		t.Fatalf("a got its own hints %d times; want 5 (local), and no echo", len(ra.got))
	}
}

func TestInProcessOnly(t *testing.T) {
	t.Parallel()
	b := New("solo", "", nil, slog.New(slog.DiscardHandler))
	r := newRecorder()
	b.Subscribe("logs", r.handle)
	b.Start(context.Background())
	b.Publish("logs", "9:12")
	r.wait(t)
	b.Stop()
}

// TestStartStop: the bus keeps the lifecycle contract on PostgreSQL (its
// listener and flusher end with it) and carries hints again after a
// restart.
func TestStartStop(t *testing.T) {
	d := dbtest.Open(t, db.Postgres)
	log := slog.New(slog.DiscardHandler)
	a := New("a", d.Namespace(), d.Bun(), log)
	startstoptest.Stress(t, a)

	b := New("b", d.Namespace(), d.Bun(), log)
	r := newRecorder()
	b.Subscribe("jobs", r.handle)
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	testkit.Eventually(t, "a hint from a restarted bus to reach another server", func() bool {
		a.Publish("jobs", "3")
		select {
		case <-r.ch:
			return true
		case <-time.After(100 * time.Millisecond):
			return false
		}
	})
}
