// Package lifecycle gives every long-lived part of the server one shape:
//
//	Start(ctx) error  starts the part's background work and returns at once;
//	                  a second Start while running does nothing.
//	Stop()            cancels that work and returns when it has finished;
//	                  safe to call twice, and before Start (then it does nothing).
//	Started()         is closed once Start has succeeded.
//
// A part embeds Base and begins its Start with StartInit, which says whether
// to start and hands back the context Stop cancels plus the two callbacks
// that mark the part started and stopped:
//
//	func (s *Svc) Start(ctx context.Context) error {
//		ctx, ok, started, stopped := s.StartInit(ctx)
//		if !ok {
//			return nil
//		}
//		if err := s.setup(ctx); err != nil {
//			stopped()
//			return err
//		}
//		go func() {
//			started()
//			defer stopped()
//			s.loop(ctx) // returns when ctx is done
//		}()
//		return nil
//	}
//
// Work a part must do when it stops (release leases, close connections,
// deregister) goes at the end of its own goroutine, after ctx is done, so
// Stop returning means it happened. The parent context only carries values:
// cancelling it does not stop the part (Stop does), so a signal handler
// cancelling the process context cannot tear parts down out of order.
//
// Group starts parts in order and stops them in reverse: a part may depend
// on those before it, and no hidden rule orders shutdown.
//
// The pattern is River's rivershared/startstop, written for this project.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Service is a long-lived part of the server.
type Service interface {
	Start(ctx context.Context) error
	Stop()
	Started() <-chan struct{}
}

// ErrStopped is the cause of the context a part runs with once Stop was
// called.
var ErrStopped = errors.New("service stopped")

// Base implements Stop and Started for a part that embeds it; the part's
// Start calls StartInit. The zero value is ready to use.
type Base struct {
	mu      sync.Mutex
	running bool
	cancel  context.CancelCauseFunc
	started chan struct{}
	stopped chan struct{}
}

// StartInit prepares a start. ok is false if the part is already running;
// then the part must return from Start without doing anything. Otherwise
// the part runs with ctx until Stop cancels it, must call started() once
// it is up and stopped() exactly once when it has finished (also when its
// start failed).
func (b *Base) StartInit(parent context.Context) (ctx context.Context, ok bool, started, stopped func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running {
		return parent, false, func() {}, func() {}
	}
	b.running = true
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(parent))
	b.cancel = cancel
	startedCh := make(chan struct{})
	stoppedCh := make(chan struct{})
	if b.started == nil || isClosed(b.started) {
		b.started = startedCh
	} else {
		startedCh = b.started // someone may already wait on it
	}
	b.stopped = stoppedCh
	var startOnce, stopOnce sync.Once
	started = func() { startOnce.Do(func() { close(startedCh) }) }
	stopped = func() {
		stopOnce.Do(func() {
			cancel(ErrStopped)
			b.mu.Lock()
			b.running = false
			b.mu.Unlock()
			close(stoppedCh)
		})
	}
	return ctx, true, started, stopped
}

// Stop cancels the part's context and waits until it has stopped. It does
// nothing if the part is not running.
func (b *Base) Stop() {
	b.mu.Lock()
	if !b.running {
		b.mu.Unlock()
		return
	}
	cancel, stopped := b.cancel, b.stopped
	b.mu.Unlock()
	cancel(ErrStopped)
	<-stopped
}

// Started is closed once the part has started.
func (b *Base) Started() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started == nil {
		b.started = make(chan struct{})
	}
	return b.started
}

// Stopped is closed once the part has stopped after its last start; it is
// nil before the first start.
func (b *Base) Stopped() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stopped
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Group is parts started in order and stopped in reverse.
type Group struct {
	mu      sync.Mutex
	names   []string
	parts   []Service
	running []Service
}

// Add appends a part; name is used in errors.
func (g *Group) Add(name string, s Service) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.names = append(g.names, name)
	g.parts = append(g.parts, s)
}

// Start starts every part in order. If one fails, those already started are
// stopped in reverse and the error names the part.
func (g *Group) Start(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, s := range g.parts {
		if err := s.Start(ctx); err != nil {
			g.stopLocked()
			return fmt.Errorf("starting %s: %w", g.names[i], err)
		}
		g.running = append(g.running, s)
	}
	return nil
}

// Stop stops the started parts in reverse order.
func (g *Group) Stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopLocked()
}

func (g *Group) stopLocked() {
	for i := len(g.running) - 1; i >= 0; i-- {
		g.running[i].Stop()
	}
	g.running = nil
}

// StopEachWithin stops the started parts in reverse order like Stop, but
// gives each at most d: a part still stopping then (stuck in a call that
// hangs, with its context already cancelled) is left to finish in the
// background, and slow is told its name, so one stuck part cannot hold up
// the caller.
func (g *Group) StopEachWithin(d time.Duration, slow func(name string)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := len(g.running) - 1; i >= 0; i-- {
		if !StopWithin(g.running[i], d) && slow != nil {
			slow(g.nameOf(g.running[i]))
		}
	}
	g.running = nil
}

func (g *Group) nameOf(s Service) string {
	for i, p := range g.parts {
		if p == s {
			return g.names[i]
		}
	}
	return "?"
}

// StopWithin stops s, waiting at most d; false if it had not stopped by
// then (it goes on stopping in the background).
func StopWithin(s Service, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		s.Stop()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// Func adapts a function that runs until its context is done into a
// Service.
type Func struct {
	Base
	run func(ctx context.Context)
}

// NewFunc returns a Service running run in a goroutine.
func NewFunc(run func(ctx context.Context)) *Func { return &Func{run: run} }

// Start runs the function.
func (f *Func) Start(ctx context.Context) error {
	ctx, ok, started, stopped := f.StartInit(ctx)
	if !ok {
		return nil
	}
	go func() {
		started()
		defer stopped()
		f.run(ctx)
	}()
	return nil
}
