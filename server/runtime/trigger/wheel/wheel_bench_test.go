package wheel

// Benchmarks comparing the wheel with one runtime timer per fire
// (time.AfterFunc). Run with
//
//	go test -run xxx -bench . -benchmem ./server/runtime/trigger/wheel/
//
// Each benchmark is bounded: the largest setup is 1M pending timers, and the
// lateness benchmarks run about 2.5 s per iteration (b.N is almost always 1
// for them). Lateness includes the wheel's rounding up to the next 1 ms
// tick (0.5 ms on average), which AfterFunc does not have.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/internal/clock"
)

var pendingSizes = []int{10_000, 100_000, 1_000_000}

func sizeName(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// heapInUse is the live heap after a full GC.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// pendingWheel returns a wheel (not started: nothing fires) holding n
// entries spread over 30-60 s ahead, within the default 65.5 s ring, across
// 64 groups, and the heap bytes they cost.
func pendingWheel(n int) (*Wheel[int], float64) {
	before := heapInUse()
	w := New(func(context.Context, []Entry[int]) {}, Options{})
	r := rand.New(rand.NewPCG(1, uint64(n)))
	now := time.Now()
	for i := range n {
		at := now.Add(30*time.Second + time.Duration(r.Int64N(int64(30*time.Second))))
		w.Schedule(int64(i%64), at, i)
	}
	return w, float64(heapInUse()-before) / float64(n)
}

// pendingTimers is the AfterFunc equivalent of pendingWheel.
func pendingTimers(n int) ([]*time.Timer, float64) {
	before := heapInUse()
	r := rand.New(rand.NewPCG(1, uint64(n)))
	f := func() {}
	ts := make([]*time.Timer, n)
	for i := range n {
		ts[i] = time.AfterFunc(30*time.Second+time.Duration(r.Int64N(int64(30*time.Second))), f)
	}
	return ts, float64(heapInUse()-before) / float64(n)
}

func stopAll(ts []*time.Timer) {
	for _, t := range ts {
		t.Stop()
	}
}

// BenchmarkScheduleCancel is one Schedule plus one Cancel with n timers
// already pending. The AfterFunc side shares one func for every timer,
// which flatters it: real callers would allocate a closure per fire.
// B/pending is the heap cost of each pending timer.
func BenchmarkScheduleCancel(b *testing.B) {
	for _, n := range pendingSizes {
		b.Run("wheel/pending="+sizeName(n), func(b *testing.B) {
			w, per := pendingWheel(n)
			at := time.Now().Add(45 * time.Second)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				h := w.Schedule(int64(i%64), at.Add(time.Duration(i%1000)*time.Microsecond), i)
				w.Cancel(h)
			}
			b.StopTimer()
			b.ReportMetric(per, "B/pending")
			if w.Len() != n {
				b.Fatalf("Len = %d, want %d", w.Len(), n)
			}
		})
		b.Run("afterfunc/pending="+sizeName(n), func(b *testing.B) {
			ts, per := pendingTimers(n)
			f := func() {}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t := time.AfterFunc(45*time.Second+time.Duration(i%1000)*time.Microsecond, f)
				t.Stop()
			}
			b.StopTimer()
			b.ReportMetric(per, "B/pending")
			stopAll(ts)
		})
	}
}

// BenchmarkScheduleCancelParallel is the same from GOMAXPROCS goroutines at
// once: the wheel has one lock, runtime timers are per P.
func BenchmarkScheduleCancelParallel(b *testing.B) {
	const n = 100_000
	b.Run("wheel/pending="+sizeName(n), func(b *testing.B) {
		w, _ := pendingWheel(n)
		at := time.Now().Add(45 * time.Second)
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				i++
				w.Cancel(w.Schedule(int64(i%64), at.Add(time.Duration(i%1000)*time.Microsecond), i))
			}
		})
	})
	b.Run("afterfunc/pending="+sizeName(n), func(b *testing.B) {
		ts, _ := pendingTimers(n)
		f := func() {}
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				i++
				time.AfterFunc(45*time.Second+time.Duration(i%1000)*time.Microsecond, f).Stop()
			}
		})
		b.StopTimer()
		stopAll(ts)
	})
}

// BenchmarkScheduleAndFire is the wheel's whole cost per entry in fake
// time: Schedule, then Advance through 1000 ticks handing batches to the
// pool, and the FireFunc seeing it. There is no AfterFunc counterpart
// without real time; see BenchmarkLateness for that.
func BenchmarkScheduleAndFire(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run("wheel/entries="+sizeName(n), func(b *testing.B) {
			var seen atomic.Int64
			clk := newFakeClock(t0)
			w := New(func(_ context.Context, batch []Entry[int]) { seen.Add(int64(len(batch))) },
				Options{Clock: clk})
			defer w.Stop()
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				base := w.tickTime(w.cur)
				for j := range n {
					w.Schedule(int64(j%64), base.Add(time.Duration(1+j%1000)*time.Millisecond), j)
				}
				for t := 1; t <= 1000; t++ {
					w.Advance(ctx, base.Add(time.Duration(t)*time.Millisecond))
				}
			}
			b.StopTimer()
			w.Stop()
			if seen.Load() != int64(n*b.N) {
				b.Fatalf("fired %d, want %d", seen.Load(), n*b.N)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/entry")
		})
	}
}

// BenchmarkLateness schedules n timers at random times over 2 s (starting
// 500 ms out) in real time and measures, at the moment each one's callback
// runs, how late it is: p50, p99 and max in microseconds. cpu-ms is the
// process CPU time used per iteration (scheduling included).
func BenchmarkLateness(b *testing.B) {
	const (
		// lead keeps the scheduling burst (100k inserts can take 100 ms
		// on a busy 2-core machine) out of the measurement.
		lead   = 500 * time.Millisecond
		spread = 2 * time.Second
	)
	for _, n := range []int{10_000, 100_000} {
		b.Run("wheel/timers="+sizeName(n), func(b *testing.B) {
			lats := make([]time.Duration, 0, n*b.N)
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				got := make([]time.Duration, n)
				var fired atomic.Int64
				done := make(chan struct{})
				w := New(func(_ context.Context, batch []Entry[int]) {
					now := time.Now()
					for _, e := range batch {
						got[e.Value] = now.Sub(e.At)
					}
					if fired.Add(int64(len(batch))) == int64(n) {
						close(done)
					}
				}, Options{})
				w.Start(context.Background())
				c0, _ := cpuTime()
				start := time.Now()
				r := rand.New(rand.NewPCG(2, uint64(i)))
				for j := range n {
					w.Schedule(int64(j%64), start.Add(lead+time.Duration(r.Int64N(int64(spread)))), j)
				}
				<-done
				c1, _ := cpuTime()
				cpu += c1 - c0
				w.Stop()
				lats = append(lats, got...)
			}
			reportLateness(b, lats, cpu)
		})
		b.Run("afterfunc/timers="+sizeName(n), func(b *testing.B) {
			lats := make([]time.Duration, 0, n*b.N)
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				got := make([]time.Duration, n)
				var fired atomic.Int64
				done := make(chan struct{})
				c0, _ := cpuTime()
				start := time.Now()
				r := rand.New(rand.NewPCG(2, uint64(i)))
				for j := range n {
					at := start.Add(lead + time.Duration(r.Int64N(int64(spread))))
					time.AfterFunc(time.Until(at), func() {
						got[j] = time.Since(at)
						if fired.Add(1) == int64(n) {
							close(done)
						}
					})
				}
				<-done
				c1, _ := cpuTime()
				cpu += c1 - c0
				lats = append(lats, got...)
			}
			reportLateness(b, lats, cpu)
		})
	}
}

func reportLateness(b *testing.B, lats []time.Duration, cpu time.Duration) {
	slices.Sort(lats)
	q := func(p float64) float64 {
		return float64(lats[int(p*float64(len(lats)-1))].Microseconds())
	}
	b.ReportMetric(q(0.50), "p50-µs")
	b.ReportMetric(q(0.99), "p99-µs")
	b.ReportMetric(float64(lats[len(lats)-1].Microseconds()), "max-µs")
	if _, ok := cpuTime(); ok {
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms")
	}
}

// BenchmarkIdle runs a started wheel holding one entry a minute away for
// one second of real time and reports the CPU it used and how often the
// loop woke up: an idle wheel must sleep, not tick every millisecond.
func BenchmarkIdle(b *testing.B) {
	for i := 0; i < b.N; i++ {
		clk := &countingClock{Clock: clock.System()}
		w := New(func(context.Context, []Entry[int]) {}, Options{Clock: clk})
		w.Schedule(1, time.Now().Add(time.Minute), 1)
		w.Start(context.Background())
		c0, _ := cpuTime()
		<-time.After(time.Second)
		c1, _ := cpuTime()
		w.Stop()
		b.ReportMetric(float64((c1 - c0).Microseconds()), "cpu-µs/s")
		b.ReportMetric(float64(clk.arms.Load()), "wakeups/s")
	}
}

// countingClock counts the timers the loop arms, i.e. its sleeps.
type countingClock struct {
	clock.Clock
	arms atomic.Int64
}

func (c *countingClock) NewTimer(d time.Duration) clock.Timer {
	c.arms.Add(1)
	return &countingTimer{Timer: c.Clock.NewTimer(d), c: c}
}

type countingTimer struct {
	clock.Timer
	c *countingClock
}

func (t *countingTimer) Reset(d time.Duration) bool {
	t.c.arms.Add(1)
	return t.Timer.Reset(d)
}
