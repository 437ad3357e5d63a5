// Package bus carries wake-up hints between the parts of a server and
// between servers: "app 3's jobs changed", "instance 9 has new log lines",
// "a lease was released".
//
// A hint is never the data itself, and it may be lost: PostgreSQL drops
// notifications when a listener's connection breaks, and the listener's
// buffer is bounded. Every consumer therefore re-reads the database after a
// hint, after Reconnected tells it hints may have been missed, and on a
// timer of its own. Hints only make things fast.
//
// On PostgreSQL hints travel by NOTIFY on one channel; each server also
// delivers its own hints in-process at once (and ignores the echo). On
// SQLite, where one server is the only mode, hints are in-process only.
// Publishes are coalesced: the same hint published many times within a few
// milliseconds is sent once, because every NOTIFY takes a lock at commit.
package bus

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
)

// Channel is the PostgreSQL notification channel; a cluster in its own
// schema appends the schema's name.
const Channel = "jobwheel"

// coalesceWindow bounds how long a hint waits to be sent with others. Each
// NOTIFY is a transaction of its own, serialized at commit: with 5 ms, a
// few thousand runJob calls a second sent the same "app's instances
// changed" hint 200 times a second; subscribers re-read anyway, and 20 ms
// is not a delay anyone sees.
const coalesceWindow = 20 * time.Millisecond

// maxPayload is below PostgreSQL's 8000-byte NOTIFY limit.
const maxPayload = 7000

// Handler receives a hint's topic and data.
type Handler func(topic, data string)

// Bus delivers hints.
type Bus struct {
	server  string
	channel string
	db      *bun.DB // nil: in-process only
	log     *slog.Logger

	mu          sync.Mutex
	handlers    map[string][]Handler
	reconnected []func()
	pending     map[string]struct{} // "topic data" waiting to be sent
	kick        chan struct{}       // wakes the flusher: something is pending
	clock       clock.Clock

	lifecycle.Base
}

// New returns a Bus for this server. With db nil (SQLite) hints stay in
// the process. namespace separates clusters sharing one database (their
// schema name); it may be empty.
func New(serverID, namespace string, db *bun.DB, log *slog.Logger) *Bus {
	channel := Channel
	if namespace != "" {
		channel += "_" + namespace
	}
	return &Bus{server: serverID, channel: channel, db: db, log: log, handlers: map[string][]Handler{}, pending: map[string]struct{}{},
		kick: make(chan struct{}, 1), clock: clock.System()}
}

// Subscribe calls h for every hint on topic, from this or another server.
// Handlers must be quick; they run on the bus's goroutine.
func (b *Bus) Subscribe(topic string, h Handler) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.handlers[topic] = append(b.handlers[topic], h)
}

// OnReconnect calls fn whenever hints from other servers may have been
// missed (the listener's connection was re-established).
func (b *Bus) OnReconnect(fn func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reconnected = append(b.reconnected, fn)
}

// Start listens for other servers' hints (PostgreSQL only) until Stop,
// which sends what is still pending.
func (b *Bus) Start(ctx context.Context) error {
	ctx, ok, started, stopped := b.StartInit(ctx)
	if !ok {
		return nil
	}
	go func() {
		started()
		defer stopped()
		defer b.flush()
		if b.db == nil {
			<-ctx.Done()
			return
		}
		flushed := make(chan struct{})
		go func() {
			defer close(flushed)
			b.flushLoop(ctx)
		}()
		defer func() { <-flushed }()
		ln := pgdriver.NewListener(b.db)
		// A pending receive ignores the context: closing unblocks it.
		closed := make(chan struct{})
		go func() {
			defer close(closed)
			<-ctx.Done()
			_ = ln.Close()
		}()
		defer func() { <-closed }()
		b.listen(ctx, ln)
	}()
	return nil
}

// flushLoop sends pending hints to other servers, each batch coalesceWindow
// after the first hint of it was published, until ctx ends (Start's
// goroutine then sends what is left).
func (b *Bus) flushLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.kick:
		}
		if !clock.Sleep(b.clock, coalesceWindow, ctx.Done()) {
			return
		}
		b.flush()
	}
}

// Publish delivers a hint here at once and to other servers shortly
// (while the bus runs; a hint published while it is stopped goes out at
// the next start or stop).
// Topic and data must not contain newlines; topic no spaces.
func (b *Bus) Publish(topic, data string) {
	b.deliver(topic, data)
	if b.db == nil {
		return
	}
	b.mu.Lock()
	b.pending[topic+" "+data] = struct{}{}
	b.mu.Unlock()
	select {
	case b.kick <- struct{}{}:
	default: // the flusher is already woken
	}
}

func (b *Bus) deliver(topic, data string) {
	b.mu.Lock()
	hs := b.handlers[topic]
	b.mu.Unlock()
	for _, h := range hs {
		h(topic, data)
	}
}

// flush sends the pending hints as few NOTIFYs as fit the payload limit.
// Each payload is "<server>\n<topic> <data>\n<topic> <data>…".
func (b *Bus) flush() {
	b.mu.Lock()
	pending := b.pending
	b.pending = map[string]struct{}{}
	b.mu.Unlock()
	if len(pending) == 0 || b.db == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var sb strings.Builder
	send := func() {
		if sb.Len() == 0 {
			return
		}
		if err := pgdriver.Notify(ctx, b.db, b.channel, b.server+"\n"+sb.String()); err != nil {
			b.log.Warn("bus: notifying other servers failed; they will catch up by polling", "err", err)
		}
		sb.Reset()
	}
	for hint := range pending {
		if sb.Len()+len(hint)+1 > maxPayload {
			send()
		}
		sb.WriteString(hint)
		sb.WriteByte('\n')
	}
	send()
}

func (b *Bus) listen(ctx context.Context, ln *pgdriver.Listener) {
	for ctx.Err() == nil {
		if err := ln.Listen(ctx, b.channel); err != nil {
			if ctx.Err() == nil {
				b.log.Warn("bus: listening for other servers failed; retrying", "err", err)
				clock.Sleep(b.clock, time.Second, ctx.Done())
			}
			continue
		}
		b.reconnect()
		b.receive(ctx, ln)
	}
}

// receive reads notifications until the connection fails.
func (b *Bus) receive(ctx context.Context, ln *pgdriver.Listener) {
	for ctx.Err() == nil {
		_, payload, err := ln.ReceiveTimeout(ctx, 30*time.Second)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if ctx.Err() == nil {
				b.log.Warn("bus: lost the notification connection; reconnecting", "err", err)
				clock.Sleep(b.clock, 200*time.Millisecond, ctx.Done())
			}
			return
		}
		server, hints, ok := strings.Cut(payload, "\n")
		if !ok || server == b.server {
			continue // our own echo: already delivered in-process
		}
		for _, line := range strings.Split(hints, "\n") {
			if topic, data, ok := strings.Cut(line, " "); ok {
				b.deliver(topic, data)
			}
		}
	}
}

func (b *Bus) reconnect() {
	b.mu.Lock()
	fns := append([]func(){}, b.reconnected...)
	b.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
