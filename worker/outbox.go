package worker

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gammazero/deque"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// The outbox holds everything the worker owes the server — task reports,
// log lines and map requests — from the moment it is produced until the
// server acknowledges it. It outlives connections: the session writer
// takes batches from it (take), the session reader hands it the acks
// (ack), and when a connection ends whatever was sent but not acknowledged
// goes back to the front of its queue (requeue) to be sent again on the
// next connection, in the original order.
//
// Bounds: at most window messages are in flight per connection; queued log
// lines are bounded by maxLogs (the oldest are dropped and counted per
// instance, and the counts ride along with the next logs message); queued
// reports are bounded by maxReports, but a report is never dropped: a task
// finishing into a full queue waits for room (backpressure).
type outbox struct {
	log        *slog.Logger
	maxLogs    int
	maxReports int
	window     int // messages in flight at once
	batchBytes int // estimated encoded bytes of one message's items
	urgent     int // items queued that make a flush due at once

	// wake tells the session writer to flush now rather than at its next
	// tick. Buffered: a poke is never lost and never blocks.
	wake chan struct{}

	mu       sync.Mutex
	room     *sync.Cond // signalled when reports leave the queue or the outbox closes
	seq      int64      // the last log line sequence number given out
	logs     deque.Deque[protocol.LogLine]
	dropped  map[int64]int64 // instance id → lines dropped, not yet told to the server
	reports  deque.Deque[reportItem]
	maps     deque.Deque[*mapChunk]
	pages    deque.Deque[*pageRequest]
	inflight map[int64]*message // by frame id, on the current connection
	// holdUntil delays logs and reports after the server refused some:
	// they are sent again then (docs/protocol.md §6.3).
	holdUntil  time.Time
	retryPause time.Duration
	// runningHold is how long a RUNNING report waits for its task's final
	// report, to go to the server in the same message (0: not at all).
	// The server writes a task's and its instance's row once for both
	// when they come together, and twice each when apart: for tasks that
	// end within it — most scripts, most no-op and short tasks — half the
	// updates and commits of their lives (docs/protocol.md §6.5 rule 2).
	runningHold time.Duration
	now         func() time.Time
	// finals counts, per task, final reports queued or in flight: until
	// the server has acked a task's final report, heartbeats still list the
	// task as running, or the server would take a heartbeat that overtook
	// the report for a task lost.
	finals map[int64]int
	// mapsStored is closed, and replaced, each time the server stores a
	// map chunk: Map calls waiting behind other tasks' chunks see that the
	// server is storing this worker's subtasks, only slower than they
	// arrive, and keep waiting (docs/design.md §6.3).
	mapsStored chan struct{}
	closed     bool
}

type reportItem struct {
	r      protocol.TaskReport
	size   int       // estimated encoded size
	queued time.Time // when it was queued: a RUNNING report's hold ends runningHold later
	// logMark is the last log seq given out when a final report was
	// queued: it is sent only once every line up to it is acked, so an
	// instance the server sees finished has its whole log stored.
	logMark int64
}

// mapChunk is one map message: part of a TaskContext.Map call, which waits
// on done for each of its chunks.
type mapChunk struct {
	m         protocol.Map
	size      int
	first     int        // index of its first payload in the Map call, for errors
	done      chan error // buffered 1: the server's verdict
	abandoned bool       // the caller gave up: do not (re-)send; guarded by outbox.mu
}

// settle gives the caller the outcome; only the first one counts.
func (c *mapChunk) settle(err error) {
	select {
	case c.done <- err:
	default:
	}
}

// pageRequest asks for a page of a POST or REDUCE task's results; its
// caller waits on done. Reading is idempotent, so a request in flight
// when a connection ends is sent again on the next.
type pageRequest struct {
	r         protocol.Results
	done      chan pageAnswer // buffered 1
	abandoned bool            // guarded by outbox.mu
}

type pageAnswer struct {
	results []protocol.TaskResult
	more    bool
	err     error
}

func (p *pageRequest) settle(a pageAnswer) {
	select {
	case p.done <- a:
	default:
	}
}

// message is one report, logs, map or results frame in flight.
type message struct {
	id      int64
	typ     string
	lines   []protocol.LogLine
	dropped map[int64]int64
	reports []reportItem
	chunk   *mapChunk
	page    *pageRequest
}

func (m *message) body() any {
	switch m.typ {
	case protocol.TypeLogs:
		return &protocol.Logs{Lines: m.lines, Dropped: m.dropped}
	case protocol.TypeReport:
		items := make([]protocol.TaskReport, len(m.reports))
		for i, r := range m.reports {
			items[i] = r.r
		}
		return &protocol.Report{Items: items}
	case protocol.TypeResults:
		return &m.page.r
	default:
		return &m.chunk.m
	}
}

var errOutboxClosed = errors.New("the worker has stopped")

const (
	defaultWindow = 8
	// Half a frame leaves ample room for the envelope around the items,
	// whose sizes are estimated from above.
	defaultBatchBytes = protocol.MaxFrameBytes / 2
	defaultUrgent     = 200
	// defaultRetryPause is how long refused reports and log lines wait
	// before they are sent again.
	defaultRetryPause = time.Second
)

func newOutbox(log *slog.Logger, maxLogs, maxReports int) *outbox {
	o := &outbox{
		log:        log,
		maxLogs:    max(maxLogs, 1),
		maxReports: max(maxReports, 1),
		window:     defaultWindow,
		batchBytes: defaultBatchBytes,
		urgent:     defaultUrgent,
		wake:       make(chan struct{}, 1),
		dropped:    map[int64]int64{},
		inflight:   map[int64]*message{},
		finals:     map[int64]int{},
		mapsStored: make(chan struct{}),
		retryPause: defaultRetryPause,
		now:        time.Now,
	}
	o.room = sync.NewCond(&o.mu)
	return o
}

// poke asks the writer to flush now.
func (o *outbox) poke() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// addLog queues a log line, giving it the next sequence number. When the
// queue is full the oldest line is dropped and counted.
func (o *outbox) addLog(l protocol.LogLine) {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return
	}
	o.seq++
	l.Seq = o.seq
	for o.logs.Len() >= o.maxLogs {
		o.dropOldestLocked()
	}
	o.logs.PushBack(l)
	urgent := o.urgentLocked()
	o.mu.Unlock()
	if urgent {
		o.poke()
	}
}

func (o *outbox) dropOldestLocked() {
	old := o.logs.PopFront()
	o.dropped[old.InstanceID]++
}

// addReport queues a task report, waiting for room if the queue is full.
// It fails only once the worker has stopped.
func (o *outbox) addReport(r protocol.TaskReport, wfBytes int) error {
	item := reportItem{r: r, size: jsonLen(r.Result) + wfBytes + 200, queued: o.now()}
	o.mu.Lock()
	if r.Status != protocol.TaskRunning {
		item.logMark = o.seq
	}
	for !o.closed && o.reports.Len() >= o.maxReports {
		o.room.Wait()
	}
	if o.closed {
		o.mu.Unlock()
		return errOutboxClosed
	}
	o.reports.PushBack(item)
	final := r.Status != protocol.TaskRunning
	if final {
		o.finals[r.TaskID]++
	}
	// A final report frees a slot the server waits for: send it (and the
	// task's last lines, which go first) now rather than at the next tick.
	// Under load the writer is busy meanwhile and what queues up goes out
	// together, so this costs no extra frames when it matters.
	urgent := final || o.urgentLocked()
	o.mu.Unlock()
	if urgent {
		o.poke()
	}
	return nil
}

// unackedFinals lists the tasks whose final report the server has not
// acked yet.
func (o *outbox) unackedFinals() []int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	ids := make([]int64, 0, len(o.finals))
	for id := range o.finals {
		ids = append(ids, id)
	}
	return ids
}

// settledLocked forgets the final reports of a message the server answered.
func (o *outbox) settledLocked(m *message) {
	for _, r := range m.reports {
		if r.r.Status == protocol.TaskRunning {
			continue
		}
		if o.finals[r.r.TaskID]--; o.finals[r.r.TaskID] <= 0 {
			delete(o.finals, r.r.TaskID)
		}
	}
}

// mapProgress returns a channel closed when the server next stores a map
// chunk of this worker's.
func (o *outbox) mapProgress() <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.mapsStored
}

// addMap queues the chunks of a Map call and asks for a flush at once: a
// task is waiting.
func (o *outbox) addMap(chunks []*mapChunk) error {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return errOutboxClosed
	}
	for _, c := range chunks {
		o.maps.PushBack(c)
	}
	o.mu.Unlock()
	o.poke()
	return nil
}

// addPage queues a request for a page of results and asks for a flush at
// once: a task is waiting.
func (o *outbox) addPage(p *pageRequest) error {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return errOutboxClosed
	}
	o.pages.PushBack(p)
	o.mu.Unlock()
	o.poke()
	return nil
}

// abandonPage forgets a request whose caller stopped waiting.
func (o *outbox) abandonPage(p *pageRequest) {
	o.mu.Lock()
	defer o.mu.Unlock()
	p.abandoned = true
	deleteFunc(&o.pages, func(q *pageRequest) bool { return q.abandoned })
}

// abandon marks chunks whose caller stopped waiting: queued ones are never
// sent, and one in flight is not re-sent after a reconnect.
func (o *outbox) abandon(chunks []*mapChunk) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range chunks {
		c.abandoned = true
	}
	deleteFunc(&o.maps, func(c *mapChunk) bool { return c.abandoned })
}

func (o *outbox) urgentLocked() bool {
	return o.maps.Len() > 0 || o.pages.Len() > 0 || o.logs.Len() >= o.urgent || o.reports.Len() >= o.urgent
}

// pending reports whether anything is queued or unacknowledged.
func (o *outbox) pending() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.logs.Len() > 0 || o.reports.Len() > 0 || o.maps.Len() > 0 || o.pages.Len() > 0 ||
		len(o.inflight) > 0 || len(o.dropped) > 0
}

// take fills the in-flight window with messages built from the queues —
// map requests first (a task waits for them), then logs (so a task's lines
// tend to land before its final report), then reports — and registers each
// under an id from nextID. The caller sends them.
func (o *outbox) take(nextID func() int64) []*message {
	o.mu.Lock()
	defer o.mu.Unlock()
	var msgs []*message
	tookReports := false
	for len(o.inflight) < o.window {
		m := o.nextLocked()
		if m == nil {
			break
		}
		tookReports = tookReports || m.typ == protocol.TypeReport
		m.id = nextID()
		o.inflight[m.id] = m
		msgs = append(msgs, m)
	}
	if tookReports {
		o.room.Broadcast()
	}
	return msgs
}

func (o *outbox) nextLocked() *message {
	for o.maps.Len() > 0 {
		if c := o.maps.PopFront(); !c.abandoned {
			return &message{typ: protocol.TypeMap, chunk: c}
		}
	}
	for o.pages.Len() > 0 {
		if p := o.pages.PopFront(); !p.abandoned {
			return &message{typ: protocol.TypeResults, page: p}
		}
	}
	if o.now().Before(o.holdUntil) {
		return nil // the server refused some lately: give it a moment
	}
	if o.logs.Len() > 0 || len(o.dropped) > 0 {
		m := &message{typ: protocol.TypeLogs}
		size := 0
		for o.logs.Len() > 0 && len(m.lines) < protocol.MaxBatch {
			s := logSize(o.logs.Front())
			if len(m.lines) > 0 && size+s > o.batchBytes {
				break
			}
			size += s
			m.lines = append(m.lines, o.logs.PopFront())
		}
		if len(o.dropped) > 0 {
			m.dropped, o.dropped = o.dropped, map[int64]int64{}
		}
		return m
	}
	if o.reports.Len() > 0 {
		m := &message{typ: protocol.TypeReport}
		size := 0
		unacked := o.firstUnackedLogLocked()
		now := o.now()
		// RUNNING reports still waiting for their tasks' ends stay queued,
		// in order, ahead of what this message leaves.
		var held []reportItem
		for o.reports.Len() > 0 && len(m.reports) < protocol.MaxBatch {
			next := o.reports.Front()
			if o.holdsLocked(&next, now) {
				held = append(held, o.reports.PopFront())
				continue
			}
			if next.logMark > 0 && unacked > 0 && next.logMark >= unacked {
				break // its lines are not all stored yet
			}
			s := next.size
			if len(m.reports) > 0 && size+s > o.batchBytes {
				break
			}
			size += s
			m.reports = append(m.reports, o.reports.PopFront())
		}
		prepend(&o.reports, held)
		if len(m.reports) > 0 {
			return m
		}
	}
	return nil
}

// holdsLocked says whether a queued report waits for now: a RUNNING report
// younger than runningHold whose task has no final report queued or in
// flight. A task's final report is queued after its RUNNING report, so
// when it is, the RUNNING report goes first, in the same message or an
// earlier one (rule 2 of docs/protocol.md §6.5).
func (o *outbox) holdsLocked(it *reportItem, now time.Time) bool {
	return o.runningHold > 0 && it.r.Status == protocol.TaskRunning && o.finals[it.r.TaskID] == 0 &&
		now.Sub(it.queued) < o.runningHold
}

// firstUnackedLogLocked is the lowest seq of a log line queued or in
// flight, 0 if none.
func (o *outbox) firstUnackedLogLocked() int64 {
	first := int64(0)
	if o.logs.Len() > 0 {
		first = o.logs.Front().Seq
	}
	for _, m := range o.inflight {
		if m.typ == protocol.TypeLogs && len(m.lines) > 0 && (first == 0 || m.lines[0].Seq < first) {
			first = m.lines[0].Seq
		}
	}
	return first
}

// ack settles the message the server answered. A refused map is final:
// its caller gets the server's reason. A refused report or logs message is
// kept and sent again after a pause: the server refuses them only for
// reasons that pass (a failed transaction, the app moving), and
// de-duplicates what it gets twice (docs/protocol.md §6.3). Until then a
// refused final report keeps its task listed as running.
func (o *outbox) ack(id int64, a *protocol.Ack) {
	o.mu.Lock()
	m, ok := o.inflight[id]
	delete(o.inflight, id)
	refused := ok && !a.OK && m.typ != protocol.TypeMap && m.typ != protocol.TypeResults
	switch {
	case refused:
		o.requeueLocked([]*message{m})
		o.holdUntil = o.now().Add(o.retryPause)
	case ok:
		o.settledLocked(m)
	}
	urgent := o.urgentLocked() || (ok && m.typ == protocol.TypeLogs && o.reports.Len() > 0)
	o.mu.Unlock()
	if !ok {
		return // an ack for something else (or a duplicate)
	}
	if urgent {
		o.poke() // the window has room for the backlog, or reports waited for these lines
	}
	if m.page != nil {
		ans := pageAnswer{results: a.Results, more: a.More}
		if !a.OK {
			ans = pageAnswer{err: fmt.Errorf("the server refused to read results: %s", orUnknown(a.Error))}
		}
		m.page.settle(ans)
		return
	}
	if a.OK {
		if m.chunk != nil {
			m.chunk.settle(nil)
			o.mu.Lock()
			close(o.mapsStored)
			o.mapsStored = make(chan struct{})
			o.mu.Unlock()
		}
		return
	}
	switch m.typ {
	case protocol.TypeMap:
		m.chunk.settle(fmt.Errorf("the server refused subtasks %d..%d: %s",
			m.chunk.first, m.chunk.first+len(m.chunk.m.Payloads)-1, orUnknown(a.Error)))
	case protocol.TypeLogs:
		o.log.Warn("the server refused log lines; sending them again shortly", "lines", len(m.lines), "in", o.retryPause, "error", a.Error)
	case protocol.TypeReport:
		ids := make([]int64, len(m.reports))
		for i, r := range m.reports {
			ids[i] = r.r.TaskID
		}
		o.log.Warn("the server refused task reports; sending them again shortly", "tasks", ids, "in", o.retryPause, "error", a.Error)
	}
}

// discard forgets a message that could not be encoded (it cannot be sent
// ever); map callers are told why.
func (o *outbox) discard(id int64, err error) {
	o.mu.Lock()
	m, ok := o.inflight[id]
	delete(o.inflight, id)
	if ok {
		o.settledLocked(m)
	}
	o.mu.Unlock()
	if !ok {
		return
	}
	o.log.Error("dropping a message that cannot be encoded", "type", m.typ, "error", err)
	if m.chunk != nil {
		m.chunk.settle(err)
	}
	if m.page != nil {
		m.page.settle(pageAnswer{err: err})
	}
}

// requeue puts every unacknowledged message back at the front of its
// queue, oldest first, after a connection ended. Log lines beyond the
// bound are dropped, oldest first.
func (o *outbox) requeue() {
	o.mu.Lock()
	defer o.mu.Unlock()
	ids := slices.Sorted(maps.Keys(o.inflight))
	msgs := make([]*message, len(ids))
	for i, id := range ids {
		msgs[i] = o.inflight[id]
	}
	clear(o.inflight)
	o.requeueLocked(msgs)
}

// requeueLocked puts the content of msgs, in order, back at the front of
// the queues.
func (o *outbox) requeueLocked(msgs []*message) {
	var lines []protocol.LogLine
	var reports []reportItem
	var chunks []*mapChunk
	var pages []*pageRequest
	for _, m := range msgs {
		if m.page != nil && !m.page.abandoned {
			pages = append(pages, m.page)
		}
		lines = append(lines, m.lines...)
		reports = append(reports, m.reports...)
		if m.chunk != nil && !m.chunk.abandoned {
			chunks = append(chunks, m.chunk)
		}
		for inst, n := range m.dropped {
			o.dropped[inst] += n
		}
	}
	prepend(&o.logs, lines)
	prepend(&o.reports, reports)
	prepend(&o.maps, chunks)
	prepend(&o.pages, pages)
	for o.logs.Len() > o.maxLogs {
		o.dropOldestLocked()
	}
}

// close stops the outbox when Run returns: queued map calls fail, and
// tasks blocked on a full report queue are released.
func (o *outbox) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	for o.maps.Len() > 0 {
		o.maps.PopFront().settle(errOutboxClosed)
	}
	for o.pages.Len() > 0 {
		o.pages.PopFront().settle(pageAnswer{err: errOutboxClosed})
	}
	o.room.Broadcast()
}

// prepend puts vs, in order, before q's items.
func prepend[T any](q *deque.Deque[T], vs []T) {
	for i := len(vs) - 1; i >= 0; i-- {
		q.PushFront(vs[i])
	}
}

// deleteFunc removes q's items for which del is true, keeping the order.
func deleteFunc[T any](q *deque.Deque[T], del func(T) bool) {
	for range q.Len() {
		if v := q.PopFront(); !del(v) {
			q.PushBack(v)
		}
	}
}

// jsonLen is an upper bound of the length of s encoded as a JSON string
// (encoding/json escapes control characters, <, >, &, U+2028/9 and invalid
// UTF-8 as six bytes).
func jsonLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += size
		}
		i += size
	}
	return n
}

// logSize bounds a log line's encoded size: text plus the other fields.
func logSize(l protocol.LogLine) int { return jsonLen(l.Text) + 160 }

func orUnknown(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}
