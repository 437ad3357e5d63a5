package live_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/lifecycle/startstoptest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/server/api/apps"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/bus"
	"github.com/jobwheel/jobwheel/server/platform/live"
)

// bound is a generous bound on "this happens at all", never a speed check.
const bound = 30 * time.Second

type env struct {
	d     *db.DB
	hub   *live.Feeds
	ctx   context.Context // the admin's
	app   *db.App
	jobID int64
}

func newEnv(t *testing.T, d *db.DB, cfg live.Config) *env {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	authSvc := auth.New(auth.Config{}, d, log)
	ctx := context.Background()
	if _, err := authSvc.EnsureAdmin(ctx, "admin-password"); err != nil {
		t.Fatal(err)
	}
	token, _, _, err := authSvc.Login(ctx, "admin", "admin-password")
	if err != nil {
		t.Fatal(err)
	}
	p, err := authSvc.Authenticate(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{d: d, ctx: auth.WithPrincipal(ctx, p)}
	appSvc := apps.New(d, authSvc, nil)
	if e.app, _, err = appSvc.Create(e.ctx, "a", ""); err != nil {
		t.Fatal(err)
	}
	e.jobID = testfactory.Job(t, d, e.app.ID, &testfactory.JobOpts{Name: "j", Disabled: true, MisfirePolicy: "SKIP"}).ID
	b := bus.New("t", "", nil, log)
	e.hub = live.New(cfg, d, b, authSvc, appSvc, log)
	if err := e.hub.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.hub.Stop)
	return e
}

// instance records an instance without telling anyone (no hint).
func (e *env) instance(t *testing.T, status string) *db.Instance {
	t.Helper()
	in := &db.Instance{AppID: e.app.ID, JobID: e.jobID, Status: status, TriggerType: "API", TriggerAt: db.Now()}
	if err := e.d.InstanceCreate(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	return in
}

// lines stores lines from..to of an instance without telling anyone.
func (e *env) lines(t *testing.T, instanceID int64, from, to int) {
	t.Helper()
	err := e.d.InTx(context.Background(), func(ctx context.Context, tx *db.Store) error {
		first, _, err := tx.LogReserveSeq(ctx, e.app.ID, instanceID, to-from+1)
		if err != nil {
			return err
		}
		var rows []db.InstanceLog
		for i := from; i <= to; i++ {
			seq := first + int64(i-from)
			rows = append(rows, db.InstanceLog{InstanceID: instanceID, Seq: seq, WorkerID: "w", WorkerSeq: seq, Time: db.Now(),
				Level: "INFO", Text: fmt.Sprintf("line %d", i)})
		}
		return tx.LogInsertMany(ctx, rows)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func recv[T any](t *testing.T, s *live.Stream[T]) T {
	t.Helper()
	select {
	case v, ok := <-s.C:
		if !ok {
			t.Fatalf("the stream ended: %v", s.Err())
		}
		return v
	case <-time.After(bound):
		t.Fatal("nothing arrived")
	}
	panic("unreachable")
}

// TestLostHintsArePolledFor: with no hint at all, subscribers still see
// new lines and changed instances, by re-reading on their timer.
func TestLostHintsArePolledFor(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d, live.Config{PollEvery: 20 * time.Millisecond})
		in := e.instance(t, db.StatusRunning)
		logs, err := e.hub.InstanceLogs(e.ctx, in.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		updates, err := e.hub.InstanceUpdated(e.ctx, "a", 0)
		if err != nil {
			t.Fatal(err)
		}
		e.lines(t, in.ID, 1, 3)
		for i := int64(1); i <= 3; i++ {
			if l := recv(t, logs); l.Seq != i {
				t.Fatalf("got seq %d, want %d", l.Seq, i)
			}
		}
		later := e.instance(t, db.StatusWaiting)
		for {
			if u := recv(t, updates); u.ID == later.ID {
				break
			}
		}
	})
}

// TestSlowConsumersAreDropped: a subscriber that does not read is dropped
// with ErrSlowConsumer, after at most its buffer.
func TestSlowConsumersAreDropped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dbtest.Open(t, db.SQLite), live.Config{PollEvery: 20 * time.Millisecond, Buffer: 2, SlowAfter: 20 * time.Millisecond})
	in := e.instance(t, db.StatusRunning)
	e.lines(t, in.ID, 1, 500)
	logs, err := e.hub.InstanceLogs(e.ctx, in.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	updates, err := e.hub.InstanceUpdated(e.ctx, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		e.instance(t, db.StatusWaiting)
	}
	testkit.Eventually(t, "both slow subscribers dropped", func() bool { return logs.Err() != nil && updates.Err() != nil })
	n := 0
	for range logs.C {
		n++
	}
	if n >= 500 || !errors.Is(logs.Err(), live.ErrSlowConsumer) {
		t.Fatalf("logs: %d lines held, err %v", n, logs.Err())
	}
	n = 0
	for range updates.C {
		n++
	}
	if n > 2 || !errors.Is(updates.Err(), live.ErrSlowConsumer) {
		t.Fatalf("updates: %d held (buffer 2), err %v", n, updates.Err())
	}
}

// TestStopEndsStreams: a stopping server ends its subscriptions with
// ErrShuttingDown, so clients know to resubscribe elsewhere.
func TestStopEndsStreams(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dbtest.Open(t, db.SQLite), live.Config{})
	in := e.instance(t, db.StatusRunning)
	logs, err := e.hub.InstanceLogs(e.ctx, in.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	updates, err := e.hub.InstanceUpdated(e.ctx, "a", e.jobID)
	if err != nil {
		t.Fatal(err)
	}
	e.hub.Stop()
	for range logs.C {
	}
	for range updates.C {
	}
	if !errors.Is(logs.Err(), live.ErrShuttingDown) || !errors.Is(updates.Err(), live.ErrShuttingDown) {
		t.Fatalf("after Stop: logs %v, updates %v", logs.Err(), updates.Err())
	}
}

// TestStartStop: the feeds keep the lifecycle contract under concurrent
// starts and stops, and serve subscriptions again after a stop and a start
// (a subscription opened while stopped is refused, not left hanging).
func TestStartStop(t *testing.T) {
	e := newEnv(t, dbtest.Open(t, db.SQLite), live.Config{PollEvery: 10 * time.Millisecond})
	in := e.instance(t, db.StatusRunning)
	startstoptest.Stress(t, e.hub)

	if _, err := e.hub.InstanceLogs(e.ctx, in.ID, 0); !errors.Is(err, live.ErrShuttingDown) {
		t.Fatalf("a subscription while stopped: %v; want ErrShuttingDown", err)
	}
	if err := e.hub.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	logs, err := e.hub.InstanceLogs(e.ctx, in.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	e.lines(t, in.ID, 1, 1)
	if got := recv(t, logs); got.Text != "line 1" {
		t.Fatalf("after a restart the subscriber got %q; want line 1", got.Text)
	}
}
