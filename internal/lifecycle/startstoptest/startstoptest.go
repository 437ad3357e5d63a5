// Package startstoptest checks that a long-lived part keeps the lifecycle
// contract (internal/lifecycle) under abuse: Start and Stop called many
// times, from several goroutines at once, in any order, and Start again
// after Stop. It is River's rivershared/startstoptest, written for this
// project.
//
// Every service's tests call Stress once:
//
//	func TestSweeperStartStop(t *testing.T) {
//		startstoptest.Stress(t, newSweeper(t))
//	}
//
// A part that deadlocks, panics, returns from Stop before its goroutines
// have ended, cannot start again after a stop, or leaks a goroutine fails.
package startstoptest

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// Rounds is how many start/stop calls each of the Stress goroutines makes.
const Rounds = 50

// Goroutines is how many goroutines call Start and Stop at once.
const Goroutines = 4

// Stress starts and stops svc concurrently from several goroutines, then
// checks that it can still be started, says it started, and stops for good,
// leaving no goroutine behind that it started. Goroutines running before
// Stress began (a database pool's, another test's) are ignored.
func Stress(t *testing.T, svc lifecycle.Service) {
	t.Helper()
	StressErr(t, svc, nil)
}

// StressErr is Stress for a part whose Start may fail for a reason the
// test expects (a closed listener, say): allowed says which errors are
// fine; any other fails the test.
func StressErr(t *testing.T, svc lifecycle.Service, allowed func(error) bool) {
	t.Helper()
	before := goleak.IgnoreCurrent()
	ctx := context.Background()

	var wg sync.WaitGroup
	errs := make(chan error, Goroutines*Rounds)
	for g := range Goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range Rounds {
				if rng.IntN(2) == 0 {
					if err := svc.Start(ctx); err != nil {
						errs <- err
					}
				} else {
					svc.Stop()
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	testkit.Receive(t, "every concurrent Start and Stop to return (a deadlock otherwise)", done)
	close(errs)
	for err := range errs {
		// A start that a concurrent Stop cut short (its context cancelled
		// while it registered, say) may fail: that is the contract.
		if errors.Is(err, context.Canceled) || errors.Is(err, lifecycle.ErrStopped) {
			continue
		}
		if allowed == nil || !allowed(err) {
			t.Fatalf("Start failed under concurrent starts and stops: %v", err)
		}
	}

	// Whatever state the storm left it in, a stop then a start must work:
	// a part is restartable after Stop.
	svc.Stop()
	if err := svc.Start(ctx); err != nil {
		t.Fatalf("Start after Stop: %v", err)
	}
	testkit.Receive(t, "Started to be closed after a start following a stop", svc.Started())
	svc.Stop()
	svc.Stop() // twice is safe

	// Everything the part started has ended once Stop returned; give the
	// runtime a moment to reap goroutines that are returning.
	if err := goleak.Find(before); err != nil {
		t.Fatalf("goroutines left behind after Stop:\n%v", err)
	}
}
