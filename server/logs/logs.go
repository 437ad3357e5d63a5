// Package logs stores instance log lines and serves them.
//
// Workers send lines in batches with a per-process sequence number; the
// hub hands each batch here. One writer goroutine collects batches from
// every worker for a few milliseconds and stores them in one transaction:
// lines already stored (a worker re-sending after a reconnect) are skipped
// by (instance, worker, worker seq), the others get the instance's next
// sequence numbers. Only then is the worker acked, so a line is either
// stored once or re-sent. Because one goroutine assigns sequence numbers
// and commits in order, a reader that saw seq N never later finds a line
// below N appear.
package logs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// flushEvery bounds how long a line waits to be stored.
const flushEvery = 20 * time.Millisecond

// maxLines bounds one transaction.
const maxLines = 5000

// Notifier hears which instances got new lines (for live subscribers).
type Notifier interface {
	LogsAppended(instanceLast map[int64]int64)
}

// Store is what the log service needs from the database.
type Store interface {
	InTx(ctx context.Context, fn func(ctx context.Context, tx *db.Store) error) error
	LogPage(ctx context.Context, instanceID, afterSeq int64, limit int) ([]db.InstanceLog, bool, error)
}

// Service stores and serves log lines.
type Service struct {
	lifecycle.Base
	db     Store
	log    *slog.Logger
	clock  clock.Clock
	notify Notifier
	in     chan batch

	// mu guards running; senders hold it shared while they enqueue, so
	// once the writer has cleared running under the exclusive lock no
	// batch can slip into the queue after its last drain.
	mu      sync.RWMutex
	running context.Context // the writer's context while it runs
}

type batch struct {
	app    int64
	worker string
	logs   *protocol.Logs
	done   func(error)
}

// errStopped refuses lines once the writer has stopped: the worker keeps
// them and re-sends them to the next server.
var errStopped = errors.New("logs: this server is shutting down")

// New returns a Service; Start starts its writer.
func New(store Store, notify Notifier, clk clock.Clock, log *slog.Logger) *Service {
	return &Service{db: store, notify: notify, clock: clock.OrSystem(clk), log: log, in: make(chan batch, 1024)}
}

// Start runs the writer until Stop, which stores what is queued first.
func (s *Service) Start(ctx context.Context) error {
	ctx, ok, started, stopped := s.StartInit(ctx)
	if !ok {
		return nil
	}
	s.mu.Lock()
	s.running = ctx
	s.mu.Unlock()
	go func() {
		started()
		defer stopped()
		s.run(ctx)
	}()
	return nil
}

// Logs implements hub.LogSink.
func (s *Service) Logs(appID int64, workerID string, l *protocol.Logs, done func(error)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ctx := s.running
	if ctx == nil {
		done(errStopped)
		return
	}
	select {
	case s.in <- batch{app: appID, worker: workerID, logs: l, done: done}:
	case <-ctx.Done():
		done(errStopped)
	}
}

// Append stores lines written by the server itself (e.g. "dropped N
// lines"), outside any worker's numbering.
func (s *Service) Append(ctx context.Context, appID, instanceID int64, level, text string) error {
	var seq int64
	err := s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		var err error
		if seq, err = tx.LogReserveSeq(ctx, appID, instanceID, 1); err != nil {
			return err
		}
		return tx.LogInsertMany(ctx, []db.InstanceLog{{InstanceID: instanceID, Seq: seq, WorkerID: "", WorkerSeq: seq,
			Time: db.Stamp(s.clock.Now()), Level: level, Text: text}})
	})
	if err == nil && s.notify != nil {
		s.notify.LogsAppended(map[int64]int64{instanceID: seq})
	}
	return err
}

func (s *Service) run(ctx context.Context) {
	var pending []batch
	n := 0
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	flush := func() {
		if len(pending) == 0 {
			return
		}
		err := s.store(context.WithoutCancel(ctx), pending)
		if err != nil {
			s.log.Error("logs: storing lines failed; workers will re-send", "err", err)
		}
		for _, b := range pending {
			b.done(err)
		}
		pending, n = pending[:0], 0
	}
	for {
		select {
		case <-ctx.Done():
			// Take what is queued, then stop; later batches are refused.
			s.mu.Lock()
			s.running = nil
			s.mu.Unlock()
			for {
				select {
				case b := <-s.in:
					pending = append(pending, b)
				default:
					flush()
					return
				}
			}
		case b := <-s.in:
			if len(pending) == 0 {
				timer.Reset(flushEvery)
			}
			pending = append(pending, b)
			n += len(b.logs.Lines)
			if n >= maxLines {
				timer.Stop()
				flush()
			}
		case <-timer.C:
			flush()
		}
	}
}

// store writes the batches in one transaction.
func (s *Service) store(ctx context.Context, batches []batch) error {
	last := map[int64]int64{}
	err := s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		clear(last)
		var rows []db.InstanceLog
		for _, b := range batches {
			fresh, err := s.fresh(ctx, tx, b)
			if err != nil {
				return err
			}
			byInstance := map[int64][]protocol.LogLine{}
			for _, l := range fresh {
				byInstance[l.InstanceID] = append(byInstance[l.InstanceID], l)
			}
			for id, n := range b.logs.Dropped {
				if n > 0 {
					byInstance[id] = append(byInstance[id], protocol.LogLine{InstanceID: id, Seq: -1, Time: s.clock.Now(), Level: "WARN",
						Text: fmt.Sprintf("[jobwheel] worker %s dropped %d log line(s) of this instance: its buffer was full while it was disconnected", b.worker, n)})
				}
			}
			ids := make([]int64, 0, len(byInstance))
			for id := range byInstance {
				ids = append(ids, id)
			}
			sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
			for _, id := range ids {
				lines := byInstance[id]
				first, err := tx.LogReserveSeq(ctx, b.app, id, len(lines))
				if errors.Is(err, db.ErrNotFound) {
					continue // deleted, or not this worker's app's
				}
				if err != nil {
					return err
				}
				for i, l := range lines {
					seq := first + int64(i)
					workerSeq := l.Seq
					worker := b.worker
					if workerSeq < 0 { // a server-written line
						worker, workerSeq = "", seq
					}
					rows = append(rows, db.InstanceLog{InstanceID: id, Seq: seq, WorkerID: worker, WorkerSeq: workerSeq,
						Time: l.Time.UTC(), Level: normLevel(l.Level), Text: protocol.Truncate(l.Text, protocol.MaxLogLineBytes)})
				}
				last[id] = first + int64(len(lines)) - 1
			}
		}
		return tx.LogInsertMany(ctx, rows)
	})
	if err == nil && len(last) > 0 && s.notify != nil {
		s.notify.LogsAppended(last)
	}
	return err
}

// fresh drops the lines of b already stored.
func (s *Service) fresh(ctx context.Context, tx *db.Store, b batch) ([]protocol.LogLine, error) {
	lines := b.logs.Lines
	if len(lines) == 0 {
		return nil, nil
	}
	minSeq, maxSeq := lines[0].Seq, lines[0].Seq
	instances := map[int64]bool{}
	for _, l := range lines {
		minSeq, maxSeq = min(minSeq, l.Seq), max(maxSeq, l.Seq)
		instances[l.InstanceID] = true
	}
	ids := make([]int64, 0, len(instances))
	for id := range instances {
		ids = append(ids, id)
	}
	known, err := tx.LogExisting(ctx, b.worker, ids, minSeq, maxSeq)
	if err != nil {
		return nil, err
	}
	if len(known) == 0 {
		return lines, nil
	}
	type key struct {
		inst int64
		seq  int64
	}
	seen := make(map[key]bool, len(known))
	for _, k := range known {
		seen[key{k.InstanceID, k.WorkerSeq}] = true
	}
	out := make([]protocol.LogLine, 0, len(lines))
	for _, l := range lines {
		if !seen[key{l.InstanceID, l.Seq}] {
			out = append(out, l)
		}
	}
	return out, nil
}

// Page returns up to limit lines of an instance after afterSeq.
func (s *Service) Page(ctx context.Context, instanceID, afterSeq int64, limit int) ([]db.InstanceLog, bool, error) {
	return s.db.LogPage(ctx, instanceID, afterSeq, limit)
}

func normLevel(l string) string {
	switch strings.ToUpper(l) {
	case "DEBUG", "INFO", "WARN", "ERROR":
		return strings.ToUpper(l)
	case "WARNING":
		return "WARN"
	}
	return "INFO"
}
