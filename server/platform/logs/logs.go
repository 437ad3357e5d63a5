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
//
// Batches come from every tenant's workers, so none may cost another its
// lines (issue 11): the hub has already refused batches whose fields are
// out of bounds (protocol.Validate); a worker writes only into instances
// of its app that were given to it (its tasks, attempts or the instance
// itself), else its whole batch is refused (REFUSED) and the others are
// stored; NUL bytes, which PostgreSQL cannot store, become U+FFFD; and if
// the combined transaction fails anyway, each batch is stored alone, so
// only the batch at fault fails. A worker is never shown a database error:
// it gets INTERNAL with a reference to the server log.
package logs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// maxLines bounds one transaction.
const maxLines = 5000

// Notifier hears which instances got new lines (for live subscribers).
type Notifier interface {
	LogsAppended(instanceLast map[int64]int64)
}

// Store is what the log service needs from the database.
type Store interface {
	InTx(ctx context.Context, fn func(ctx context.Context, tx *db.Store) error) error
	LogList(ctx context.Context, instanceID, afterSeq int64, limit int) ([]db.InstanceLog, bool, error)
}

// Tx is what storing lines does inside its transaction: find which
// instances a worker may write into, which of its lines are stored
// already, number the new ones and insert them.
type Tx interface {
	LogListTargets(ctx context.Context, workerID string, ids []int64) ([]db.LogTarget, error)
	LogListExisting(ctx context.Context, workerID string, instanceIDs []int64, minSeq, maxSeq int64) ([]db.LogKnown, error)
	LogReserveSeq(ctx context.Context, appID, instanceID int64, n int) (first int64, attempt int, err error)
	LogInsertMany(ctx context.Context, lines []db.InstanceLog) error
}

var _ Tx = (*db.Store)(nil)

// Service stores and serves log lines.
type Service struct {
	lifecycle.Base
	db Store
	// pages serves the API's reads of lines: the API's pool (ReadFrom),
	// so that a flood of them waits there and not before the writer.
	pages interface {
		LogList(ctx context.Context, instanceID, afterSeq int64, limit int) ([]db.InstanceLog, bool, error)
	}
	inTx   db.TxFunc[Tx] // the database's transactions; a test may fake them
	log    *slog.Logger
	clock  clock.Clock
	notify Notifier
	in     chan batch
	// given remembers instances known to have been given to a worker
	// (that never changes), so most batches need no look-up. Only the
	// writer goroutine uses it.
	given map[givenKey]bool
	// gaps holds, per worker and instance, the first line of a batch that
	// failed to store: later lines of theirs wait for it (gaps.go). Only
	// the writer goroutine uses it.
	gaps map[gapKey]int64

	// mu guards running; senders hold it shared while they enqueue, so
	// once the writer has cleared running under the exclusive lock no
	// batch can slip into the queue after its last drain.
	mu      sync.RWMutex
	running context.Context // the writer's context while it runs
}

type givenKey struct {
	app, instance int64
	worker        string
}

// maxGiven bounds the memory of given instances.
const maxGiven = 100000

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
	return &Service{db: store, pages: store, inTx: db.InTxAs[Tx](store), notify: notify, clock: clock.OrSystem(clk), log: log, in: make(chan batch, 1024), given: map[givenKey]bool{},
		gaps: map[gapKey]int64{}}
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
	err := s.inTx(ctx, func(ctx context.Context, tx Tx) error {
		var err error
		var attempt int
		if seq, attempt, err = tx.LogReserveSeq(ctx, appID, instanceID, 1); err != nil {
			return err
		}
		return tx.LogInsertMany(ctx, []db.InstanceLog{{InstanceID: instanceID, Seq: seq, WorkerID: "", WorkerSeq: seq,
			Time: db.Stamp(s.clock.Now()), Level: level, Text: text, Attempt: attempt}})
	})
	if err == nil && s.notify != nil {
		s.notify.LogsAppended(map[int64]int64{instanceID: seq})
	}
	return err
}

func (s *Service) run(ctx context.Context) {
	var pending []batch
	flush := func() {
		if len(pending) == 0 {
			return
		}
		results := s.storeAll(context.WithoutCancel(ctx), pending)
		for i, b := range pending {
			b.done(results[i])
		}
		clear(pending)
		pending = pending[:0]
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
			// Group commit: store at once whatever has queued up, up to
			// maxLines. What arrives while that transaction runs queues
			// and goes into the next one, so a lone line waits for no
			// timer and a busy server still writes few, large batches.
			pending = append(pending, b)
			n := len(b.logs.Lines)
		more:
			for n < maxLines {
				select {
				case b := <-s.in:
					pending = append(pending, b)
					n += len(b.logs.Lines)
				default:
					break more
				}
			}
			flush()
		}
	}
}

// storeAll stores the batches and returns each one's result: in one
// transaction, or, if that fails, each alone, so one batch's failure is
// only its own. A batch whose lines would overtake an earlier batch of
// the same worker and instance that failed waits for it (gaps.go).
func (s *Service) storeAll(ctx context.Context, batches []batch) []error {
	results := make([]error, len(batches))
	var todo []batch
	var idx []int
	for i, b := range batches {
		if err := s.waitsForEarlier(b); err != nil {
			results[i] = err
			continue
		}
		todo, idx = append(todo, b), append(idx, i)
	}
	if len(todo) == 0 {
		return results
	}
	r, err := s.store(ctx, todo)
	if err == nil {
		for j, i := range idx {
			results[i] = r[j]
			s.settled(todo[j], r[j])
		}
		return results
	}
	if len(todo) > 1 {
		s.log.Warn("logs: storing the workers' batches together failed; storing each alone", "batches", len(todo), "err", err)
	}
	for j, i := range idx {
		b := todo[j]
		if len(todo) > 1 {
			if werr := s.waitsForEarlier(b); werr != nil {
				results[i] = werr
				continue
			}
			var r []error
			if r, err = s.store(ctx, todo[j:j+1]); err == nil {
				results[i] = r[0]
				s.settled(b, r[0])
				continue
			}
		}
		results[i] = s.failed(b, err)
		if !db.IsDataError(err) {
			s.gapAt(b) // the database's failing, not the batch's: it is sent again
		}
	}
	return results
}

// failed logs why a batch could not be stored and returns what its
// worker is told: INTERNAL and a reference, nothing of the error.
func (s *Service) failed(b batch, err error) error {
	ref := newRef()
	s.log.Error("logs: storing a worker's lines failed", "app", b.app, "worker", b.worker, "lines", len(b.logs.Lines), "ref", ref, "err", err)
	return &protocol.Error{Code: protocol.CodeInternal,
		Message: fmt.Sprintf("the server could not store these log lines (reference %s; the server log has the details)", ref)}
}

// store writes the batches in one transaction. A batch naming an instance
// its worker may not write into is refused (its result) and the others
// are stored; err is the transaction's failure.
func (s *Service) store(ctx context.Context, batches []batch) ([]error, error) {
	last := map[int64]int64{}
	results := make([]error, len(batches))
	err := s.inTx(ctx, func(ctx context.Context, tx Tx) error {
		clear(last)
		clear(results)
		var rows []db.InstanceLog
		for bi, b := range batches {
			skip, refusal, err := s.targets(ctx, tx, b)
			if err != nil {
				return err
			}
			if refusal != nil {
				results[bi] = refusal
				continue
			}
			fresh, err := s.fresh(ctx, tx, b)
			if err != nil {
				return err
			}
			byInstance := map[int64][]protocol.LogLine{}
			for _, l := range fresh {
				if !skip[l.InstanceID] {
					byInstance[l.InstanceID] = append(byInstance[l.InstanceID], l)
				}
			}
			for id, n := range b.logs.Dropped {
				if n > 0 && !skip[id] {
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
				first, attempt, err := tx.LogReserveSeq(ctx, b.app, id, len(lines))
				if errors.Is(err, db.ErrNotFound) {
					continue // deleted meanwhile
				}
				if err != nil {
					return err
				}
				for i, l := range lines {
					seq := first + int64(i)
					workerSeq := l.Seq
					worker := b.worker
					if workerSeq < 0 { // a line the server wrote (dropped lines)
						worker, workerSeq = "", seq
					}
					rows = append(rows, db.InstanceLog{InstanceID: id, Seq: seq, WorkerID: worker, WorkerSeq: workerSeq,
						Time: l.Time.UTC(), Level: normLevel(l.Level), Text: storable(l.Text), Attempt: attempt})
				}
				last[id] = first + int64(len(lines)) - 1
			}
		}
		return tx.LogInsertMany(ctx, rows)
	})
	if err != nil {
		return nil, err
	}
	if len(last) > 0 && s.notify != nil {
		s.notify.LogsAppended(last)
	}
	return results, nil
}

// targets checks the instances a batch writes into: each must be of the
// worker's app and given to the worker; instances that no longer exist
// are skipped (their lines have nowhere to go). refusal is set when the
// batch must be refused as a whole.
func (s *Service) targets(ctx context.Context, tx Tx, b batch) (skip map[int64]bool, refusal error, err error) {
	var unknown []int64
	seen := map[int64]bool{}
	note := func(id int64) {
		if !seen[id] {
			seen[id] = true
			if !s.given[givenKey{b.app, id, b.worker}] {
				unknown = append(unknown, id)
			}
		}
	}
	for _, l := range b.logs.Lines {
		note(l.InstanceID)
	}
	for id := range b.logs.Dropped {
		note(id)
	}
	if len(unknown) == 0 {
		return nil, nil, nil
	}
	found, err := tx.LogListTargets(ctx, b.worker, unknown)
	if err != nil {
		return nil, nil, err
	}
	skip = map[int64]bool{}
	for _, id := range unknown {
		skip[id] = true
	}
	for _, t := range found {
		switch {
		case t.AppID != b.app:
			return nil, s.refuse(b, t.ID, "is not an instance of this worker's app"), nil
		case t.Given != 1:
			return nil, s.refuse(b, t.ID, "was not given to this worker"), nil
		}
		delete(skip, t.ID)
		if len(s.given) >= maxGiven {
			clear(s.given)
		}
		s.given[givenKey{b.app, t.ID, b.worker}] = true
	}
	return skip, nil, nil
}

func (s *Service) refuse(b batch, instance int64, why string) error {
	s.log.Warn("logs: refusing a worker's lines", "app", b.app, "worker", b.worker, "instance", instance, "why", why)
	return &protocol.Error{Code: protocol.CodeRefused,
		Message: fmt.Sprintf("instance %d %s; none of these %d lines were stored", instance, why, len(b.logs.Lines))}
}

// storable cuts a line to the stored length and replaces NUL, which
// PostgreSQL cannot store in text, with U+FFFD.
func storable(text string) string {
	if strings.IndexByte(text, 0) >= 0 {
		text = strings.ReplaceAll(text, "\x00", "\uFFFD")
	}
	return protocol.Truncate(text, protocol.MaxLogLineBytes)
}

func newRef() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// fresh drops the lines of b already stored.
func (s *Service) fresh(ctx context.Context, tx Tx, b batch) ([]protocol.LogLine, error) {
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
	known, err := tx.LogListExisting(ctx, b.worker, ids, minSeq, maxSeq)
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

// ReadFrom has Page read from store (the API's pool) rather than the
// store lines are written to. Call it before serving.
func (s *Service) ReadFrom(store interface {
	LogList(ctx context.Context, instanceID, afterSeq int64, limit int) ([]db.InstanceLog, bool, error)
}) {
	s.pages = store
}

// Page returns up to limit lines of an instance after afterSeq.
func (s *Service) Page(ctx context.Context, instanceID, afterSeq int64, limit int) ([]db.InstanceLog, bool, error) {
	return s.pages.LogList(ctx, instanceID, afterSeq, limit)
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
