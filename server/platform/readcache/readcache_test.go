package readcache_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/platform/readcache"
)

// counting is the real database, counting the reads that reach it.
type counting struct {
	*db.DB
	reads atomic.Int64
}

func (c *counting) APITokenGetByHash(ctx context.Context, hash string) (*db.APIToken, error) {
	c.reads.Add(1)
	return c.DB.APITokenGetByHash(ctx, hash)
}

func (c *counting) JobGet(ctx context.Context, id int64) (*db.Job, error) {
	c.reads.Add(1)
	return c.DB.JobGet(ctx, id)
}

func (c *counting) SessionGetUserUntil(ctx context.Context, hash string) (*db.User, time.Time, error) {
	c.reads.Add(1)
	return c.DB.SessionGetUserUntil(ctx, hash)
}

type bundle struct {
	d     *db.DB
	src   *counting
	clk   *clock.Fake
	cache *readcache.Cache
	user  *db.User
}

func setup(t *testing.T) *bundle {
	t.Helper()
	d := dbtest.Open(t, db.SQLite)
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	src := &counting{DB: d}
	c := readcache.New(readcache.Config{Clock: clk}, src, slog.New(slog.DiscardHandler))
	c.Polled.Init()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	c.Polled.Wait(t)
	u := &db.User{Username: "u", PasswordHash: "x"}
	if err := d.UserCreate(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return &bundle{d: d, src: src, clk: clk, cache: c, user: u}
}

// token stores an API token of the bundle's user in the database.
func (b *bundle) token(t *testing.T, hash string) *db.APIToken {
	t.Helper()
	tok := &db.APIToken{Name: "t", TokenHash: hash, UserID: b.user.ID}
	if err := b.d.APITokenCreate(context.Background(), tok); err != nil {
		t.Fatal(err)
	}
	return tok
}

// poll moves time by one interval and waits for the counters' read.
func (b *bundle) poll(t *testing.T) {
	t.Helper()
	b.clk.Advance(100 * time.Millisecond)
	b.cache.Polled.Wait(t)
}

// A token read once is served from memory; revoked in the database with
// no hint at all (a hint lost, another server's change), it is refused
// from the next read of the counters on.
func TestARevokedTokenIsRefusedWithinOneInterval(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	tok := b.token(t, "th")
	for range 3 {
		if _, err := b.cache.APITokenGetByHash(ctx, "th"); err != nil {
			t.Fatal(err)
		}
	}
	if n := b.src.reads.Load(); n != 1 {
		t.Fatalf("3 reads reached the database %d times; want once", n)
	}
	if err := b.d.APITokenRevoke(ctx, tok.ID, db.Now()); err != nil {
		t.Fatal(err)
	}
	b.poll(t)
	if _, err := b.cache.APITokenGetByHash(ctx, "th"); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("a revoked token read after the counters moved: %v; want not found", err)
	}
}

// A hint drops a scope at once, before any read of the counters: on the
// server that made a change, the next call sees it.
func TestAHintDropsAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	app := &db.App{Name: "a", SecretHash: "x"}
	if err := b.d.AppCreate(ctx, app); err != nil {
		t.Fatal(err)
	}
	j := &db.Job{AppID: app.ID, Name: "j", Enabled: true, ScheduleType: db.ScheduleAPI, ExecutionMode: db.ModeStandalone,
		ProcessorType: db.ProcessorShell, Processor: "true", MaxInstances: 1, TaskConcurrency: 1, DispatchStrategy: db.DispatchRandom,
		MisfirePolicy: db.MisfireFireOnce}
	if err := b.d.JobCreate(ctx, j); err != nil {
		t.Fatal(err)
	}
	if _, err := b.cache.JobGet(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.d.JobSetEnabled(ctx, j.ID, false, nil); err != nil {
		t.Fatal(err)
	}
	b.cache.Invalidate(db.VersionJobs) // the hint, delivered in-process
	got, err := b.cache.JobGet(ctx, j.ID)
	if err != nil || got.Enabled {
		t.Fatalf("after the hint: %+v, %v; want the job disabled", got, err)
	}
}

// A read that began before a change and ended after the change dropped
// the scope is not kept: it may be older than the change.
func TestAReadOverlappingAChangeIsNotKept(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	if err := b.d.SessionCreate(ctx, &db.Session{TokenHash: "sh", UserID: b.user.ID, ExpiresAt: b.clk.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	slow := &racing{counting: b.src}
	c := readcache.New(readcache.Config{Clock: b.clk}, slow, slog.New(slog.DiscardHandler))
	c.Polled.Init()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	c.Polled.Wait(t)
	slow.during = func() { c.Invalidate(db.VersionAuth) }
	if _, err := c.SessionGetUser(ctx, "sh", b.clk.Now()); err != nil {
		t.Fatal(err)
	}
	slow.during = nil
	before := b.src.reads.Load()
	if _, err := c.SessionGetUser(ctx, "sh", b.clk.Now()); err != nil {
		t.Fatal(err)
	}
	if b.src.reads.Load() != before+1 {
		t.Fatal("a session read while its scope was dropped was served from memory")
	}
}

// racing runs during in the middle of each session read.
type racing struct {
	*counting
	during func()
}

func (r *racing) SessionGetUserUntil(ctx context.Context, hash string) (*db.User, time.Time, error) {
	u, until, err := r.counting.SessionGetUserUntil(ctx, hash)
	if r.during != nil {
		r.during()
	}
	return u, until, err
}

// An expired session is refused from memory as the database refuses it.
func TestAnExpiredSessionIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	if err := b.d.SessionCreate(ctx, &db.Session{TokenHash: "sh", UserID: b.user.ID, ExpiresAt: b.clk.Now().Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if u, err := b.cache.SessionGetUser(ctx, "sh", b.clk.Now()); err != nil || u.ID != b.user.ID {
		t.Fatalf("%+v, %v", u, err)
	}
	if _, err := b.cache.SessionGetUser(ctx, "sh", b.clk.Now().Add(2*time.Second)); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("an expired session: %v; want not found", err)
	}
}

// While the counters cannot be read (the database is unreachable) nothing
// is served from memory: it may be older than a change made meanwhile.
func TestNothingServedWhileTheCountersCannotBeRead(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.token(t, "th")
	if _, err := b.cache.APITokenGetByHash(ctx, "th"); err != nil {
		t.Fatal(err)
	}
	if err := b.d.Close(); err != nil {
		t.Fatal(err)
	}
	b.poll(t)
	if _, err := b.cache.APITokenGetByHash(ctx, "th"); err == nil {
		t.Fatal("a token was served from memory while the counters could not be read")
	}
}

// stalling is a source whose counters can stop being read (a server
// paused, or cut off from the database).
type stalling struct {
	*db.DB
	stall chan struct{} // while open, reading the counters waits
}

func (s *stalling) ChangeVersionList(ctx context.Context) (map[string]int64, error) {
	select {
	case <-s.stall:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.DB.ChangeVersionList(ctx)
}

// A write through one server's Store returns only once no server answers
// from what it kept from before: here the other server keeps the token
// and does not even read the counters any more (it stalls), and still,
// once the revoke has returned, it refuses the token.
func TestAChangeHasTakenEffectEverywhereWhenItsCallReturns(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	tok := b.token(t, "th")
	other := &stalling{DB: b.d, stall: make(chan struct{})}
	close(other.stall) // reads at first
	oc := readcache.New(readcache.Config{Clock: b.clk}, other, slog.New(slog.DiscardHandler))
	oc.Polled.Init()
	if err := oc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(oc.Stop)
	oc.Polled.Wait(t)
	if _, err := oc.APITokenGetByHash(ctx, "th"); err != nil {
		t.Fatal(err)
	}
	// From now on the other server's reads of the counters hang.
	other.stall = make(chan struct{})
	t.Cleanup(func() { close(other.stall) })

	b.cache.Settling.Init()
	done := make(chan error, 1)
	go func() { done <- b.cache.Store(b.d).APITokenRevoke(ctx, tok.ID, db.Now()) }()
	b.cache.Settling.Wait(t)
	b.clk.Advance(300 * time.Millisecond)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := oc.APITokenGetByHash(ctx, "th"); err == nil {
		t.Fatal("the other server still answered the revoked token from memory after the revoke returned")
	}
}

// A server alone in its cluster has dropped all there is to drop: its
// changes do not wait.
func TestAChangeOnAServerAloneDoesNotWait(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.SQLite)
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	c := readcache.New(readcache.Config{Clock: clk, Servers: func(context.Context) (int, error) { return 1, nil }}, d,
		slog.New(slog.DiscardHandler))
	// The fake clock never moves: a wait would never end.
	if err := c.Changed(context.Background(), db.VersionJobs); err != nil {
		t.Fatal(err)
	}
}
