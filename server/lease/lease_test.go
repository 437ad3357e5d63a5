package lease

import (
	"context"
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
