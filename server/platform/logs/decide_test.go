package logs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// memTx is the log store's transaction in memory: instances (their app
// and worker), the lines stored, each instance's next sequence number.
type memTx struct {
	instances map[int64]struct {
		app    int64
		worker string
	}
	stored []db.InstanceLog
	next   map[int64]int64
}

func (m *memTx) LogListTargets(_ context.Context, worker string, ids []int64) ([]db.LogTarget, error) {
	var out []db.LogTarget
	for _, id := range ids {
		if in, ok := m.instances[id]; ok {
			given := 0
			if in.worker == worker {
				given = 1
			}
			out = append(out, db.LogTarget{ID: id, AppID: in.app, Given: given})
		}
	}
	return out, nil
}

func (m *memTx) LogListExisting(_ context.Context, worker string, ids []int64, minSeq, maxSeq int64) ([]db.LogKnown, error) {
	var out []db.LogKnown
	for _, l := range m.stored {
		if l.WorkerID == worker && slices.Contains(ids, l.InstanceID) && l.WorkerSeq >= minSeq && l.WorkerSeq <= maxSeq {
			out = append(out, db.LogKnown{InstanceID: l.InstanceID, WorkerID: l.WorkerID, WorkerSeq: l.WorkerSeq})
		}
	}
	return out, nil
}

func (m *memTx) LogReserveSeq(_ context.Context, _, instance int64, n int) (int64, int, error) {
	first := m.next[instance] + 1
	m.next[instance] += int64(n)
	return first, 1, nil
}

func (m *memTx) LogInsertMany(_ context.Context, lines []db.InstanceLog) error {
	m.stored = append(m.stored, lines...)
	return nil
}

// TestStoreDecisions decides a round of batches against an in-memory
// transaction (db.TxFunc), no database: lines already stored are not
// stored again, a worker's dropped lines become one WARN line numbered by
// the server, and a batch writing into another worker's instance is
// refused whole while the other batches are stored.
func TestStoreDecisions(t *testing.T) {
	m := &memTx{next: map[int64]int64{}, instances: map[int64]struct {
		app    int64
		worker string
	}{1: {app: 7, worker: "w1"}, 2: {app: 7, worker: "w2"}}}
	s := New(nil, nil, nil, slog.New(slog.DiscardHandler))
	s.inTx = func(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error { return fn(ctx, m) }
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	line := func(inst, seq int64) protocol.LogLine {
		return protocol.LogLine{InstanceID: inst, Seq: seq, Time: at, Level: "info", Text: "x"}
	}

	results, err := s.store(context.Background(), []batch{
		{app: 7, worker: "w1", logs: &protocol.Logs{Lines: []protocol.LogLine{line(1, 1), line(1, 2)}, Dropped: map[int64]int64{1: 5}}},
		{app: 7, worker: "w1", logs: &protocol.Logs{Lines: []protocol.LogLine{line(2, 1)}}}, // instance 2 is w2's
	})
	if err != nil {
		t.Fatal(err)
	}
	if results[0] != nil {
		t.Fatalf("the first batch: %v; want it stored", results[0])
	}
	var refused *protocol.Error
	if !errors.As(results[1], &refused) || refused.Code != protocol.CodeRefused {
		t.Fatalf("the batch into another worker's instance: %v; want REFUSED", results[1])
	}
	if len(m.stored) != 3 {
		t.Fatalf("stored %+v; want the two lines and one WARN line about the dropped ones", m.stored)
	}
	for i, l := range m.stored {
		if l.Seq != int64(i+1) || l.InstanceID != 1 {
			t.Errorf("line %d: instance %d seq %d; want instance 1, seq %d", i, l.InstanceID, l.Seq, i+1)
		}
	}
	if warn := m.stored[2]; warn.WorkerID != "" || warn.Level != "WARN" || warn.WorkerSeq != warn.Seq {
		t.Errorf("the dropped-lines line %+v: want WARN, numbered by the server", warn)
	}
	if m.stored[0].Level != "INFO" {
		t.Errorf("level %q; want the worker's lowercase level normalized to INFO", m.stored[0].Level)
	}

	// The worker re-sends its lines (its ack was lost): nothing is added.
	if _, err := s.store(context.Background(), []batch{{app: 7, worker: "w1",
		logs: &protocol.Logs{Lines: []protocol.LogLine{line(1, 1), line(1, 2)}}}}); err != nil {
		t.Fatal(err)
	}
	if len(m.stored) != 3 {
		t.Fatalf("after a re-send, %d lines stored; want still 3", len(m.stored))
	}
}

// TestFailedBatchIsNotOvertaken (issue 30): a worker's batch fails to
// store (the database failing over) while its next batch of the same
// instance is in flight. The next one must not be stored first — the
// failed lines, sent again, would then come after it — so it is refused
// until the failed batch is stored; then the log is in order.
func TestFailedBatchIsNotOvertaken(t *testing.T) {
	m := &memTx{next: map[int64]int64{}, instances: map[int64]struct {
		app    int64
		worker string
	}{1: {app: 7, worker: "w1"}}}
	s := New(nil, nil, nil, slog.New(slog.DiscardHandler))
	down := true
	s.inTx = func(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error {
		if down {
			return &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
		}
		return fn(ctx, m)
	}
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	lines := func(seqs ...int64) batch {
		var out []protocol.LogLine
		for _, seq := range seqs {
			out = append(out, protocol.LogLine{InstanceID: 1, Seq: seq, Time: at, Level: "info", Text: fmt.Sprintf("line %d", seq)})
		}
		return batch{app: 7, worker: "w1", logs: &protocol.Logs{Lines: out}}
	}
	ctx := context.Background()
	if r := s.storeAll(ctx, []batch{lines(1)}); r[0] == nil {
		t.Fatal("line 1 stored while the database is down")
	}
	down = false
	if r := s.storeAll(ctx, []batch{lines(2, 3)}); r[0] == nil {
		t.Fatal("lines 2-3 were stored before line 1, which failed: line 1 would come after them")
	}
	if r := s.storeAll(ctx, []batch{lines(1)}); r[0] != nil {
		t.Fatalf("line 1 sent again: %v", r[0])
	}
	if r := s.storeAll(ctx, []batch{lines(2, 3)}); r[0] != nil {
		t.Fatalf("lines 2-3 sent again: %v", r[0])
	}
	var got []string
	for _, l := range m.stored {
		got = append(got, fmt.Sprintf("%d:%s", l.Seq, l.Text))
	}
	if want := []string{"1:line 1", "2:line 2", "3:line 3"}; !slices.Equal(got, want) {
		t.Errorf("stored %v; want %v", got, want)
	}
}
