// Package testkit is what tests share: waiting for a condition instead of
// sleeping, with one failsafe bound and a message that says what never
// happened.
//
// Tests wait for what they assert, never for a fixed time. The bound is a
// failsafe against hangs on a loaded machine, not a timing assertion: it is
// generous on purpose.
package testkit

import (
	"fmt"
	"time"
)

// Failsafe bounds every wait: long enough never to fail a correct test on a
// busy 2-core machine, short enough to fail a hung one before the suite's
// own timeout.
const Failsafe = 60 * time.Second

// TB is the part of testing.TB the helpers use.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Eventually polls cond until it holds, failing the test with what was
// awaited if it never does within Failsafe.
func Eventually(t TB, what string, cond func() bool) {
	t.Helper()
	EventuallyWithin(t, Failsafe, what, cond)
}

// EventuallyWithin is Eventually with another failsafe bound, for waits
// that include a known long period (a lease expiring, say).
func EventuallyWithin(t TB, bound time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Poll(bound, cond) {
		t.Fatalf("waited %s for %s; it never happened", bound, what)
	}
}

// Poll polls cond until it holds or bound has passed, and says whether it
// held: for a caller that fails with diagnostics of its own (a process's
// output, say). Every wait in the tests is this one loop.
func Poll(bound time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(bound)
	wait := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(wait)
		wait = min(wait*2, 50*time.Millisecond)
	}
	return true
}

// EventuallyNoError polls f until it returns nil; the failure message
// carries f's last error.
func EventuallyNoError(t TB, what string, f func() error) {
	t.Helper()
	var last error
	if !Poll(Failsafe, func() bool { last = f(); return last == nil }) {
		t.Fatalf("waited %s for %s; last error: %v", Failsafe, what, last)
	}
}

// Receive takes one value from ch, failing the test if none comes within
// Failsafe.
func Receive[T any](t TB, what string, ch <-chan T) T {
	t.Helper()
	timer := time.NewTimer(Failsafe)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		var zero T
		t.Fatalf("waited %s for %s; it never came", Failsafe, what)
		return zero
	}
}

// Sprint is fmt.Sprint, for building "what" messages in one call.
func Sprint(a ...any) string { return fmt.Sprint(a...) }
