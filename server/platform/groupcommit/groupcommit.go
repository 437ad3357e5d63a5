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
//
// No goroutine of its own does the writing: the caller that finds nothing
// in flight leads. It writes a batch (its own item and whatever queued
// meanwhile), then hands the lead to a caller still waiting, and returns.
// So every write runs on the goroutine of a request that is waiting for it,
// and nothing outlives the calls.
package groupcommit

import (
	"context"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// writeTimeout bounds one write. The write does not run under any caller's
// context: it carries other callers' items too.
const writeTimeout = 30 * time.Second

// Batcher writes items of type T in batches of at most max.
type Batcher[T any] struct {
	write   func(ctx context.Context, items []T) error
	max     int
	timeout time.Duration // of each write: writeTimeout

	mu      sync.Mutex
	queue   []*call[T] // items not yet in a batch, oldest first
	writing bool       // a leader is writing or about to
}

type call[T any] struct {
	item T
	done chan error    // the item's outcome
	lead chan struct{} // closed when this caller is handed the lead
	// led and gone are guarded by the Batcher's mu: led once the caller
	// has been handed the lead, gone once it has given up waiting.
	led, gone bool
}

// New returns a Batcher that writes with write, at most max items at a
// time. write must write all of its items or none (one statement, or one
// transaction): a failed batch is written again item by item, so that one
// bad item fails only its own caller — unless its outcome is unknown
// (db.OutcomeUnknown), when every caller gets the error.
func New[T any](max int, write func(ctx context.Context, items []T) error) *Batcher[T] {
	return &Batcher[T]{write: write, max: max, timeout: writeTimeout}
}

// Do writes item, within a batch, and returns once it is written or
// failed. If ctx ends while the item waits for someone else's write, Do
// returns ctx's error at once, but the item may still be written with its
// batch — as a single write may commit just as its caller gives up. A
// caller that leads a write finishes it first: other callers' items ride
// on it.
func (b *Batcher[T]) Do(ctx context.Context, item T) error {
	c := &call[T]{item: item, done: make(chan error, 1), lead: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, c)
	if !b.writing {
		b.writing = true
		c.led = true
		b.mu.Unlock()
		return b.leadFor(c)
	}
	b.mu.Unlock()
	select {
	case err := <-c.done:
		return err
	case <-c.lead:
		return b.leadFor(c)
	case <-ctx.Done():
		b.mu.Lock()
		if c.led { // handed the lead just now: the others wait on it
			b.mu.Unlock()
			return b.leadFor(c)
		}
		c.gone = true
		b.mu.Unlock()
		return ctx.Err()
	}
}

// leadFor writes batches until c's item is written and another waiting
// caller has taken the lead, or nothing is left; then it returns c's
// outcome.
func (b *Batcher[T]) leadFor(c *call[T]) error {
	var (
		mine error
		have bool
	)
	for {
		if !have {
			select {
			case mine = <-c.done:
				have = true
			default:
			}
		}
		// Once its own item is written the leader leaves as soon as a
		// waiting caller takes over; if only callers that gave up are
		// left, it writes on so their items are not stranded.
		if have && b.handOff() {
			return mine
		}
		b.mu.Lock()
		n := min(len(b.queue), b.max)
		if n == 0 {
			b.writing = false
			b.mu.Unlock()
			if !have {
				mine = <-c.done // written in an earlier batch of this leader
			}
			return mine
		}
		batch := b.queue[:n:n]
		b.queue = b.queue[n:]
		b.mu.Unlock()
		b.flush(batch)
	}
}

// handOff passes the lead to the oldest caller still waiting, if any is
// and there is something left to write; it reports whether the current
// leader may leave. With nothing queued, writing ends.
func (b *Batcher[T]) handOff() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.queue) == 0 {
		b.writing = false
		return true
	}
	for _, next := range b.queue {
		if !next.gone {
			next.led = true
			close(next.lead)
			return true
		}
	}
	return false
}

// flush writes one batch and tells each of its callers the outcome.
func (b *Batcher[T]) flush(batch []*call[T]) {
	items := make([]T, len(batch))
	for i, c := range batch {
		items[i] = c.item
	}
	err := b.writeWithin(items)
	// A batch whose outcome is unknown (the connection died around its
	// COMMIT) may be written already: writing its items again could store
	// each twice (two instances for one runJob). Its callers get the error,
	// as a single write's caller would, and read back or retry with a key.
	if err == nil || len(batch) == 1 || db.OutcomeUnknown(err) {
		for _, c := range batch {
			c.done <- err
		}
		return
	}
	// Which item failed the batch is unknown: each goes alone, so only
	// the bad one fails. Each write has its own deadline: the batch's may
	// be spent already.
	for _, c := range batch {
		c.done <- b.writeWithin([]T{c.item})
	}
}

func (b *Batcher[T]) writeWithin(items []T) error {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	return b.write(ctx, items)
}
