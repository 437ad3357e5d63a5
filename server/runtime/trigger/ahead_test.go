package trigger

import (
	"slices"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// With DispatchAhead, a scheduled fire the loop recorded is handed to the
// actor that long before its time (so that its task can be on its worker,
// held until then), and not a second time when its time comes.
func TestScheduledFiresAreHandedOverAhead(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setupWith(t, d, func(c *Config) { c.DispatchAhead = 800 * time.Millisecond })
		j := b.everySecond(t)
		f := &firer{}
		b.loop(t, f)
		b.svc.Passed.Wait(t)
		list := b.instances(t, j)
		// 1.2 s in: the fires due at 0 s and 1 s, and the one due at 2 s
		// (0.8 s ahead), are handed over; the one due at 3 s not yet.
		b.clk.Set(start.Add(1200 * time.Millisecond))
		want := []int64{list[0].ID, list[1].ID, list[2].ID}
		testkit.Eventually(t, "the fires up to 2 s", func() bool { return len(f.got()) >= 3 })
		if got := f.got(); !slices.Equal(got, want) {
			t.Fatalf("handed over %v by 1.2 s; want %v (those due by 2 s)", got, want)
		}
		// 2.3 s in: past the time of the fire due at 2 s, which is not
		// handed over again, and ahead of the one due at 3 s.
		b.clk.Set(start.Add(2300 * time.Millisecond))
		testkit.Eventually(t, "the fire due at 3 s", func() bool { return len(f.got()) >= 4 })
		f.mu.Lock()
		n := len(f.fired)
		f.mu.Unlock()
		if n != 4 || !slices.Equal(f.got(), append(want, list[3].ID)) {
			t.Fatalf("handed over %v in %d hand-overs by 2.3 s; want the 4 fires due by 3 s, each once", f.got(), n)
		}
	})
}
