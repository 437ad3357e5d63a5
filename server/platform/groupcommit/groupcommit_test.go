package groupcommit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
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

// A caller whose context ends while it waits for another's write returns
// at once; its item is still written with the next batch, by the leader.
func TestCallerGivesUp(t *testing.T) {
	block := make(chan struct{})
	var mu sync.Mutex
	var written []int
	b := New(10, func(ctx context.Context, items []int) error {
		if slices.Contains(items, 1) {
			<-block // the leader's write is slow
		}
		mu.Lock()
		written = append(written, items...)
		mu.Unlock()
		return nil
	})
	leader := make(chan error, 1)
	go func() { leader <- b.Do(context.Background(), 1) }()
	waitWriting(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	follower := make(chan error, 1)
	go func() { follower <- b.Do(ctx, 2) }()
	waitQueued(t, b, 1)
	cancel()
	if err := <-follower; !errors.Is(err, context.Canceled) {
		t.Fatalf("the follower's Do = %v; want context.Canceled", err)
	}
	close(block)
	if err := <-leader; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(written, []int{1, 2}) {
		t.Fatalf("written %v; want the leader's item, then the one whose caller gave up", written)
	}
}

// After a batch fails, each item is written alone with a deadline of its
// own: a batch that used up its time does not fail the retries with it.
func TestRetriesGetTheirOwnDeadline(t *testing.T) {
	block := make(chan struct{})
	b := New(10, func(ctx context.Context, items []int) error {
		switch {
		case slices.Equal(items, []int{0}):
			<-block // the first write holds the others back, so they batch
			return nil
		case len(items) > 1:
			<-ctx.Done() // the batch runs out of time
			return ctx.Err()
		}
		return ctx.Err() // a retry fails only if its deadline is spent too
	})
	b.timeout = 50 * time.Millisecond
	first := make(chan error, 1)
	go func() { first <- b.Do(context.Background(), 0) }()
	waitWriting(t, b)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := 1; i <= 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = b.Do(context.Background(), i) }()
	}
	waitQueued(t, b, 2)
	close(block)
	errs[0] = <-first
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("item %d: %v; want it written alone after the batch timed out", i, err)
		}
	}
}

func waitWriting(t *testing.T, b *Batcher[int]) {
	t.Helper()
	for {
		b.mu.Lock()
		w := b.writing
		b.mu.Unlock()
		if w {
			return
		}
		runtime.Gosched()
	}
}

// A batch whose write failed with an unknown outcome (the connection died
// around its COMMIT: it may be written) is not written again item by item,
// which could store every item twice (issue 30); each caller gets the
// error. A definite failure still isolates the bad item.
func TestBatchWithUnknownOutcomeIsNotRewritten(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var writes [][]int
	b := New(100, func(ctx context.Context, items []int) error {
		mu.Lock()
		writes = append(writes, slices.Clone(items))
		n := len(writes)
		mu.Unlock()
		if n == 1 {
			<-release // the first write holds the lead while the rest queue
			return nil
		}
		// The batch of the queued callers: its connection breaks.
		return fmt.Errorf("writing runs: %w", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET})
	})
	first := make(chan error, 1)
	go func() { first <- b.Do(context.Background(), 0) }()
	waitWriting(t, b)
	var wg sync.WaitGroup
	results := make([]error, 5)
	for i := range 5 {
		wg.Go(func() { results[i] = b.Do(context.Background(), i+1) })
	}
	waitQueued(t, b, 5)
	close(release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i, err := range results {
		if err == nil {
			t.Errorf("caller %d: no error from a batch whose outcome is unknown", i+1)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(writes) != 2 || len(writes[1]) != 5 {
		t.Errorf("writes = %v; want the first item, then the five queued in one batch, and no rewrite item by item", writes)
	}
}
