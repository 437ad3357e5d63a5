package wheel

import "time"

// Clock is the wheel's source of time. The wheel reads only wall-clock
// time from it (see the package doc), so a fake Clock in tests can hand out
// plain time.Time values without monotonic readings.
type Clock interface {
	Now() time.Time
	// NewTimer returns a running one-shot timer that sends on C after d.
	NewTimer(d time.Duration) Timer
}

// Timer is the part of *time.Timer the background loop uses. Implementations
// must follow Go 1.23+ semantics: after Stop or Reset returns, no value from
// an earlier expiry is received from C.
type Timer interface {
	C() <-chan time.Time
	Reset(d time.Duration) bool
	Stop() bool
}

// SystemClock returns the real clock, the default when Options.Clock is nil.
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) Timer { return systemTimer{time.NewTimer(d)} }

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time        { return t.t.C }
func (t systemTimer) Reset(d time.Duration) bool { return t.t.Reset(d) }
func (t systemTimer) Stop() bool                 { return t.t.Stop() }
