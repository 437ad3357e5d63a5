// Package wheel is the scheduler's timing wheel. The trigger loop loads, for
// each app this server owns, the fires due within a short look-ahead window
// and puts each on a Wheel; the wheel hands them back on time, in batches, to
// the fire path.
//
// # Why a wheel
//
// Go's runtime timers (time.AfterFunc) are fast, so speed is not the reason.
// The wheel is used for properties AfterFunc does not have:
//
//   - Bounded memory. Only the look-ahead window of each owned app is held,
//     never the whole job table, so memory follows the fire rate times the
//     window, not the number of jobs.
//   - Batching. Time is counted in ticks (1 ms by default) and everything due
//     in one tick is handed over as one slice, so the fire path can write a
//     tick's fires to the database in one round trip. AfterFunc would start
//     one goroutine per timer and the fire path would have to re-batch.
//   - O(1) drop of a group. When the server loses an app's lease it must stop
//     firing that app's entries at once, however many are loaded. DropGroup
//     does not scan the wheel: see below.
//   - An injectable clock. The core is Advance(ctx, now), which fires every
//     tick up to now; Start only calls it from a timer. Tests drive Advance
//     with fake times and need no sleeps.
//
// # Layout
//
// The wheel is one ring of Slots slots (a power of two), each one tick wide.
// An entry due at tick d, with d at most Slots ticks ahead of the current
// tick, lives in slot d mod Slots; so everything in a slot is due in the same
// tick and firing a tick is unlinking one list, with no comparisons. The
// default, 65536 slots of 1 ms, spans 65.5 s: more than the longest window,
// so in normal use every entry goes straight into the ring. Entries further
// out (a misconfigured window, a test) wait in an overflow min-heap and move
// into the ring once they come within span; entries already due (in the past
// or in the tick just fired) go on a due list that the next Advance fires
// first, as one batch.
//
// Slot lists are intrusive and doubly linked, which makes Cancel O(1). A
// two-level bitmap of non-empty slots lets Advance skip empty ticks and lets
// the loop find the next due tick cheaply, so a lagging or long Advance
// costs the number of non-empty ticks, not the number of milliseconds.
//
// Times are wall-clock times (fires are stored as wall times), counted in
// ticks from the Unix epoch so that millisecond-aligned times fall exactly on
// tick boundaries. An entry's tick is its time rounded up: the wheel never
// fires early, and is late by at most one tick plus the loop's wake-up
// latency.
//
// # Dropping a group
//
// Each group (an app) has a small record with its count of live entries, and
// every entry points at its group's record. DropGroup marks the record
// dropped, takes its count off Len and forgets it: O(1) whatever the group
// holds. The dropped entries stay where they are and are discarded, never
// fired, when their tick comes (or when Cancel reaches them), so their memory
// is reclaimed within one window. A group scheduled again after a drop gets a
// fresh record, so stale entries cannot come back to life.
//
// # Firing
//
// Batches run on a fixed pool of Workers goroutines fed by a queue of at most
// QueueLen batches, never a goroutine per entry. When the queue is full
// Advance blocks until a worker takes a batch: the wheel falls behind and
// fires late rather than dropping anything, because a dropped fire is a job
// run that silently never happens, while lateness shows up in metrics. The
// wheel's lock is not held while blocked, so Schedule, Cancel and DropGroup
// keep working. Batches may run in parallel, so two batches can finish out of
// order; each batch is one tick and the ticks are queued in order.
//
// # The loop
//
// Start runs Advance in a goroutine that sleeps until the next due tick, not
// every tick, so an idle wheel costs nothing; Schedule wakes it when a new
// entry is due before its planned wake-up. Sleeps are capped at MaxSleep
// (1 s by default) because timers run on the monotonic clock while entries
// are on wall time: the cap bounds how late a wall-clock step can make a fire.
package wheel

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/internal/clock"
)

// Defaults for the zero values of Options.
const (
	DefaultTick     = time.Millisecond
	DefaultSlots    = 1 << 16 // 65.5 s at 1 ms: longer than any window
	DefaultWorkers  = 4       // fires are database-bound, not CPU-bound
	DefaultQueueLen = 1024    // about a second of 1 ms batches
	DefaultMaxSleep = time.Second
)

// freeMax bounds the recycled-node list: it saves allocations in steady
// state, but must not pin a burst's worth of nodes forever.
const freeMax = 4096

// Options configures a Wheel. The zero value uses the defaults above.
type Options struct {
	// Tick is the wheel's resolution and the width of a batch.
	Tick time.Duration
	// Slots is the number of ticks the ring spans, rounded up to a power of
	// two (at least 64). Entries further ahead go through the overflow heap.
	Slots int
	// Workers is the number of goroutines running batches.
	Workers int
	// QueueLen is how many batches may wait for a worker before Advance
	// blocks.
	QueueLen int
	// MaxSleep caps the background loop's sleep.
	MaxSleep time.Duration
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Entry is one fire as handed to the FireFunc. At is the time it was
// scheduled for, so the fire path can compute its lateness.
type Entry[T any] struct {
	Group int64
	At    time.Time
	Value T
}

// FireFunc runs one batch: the entries due in one tick, in no particular
// order (or, for the first batch of an Advance, everything that was already
// due when scheduled). It runs on a worker goroutine and owns the slice. It
// may call Schedule, Cancel, DropGroup and Len, but must not call Advance or
// Stop, which wait for the workers. ctx is the one given to Advance (for the
// background loop, the one given to Start).
type FireFunc[T any] func(ctx context.Context, batch []Entry[T])

// Handle names one scheduled entry for Cancel. The zero Handle names none.
type Handle[T any] struct {
	n   *node[T]
	seq uint64
}

// where a node is.
const (
	inFree uint8 = iota // on the free list or collected
	inRing
	inDue
	inOver
)

type node[T any] struct {
	// next, prev link a slot list or the due list. The head's prev is the
	// tail, so appending is O(1) with one pointer per slot. next also links
	// the free list.
	next, prev *node[T]
	group      *groupRec
	tick       int64
	// seq changes each time the node is recycled, so an old Handle cannot
	// cancel the node's next entry.
	seq   uint64
	hidx  int // index in the overflow heap when where == inOver
	where uint8
	at    time.Time
	value T
}

type groupRec struct {
	id      int64
	live    int
	dropped bool
}

type batchJob[T any] struct {
	ctx   context.Context
	batch []Entry[T]
}

// Wheel is a timing wheel of values of type T; see the package doc. Its
// methods are safe for concurrent use.
type Wheel[T any] struct {
	fire     FireFunc[T]
	clock    clock.Clock
	tickNs   int64
	mask     int64
	span     int64
	workers  int
	queueLen int
	maxSleep time.Duration

	mu        sync.Mutex
	cur       int64 // last tick fired; the ring holds ticks cur+1 .. cur+span
	ring      []*node[T]
	occ       bitmap
	inRing    int
	due       *node[T]
	over      []*node[T] // min-heap on tick
	groups    map[int64]*groupRec
	live      int // what Len reports
	held      int // nodes in ring, due list or heap, dropped ones included
	free      *node[T]
	nfree     int
	sleepTick int64 // tick the loop sleeps until; Schedule wakes it for earlier ones

	wake chan struct{}

	// advMu serializes Advance, so batches are queued in tick order, and
	// guards the pool.
	advMu  sync.Mutex
	halted bool
	poolUp bool
	queue  chan batchJob[T]
	poolWG sync.WaitGroup

	lifeMu   sync.Mutex
	started  bool
	stopping bool
	stopCh   chan struct{}
	loopDone chan struct{}
	stopOnce sync.Once
}

// New returns a stopped wheel that hands due batches to fire. Nothing runs
// until Start, or until Advance is called.
func New[T any](fire FireFunc[T], opts Options) *Wheel[T] {
	if fire == nil {
		panic("wheel: nil FireFunc")
	}
	if opts.Tick <= 0 {
		opts.Tick = DefaultTick
	}
	if opts.Slots <= 0 {
		opts.Slots = DefaultSlots
	}
	slots := 64
	for slots < opts.Slots {
		slots <<= 1
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.QueueLen <= 0 {
		opts.QueueLen = DefaultQueueLen
	}
	if opts.MaxSleep <= 0 {
		opts.MaxSleep = DefaultMaxSleep
	}
	opts.Clock = clock.OrSystem(opts.Clock)
	w := &Wheel[T]{
		fire:      fire,
		clock:     opts.Clock,
		tickNs:    int64(opts.Tick),
		mask:      int64(slots - 1),
		span:      int64(slots),
		workers:   opts.Workers,
		queueLen:  opts.QueueLen,
		maxSleep:  opts.MaxSleep,
		ring:      make([]*node[T], slots),
		occ:       newBitmap(slots),
		groups:    make(map[int64]*groupRec),
		sleepTick: math.MinInt64,
		wake:      make(chan struct{}, 1),
		stopCh:    make(chan struct{}),
		loopDone:  make(chan struct{}),
	}
	w.cur = w.floorTick(w.clock.Now())
	return w
}

var unixEpoch = time.Unix(0, 0)

// floorTick is the last tick that has started at t. Sub saturates, so times
// outside int64 nanoseconds clamp instead of wrapping.
func (w *Wheel[T]) floorTick(t time.Time) int64 {
	ns := int64(t.Sub(unixEpoch))
	q := ns / w.tickNs
	if ns%w.tickNs < 0 {
		q--
	}
	return q
}

// ceilTick is the first tick starting at or after t: an entry fires at that
// tick, so never before its time.
func (w *Wheel[T]) ceilTick(t time.Time) int64 {
	ns := int64(t.Sub(unixEpoch))
	q := ns / w.tickNs
	if ns%w.tickNs > 0 && q < math.MaxInt64/w.tickNs {
		q++ // but not past the last tick floorTick can reach
	}
	return q
}

// tickTime is when tick t starts.
func (w *Wheel[T]) tickTime(t int64) time.Time {
	if t > math.MaxInt64/w.tickNs {
		return unixEpoch.Add(math.MaxInt64)
	}
	if t < math.MinInt64/w.tickNs {
		return unixEpoch.Add(math.MinInt64)
	}
	return unixEpoch.Add(time.Duration(t * w.tickNs))
}

// Schedule adds v to fire at at for group. An at in the past or in the tick
// already fired makes v fire on the next Advance.
func (w *Wheel[T]) Schedule(group int64, at time.Time, v T) Handle[T] {
	tick := w.ceilTick(at)
	w.mu.Lock()
	g := w.groups[group]
	if g == nil {
		g = &groupRec{id: group}
		w.groups[group] = g
	}
	n := w.alloc()
	n.group, n.tick, n.at, n.value = g, tick, at, v
	g.live++
	w.live++
	w.held++
	w.insert(n)
	h := Handle[T]{n: n, seq: n.seq}
	wake := tick < w.sleepTick
	w.mu.Unlock()
	if wake {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return h
}

// Cancel removes the entry h names. It reports whether the entry was
// pending: false if it has fired (or is being fired), was cancelled, or its
// group was dropped.
func (w *Wheel[T]) Cancel(h Handle[T]) bool {
	n := h.n
	if n == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if n.seq != h.seq || n.where == inFree {
		return false
	}
	w.remove(n)
	g := n.group
	ok := !g.dropped
	if ok {
		w.unlive(g)
	}
	w.release(n)
	return ok
}

// DropGroup forgets every pending entry of group in O(1): none of them will
// fire. Entries scheduled for group afterwards are kept as usual. Batches
// already handed to the pool (queued or running) are not recalled, so the
// fire path must still check that it holds the lease.
func (w *Wheel[T]) DropGroup(group int64) {
	w.mu.Lock()
	if g := w.groups[group]; g != nil {
		g.dropped = true
		w.live -= g.live
		g.live = 0
		delete(w.groups, group)
	}
	w.mu.Unlock()
}

// Len is the number of entries pending: scheduled, not yet handed to a
// worker, not cancelled and not dropped.
func (w *Wheel[T]) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.live
}

// Advance fires every tick up to now, in order, one batch per tick, after a
// first batch of the entries that were already due when scheduled. It
// blocks while the worker queue is full. Calls are serialized; after Stop it
// does nothing.
func (w *Wheel[T]) Advance(ctx context.Context, now time.Time) {
	target := w.floorTick(now)
	w.advMu.Lock()
	defer w.advMu.Unlock()
	if w.halted {
		return
	}
	for {
		w.mu.Lock()
		batch := w.collectNext(target)
		w.mu.Unlock()
		if batch == nil {
			return
		}
		w.dispatch(ctx, batch)
	}
}

// Start runs the background loop until ctx is done or Stop is called. It
// does nothing if the wheel was started or stopped before.
func (w *Wheel[T]) Start(ctx context.Context) {
	w.lifeMu.Lock()
	defer w.lifeMu.Unlock()
	if w.started || w.stopping {
		return
	}
	w.started = true
	go w.run(ctx)
}

// Stop ends the loop and waits for it, then runs every batch already queued
// and waits for the workers. Entries still pending stay pending (Len counts
// them) and never fire. Stop may be called before Start and more than once;
// every call returns once the wheel is stopped.
func (w *Wheel[T]) Stop() {
	w.stopOnce.Do(func() {
		w.lifeMu.Lock()
		w.stopping = true
		started := w.started
		w.lifeMu.Unlock()
		close(w.stopCh)
		if started {
			<-w.loopDone
		}
		w.advMu.Lock()
		w.halted = true
		if w.poolUp {
			close(w.queue)
		}
		w.advMu.Unlock()
		w.poolWG.Wait()
	})
}

func (w *Wheel[T]) run(ctx context.Context) {
	defer close(w.loopDone)
	var timer clock.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		// Nobody needs to wake the loop while it is advancing: it looks
		// for the next due tick right after.
		w.mu.Lock()
		w.sleepTick = math.MinInt64
		w.mu.Unlock()

		w.Advance(ctx, w.clock.Now())

		w.mu.Lock()
		dueNow := w.due != nil
		next, ok := w.nextPending()
		if ok {
			w.sleepTick = next
		} else {
			w.sleepTick = math.MaxInt64
		}
		w.mu.Unlock()

		d := w.maxSleep
		switch {
		case dueNow:
			// Scheduled while Advance ran, already due whatever the
			// clock says.
			d = 0
		case ok:
			if until := w.tickTime(next).Sub(w.clock.Now()); until < d {
				d = until
			}
		}
		if d <= 0 {
			select {
			case <-ctx.Done():
				return
			case <-w.stopCh:
				return
			default:
				continue
			}
		}
		if timer == nil {
			timer = w.clock.NewTimer(d)
		} else {
			timer.Reset(d)
		}
		select {
		case <-ctx.Done():
			return
		case <-w.stopCh:
			return
		case <-w.wake:
		case <-timer.C():
		}
	}
}

// dispatch queues a batch for the workers, starting them on first use so
// that a wheel that never fires owns no goroutines. Called with advMu held.
func (w *Wheel[T]) dispatch(ctx context.Context, batch []Entry[T]) {
	if !w.poolUp {
		w.poolUp = true
		w.queue = make(chan batchJob[T], w.queueLen)
		w.poolWG.Add(w.workers)
		for range w.workers {
			go w.work()
		}
	}
	w.queue <- batchJob[T]{ctx: ctx, batch: batch}
}

func (w *Wheel[T]) work() {
	defer w.poolWG.Done()
	for j := range w.queue {
		w.fire(j.ctx, j.batch)
	}
}

// collectNext takes the next batch due by tick target, or returns nil and
// moves cur up to target. Called with mu held.
func (w *Wheel[T]) collectNext(target int64) []Entry[T] {
	for {
		if w.due != nil {
			head := w.due
			w.due = nil
			var batch []Entry[T]
			for n := head; n != nil; {
				next := n.next
				batch = w.take(n, batch)
				n = next
			}
			if batch != nil {
				return batch
			}
			continue
		}
		t, ok := w.nextPending()
		if !ok || t > target {
			if target > w.cur {
				w.cur = target
				w.migrate()
			}
			return nil
		}
		w.cur = t
		var batch []Entry[T]
		i := t & w.mask
		if head := w.ring[i]; head != nil {
			w.ring[i] = nil
			w.occ.clear(int(i))
			for n := head; n != nil; {
				next := n.next
				w.inRing--
				batch = w.take(n, batch)
				n = next
			}
		}
		for len(w.over) > 0 && w.over[0].tick <= t {
			batch = w.take(w.heapPop(), batch)
		}
		w.migrate()
		if batch != nil {
			return batch
		}
	}
}

// take appends n to batch unless its group was dropped, and recycles it. n
// has already been unlinked.
func (w *Wheel[T]) take(n *node[T], batch []Entry[T]) []Entry[T] {
	g := n.group
	if !g.dropped {
		batch = append(batch, Entry[T]{Group: g.id, At: n.at, Value: n.value})
		w.unlive(g)
	}
	w.release(n)
	return batch
}

func (w *Wheel[T]) unlive(g *groupRec) {
	g.live--
	w.live--
	if g.live == 0 && w.groups[g.id] == g {
		delete(w.groups, g.id)
	}
}

// nextPending is the earliest tick in the ring or the heap.
func (w *Wheel[T]) nextPending() (int64, bool) {
	t, ok := int64(math.MaxInt64), false
	if w.inRing > 0 {
		from := int((w.cur + 1) & w.mask)
		i := w.occ.next(from)
		if i < 0 {
			i = w.occ.next(0)
		}
		t, ok = w.cur+1+(int64(i-from)&w.mask), true
	}
	if len(w.over) > 0 && w.over[0].tick < t {
		t, ok = w.over[0].tick, true
	}
	return t, ok
}

// migrate moves heap entries that have come within span into the ring.
func (w *Wheel[T]) migrate() {
	for len(w.over) > 0 && w.over[0].tick <= w.cur+w.span {
		n := w.heapPop()
		if n.group.dropped {
			w.release(n)
			continue
		}
		w.insert(n)
	}
}

func (w *Wheel[T]) insert(n *node[T]) {
	switch {
	case n.tick <= w.cur:
		n.where = inDue
		pushBack(&w.due, n)
	case n.tick <= w.cur+w.span:
		n.where = inRing
		i := n.tick & w.mask
		if w.ring[i] == nil {
			w.occ.set(int(i))
		}
		pushBack(&w.ring[i], n)
		w.inRing++
	default:
		n.where = inOver
		w.heapPush(n)
	}
}

func (w *Wheel[T]) remove(n *node[T]) {
	switch n.where {
	case inDue:
		unlink(&w.due, n)
	case inRing:
		i := n.tick & w.mask
		unlink(&w.ring[i], n)
		if w.ring[i] == nil {
			w.occ.clear(int(i))
		}
		w.inRing--
	case inOver:
		w.heapRemove(n.hidx)
	}
}

func (w *Wheel[T]) alloc() *node[T] {
	n := w.free
	if n == nil {
		return &node[T]{}
	}
	w.free = n.next
	w.nfree--
	n.next = nil
	return n
}

// release recycles n, which is no longer in any structure. Clearing the
// value lets the GC have whatever it points to even while n waits for reuse.
func (w *Wheel[T]) release(n *node[T]) {
	var zero T
	w.held--
	n.seq++
	n.where = inFree
	n.group, n.prev, n.next = nil, nil, nil
	n.at, n.value = time.Time{}, zero
	if w.nfree < freeMax {
		n.next = w.free
		w.free = n
		w.nfree++
	}
}

func pushBack[T any](head **node[T], n *node[T]) {
	h := *head
	n.next = nil
	if h == nil {
		n.prev = n
		*head = n
		return
	}
	tail := h.prev
	tail.next = n
	n.prev = tail
	h.prev = n
}

func unlink[T any](head **node[T], n *node[T]) {
	h := *head
	switch {
	case n == h:
		if n.next != nil {
			n.next.prev = n.prev
		}
		*head = n.next
	case n.next == nil: // the tail
		n.prev.next = nil
		h.prev = n.prev
	default:
		n.prev.next = n.next
		n.next.prev = n.prev
	}
	n.next, n.prev = nil, nil
}

// The overflow heap. Hand-written rather than container/heap to keep hidx
// current without interface calls.

func (w *Wheel[T]) heapPush(n *node[T]) {
	n.hidx = len(w.over)
	w.over = append(w.over, n)
	w.heapUp(n.hidx)
}

func (w *Wheel[T]) heapPop() *node[T] {
	return w.heapRemove(0)
}

func (w *Wheel[T]) heapRemove(i int) *node[T] {
	h := w.over
	n := h[i]
	last := len(h) - 1
	if i != last {
		h[i] = h[last]
		h[i].hidx = i
	}
	h[last] = nil
	w.over = h[:last]
	if i != last {
		w.heapDown(i)
		w.heapUp(i)
	}
	if cap(w.over) > 64 && len(w.over) < cap(w.over)/4 {
		// The heap only sees bursts of misuse; give the memory back.
		w.over = append([]*node[T](nil), w.over...)
	}
	return n
}

func (w *Wheel[T]) heapUp(i int) {
	h := w.over
	for i > 0 {
		p := (i - 1) / 2
		if h[p].tick <= h[i].tick {
			break
		}
		h[p], h[i] = h[i], h[p]
		h[p].hidx, h[i].hidx = p, i
		i = p
	}
}

func (w *Wheel[T]) heapDown(i int) {
	h := w.over
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].tick < h[l].tick {
			m = r
		}
		if h[i].tick <= h[m].tick {
			return
		}
		h[i], h[m] = h[m], h[i]
		h[i].hidx, h[m].hidx = i, m
		i = m
	}
}
