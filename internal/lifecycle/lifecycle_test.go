package lifecycle

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
)

type loop struct {
	Base
	name string
	log  *[]string
	mu   *sync.Mutex
	fail error
}

func (l *loop) note(s string) {
	l.mu.Lock()
	*l.log = append(*l.log, s)
	l.mu.Unlock()
}

func (l *loop) Start(ctx context.Context) error {
	ctx, ok, started, stopped := l.StartInit(ctx)
	if !ok {
		return nil
	}
	if l.fail != nil {
		stopped()
		return l.fail
	}
	l.note("start " + l.name)
	go func() {
		started()
		defer stopped()
		<-ctx.Done()
		l.note("stop " + l.name)
	}()
	return nil
}

func TestStopBeforeStartTwiceAndRestart(t *testing.T) {
	var mu sync.Mutex
	var log []string
	l := &loop{name: "a", log: &log, mu: &mu}
	l.Stop() // before Start: nothing
	ctx, cancel := context.WithCancel(context.Background())
	if err := l.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Start(ctx); err != nil { // second Start: nothing
		t.Fatal(err)
	}
	<-l.Started()
	cancel() // the parent's cancellation does not stop it
	select {
	case <-l.Stopped():
		t.Fatal("cancelling the parent context stopped the service")
	default:
	}
	l.Stop()
	l.Stop()
	<-l.Stopped()
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-l.Started()
	l.Stop()
	want := []string{"start a", "stop a", "start a", "stop a"}
	if !slices.Equal(log, want) {
		t.Fatalf("log %v, want %v", log, want)
	}
}

func TestGroupStartsInOrderStopsInReverseAndUnwindsAFailure(t *testing.T) {
	var mu sync.Mutex
	var log []string
	mk := func(name string, fail error) *loop { return &loop{name: name, log: &log, mu: &mu, fail: fail} }
	var g Group
	g.Add("a", mk("a", nil))
	g.Add("b", mk("b", nil))
	g.Add("c", mk("c", nil))
	if err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	g.Stop()
	g.Stop()
	want := []string{"start a", "start b", "start c", "stop c", "stop b", "stop a"}
	if !slices.Equal(log, want) {
		t.Fatalf("log %v, want %v", log, want)
	}

	log = nil
	boom := errors.New("boom")
	var g2 Group
	g2.Add("a", mk("a", nil))
	g2.Add("b", mk("b", boom))
	g2.Add("c", mk("c", nil))
	err := g2.Start(context.Background())
	if !errors.Is(err, boom) || err.Error() != "starting b: boom" {
		t.Fatalf("err %v, want starting b: boom", err)
	}
	want = []string{"start a", "stop a"}
	if !slices.Equal(log, want) {
		t.Fatalf("log %v, want %v", log, want)
	}
}

func TestFunc(t *testing.T) {
	ran := make(chan struct{})
	f := NewFunc(func(ctx context.Context) {
		close(ran)
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), ErrStopped) {
			t.Errorf("cause %v, want ErrStopped", context.Cause(ctx))
		}
	})
	if err := f.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-ran
	f.Stop()
}
