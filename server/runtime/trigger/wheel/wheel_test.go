package wheel

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/internal/clock"
)

// t0 is millisecond-aligned, so t0+N ms is exactly tick boundary N.
var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func ms(f float64) time.Time { return t0.Add(time.Duration(f * float64(time.Millisecond))) }

// newFakeClock is a clock whose time only moves when the test sets it;
// every timer armed on it is reported on Armed, so a test can see what the
// loop decided to sleep for.
func newFakeClock(now time.Time) *clock.Fake {
	c := clock.NewFake(now)
	c.Armed = make(chan time.Duration, 1024)
	return c
}

// step runs Advance's core without the pool, so tests of what fires when
// can look at the batches synchronously.
func step[T any](w *Wheel[T], now time.Time) [][]Entry[T] {
	target := w.floorTick(now)
	w.mu.Lock()
	defer w.mu.Unlock()
	var out [][]Entry[T]
	for {
		b := w.collectNext(target)
		if b == nil {
			return out
		}
		out = append(out, b)
	}
}

func values(batches [][]Entry[int]) [][]int {
	var out [][]int
	for _, b := range batches {
		var vs []int
		for _, e := range b {
			vs = append(vs, e.Value)
		}
		slices.Sort(vs) // order within a batch is not specified
		out = append(out, vs)
	}
	return out
}

func noFire(t *testing.T) FireFunc[int] {
	return func(context.Context, []Entry[int]) { t.Error("the pool fired in a core test") }
}

func newCore(t *testing.T, opts Options) *Wheel[int] {
	t.Helper()
	if opts.Clock == nil {
		opts.Clock = newFakeClock(t0)
	}
	return New(noFire(t), opts)
}

func wantBatches(t *testing.T, got [][]Entry[int], want ...[]int) {
	t.Helper()
	g := values(got)
	if len(g) != len(want) {
		t.Fatalf("batches = %v, want %v", g, want)
	}
	for i := range want {
		if !slices.Equal(g[i], want[i]) {
			t.Fatalf("batches = %v, want %v", g, want)
		}
	}
}

func checkHeld(t *testing.T, w *Wheel[int], want int) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held != want {
		t.Fatalf("held = %d, want %d", w.held, want)
	}
}

func TestBatchPerTick(t *testing.T) {
	w := newCore(t, Options{})
	w.Schedule(1, ms(5), 1)
	w.Schedule(2, ms(5), 2)
	w.Schedule(1, ms(5.3), 3) // rounds up to tick 6: never early
	w.Schedule(1, ms(7), 4)
	w.Schedule(3, ms(2), 5)
	w.Schedule(1, ms(4.999), 6) // tick 5
	if n := w.Len(); n != 6 {
		t.Fatalf("Len = %d, want 6", n)
	}

	wantBatches(t, step(w, ms(4)), []int{5})
	wantBatches(t, step(w, ms(4.9)))
	got := step(w, ms(5.999))
	wantBatches(t, got, []int{1, 2, 6})
	for _, e := range got[0] {
		if e.At.After(ms(5)) {
			t.Errorf("entry %v fired at tick 5, before its time", e)
		}
	}
	wantBatches(t, step(w, ms(10)), []int{3}, []int{4})
	if n := w.Len(); n != 0 {
		t.Fatalf("Len = %d, want 0", n)
	}
	checkHeld(t, w, 0)
}

func TestEntryCarriesGroupAndTime(t *testing.T) {
	w := newCore(t, Options{})
	w.Schedule(42, ms(3.5), 7)
	got := step(w, ms(4))
	if len(got) != 1 || len(got[0]) != 1 {
		t.Fatalf("got %v", got)
	}
	if e := got[0][0]; e.Group != 42 || !e.At.Equal(ms(3.5)) || e.Value != 7 {
		t.Fatalf("entry = %+v", e)
	}
}

func TestPastDue(t *testing.T) {
	w := newCore(t, Options{})
	wantBatches(t, step(w, ms(10)))

	w.Schedule(1, ms(3), 1)       // past
	w.Schedule(1, ms(10), 2)      // the tick already fired
	w.Schedule(1, ms(9.5), 3)     // rounds up to that tick
	w.Schedule(1, time.Time{}, 4) // the zero time
	w.Schedule(1, t0.Add(-time.Hour), 5)
	w.Schedule(1, ms(11), 6) // future: not in the past batch

	// The next Advance fires them, even without time moving.
	wantBatches(t, step(w, ms(10)), []int{1, 2, 3, 4, 5})
	wantBatches(t, step(w, ms(10.5)))
	wantBatches(t, step(w, ms(11)), []int{6})
}

func TestPastDueComeFirst(t *testing.T) {
	w := newCore(t, Options{})
	w.Schedule(1, ms(2), 1)
	wantBatches(t, step(w, ms(1)))
	w.Schedule(1, ms(0), 2) // past
	wantBatches(t, step(w, ms(3)), []int{2}, []int{1})
}

func TestCancel(t *testing.T) {
	w := newCore(t, Options{Slots: 64})
	wantBatches(t, step(w, ms(1)))
	hDue := w.Schedule(1, ms(0), 1)
	hRing := w.Schedule(1, ms(10), 2)
	hOver := w.Schedule(1, ms(500), 3) // beyond the 64 ms span
	keep := w.Schedule(1, ms(10), 4)

	for _, h := range []Handle[int]{hDue, hRing, hOver} {
		if !w.Cancel(h) {
			t.Fatal("Cancel of a pending entry = false")
		}
		if w.Cancel(h) {
			t.Fatal("second Cancel = true")
		}
	}
	if w.Cancel(Handle[int]{}) {
		t.Fatal("Cancel of the zero Handle = true")
	}
	if n := w.Len(); n != 1 {
		t.Fatalf("Len = %d, want 1", n)
	}

	// Nodes are recycled; an old handle must not cancel the new entry.
	fresh := w.Schedule(1, ms(20), 5)
	if fresh.n != hOver.n && fresh.n != hRing.n && fresh.n != hDue.n {
		t.Log("node not recycled; stale-handle check is weaker")
	}
	for _, h := range []Handle[int]{hDue, hRing, hOver} {
		if w.Cancel(h) {
			t.Fatal("stale handle cancelled a recycled node")
		}
	}

	wantBatches(t, step(w, ms(1000)), []int{4}, []int{5})
	if w.Cancel(keep) {
		t.Fatal("Cancel after firing = true")
	}
	checkHeld(t, w, 0)
}

func TestDropGroup(t *testing.T) {
	w := newCore(t, Options{Slots: 64})
	wantBatches(t, step(w, ms(1)))
	var h1 Handle[int]
	for g := int64(1); g <= 2; g++ {
		base := int(g) * 10
		w.Schedule(g, ms(0), base+1)       // due list
		h := w.Schedule(g, ms(10), base+2) // ring
		w.Schedule(g, ms(10), base+3)
		w.Schedule(g, ms(1000), base+4) // overflow
		if g == 1 {
			h1 = h
		}
	}
	w.DropGroup(1)
	w.DropGroup(99) // unknown: no-op
	if n := w.Len(); n != 4 {
		t.Fatalf("Len after drop = %d, want 4", n)
	}
	if w.Cancel(h1) {
		t.Fatal("Cancel of a dropped entry = true")
	}

	// Rescheduling the group after a drop works, and the old entries stay
	// dead.
	w.Schedule(1, ms(10), 100)

	wantBatches(t, step(w, ms(2000)), []int{21}, []int{22, 23, 100}, []int{24})
	if n := w.Len(); n != 0 {
		t.Fatalf("Len = %d, want 0", n)
	}
	// The dropped entries' memory is reclaimed once their ticks pass.
	checkHeld(t, w, 0)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.groups) != 0 || len(w.over) != 0 || w.inRing != 0 || w.due != nil {
		t.Fatalf("leftovers: groups=%d over=%d ring=%d due=%v", len(w.groups), len(w.over), w.inRing, w.due != nil)
	}
}

func TestDropGroupLeavesEntriesInPlace(t *testing.T) {
	// DropGroup must not walk the group's entries (that is what makes it
	// O(1)): they stay where they are until their tick.
	w := newCore(t, Options{})
	for i := range 1000 {
		w.Schedule(7, ms(float64(1+i%50)), i)
	}
	w.DropGroup(7)
	checkHeld(t, w, 1000)
	if n := w.Len(); n != 0 {
		t.Fatalf("Len = %d", n)
	}
	wantBatches(t, step(w, ms(100)))
	checkHeld(t, w, 0)
}

func TestOverflowStepwise(t *testing.T) {
	w := newCore(t, Options{Slots: 64})
	offsets := []float64{10, 63, 64, 65, 127.5, 128, 129, 1000, 1000.2}
	for i, o := range offsets {
		w.Schedule(1, ms(o), i)
	}
	far := w.Schedule(1, t0.Add(time.Hour), 100)
	w.Schedule(1, time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), 101)

	for tick := 1; tick <= 1100; tick++ {
		for _, b := range step(w, ms(float64(tick))) {
			for _, e := range b {
				if w.ceilTick(e.At) != w.floorTick(t0)+int64(tick) {
					t.Fatalf("entry %d (at %v) fired at tick %d", e.Value, e.At.Sub(t0), tick)
				}
			}
		}
	}
	if n := w.Len(); n != 2 {
		t.Fatalf("Len = %d, want 2", n)
	}
	wantBatches(t, step(w, t0.Add(2*time.Hour)), []int{100})
	if w.Cancel(far) {
		t.Fatal("Cancel after firing = true")
	}
	wantBatches(t, step(w, time.Date(3001, 1, 1, 0, 0, 0, 0, time.UTC)), []int{101})
	checkHeld(t, w, 0)
}

// TestRandomized checks the core's invariants against random schedules,
// cancels and uneven steps on a small ring: every entry not cancelled fires
// exactly once, in the step that covers its tick, one batch per tick, ticks
// in increasing order.
func TestRandomized(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	w := newCore(t, Options{Slots: 64})
	type rec struct {
		at        time.Time
		h         Handle[int]
		cancelled bool
		fired     int
	}
	var recs []*rec
	now := 0.0
	schedule := func() {
		at := ms(now + r.Float64()*400 - 20)
		id := len(recs)
		recs = append(recs, &rec{at: at})
		recs[id].h = w.Schedule(int64(id%3), at, id)
	}
	for range 500 {
		schedule()
	}
	for now < 3000 {
		for range r.IntN(20) {
			schedule()
		}
		for range r.IntN(5) {
			x := recs[r.IntN(len(recs))]
			if w.Cancel(x.h) {
				x.cancelled = true
			}
		}
		prev := w.floorTick(ms(now))
		now += r.Float64() * 150
		lastTick := int64(-1 << 62)
		for i, b := range step(w, ms(now)) {
			bt := w.ceilTick(b[0].At)
			for _, e := range b {
				x := recs[e.Value]
				x.fired++
				tk := w.ceilTick(e.At)
				if i == 0 && tk <= prev {
					continue // the past-due batch
				}
				if tk != bt {
					t.Fatalf("batch mixes ticks %d and %d", bt, tk)
				}
				if tk <= prev || tk > w.floorTick(ms(now)) {
					t.Fatalf("entry at tick %d fired in step (%d, %d]", tk, prev, w.floorTick(ms(now)))
				}
			}
			if !(i == 0 && bt <= prev) {
				if bt <= lastTick {
					t.Fatalf("tick %d after tick %d", bt, lastTick)
				}
				lastTick = bt
			}
		}
	}
	for _, b := range step(w, ms(1e9)) {
		for _, e := range b {
			recs[e.Value].fired++
		}
	}
	for i, x := range recs {
		want := 1
		if x.cancelled {
			want = 0
		}
		if x.fired != want {
			t.Fatalf("entry %d (at %v) fired %d times, cancelled=%v; held=%d live=%d inRing=%d over=%d cur=%d", i, x.at.Sub(t0), x.fired, x.cancelled, w.held, w.live, w.inRing, len(w.over), w.cur-w.floorTick(t0))
		}
	}
	checkHeld(t, w, 0)
}

type recorder struct {
	batches chan []Entry[int]
}

func newRecorder() *recorder { return &recorder{batches: make(chan []Entry[int], 1024)} }

func (r *recorder) fire(_ context.Context, b []Entry[int]) { r.batches <- b }

func TestAdvanceUsesPool(t *testing.T) {
	clk := newFakeClock(t0)
	rec := newRecorder()
	type key struct{}
	var gotCtx atomic.Value
	w := New(func(ctx context.Context, b []Entry[int]) {
		gotCtx.Store(ctx.Value(key{}))
		rec.fire(ctx, b)
	}, Options{Clock: clk, Workers: 1})
	defer w.Stop()
	w.Schedule(1, ms(1), 1)
	w.Schedule(1, ms(1), 2)
	w.Schedule(1, ms(2), 3)
	ctx := context.WithValue(context.Background(), key{}, "v")
	w.Advance(ctx, ms(5))
	// One worker runs batches in queue order.
	got := [][]Entry[int]{<-rec.batches, <-rec.batches}
	wantBatches(t, got, []int{1, 2}, []int{3})
	if gotCtx.Load() != "v" {
		t.Fatal("FireFunc did not get Advance's context")
	}
}

func TestConcurrent(t *testing.T) {
	const (
		schedulers = 8
		per        = 2000
		total      = schedulers * per
	)
	clk := newFakeClock(t0)
	fired := make([]atomic.Int32, total)
	groupOf := func(id int) int64 { return int64(id % 4) }
	w := New(func(_ context.Context, b []Entry[int]) {
		for _, e := range b {
			if e.Group != groupOf(e.Value) {
				t.Errorf("entry %d came with group %d", e.Value, e.Group)
			}
			fired[e.Value].Add(1)
		}
	}, Options{Clock: clk, Workers: 4, QueueLen: 8})
	ctx := context.Background()

	cancelled := make([]bool, total) // each index written by one goroutine
	var wg sync.WaitGroup
	for s := range schedulers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(s), 99))
			var hs []Handle[int]
			for i := range per {
				id := s*per + i
				at := ms(r.Float64()*305 - 5)
				hs = append(hs, w.Schedule(groupOf(id), at, id))
				if i%3 == 0 {
					j := r.IntN(len(hs))
					cancelled[s*per+j] = cancelled[s*per+j] || w.Cancel(hs[j])
				}
			}
		})
	}
	// Group 3 is dropped while entries for it are being scheduled: its
	// entries fire at most once, the other groups' exactly once.
	wg.Go(func() {
		for i := range 5 {
			w.DropGroup(3)
			w.Advance(ctx, ms(float64(i)))
		}
	})
	advanced := make(chan struct{})
	go func() {
		defer close(advanced)
		for i := 0; i <= 320; i++ {
			clk.Set(ms(float64(i)))
			w.Advance(ctx, clk.Now())
		}
	}()
	wg.Wait()
	<-advanced
	w.Advance(ctx, ms(1000))
	w.Stop()

	for id := range total {
		n := fired[id].Load()
		switch {
		case groupOf(id) == 3:
			if n > 1 || (cancelled[id] && n != 0) {
				t.Fatalf("dropped-group entry %d fired %d times (cancelled=%v)", id, n, cancelled[id])
			}
		case cancelled[id]:
			if n != 0 {
				t.Fatalf("cancelled entry %d fired %d times", id, n)
			}
		default:
			if n != 1 {
				t.Fatalf("entry %d fired %d times", id, n)
			}
		}
	}
	if n := w.Len(); n != 0 {
		t.Fatalf("Len = %d, want 0", n)
	}
	checkHeld(t, w, 0)
}

func TestPoolBoundAndBackPressure(t *testing.T) {
	const workers = 2
	var running, maxRunning atomic.Int32
	started := make(chan int, 16)
	release := make(chan struct{})
	var ran atomic.Int32
	w := New(func(_ context.Context, b []Entry[int]) {
		n := running.Add(1)
		for {
			m := maxRunning.Load()
			if n <= m || maxRunning.CompareAndSwap(m, n) {
				break
			}
		}
		started <- b[0].Value
		<-release
		ran.Add(int32(len(b)))
		running.Add(-1)
	}, Options{Clock: newFakeClock(t0), Workers: workers, QueueLen: 1})
	defer w.Stop()

	const batches = 6
	for i := range batches {
		w.Schedule(1, ms(float64(i+1)), i)
	}
	advanced := make(chan struct{})
	go func() {
		w.Advance(context.Background(), ms(100))
		close(advanced)
	}()
	<-started
	<-started
	// Two batches hold both workers and one waits in the queue: Advance
	// cannot have queued the remaining three, so it must still be blocked
	// (not dropping them).
	select {
	case <-advanced:
		t.Fatal("Advance returned while the pool and queue were full")
	default:
	}
	if n := running.Load(); n != workers {
		t.Fatalf("running = %d, want %d", n, workers)
	}
	close(release)
	<-advanced
	w.Stop()
	if n := ran.Load(); n != batches {
		t.Fatalf("ran %d entries, want %d", n, batches)
	}
	if m := maxRunning.Load(); m != workers {
		t.Fatalf("max concurrent batches = %d, want %d", m, workers)
	}
}

func TestStopWaitsForBatches(t *testing.T) {
	started := make(chan struct{}, 8)
	release := make(chan struct{})
	var mu sync.Mutex
	var done []int
	w := New(func(_ context.Context, b []Entry[int]) {
		started <- struct{}{}
		<-release
		mu.Lock()
		done = append(done, b[0].Value)
		mu.Unlock()
	}, Options{Clock: newFakeClock(t0), Workers: 1, QueueLen: 8})
	for i := range 3 {
		w.Schedule(1, ms(float64(i+1)), i)
	}
	w.Advance(context.Background(), ms(10)) // one running, two queued
	<-started
	stopped := make(chan struct{})
	go func() {
		w.Stop()
		close(stopped)
	}()
	select {
	case <-stopped:
		t.Fatal("Stop returned while a batch was running")
	default:
	}
	close(release)
	<-stopped
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(done, []int{0, 1, 2}) {
		t.Fatalf("batches run before Stop returned: %v, want [0 1 2]", done)
	}
}

func TestLifecycle(t *testing.T) {
	t.Run("stop before start", func(t *testing.T) {
		w := New(noFire(t), Options{Clock: newFakeClock(t0)})
		w.Stop()
		w.Stop()
		w.Start(context.Background()) // no-op after Stop
		w.lifeMu.Lock()
		started := w.started
		w.lifeMu.Unlock()
		if started {
			t.Fatal("Start after Stop started the loop")
		}
		w.Schedule(1, ms(0), 1)
		w.Advance(context.Background(), ms(10)) // no-op after Stop
		if n := w.Len(); n != 1 {
			t.Fatalf("Len = %d, want 1", n)
		}
	})
	t.Run("double start, concurrent stops", func(t *testing.T) {
		clk := newFakeClock(t0)
		w := New(noFire(t), Options{Clock: clk})
		w.Start(context.Background())
		w.Start(context.Background())
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(w.Stop)
		}
		wg.Wait()
		<-w.loopDone
	})
	t.Run("context ends the loop", func(t *testing.T) {
		w := New(noFire(t), Options{Clock: newFakeClock(t0)})
		ctx, cancel := context.WithCancel(context.Background())
		w.Start(ctx)
		cancel()
		<-w.loopDone
		w.Stop()
	})
}

func TestLoopSleepsUntilDue(t *testing.T) {
	clk := newFakeClock(t0)
	rec := newRecorder()
	w := New(rec.fire, Options{Clock: clk, MaxSleep: 10 * time.Second})
	w.Start(context.Background())
	defer w.Stop()

	expect := func(want time.Duration) {
		t.Helper()
		if d := <-clk.Armed; d != want {
			t.Fatalf("loop slept for %v, want %v", d, want)
		}
	}
	// Idle: it sleeps for MaxSleep, not for a tick.
	expect(10 * time.Second)
	// An earlier entry wakes it, and it sleeps until exactly that entry.
	w.Schedule(1, ms(500), 1)
	expect(500 * time.Millisecond)
	w.Schedule(1, ms(200.5), 2)
	expect(201 * time.Millisecond)
	clk.Set(ms(201))
	wantBatches(t, [][]Entry[int]{<-rec.batches}, []int{2})
	expect(299 * time.Millisecond)
	clk.Set(ms(500))
	wantBatches(t, [][]Entry[int]{<-rec.batches}, []int{1})
	expect(10 * time.Second)
	// Past entries are fired right away.
	w.Schedule(1, ms(0), 3)
	wantBatches(t, [][]Entry[int]{<-rec.batches}, []int{3})
	expect(10 * time.Second)
}

func TestRealClock(t *testing.T) {
	got := make(chan int, 4)
	var w *Wheel[int]
	w = New(func(_ context.Context, b []Entry[int]) {
		for _, e := range b {
			if e.Value == 1 {
				// Scheduling from a FireFunc is allowed.
				w.Schedule(2, time.Now(), 2)
			}
			got <- e.Value
		}
	}, Options{})
	w.Start(context.Background())
	defer w.Stop()
	w.Schedule(1, time.Now().Add(2*time.Millisecond), 1)
	if v := <-got; v != 1 {
		t.Fatalf("got %d, want 1", v)
	}
	if v := <-got; v != 2 {
		t.Fatalf("got %d, want 2", v)
	}
}

func TestFreeListBounded(t *testing.T) {
	w := newCore(t, Options{})
	for i := range 3 * freeMax {
		w.Schedule(1, ms(float64(1+i%100)), i)
	}
	step(w, ms(1000))
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.nfree > freeMax {
		t.Fatalf("free list holds %d nodes, cap %d", w.nfree, freeMax)
	}
}

func TestBitmapNext(t *testing.T) {
	for _, n := range []int{64, 128, 4096, 1 << 16} {
		b := newBitmap(n)
		r := rand.New(rand.NewPCG(uint64(n), 0))
		set := map[int]bool{}
		for range 50 {
			i := r.IntN(n)
			b.set(i)
			set[i] = true
		}
		for i := range set {
			if r.IntN(3) == 0 {
				b.clear(i)
				delete(set, i)
			}
		}
		for from := 0; from < n; from += 1 + r.IntN(37) {
			want := -1
			for i := from; i < n; i++ {
				if set[i] {
					want = i
					break
				}
			}
			if got := b.next(from); got != want {
				t.Fatalf("n=%d next(%d) = %d, want %d", n, from, got, want)
			}
		}
	}
}
