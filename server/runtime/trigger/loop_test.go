package trigger

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/testfactory"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// These tests run trigger loops on a real database with a fake clock:
// passes are awaited through the Passed signal, fires through a recording
// Firer, and time moves only when the test moves it.

// firer records what the wheel fired.
type firer struct {
	mu    sync.Mutex
	fired []int64
	// recorded are the fires handed over as recorded (not read back).
	recorded int
	// leave, if set, takes each fire at once and leaves it WAITING, as
	// the actor does while no worker qualifies; otherwise fires stay in
	// flight (an actor that never gets to them).
	leave *Loop
}

func (f *firer) Fire(ids []int64, _ time.Time) {
	f.mu.Lock()
	f.fired = append(f.fired, ids...)
	f.mu.Unlock()
	if f.leave != nil {
		f.leave.FiresTaken(ids, ids)
	}
}

func (f *firer) FireRecorded(recorded []db.Instance, at time.Time) {
	ids := make([]int64, len(recorded))
	for i, in := range recorded {
		if in.Status != db.StatusWaiting || in.ID == 0 {
			panic(fmt.Sprintf("recorded fire %+v is not a WAITING instance", in))
		}
		ids[i] = in.ID
	}
	f.Fire(ids, at)
	f.mu.Lock()
	f.recorded += len(ids)
	f.mu.Unlock()
}

// got returns the instances fired, each once, in id order. A fire the
// actor took and left WAITING goes on the wheel again at a later pass, so
// an instance may be fired twice; the actor's compare-and-set from
// WAITING makes that harmless.
func (f *firer) got() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.fired)
	slices.Sort(out)
	return slices.Compact(out)
}

// start is a second boundary, so every-second fires land on it.
var start = time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)

type bundle struct {
	d   *db.DB
	clk *clock.Fake
	svc *Service
	app int64
}

func setup(t *testing.T, d *db.DB) *bundle {
	t.Helper()
	return setupWith(t, d, nil)
}

// setupWith is setup with the test's configuration, changed by tune.
func setupWith(t *testing.T, d *db.DB, tune func(*Config)) *bundle {
	t.Helper()
	clk := clock.NewFake(start)
	cfg := Config{Clock: clk, Interval: time.Hour}
	if tune != nil {
		tune(&cfg)
	}
	svc := NewService(cfg, d, slog.New(slog.DiscardHandler))
	svc.Passed.Init()
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Stop)
	app := testfactory.App(t, d, &testfactory.AppOpts{Name: "a"})
	return &bundle{d: d, clk: clk, svc: svc, app: app.ID}
}

// everySecond makes a CRON job firing every second from start.
func (b *bundle) everySecond(t *testing.T) *db.Job {
	t.Helper()
	next := start
	return testfactory.Job(t, b.d, b.app, &testfactory.JobOpts{Name: "tick", ScheduleType: db.ScheduleCron,
		ScheduleExpression: "* * * * * ?", NextTriggerAt: &next})
}

func (b *bundle) loop(t *testing.T, f Jobs) *Loop {
	t.Helper()
	l := b.svc.NewLoop(b.app, f, nil)
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Stop)
	return l
}

func (b *bundle) instances(t *testing.T, j *db.Job) []db.Instance {
	t.Helper()
	list, err := b.d.InstanceListByJobSince(context.Background(), j.ID, start.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// A pass records the look-ahead window's fires once and advances the
// job's next trigger past them; the wheel fires each when its time comes.
func TestPassRecordsTheWindowAndTheWheelFiresIt(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		j := b.everySecond(t)
		f := &firer{}
		l := b.loop(t, f)
		b.svc.Passed.Wait(t)
		list := b.instances(t, j)
		if len(list) != 6 { // start … start+5s, the 5 s look-ahead
			t.Fatalf("recorded %d fires; want 6 (the look-ahead window)", len(list))
		}
		for i, in := range list {
			if want := start.Add(time.Duration(i) * time.Second); !in.ExpectedTriggerAt.Equal(want) || in.Status != db.StatusWaiting {
				t.Fatalf("fire %d: expected at %v, %s; want %v, WAITING", i, in.ExpectedTriggerAt, in.Status, want)
			}
		}
		got, err := d.JobGet(context.Background(), j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := start.Add(6 * time.Second); got.NextTriggerAt == nil || !got.NextTriggerAt.Equal(want) {
			t.Fatalf("next trigger %v; want %v", got.NextTriggerAt, want)
		}
		// A second pass at the same time records nothing more.
		l.Wake()
		b.svc.Passed.Wait(t)
		if n := len(b.instances(t, j)); n != 6 {
			t.Fatalf("a second pass left %d fires; want still 6", n)
		}
		// Time moves: the due fires come off the wheel, in order.
		b.clk.Set(start.Add(2500 * time.Millisecond))
		testkit.Eventually(t, "the first three fires", func() bool { return len(f.got()) >= 3 })
		if want := []int64{list[0].ID, list[1].ID, list[2].ID}; !slices.Equal(f.got(), want) {
			t.Fatalf("fired %v; want the three due, %v", f.got(), want)
		}
		// The loop's own fires reach the actor as recorded: it need not
		// read them back.
		f.mu.Lock()
		recorded := f.recorded
		f.mu.Unlock()
		if recorded != 3 {
			t.Fatalf("%d of the 3 fires were handed over as recorded; want all", recorded)
		}
	})
}

// A job is read and advanced only when its next fire comes within
// Refill, and then its fires are recorded up to the look-ahead: an
// every-second job costs one job write per several fires, and still every
// fire is recorded once, in time, without a gap.
func TestPassAdvancesAJobOnceForSeveralFires(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		j := b.everySecond(t)
		l := b.loop(t, &firer{})
		b.svc.Passed.Wait(t)
		advances := 0
		last := start
		for sec := 1; sec <= 12; sec++ {
			b.clk.Set(start.Add(time.Duration(sec) * time.Second))
			l.Wake()
			b.svc.Passed.Wait(t)
			got, err := d.JobGet(context.Background(), j.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !got.NextTriggerAt.Equal(last) {
				advances++
				last = *got.NextTriggerAt
			}
			// Whatever the pass did, the next Refill seconds' fires
			// are recorded.
			if now := b.clk.Now(); got.NextTriggerAt.Before(now.Add(2 * time.Second)) {
				t.Fatalf("at %s the next unrecorded fire is %s: less than Refill ahead", now.Format(time.TimeOnly), got.NextTriggerAt.Format(time.TimeOnly))
			}
		}
		if advances > 4 {
			t.Fatalf("the job was advanced %d times in 12 passes; want one advance per several fires", advances)
		}
		list := b.instances(t, j)
		for i, in := range list {
			if want := start.Add(time.Duration(i) * time.Second); !in.ExpectedTriggerAt.Equal(want) {
				t.Fatalf("fire %d expected at %s; want %s (each second once, no gap)", i, in.ExpectedTriggerAt.Format(time.TimeOnly), want.Format(time.TimeOnly))
			}
		}
		if len(list) < 12+2 {
			t.Fatalf("%d fires recorded by 12 s; want at least the 14 up to Refill ahead", len(list))
		}
	})
}

// Two owners at once (a lease changing hands while the old owner still
// runs a pass) never record a fire twice: the CAS on next_trigger_at and
// UNIQUE(job_id, expected_trigger_at) let one of them win each fire.
func TestTwoLoopsRecordEachFireOnce(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		j := b.everySecond(t)
		other := NewService(Config{Clock: b.clk, Interval: time.Hour}, d, slog.New(slog.DiscardHandler))
		other.Passed.Init()
		if err := other.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(other.Stop)
		l1 := b.loop(t, &firer{})
		l2 := other.NewLoop(b.app, &firer{}, nil)
		if err := l2.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(l2.Stop)
		for range 5 {
			b.svc.Passed.Wait(t)
			other.Passed.Wait(t)
			b.clk.Set(b.clk.Now().Add(3 * time.Second))
			l1.Wake()
			l2.Wake()
		}
		seen := map[time.Time]int{}
		for _, in := range b.instances(t, j) {
			seen[*in.ExpectedTriggerAt]++
		}
		for at, n := range seen {
			if n != 1 {
				t.Fatalf("the fire at %v was recorded %d times", at, n)
			}
		}
		if len(seen) < 6 {
			t.Fatalf("only %d fires recorded", len(seen))
		}
	})
}

// Stopping the loop (the lease lost) drops its wheel entries at once:
// nothing of the app fires after, though its fires stay recorded for the
// next owner.
func TestStopDropsTheAppsWheelEntries(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		j := b.everySecond(t)
		f := &firer{}
		l := b.loop(t, f)
		b.svc.Passed.Wait(t)
		// The fire due at once went to the firer; the other 5 wait.
		testkit.Eventually(t, "the fire due at once", func() bool { return len(f.got()) == 1 })
		if n := b.svc.wheel.Len(); n != 5 {
			t.Fatalf("%d wheel entries; want the 5 fires still ahead", n)
		}
		l.Stop()
		if n := b.svc.wheel.Len(); n != 0 {
			t.Fatalf("%d wheel entries after stop; want none", n)
		}
		b.clk.Set(start.Add(10 * time.Second))
		// The wheel has nothing to fire; a fire already in flight would be
		// refused by the stopped loop. Give the wheel its tick, then check.
		b.svc.wheel.Advance(context.Background(), b.clk.Now())
		if got := f.got(); len(got) != 1 {
			t.Fatalf("fired %v after the loop stopped; want only the one before", got)
		}
		if n := len(b.instances(t, j)); n != 6 {
			t.Fatalf("%d fires recorded; want the 6 kept for the next owner", n)
		}
	})
}

// Unfired fires (the actor could not process them) are missed fires again:
// the next pass applies the misfire policy to them.
func TestUnfiredFiresAreSettledByTheMisfirePolicy(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		j := b.everySecond(t)
		f := &firer{}
		l := b.loop(t, f)
		b.svc.Passed.Wait(t)
		b.clk.Set(start.Add(1500 * time.Millisecond))
		testkit.Eventually(t, "two fires", func() bool { return len(f.got()) == 2 })
		l.Unfired(f.got())
		// Well past the misfire threshold, nobody having run them.
		b.clk.Set(start.Add(5 * time.Second))
		l.Wake()
		b.svc.Passed.Wait(t)
		byID := map[int64]db.Instance{}
		for _, in := range b.instances(t, j) {
			byID[in.ID] = in
		}
		got := f.got()
		first, second := byID[got[0]], byID[got[1]]
		// FIRE_ONCE: the older is canceled as missed, the latest kept as a
		// catch-up run.
		if first.Status != db.StatusCanceled || first.Reason != db.ReasonMisfire {
			t.Fatalf("older unfired fire: %s %s; want CANCELED MISFIRE", first.Status, first.Reason)
		}
		if second.Status != db.StatusWaiting || second.TriggerType != db.TriggerMisfire {
			t.Fatalf("latest unfired fire: %s %s; want WAITING as a MISFIRE catch-up", second.Status, second.TriggerType)
		}
	})
}

// A FIXED_DELAY job is re-armed when its run ends. If its one recorded
// fire went stale while no server ran the app and SKIP cancels it, the
// pass re-arms the job itself, or it would never fire again.
func TestSkippedStaleFixedDelayFireRearmsTheJob(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		b := setup(t, d)
		j := &db.Job{AppID: b.app, Name: "delay", Enabled: true, ScheduleType: db.ScheduleFixedDelay, ScheduleExpression: "10s",
			TimeZone: "UTC", ExecutionMode: db.ModeStandalone, ProcessorType: db.ProcessorShell, Processor: "true", MaxInstances: 1,
			TaskConcurrency: 1, DispatchStrategy: db.DispatchRandom, MisfirePolicy: db.MisfireSkip}
		if err := d.JobCreate(ctx, j); err != nil {
			t.Fatal(err)
		}
		// Recorded ahead by an owner that stopped before firing it.
		at := start.Add(-time.Minute)
		stale := db.Instance{AppID: b.app, JobID: j.ID, Status: db.StatusWaiting, TriggerType: db.TriggerSchedule,
			ExpectedTriggerAt: &at, TriggerAt: at}
		if _, err := d.InstanceCreateFired(ctx, []db.Instance{stale}); err != nil {
			t.Fatal(err)
		}
		b.loop(t, &firer{})
		b.svc.Passed.Wait(t)
		list := b.instances(t, j)
		if len(list) != 1 || list[0].Status != db.StatusCanceled || list[0].Reason != db.ReasonMisfire {
			t.Fatalf("the stale fire: %+v; want it CANCELED for MISFIRE", list)
		}
		got, err := d.JobGet(ctx, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := start.Add(10 * time.Second); got.NextTriggerAt == nil || !got.NextTriggerAt.Equal(want) {
			t.Fatalf("next trigger %v; want the job re-armed at %v", got.NextTriggerAt, want)
		}
	})
}

// count is how many times the firer got the instance.
func (f *firer) count(id int64) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, v := range f.fired {
		if v == id {
			n++
		}
	}
	return n
}

// A fire the actor leaves WAITING (no worker qualifies yet) is the loop's
// again once inHandHold has passed: a pass puts it back on the wheel and
// it fires again, as at every pass until the actor decides it.
func TestAFireLeftWaitingIsFiredAgain(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		b.everySecond(t)
		f := &firer{}
		l := b.svc.NewLoop(b.app, f, nil)
		f.leave = l
		if err := l.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(l.Stop)
		b.svc.Passed.Wait(t)
		testkit.Eventually(t, "the fire due at once", func() bool { return len(f.got()) == 1 })
		first := f.got()[0]

		// A pass within inHandHold leaves it to the actor.
		b.clk.Set(start.Add(inHandHold / 2))
		l.Wake()
		b.svc.Passed.Wait(t)
		b.svc.wheel.Advance(context.Background(), b.clk.Now())
		if n := f.count(first); n != 1 {
			t.Fatalf("fired %d times within inHandHold; want once", n)
		}

		b.clk.Set(start.Add(inHandHold + inHandHold/2))
		l.Wake()
		b.svc.Passed.Wait(t)
		b.svc.wheel.Advance(context.Background(), b.clk.Now())
		testkit.Eventually(t, "the fire left WAITING fired again", func() bool { return f.count(first) == 2 })
	})
}

// A pass puts on the wheel what others made WAITING — a predecessor's
// fires recorded ahead (found by the first pass after a take-over), an
// API run or a retry (found by any pass) — without reading back, at every
// pass, the window's fires it recorded itself.
func TestPassLoadsWhatOthersMadeWaiting(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		ctx := context.Background()
		j := b.everySecond(t)
		// The predecessor recorded start+3s and advanced the job past it;
		// the job fires again at start+10s.
		later := start.Add(10 * time.Second)
		if _, err := d.JobAdvanceMany(ctx, []db.JobAdvance{{ID: j.ID, Old: start, New: &later}}); err != nil {
			t.Fatal(err)
		}
		ahead := start.Add(3 * time.Second)
		old, err := d.InstanceCreateFired(ctx, []db.Instance{{AppID: b.app, JobID: j.ID, Status: db.StatusWaiting,
			TriggerType: db.TriggerSchedule, ExpectedTriggerAt: &ahead, TriggerAt: ahead}})
		if err != nil || len(old) != 1 {
			t.Fatalf("recording the predecessor's fire: %v, %v", old, err)
		}
		f := &firer{}
		l := b.loop(t, f)
		b.svc.Passed.Wait(t)
		// An API run due at start+4s, recorded after the first pass.
		run := &db.Instance{AppID: b.app, JobID: j.ID, Status: db.StatusWaiting, TriggerType: db.TriggerAPI, TriggerAt: start.Add(4 * time.Second)}
		if err := d.InstanceCreate(ctx, run); err != nil {
			t.Fatal(err)
		}
		b.clk.Set(start.Add(time.Second))
		l.Wake()
		b.svc.Passed.Wait(t)
		b.clk.Set(start.Add(5 * time.Second))
		testkit.Eventually(t, "the predecessor's fire and the API run fired", func() bool {
			return slices.Equal(f.got(), []int64{old[0].ID, run.ID})
		})
	})
}

// An instance runJob recorded on this server reaches the actor at once if
// it is due, as recorded (the actor need not read it back), and is in
// hand, so the next pass does not fire it again; one due within the
// look-ahead fires at its time; one due later waits for a pass to load it.
func TestFireCreated(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		b := setup(t, d)
		ctx := context.Background()
		j := b.everySecond(t)
		later := start.Add(time.Hour)
		if _, err := d.JobAdvanceMany(ctx, []db.JobAdvance{{ID: j.ID, Old: start, New: &later}}); err != nil {
			t.Fatal(err)
		}
		f := &firer{}
		l := b.loop(t, f)
		b.svc.Passed.Wait(t)
		runs := make([]*db.Instance, 3)
		for i, at := range []time.Time{start, start.Add(2 * time.Second), start.Add(time.Minute)} {
			runs[i] = &db.Instance{AppID: b.app, JobID: j.ID, Status: db.StatusWaiting, TriggerType: db.TriggerAPI, TriggerAt: at}
			if err := d.InstanceCreate(ctx, runs[i]); err != nil {
				t.Fatal(err)
			}
			l.FireCreated(*runs[i])
		}
		f.mu.Lock()
		now, recorded := slices.Clone(f.fired), f.recorded
		f.mu.Unlock()
		if !slices.Equal(now, []int64{runs[0].ID}) || recorded != 1 {
			t.Fatalf("fired at once %v (%d as recorded); want the due run, as recorded", now, recorded)
		}
		l.Wake()
		b.svc.Passed.Wait(t)
		b.clk.Set(start.Add(2 * time.Second))
		testkit.Eventually(t, "the run due in 2 s fired", func() bool { return f.count(runs[1].ID) == 1 })
		if n := f.count(runs[0].ID); n != 1 {
			t.Fatalf("the due run fired %d times; want once (it was in hand at the pass)", n)
		}
		if f.count(runs[2].ID) != 0 {
			t.Fatal("the run due in a minute fired already")
		}
	})
}
