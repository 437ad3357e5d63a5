package groupcommit

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// Calls that arrive while a batch is being written share the next write;
// each caller sees its own item's outcome.
func TestConcurrentCallsShareWrites(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var batches [][]int
	first := true
	b := New(100, func(ctx context.Context, items []int) error {
		mu.Lock()
		batches = append(batches, slices.Clone(items))
		wait := first
		first = false
		mu.Unlock()
		if wait {
			<-release // the first write is slow: the others queue meanwhile
		}
		if slices.Contains(items, 13) {
			return errors.New("13 is refused")
		}
		return nil
	})
	errs := make(chan error, 1)
	go func() { errs <- b.Do(context.Background(), 0) }()
	// Wait until the first write holds its item before the rest arrive.
	for {
		mu.Lock()
		n := len(batches)
		mu.Unlock()
		if n == 1 {
			break
		}
		runtime.Gosched()
	}
	var wg sync.WaitGroup
	results := make([]error, 20)
	queued := make(chan struct{}, 20)
	for i := 1; i <= 19; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			queued <- struct{}{}
			results[i] = b.Do(context.Background(), i+3) // 4..22, 13 among them
		}()
	}
	for range 19 {
		<-queued
	}
	// Every caller is inside Do or about to be; let the first write end.
	waitQueued(t, b, 19)
	close(release)
	if err := <-errs; err != nil {
		t.Fatalf("the first call: %v", err)
	}
	wg.Wait()
	for i := 1; i <= 19; i++ {
		if want := i+3 == 13; (results[i] != nil) != want {
			t.Errorf("item %d: error %v", i+3, results[i])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// The 19 queued calls went in one batch, then (it failed on 13) one by one.
	if len(batches[1]) != 19 {
		t.Errorf("batches %v; want the 19 queued calls written together after the first", batches)
	}
}

func waitQueued(t *testing.T, b *Batcher[int], n int) {
	t.Helper()
	for {
		b.mu.Lock()
		q := len(b.queue)
		b.mu.Unlock()
		if q == n {
			return
		}
		runtime.Gosched()
	}
}

// A call whose context ends stops waiting.
func TestCallerGivesUp(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	b := New(10, func(ctx context.Context, items []int) error { <-block; return nil })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Do(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v; want context.Canceled", err)
	}
}
