// Package testsignal lets tests wait for a service's internal events (a
// trigger pass finished, a batch committed) without sleeping and without
// test-only channels threaded through constructors.
//
// A service keeps a Signal field per event and calls Signal on it where the
// event happens. In production the field is the zero value and Signal does
// nothing. A test calls Init before starting the service, then Wait to take
// the next event. The pattern is River's testsignal.
package testsignal

import (
	"time"
)

// capacity bounds the events buffered for a test that is not waiting; past
// it events are dropped rather than block the service.
const capacity = 1000

// failsafe bounds Wait: a hang, not a timing assertion.
const failsafe = 60 * time.Second

// TB is the part of testing.TB Wait uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Signal is one kind of internal event, carrying a value.
type Signal[T any] struct {
	ch chan T
}

// Init makes the signal record events; call it before the service starts.
func (s *Signal[T]) Init() { s.ch = make(chan T, capacity) }

// Signal records an event. It never blocks, and does nothing unless Init
// was called.
func (s *Signal[T]) Signal(v T) {
	if s.ch == nil {
		return
	}
	select {
	case s.ch <- v:
	default:
	}
}

// Wait returns the next event, failing t if none comes.
func (s *Signal[T]) Wait(t TB) T {
	t.Helper()
	if s.ch == nil {
		t.Fatalf("testsignal: Wait on a signal that was never Init")
	}
	timer := time.NewTimer(failsafe)
	defer timer.Stop()
	select {
	case v := <-s.ch:
		return v
	case <-timer.C:
		var zero T
		t.Fatalf("testsignal: no event within %s", failsafe)
		return zero
	}
}

// Drain discards events recorded so far, so the next Wait sees a fresh one.
func (s *Signal[T]) Drain() {
	for {
		select {
		case <-s.ch:
		default:
			return
		}
	}
}
