package trigger

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// slowActor holds the fires it is handed until the test lets it start
// them: it stands for an actor with more due fires than it can take.
type slowActor struct {
	loop *Loop
	mu   sync.Mutex
	held []int64
	// handed counts each instance's hand-overs; order is the hand-over
	// order; most is the most fires the loop had in flight at a hand-over.
	handed map[int64]int
	order  []int64
	most   int
}

func (a *slowActor) Fire(ids []int64, _ time.Time) {
	n := a.loop.InFlight()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.most = max(a.most, n, len(a.held)+len(ids))
	for _, id := range ids {
		a.handed[id]++
	}
	a.held = append(a.held, ids...)
	a.order = append(a.order, ids...)
}

func (a *slowActor) FireRecorded(recorded []db.Instance, at time.Time) {
	ids := make([]int64, len(recorded))
	for i, in := range recorded {
		ids[i] = in.ID
	}
	a.Fire(ids, at)
}

// take returns the fires held and forgets them.
func (a *slowActor) take() []int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	ids := a.held
	a.held = nil
	return ids
}

// With more fires due than the actor may hold, the loop hands it at most
// MaxInFlight at a time and keeps the rest WAITING in the database; as the
// actor takes what it holds, the loop reads the rest back, oldest first.
// Every fire is handed over once and started once, none is taken for a
// missed fire while it waits (the clock moves well past the misfire
// threshold meanwhile), and the actor never holds more than the bound.
func TestFiresBeyondMaxInFlightWaitInTheDatabaseAndRunOnceInOrder(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		const bound, jobs = 3, 10
		b := setupWith(t, d, func(c *Config) { c.MaxInFlight = bound })
		for i := range jobs {
			next := start
			testfactory.Job(t, d, b.app, &testfactory.JobOpts{Name: fmt.Sprintf("tick-%d", i), ScheduleType: db.ScheduleCron,
				ScheduleExpression: "* * * * * ?", NextTriggerAt: &next})
		}
		a := &slowActor{handed: map[int64]int{}}
		l := b.svc.NewLoop(b.app, a, nil)
		a.loop = l
		if err := l.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(l.Stop)
		b.svc.Passed.Wait(t)

		// The actor starts what it holds (WAITING → DISPATCHED, as its
		// batch's compare-and-set does) and takes it, 3 a round; the clock
		// moves a second a round, 6 s in all, with a pass each time, so
		// fires wait in the database well past the misfire threshold.
		started := map[int64]int{}
		due := func() int {
			list, err := d.InstanceListWaitingDue(ctx, b.app, b.clk.Now(), 1000)
			if err != nil {
				t.Fatal(err)
			}
			return len(list)
		}
		for round := 0; ; round++ {
			if round >= 1 && round <= 6 {
				b.clk.Set(b.clk.Now().Add(time.Second))
				l.Wake()
				b.svc.Passed.Wait(t)
			}
			if round > 6 && due() == 0 {
				break
			}
			var ids []int64
			testkit.Eventually(t, "fires handed over", func() bool {
				ids = a.take()
				return len(ids) > 0
			})
			a.mu.Lock()
			most := a.most
			a.mu.Unlock()
			if most > bound {
				t.Fatalf("the actor was handed up to %d fires at once; want at most MaxInFlight, %d", most, bound)
			}
			now := db.Stamp(b.clk.Now())
			tr := make([]db.InstanceTransition, len(ids))
			for i, id := range ids {
				tr[i] = db.InstanceTransition{ID: id, From: db.StatusWaiting, To: db.StatusDispatched, ActualTriggerAt: &now}
			}
			moved, err := d.InstanceTransitionMany(ctx, tr)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range moved {
				started[id]++
			}
			l.FiresTaken(ids, nil)
		}

		var list []db.Instance
		for _, id := range a.order {
			got, err := d.InstanceListByIDs(ctx, []int64{id})
			if err != nil || len(got) != 1 {
				t.Fatalf("reading instance %d: %v %v", id, got, err)
			}
			list = append(list, got[0])
		}
		want := jobs * 7 // the fires of start … start+6s
		if len(list) != want {
			t.Fatalf("%d fires handed over; want the %d due", len(list), want)
		}
		for i, in := range list {
			if a.handed[in.ID] != 1 || started[in.ID] != 1 {
				t.Fatalf("instance %d handed over %d times, started %d times; want once", in.ID, a.handed[in.ID], started[in.ID])
			}
			if in.Status != db.StatusDispatched || in.TriggerType != db.TriggerSchedule {
				t.Fatalf("instance %d is %s %s; want DISPATCHED as scheduled (not settled as missed)", in.ID, in.Status, in.TriggerType)
			}
			if i > 0 && in.TriggerAt.Before(list[i-1].TriggerAt) {
				t.Fatalf("the fire of %s was handed over after that of %s; want trigger-time order", list[i-1].TriggerAt, in.TriggerAt)
			}
		}
		if !slices.ContainsFunc(list, func(in db.Instance) bool { return in.TriggerAt.Equal(start.Add(6 * time.Second)) }) {
			t.Fatal("the last second's fires were not handed over")
		}
	})
}
