package worker

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

func testOutbox(maxLogs, maxReports int) (*outbox, func() int64) {
	var id int64
	return newOutbox(slog.New(slog.DiscardHandler), maxLogs, maxReports), func() int64 { id++; return id }
}

func line(inst int64, text string) protocol.LogLine {
	return protocol.LogLine{InstanceID: inst, Level: "INFO", Text: text}
}

func texts(ms []*message) []string {
	var out []string
	for _, m := range ms {
		for _, l := range m.lines {
			out = append(out, l.Text)
		}
	}
	return out
}

func TestOutboxRequeuesInOrderAndTrims(t *testing.T) {
	o, next := testOutbox(4, 10)
	o.batchBytes = 1 // one line per message
	for _, s := range []string{"a", "b", "c"} {
		o.addLog(line(1, s))
	}
	sent := o.take(next)
	if got := strings.Join(texts(sent), ""); got != "abc" || len(sent) != 3 {
		t.Fatalf("sent %q in %d messages", got, len(sent))
	}
	o.ack(sent[1].id, &protocol.Ack{OK: true}) // b is stored; a and c are not
	o.addLog(line(1, "d"))
	o.addLog(line(2, "e"))
	o.addLog(line(2, "f")) // the queue holds d e f; a and c are in flight
	o.requeue()            // a c d e f: over the bound of 4, a goes
	o.batchBytes = defaultBatchBytes
	sent = o.take(next)
	if got := strings.Join(texts(sent), ""); got != "cdef" || len(sent) != 1 {
		t.Fatalf("after requeue sent %q in %d messages", got, len(sent))
	}
	if d := sent[0].dropped; len(d) != 1 || d[1] != 1 {
		t.Errorf("dropped %v, want instance 1: 1", d)
	}
	if seqs := []int64{sent[0].lines[0].Seq, sent[0].lines[3].Seq}; seqs[0] != 3 || seqs[1] != 6 {
		t.Errorf("seqs %v", seqs)
	}
}

func TestOutboxDroppedCountsSurviveARequeue(t *testing.T) {
	o, next := testOutbox(1, 10)
	o.addLog(line(7, "a"))
	o.addLog(line(7, "b")) // a dropped
	sent := o.take(next)
	if sent[0].dropped[7] != 1 {
		t.Fatalf("dropped %v", sent[0].dropped)
	}
	o.requeue() // the message was not acked: its count must not be lost
	sent = o.take(next)
	if sent[0].dropped[7] != 1 || texts(sent)[0] != "b" {
		t.Errorf("after requeue: %v %v", sent[0].dropped, texts(sent))
	}
}

func TestOutboxWindowAndBatchBounds(t *testing.T) {
	o, next := testOutbox(100000, 10)
	for range 3*protocol.MaxBatch + 5 {
		o.addLog(line(1, "x"))
	}
	o.window = 2
	sent := o.take(next)
	if len(sent) != 2 || len(sent[0].lines) != protocol.MaxBatch || len(sent[1].lines) != protocol.MaxBatch {
		t.Fatalf("sent %d messages", len(sent))
	}
	if more := o.take(next); len(more) != 0 {
		t.Fatalf("window full, yet %d more", len(more))
	}
	o.ack(sent[0].id, &protocol.Ack{OK: true})
	if more := o.take(next); len(more) != 1 {
		t.Fatalf("after an ack: %d more", len(more))
	}
	// Large lines: a message stays within the byte budget.
	o, next = testOutbox(1000, 10)
	big := strings.Repeat("<", protocol.MaxLogLineBytes) // six bytes each in JSON
	for range 30 {
		o.addLog(line(1, big))
	}
	msgs := o.take(next)
	if len(msgs) < 2 {
		t.Fatalf("%d messages, want the lines split", len(msgs))
	}
	for _, m := range msgs {
		b, err := protocol.Encode(m.id, 0, m.typ, m.body())
		if err != nil || len(b) > protocol.MaxFrameBytes {
			t.Fatalf("message of %d lines: %d bytes, %v", len(m.lines), len(b), err)
		}
	}
}

func TestOutboxReportsWaitForRoom(t *testing.T) {
	o, next := testOutbox(10, 1)
	if err := o.addReport(protocol.TaskReport{TaskID: 1, Status: protocol.TaskRunning}, 0); err != nil {
		t.Fatal(err)
	}
	added := make(chan error)
	go func() { added <- o.addReport(protocol.TaskReport{TaskID: 1, Status: protocol.TaskSucceeded}, 0) }()
	select {
	case err := <-added:
		t.Fatalf("a report went into a full queue (%v)", err)
	default:
	}
	if sent := o.take(next); len(sent) != 1 || sent[0].reports[0].r.Status != protocol.TaskRunning {
		t.Fatalf("sent %+v", sent)
	}
	if err := recv(t, added, "room for the report"); err != nil {
		t.Fatal(err)
	}
	// A report waiting when the worker stops is released with an error.
	go func() { added <- o.addReport(protocol.TaskReport{TaskID: 2, Status: protocol.TaskFailed}, 0) }()
	o.close()
	if err := recv(t, added, "the waiting report"); err == nil {
		t.Error("no error after close")
	}
}

func TestOutboxMapRefusalAndAbandon(t *testing.T) {
	o, next := testOutbox(10, 10)
	a := &mapChunk{m: protocol.Map{Name: "x", Payloads: []string{"1", "2"}}, first: 0, done: make(chan error, 1)}
	b := &mapChunk{m: protocol.Map{Name: "x", Payloads: []string{"3"}}, first: 2, done: make(chan error, 1)}
	c := &mapChunk{m: protocol.Map{Name: "x", Payloads: []string{"4"}}, first: 3, done: make(chan error, 1)}
	if err := o.addMap([]*mapChunk{a, b, c}); err != nil {
		t.Fatal(err)
	}
	o.window = 2
	sent := o.take(next)
	o.ack(sent[0].id, &protocol.Ack{Error: "no such instance"})
	if err := <-a.done; err == nil || err.Error() != "the server refused subtasks 0..1: no such instance" {
		t.Errorf("refusal: %v", err)
	}
	o.abandon([]*mapChunk{b, c}) // b is in flight, c queued
	o.requeue()
	if more := o.take(next); len(more) != 0 {
		t.Errorf("abandoned chunks sent again: %d", len(more))
	}
}

func TestJSONLenIsAnUpperBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "é", "\x00", "\n", "\"", "\\", "<", "&", "\u2028", "\xff", "日本", "\t", " "}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		enc, _ := json.Marshal(s)
		if got := jsonLen(s); got < len(enc) {
			t.Fatalf("jsonLen(%q) = %d < %d (valid UTF-8: %t)", s, got, len(enc), utf8.ValidString(s))
		}
	}
}

func TestTaskLogFormat(t *testing.T) {
	o, next := testOutbox(100, 10)
	w := &Worker{cfg: Config{TaskLogLevel: slog.LevelDebug}, out: o, log: slog.New(slog.DiscardHandler)}
	log := slog.New(newTaskHandler(w, 5, 6)).With("a", 1).WithGroup("g")
	log.Debug("hello world", "k", "two words", slog.Group("sub", "x", true), "empty", "")
	log.Error("bad", "err", `say "hi"`)
	lines := o.take(next)[0].lines
	if lines[0].Text != `hello world a=1 g.k="two words" g.sub.x=true g.empty=""` || lines[0].Level != "DEBUG" {
		t.Errorf("line %+v", lines[0])
	}
	if lines[1].Text != `bad a=1 g.err="say \"hi\""` || lines[1].Level != "ERROR" || lines[1].InstanceID != 5 || lines[1].TaskID != 6 {
		t.Errorf("line %+v", lines[1])
	}
}

// TestOutboxResendsRefusedReportsAndLines: the server refuses reports and
// log lines only for reasons that pass (docs/protocol.md §6.3), so a
// refused message is sent again after a pause, the same lines with the
// same seqs, and a refused final report keeps its task listed meanwhile.
func TestOutboxResendsRefusedReportsAndLines(t *testing.T) {
	o, next := testOutbox(100, 100)
	now := time.Unix(1000, 0)
	o.now = func() time.Time { return now }
	o.addLog(line(1, "a"))
	if err := o.addReport(protocol.TaskReport{TaskID: 7, InstanceID: 1, Status: protocol.TaskSucceeded}, 0); err != nil {
		t.Fatal(err)
	}
	sent := o.take(next)
	if len(sent) != 1 || sent[0].typ != protocol.TypeLogs {
		t.Fatalf("sent %d messages; want the logs alone (the final report waits for them)", len(sent))
	}
	o.ack(sent[0].id, &protocol.Ack{OK: false, Error: "database is locked"})
	if again := o.take(next); len(again) != 0 {
		t.Fatalf("sent %d messages at once after a refusal (the first %s); want a pause", len(again), again[0].typ)
	}
	now = now.Add(defaultRetryPause)
	again := o.take(next)
	if len(again) != 1 || again[0].typ != protocol.TypeLogs || texts(again)[0] != "a" || again[0].lines[0].Seq != sent[0].lines[0].Seq {
		t.Fatalf("after the pause: %d messages; want the refused line again with its seq", len(again))
	}
	o.ack(again[0].id, &protocol.Ack{OK: true})
	rep := o.take(next)
	if len(rep) != 1 || rep[0].typ != protocol.TypeReport {
		t.Fatalf("after the lines were stored: %d messages; want the report", len(rep))
	}
	o.ack(rep[0].id, &protocol.Ack{OK: false, Error: "this server does not own the app now; reconnect"})
	if !slices.Contains(o.unackedFinals(), 7) {
		t.Fatalf("a refused final report no longer lists its task: the server would fail it as WORKER_LOST")
	}
	now = now.Add(defaultRetryPause)
	rep = o.take(next)
	if len(rep) != 1 || rep[0].reports[0].r.TaskID != 7 || rep[0].reports[0].r.Status != protocol.TaskSucceeded {
		t.Fatalf("the refused report was not sent again")
	}
	o.ack(rep[0].id, &protocol.Ack{OK: true})
	if len(o.unackedFinals()) != 0 || o.pending() {
		t.Errorf("after the report was stored: finals %v, pending %t", o.unackedFinals(), o.pending())
	}
}

// reportsSent lists the reports of messages as "task:STATUS", one string
// per message.
func reportsSent(ms []*message) []string {
	var out []string
	for _, m := range ms {
		var items []string
		for _, r := range m.reports {
			items = append(items, fmt.Sprintf("%d:%s", r.r.TaskID, r.r.Status))
		}
		out = append(out, strings.Join(items, " "))
	}
	return out
}

// A RUNNING report waits for its task's final report, up to runningHold,
// so that the two reach the server in one message (which writes the
// task's rows once, not twice), even when other tasks' final reports are
// sent meanwhile; its task's final report takes it along, first.
func TestOutboxSendsARunningReportWithItsTasksEnd(t *testing.T) {
	o, next := testOutbox(10, 10)
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	o.now = func() time.Time { return now }
	o.runningHold = 50 * time.Millisecond
	add := func(task int64, status string) {
		t.Helper()
		if err := o.addReport(protocol.TaskReport{TaskID: task, Status: status}, 0); err != nil {
			t.Fatal(err)
		}
	}
	add(1, protocol.TaskRunning)
	add(2, protocol.TaskRunning)
	now = now.Add(10 * time.Millisecond)
	add(2, protocol.TaskSucceeded) // task 2 ended; task 1 runs on
	if got := reportsSent(o.take(next)); !slices.Equal(got, []string{"2:RUNNING 2:SUCCEEDED"}) {
		t.Fatalf("sent %q; want task 2's reports alone, task 1's RUNNING kept for its end", got)
	}
	now = now.Add(20 * time.Millisecond)
	add(1, protocol.TaskFailed)
	if got := reportsSent(o.take(next)); !slices.Equal(got, []string{"1:RUNNING 1:FAILED"}) {
		t.Fatalf("sent %q; want task 1's RUNNING, then its end, together", got)
	}
}

// A task that runs longer than runningHold is reported RUNNING then, at
// the first flush after it, without waiting for its end.
func TestOutboxSendsARunningReportOnceItsHoldEnds(t *testing.T) {
	o, next := testOutbox(10, 10)
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	o.now = func() time.Time { return now }
	o.runningHold = 50 * time.Millisecond
	if err := o.addReport(protocol.TaskReport{TaskID: 1, Status: protocol.TaskRunning}, 0); err != nil {
		t.Fatal(err)
	}
	if got := o.take(next); len(got) != 0 {
		t.Fatalf("sent %q at once; want it kept for the task's end", reportsSent(got))
	}
	now = now.Add(50 * time.Millisecond)
	if got := reportsSent(o.take(next)); !slices.Equal(got, []string{"1:RUNNING"}) {
		t.Fatalf("sent %q once the hold ended; want task 1's RUNNING", got)
	}
	if o.pending() && len(o.inflight) == 0 {
		t.Error("something is still queued")
	}
}
