// Package groupcommit turns concurrent single-row writes into batched ones:
// callers that arrive while a batch is being written wait for the next,
// which carries all of them in one statement and one commit.
//
// There is no timer and no linger. A write that finds nothing in flight
// goes at once, so an idle server pays no latency for batching; under load
// the batch grows by itself to whatever arrived during the previous write,
// which is exactly when one statement per call would queue on the
// database's commits. This is the shape PostgreSQL's own group commit has,
// one level up: runJob calls from many clients share an INSERT and its
// fsync instead of paying one each.
package groupcommit

import (
	"context"
	"sync"
	"time"
)

// writeTimeout bounds one batch's write. The write does not run under any
// caller's context: it carries other callers' items too.
const writeTimeout = 30 * time.Second

// Batcher writes items of type T in batches of at most max.
type Batcher[T any] struct {
	write func(ctx context.Context, items []T) error
	max   int

	mu      sync.Mutex
	queue   []*call[T]
	writing bool
}

type call[T any] struct {
	item T
	done chan error
}

// New returns a Batcher that writes with write, at most max items at a
// time. write must write all of its items or none (one statement, or one
// transaction): a failed batch is written again item by item, so that one
// bad item fails only its own caller.
func New[T any](max int, write func(ctx context.Context, items []T) error) *Batcher[T] {
	return &Batcher[T]{write: write, max: max}
}

// Do writes item, within a batch, and returns once it is written or
// failed. If ctx ends first Do returns its error, but the item may still
// be written with its batch — as a single write may commit just as its
// caller gives up.
func (b *Batcher[T]) Do(ctx context.Context, item T) error {
	c := &call[T]{item: item, done: make(chan error, 1)}
	b.mu.Lock()
	b.queue = append(b.queue, c)
	start := !b.writing
	b.writing = true
	b.mu.Unlock()
	if start {
		go b.run()
	}
	select {
	case err := <-c.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run writes batches until the queue is empty.
func (b *Batcher[T]) run() {
	for {
		b.mu.Lock()
		n := min(len(b.queue), b.max)
		if n == 0 {
			b.writing = false
			b.mu.Unlock()
			return
		}
		batch := b.queue[:n:n]
		b.queue = b.queue[n:]
		b.mu.Unlock()
		b.flush(batch)
	}
}

func (b *Batcher[T]) flush(batch []*call[T]) {
	items := make([]T, len(batch))
	for i, c := range batch {
		items[i] = c.item
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	err := b.write(ctx, items)
	if err == nil || len(batch) == 1 {
		for _, c := range batch {
			c.done <- err
		}
		return
	}
	// Which item failed the batch is unknown: each goes alone, so only
	// the bad one fails.
	for _, c := range batch {
		c.done <- b.write(ctx, []T{c.item})
	}
}
