package lease

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// members counts the managers a test runs as alive servers.
type members struct {
	mu sync.Mutex
	n  int
}

func (m *members) AliveCount(context.Context) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n, nil
}

func (m *members) Leave(context.Context) {}

func (m *members) set(n int) {
	m.mu.Lock()
	m.n = n
	m.mu.Unlock()
}

// recorder is a Listener remembering what each manager was told.
type recorder struct {
	mu    sync.Mutex
	owned map[int64]int64
}

func (r *recorder) LeaseGained(_ context.Context, app, epoch int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.owned[app] = epoch
}

func (r *recorder) LeaseLost(app int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.owned, app)
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.owned)
}

func newManager(d *db.DB, id string, mem Members) (*Manager, *recorder) {
	r := &recorder{owned: map[int64]int64{}}
	m := New(Config{ServerID: id, TTL: 1500 * time.Millisecond, Balance: true}, d, mem, nil, r, slog.New(slog.DiscardHandler))
	return m, r
}

// Two servers share three apps fairly; a graceful stop hands its apps to
// the other at once; a crashed server's apps are taken over when its
// leases expire, with a higher epoch.
func TestSharingHandOffAndTakeOver(t *testing.T) {
	t.Parallel()
	for _, dialect := range []db.Dialect{db.Postgres} {
		d := dbtest.Open(t, dialect)
		ctx := context.Background()
		for _, name := range []string{"a", "b", "c"} {
			if err := d.AppCreate(ctx, &db.App{Name: name, SecretHash: "x"}); err != nil {
				t.Fatal(err)
			}
		}
		mem := &members{n: 1}
		m1, r1 := newManager(d, "s1", mem)
		if err := m1.Start(ctx); err != nil {
			t.Fatal(err)
		}
		testkit.Eventually(t, "s1 to own every app", func() bool { return r1.count() == 3 })

		mem.set(2)
		m2, r2 := newManager(d, "s2", mem)
		if err := m2.Start(ctx); err != nil {
			t.Fatal(err)
		}
		m1.Kick()
		testkit.Eventually(t, "a fair share of 2 and 1", func() bool {
			a, b := r1.count(), r2.count()
			return a+b == 3 && a >= 1 && b >= 1
		})
		epochs := map[int64]int64{}
		for app, e := range r2.owned {
			epochs[app] = e
		}

		// Graceful stop: s1's apps move to s2 at once.
		mem.set(1)
		m1.Stop()
		m2.Kick()
		testkit.Eventually(t, "s2 to own every app after s1 stopped", func() bool { return r2.count() == 3 })

		// Crash: s3 joins, gets a share; then s3 dies without releasing.
		mem.set(2)
		m3, r3 := newManager(d, "s3", mem)
		if err := m3.Start(ctx); err != nil {
			t.Fatal(err)
		}
		m2.Kick()
		testkit.Eventually(t, "s3 to receive a share", func() bool { return r3.count() >= 1 })
		m3.keepOnStop = true // stop renewing, release nothing: a kill -9
		m3.Stop()
		crashed := map[int64]int64{}
		m3.mu.Lock()
		for app, h := range m3.owned {
			crashed[app] = h.epoch
		}
		m3.mu.Unlock()
		testkit.Eventually(t, "s2 to take s3's apps over", func() bool { return r2.count() == 3 })
		r2.mu.Lock()
		for app, e := range crashed {
			if r2.owned[app] <= e {
				t.Errorf("app %d taken over with epoch %d, not above %d", app, r2.owned[app], e)
			}
		}
		r2.mu.Unlock()
		// And s3's own trust window closed before its leases expired.
		m3.dropUntrusted()
		if n := r3.count(); n != 0 {
			t.Errorf("crashed s3 still thinks it owns %d apps", n)
		}
		m2.Stop()
	}
}

// stuckStore is a Store whose renewals, once stuck, hang for a while
// whatever their context says: a database call stuck in a write, as to a
// database that stopped answering mid-call.
type stuckStore struct {
	*db.DB
	stuck    sync.Mutex
	hangFor  time.Duration
	hanging  bool
	renewals int
}

func (s *stuckStore) LeaseRenewMany(ctx context.Context, serverID string, appIDs []int64, ttl time.Duration, now time.Time) ([]db.AppLease, error) {
	s.stuck.Lock()
	hang := s.hanging
	s.renewals++
	s.stuck.Unlock()
	if hang {
		time.Sleep(s.hangFor) // the call ignores its context, as a stuck one can
		return nil, context.DeadlineExceeded
	}
	return s.DB.LeaseRenewMany(ctx, serverID, appIDs, ttl, now)
}

// expiryCheck is a Listener that, as the manager stops an app, reads the
// app's lease in the database: it must not have expired yet, or another
// server could already be running the app.
type expiryCheck struct {
	d       *db.DB
	mu      sync.Mutex
	owned   map[int64]bool
	expired []string
}

func (e *expiryCheck) LeaseGained(_ context.Context, app, _ int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.owned[app] = true
}

func (e *expiryCheck) LeaseLost(app int64) {
	now := time.Now()
	var l db.AppLease
	err := e.d.Bun().NewSelect().Model(&l).Where("app_id = ?", app).Scan(context.Background())
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.owned, app)
	if err == nil && !now.Before(l.ExpiresAt) {
		e.expired = append(e.expired, fmt.Sprintf("app %d stopped at %s, its lease expired at %s", app,
			now.Format("15:04:05.000"), l.ExpiresAt.Format("15:04:05.000")))
	}
}

func (e *expiryCheck) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.owned)
}

// A server whose lease renewal hangs stops the app when its trust window
// closes — while the call still hangs — before the lease can expire and
// another server take the app. The watchdog ran only between passes, so
// a hanging renewal kept the app running past its lease's expiry.
func TestTrustWindowClosesWhileARenewalHangs(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.Postgres)
	ctx := context.Background()
	if err := d.AppCreate(ctx, &db.App{Name: "a", SecretHash: "x"}); err != nil {
		t.Fatal(err)
	}
	const ttl = 3 * time.Second
	store := &stuckStore{DB: d, hangFor: ttl}
	check := &expiryCheck{d: d, owned: map[int64]bool{}}
	m := New(Config{ServerID: "s1", TTL: ttl, Balance: true}, store, &members{n: 1}, nil, check, slog.New(slog.DiscardHandler))
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	testkit.Eventually(t, "s1 to own the app", func() bool { return check.count() == 1 })
	store.stuck.Lock()
	store.hanging = true // from the next renewal on, which hangs for a whole TTL
	store.stuck.Unlock()
	testkit.Eventually(t, "s1 to stop the app", func() bool { return check.count() == 0 })
	check.mu.Lock()
	defer check.mu.Unlock()
	if len(check.expired) > 0 {
		t.Fatalf("the app ran past its lease: %v", check.expired)
	}
}
