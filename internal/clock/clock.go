// Package clock is the one source of time for the server's services, so
// tests can drive time instead of sleeping.
//
// System readings keep Go's monotonic clock: durations between two
// readings (trust windows, grace periods, lateness) are immune to wall-clock
// steps. A reading written to the database loses it, as every time.Time
// does when formatted; db stores UTC at millisecond precision (db.Stamp).
package clock

import (
	"sync"
	"time"
)

// Clock tells the time and makes timers.
type Clock interface {
	Now() time.Time
	// NewTimer returns a running one-shot timer that sends on C after d.
	NewTimer(d time.Duration) Timer
}

// Timer is the part of *time.Timer services use. Implementations follow Go
// 1.23+ semantics: after Stop or Reset returns, no value from an earlier
// expiry is received from C.
type Timer interface {
	C() <-chan time.Time
	Reset(d time.Duration) bool
	Stop() bool
}

// System returns the real clock.
func System() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) Timer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time        { return t.t.C }
func (t systemTimer) Reset(d time.Duration) bool { return t.t.Reset(d) }
func (t systemTimer) Stop() bool                 { return t.t.Stop() }

// OrSystem returns c, or the system clock if c is nil: configs leave the
// clock unset outside tests.
func OrSystem(c Clock) Clock {
	if c == nil {
		return System()
	}
	return c
}

// Sleep waits for d on c, or until done is closed; false if done closed
// first.
func Sleep(c Clock, d time.Duration, done <-chan struct{}) bool {
	t := c.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-done:
		return false
	}
}

// Fake is a Clock whose time moves only when the test moves it. Every timer
// armed on it is reported on Armed (when non-nil), so a test can see what a
// loop decided to wait for.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	// Armed receives the duration of each timer armed or reset, if set.
	Armed chan time.Duration
}

// NewFake returns a fake clock reading now.
func NewFake(now time.Time) *Fake { return &Fake{now: now} }

// Now returns the fake time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to now and fires the timers that are due.
func (c *Fake) Set(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = now
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.active && !t.when.After(now) {
			t.active = false
			select {
			case t.ch <- now:
			default:
			}
		}
		if t.active {
			kept = append(kept, t)
		}
	}
	c.timers = kept
}

// Advance moves the clock forward by d.
func (c *Fake) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// NewTimer arms a fake timer.
func (c *Fake) NewTimer(d time.Duration) Timer {
	t := &fakeTimer{c: c, ch: make(chan time.Time, 1)}
	t.Reset(d)
	return t
}

type fakeTimer struct {
	c      *Fake
	ch     chan time.Time
	when   time.Time
	active bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	was := t.stopLocked()
	t.when = t.c.now.Add(d)
	if d <= 0 {
		t.ch <- t.c.now
	} else {
		t.active = true
		t.c.timers = append(t.c.timers, t)
	}
	armed := t.c.Armed
	t.c.mu.Unlock()
	if armed != nil {
		armed <- d
	}
	return was
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	return t.stopLocked()
}

func (t *fakeTimer) stopLocked() bool {
	was := t.active
	t.active = false
	select { // Go 1.23 semantics: no stale expiry after Stop or Reset
	case <-t.ch:
	default:
	}
	return was
}

// Ticker fires every d: a Timer of the clock, re-armed by the loop after
// each tick with Next (ticks a slow loop missed are not queued).
type Ticker struct {
	t Timer
	d time.Duration
}

// NewTicker returns a running ticker on c.
func NewTicker(c Clock, d time.Duration) *Ticker { return &Ticker{t: c.NewTimer(d), d: d} }

// C receives a tick; call Next once it is handled.
func (k *Ticker) C() <-chan time.Time { return k.t.C() }

// Next arms the ticker for the following tick.
func (k *Ticker) Next() { k.t.Reset(k.d) }

// Stop stops the ticker.
func (k *Ticker) Stop() { k.t.Stop() }
