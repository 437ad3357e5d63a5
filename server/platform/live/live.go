// Package live feeds the API's subscriptions: an instance's log lines and
// an app's instance changes, on every server, whichever server owns the
// app.
//
// The database is the only source of truth. Producers (the log writer and
// the execution engine on the app's owner, the job API on any server)
// publish wake-up hints on the bus: NOTIFY on PostgreSQL, in-process on
// SQLite, and always delivered in this process at once. A hint carries
// only an id, and it may be lost (a broken listener connection, a full
// buffer), so subscribers re-read the database after a hint, after the bus
// reconnects, and on a timer (Config.PollEvery) — hints only make them fast.
//
// instanceLogs reads lines by seq > the last seq sent: the log writer
// assigns seqs under the instance row's lock and commits in seq order, so
// reading by seq never skips a line and never repeats one. The stream ends
// when the instance has finished and every line stored by then was sent.
//
// instanceUpdated keeps one watcher per app and server, shared by its
// subscribers. It re-reads the app's instances whose updated_at is at or
// after (the newest updated_at it has seen, or now if earlier) − Overlap,
// and sends those whose state differs from what it last sent. The overlap
// covers transactions that commit after others stamped later, and clock
// differences between servers, up to Overlap; de-duplication keeps the
// overlap from sending anything twice. Each delivery is the instance's
// current state: transitions quicker than a re-read are coalesced, but the
// latest state of every changed instance is always delivered.
//
// Bounds: a log subscriber reads a page only when it has room to send it,
// so the backlog stays in the database; an instanceUpdated subscriber has
// a buffer of Config.Buffer instances. A subscriber that does not take
// what is sent for Config.SlowAfter (logs), or whose buffer is full
// (instances), is dropped with ErrSlowConsumer; it may resubscribe (logs:
// with its last seq). Subscribers re-check their caller's rights every
// Config.RecheckEvery and at once when rights change anywhere (a token
// revoked, a role changed), and end with the error if they lost them.
package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/server/platform/bus"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// Bus topics of the hints.
const (
	TopicLogs      = "live.logs"      // data: instance id
	TopicInstances = "live.instances" // data: app id
	TopicAuth      = "live.auth"      // data: empty
	TopicWorkers   = "live.workers"   // data: app id
	TopicWorkflows = "live.workflows" // data: "r<run id>", or "a<app id>" for every run of an app
	TopicJobs      = "live.jobs"      // data: app id; an app's job definitions changed
	TopicApps      = "live.apps"      // data: app id; an app changed (its secret) or was deleted
)

// Error is an error of a subscription that is not the caller's input: it
// carries its own API error code.
type Error struct {
	code, msg string
}

func (e *Error) Error() string { return e.msg }

// Code is the API error code (extensions.code).
func (e *Error) Code() string { return e.code }

var (
	// ErrSlowConsumer ends a subscription whose client does not keep up.
	ErrSlowConsumer = &Error{"SLOW_CONSUMER", "the subscriber did not keep up and was dropped; subscribe again (instanceLogs: with afterSeq set to the last seq received)"}
	// ErrShuttingDown ends subscriptions when the server stops.
	ErrShuttingDown = &Error{"UNAVAILABLE", "the server is shutting down; subscribe again (to another server)"}
)

// Config tunes the hub; zero values take the defaults.
type Config struct {
	// PollEvery is how often subscribers re-read without a hint. Default 2s.
	PollEvery time.Duration
	// RecheckEvery is how often subscribers re-check their caller's
	// rights. Default 10s.
	RecheckEvery time.Duration
	// Overlap is how far back instanceUpdated re-reads. Default 10s.
	Overlap time.Duration
	// SlowAfter is how long a log subscriber may leave a line untaken
	// before it is dropped. Default 30s.
	SlowAfter time.Duration
	// Buffer is an instanceUpdated subscriber's buffer. Default 256.
	Buffer int
	// LogList is how many log lines are read at once. Default 500.
	LogPage int
	// Clock defaults to the system clock.
	Clock clock.Clock
}

func (c *Config) defaults() {
	if c.PollEvery <= 0 {
		c.PollEvery = 2 * time.Second
	}
	if c.RecheckEvery <= 0 {
		c.RecheckEvery = 10 * time.Second
	}
	if c.Overlap <= 0 {
		c.Overlap = 10 * time.Second
	}
	if c.SlowAfter <= 0 {
		c.SlowAfter = 30 * time.Second
	}
	if c.Buffer <= 0 {
		c.Buffer = 256
	}
	if c.LogPage <= 0 {
		c.LogPage = 500
	}
}

// Store is what the feeds read.
type Store interface {
	InstanceGet(ctx context.Context, id int64) (*db.Instance, error)
	InstanceListChangedSince(ctx context.Context, appID int64, since, afterAt time.Time, afterID int64, limit int) ([]db.Instance, error)
	JobGet(ctx context.Context, id int64) (*db.Job, error)
	LogList(ctx context.Context, instanceID, afterSeq int64, limit int) ([]db.InstanceLog, bool, error)
	WorkflowInstanceGet(ctx context.Context, id int64) (*db.WorkflowInstance, error)
	WorkflowNodeRunListByInstances(ctx context.Context, runIDs []int64) ([]db.WorkflowNodeRun, error)
}

// Hints publishes and delivers wake-up hints (package bus).
type Hints interface {
	Publish(topic, data string)
	Subscribe(topic string, h bus.Handler)
	OnReconnect(fn func())
}

// Auth re-checks a subscriber's rights (package auth).
type Auth interface {
	Refresh(ctx context.Context) (context.Context, error)
	Require(ctx context.Context, appID int64, role db.Role) error
	OnChange(fn func())
}

// Apps finds apps and their workers as the caller may see them (package apps).
type Apps interface {
	ByName(ctx context.Context, name string, role db.Role) (*db.App, error)
	WorkersOf(ctx context.Context, appID int64) ([]db.Worker, error)
}

// Feeds runs this server's subscriptions and publishes the hints that wake
// them, here and on other servers. Subscriptions may be opened once it is
// constructed; Stop ends every one of them with ErrShuttingDown, and a
// Start after it serves new ones again.
type Feeds struct {
	lifecycle.Base
	cfg   Config
	db    Store
	bus   Hints
	auth  Auth
	apps  Apps
	log   *slog.Logger
	clock clock.Clock

	mu       sync.Mutex
	run      *feedRun                             // the subscriptions of this run; replaced by a Start after a Stop
	logs     map[int64]map[chan struct{}]struct{} // instance → wake channels of its log subscribers
	watchers map[int64]*watcher                   // app → its instanceUpdated watcher
	workers  map[int64]map[chan struct{}]struct{} // app → wake channels of its workersUpdated subscribers
	rechecks map[chan struct{}]struct{}           // every subscriber's "re-check rights" channel
	runs     map[int64]map[chan struct{}]int64    // workflow run → wake channels of its subscribers, with the run's app
}

// New returns Feeds publishing and listening on b.
func New(cfg Config, store Store, b Hints, authSvc Auth, appSvc Apps, log *slog.Logger) *Feeds {
	cfg.defaults()
	h := &Feeds{cfg: cfg, db: store, bus: b, auth: authSvc, apps: appSvc, log: log, clock: clock.OrSystem(cfg.Clock), run: newFeedRun(),
		logs: map[int64]map[chan struct{}]struct{}{}, watchers: map[int64]*watcher{}, workers: map[int64]map[chan struct{}]struct{}{}, rechecks: map[chan struct{}]struct{}{},
		runs: map[int64]map[chan struct{}]int64{}}
	b.Subscribe(TopicLogs, h.onLogs)
	b.Subscribe(TopicInstances, h.onInstances)
	b.Subscribe(TopicWorkers, h.onWorkers)
	b.Subscribe(TopicWorkflows, h.onWorkflows)
	b.Subscribe(TopicAuth, func(string, string) { h.signalAll(h.rechecksLocked) })
	b.OnReconnect(h.wakeAll)
	authSvc.OnChange(func() { b.Publish(TopicAuth, "") })
	return h
}

// Start marks the feeds running; Stop ends every subscription (with
// ErrShuttingDown) and waits for them.
func (h *Feeds) Start(ctx context.Context) error {
	ctx, ok, started, stopped := h.StartInit(ctx)
	if !ok {
		return nil
	}
	h.mu.Lock()
	if h.run.ctx.Err() != nil {
		h.run = newFeedRun()
	}
	h.mu.Unlock()
	go func() {
		started()
		defer stopped()
		<-ctx.Done()
		h.mu.Lock()
		r := h.run
		r.cancel() // under mu: no subscription joins r after this
		h.mu.Unlock()
		r.wg.Wait()
	}()
	return nil
}

// feedRun is what one start of the feeds runs: the goroutines of its
// subscriptions and watchers, and the context that ends them at Stop.
type feedRun struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newFeedRun() *feedRun {
	ctx, cancel := context.WithCancel(context.Background())
	return &feedRun{ctx: ctx, cancel: cancel}
}

// join counts a goroutine about to start in the current run, which must
// call r.wg.Done when it ends; it fails with ErrShuttingDown once the feeds
// are stopping or stopped.
func (h *Feeds) join() (*feedRun, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.joinLocked()
}

func (h *Feeds) joinLocked() (*feedRun, error) {
	if h.run.ctx.Err() != nil {
		return nil, ErrShuttingDown
	}
	h.run.wg.Add(1)
	return h.run, nil
}

// LogsAppended implements logs.Notifier.
func (h *Feeds) LogsAppended(last map[int64]int64) {
	for id := range last {
		h.bus.Publish(TopicLogs, strconv.FormatInt(id, 10))
	}
}

// InstancesChanged implements execution.Notifier.
func (h *Feeds) InstancesChanged(appID int64, _ []int64) {
	h.bus.Publish(TopicInstances, strconv.FormatInt(appID, 10))
}

// JobsNotifier is what the job API tells of its changes (jobs.Notifier).
type JobsNotifier interface {
	JobsChanged(appID int64)
	InstancesChanged(appID int64)
	InstanceCreated(in *db.Instance)
}

// Jobs returns a jobs.Notifier that tells next and publishes instance
// changes made through the API (runs, stops, retries, deletes).
func (h *Feeds) Jobs(next JobsNotifier) JobsNotifier { return jobsNotifier{next, h} }

type jobsNotifier struct {
	next JobsNotifier
	h    *Feeds
}

// JobsChanged tells the app's owner here, and every server (the job
// definitions they keep in memory).
func (n jobsNotifier) JobsChanged(appID int64) {
	n.next.JobsChanged(appID)
	n.h.bus.Publish(TopicJobs, strconv.FormatInt(appID, 10))
}

func (n jobsNotifier) InstancesChanged(appID int64) {
	n.next.InstancesChanged(appID)
	n.h.InstancesChanged(appID, nil)
}

func (n jobsNotifier) InstanceCreated(in *db.Instance) {
	n.next.InstanceCreated(in)
	n.h.InstancesChanged(in.AppID, nil)
}

func (h *Feeds) onLogs(_, data string) {
	id, err := strconv.ParseInt(data, 10, 64)
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.logs[id] {
		poke(ch)
	}
}

func (h *Feeds) onInstances(_, data string) {
	id, err := strconv.ParseInt(data, 10, 64)
	if err != nil {
		return
	}
	h.mu.Lock()
	w := h.watchers[id]
	h.mu.Unlock()
	if w != nil {
		poke(w.wake)
	}
}

// wakeAll makes every subscriber re-read: hints may have been lost.
func (h *Feeds) wakeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, set := range h.logs {
		for ch := range set {
			poke(ch)
		}
	}
	for _, w := range h.watchers {
		poke(w.wake)
	}
	for _, set := range h.workers {
		for ch := range set {
			poke(ch)
		}
	}
	for _, set := range h.runs {
		for ch := range set {
			poke(ch)
		}
	}
}

func (h *Feeds) rechecksLocked() []chan struct{} {
	out := make([]chan struct{}, 0, len(h.rechecks))
	for ch := range h.rechecks {
		out = append(out, ch)
	}
	return out
}

func (h *Feeds) signalAll(list func() []chan struct{}) {
	h.mu.Lock()
	chs := list()
	h.mu.Unlock()
	for _, ch := range chs {
		poke(ch)
	}
}

// poke wakes whoever waits on ch, once, without blocking.
func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (h *Feeds) addRecheck() chan struct{} {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	h.rechecks[ch] = struct{}{}
	h.mu.Unlock()
	return ch
}

func (h *Feeds) removeRecheck(ch chan struct{}) {
	h.mu.Lock()
	delete(h.rechecks, ch)
	h.mu.Unlock()
}

// recheck authenticates the caller again and checks they may still see
// the app.
func (h *Feeds) recheck(ctx context.Context, appID int64, what string) error {
	fresh, err := h.auth.Refresh(ctx)
	if err != nil {
		return err
	}
	if err := h.auth.Require(fresh, appID, db.RoleViewer); err != nil {
		if errors.Is(err, fault.ErrNotFound) {
			return fault.NotFound(what)
		}
		return err
	}
	return nil
}

// Stream is a subscription's flow of values. C is closed when it ends;
// then Err says why (nil: it completed).
type Stream[T any] struct {
	C   <-chan T
	mu  sync.Mutex
	err error
}

// Err is why the stream ended; nil if it completed (or has not ended).
func (s *Stream[T]) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Stream[T]) setErr(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

// send hands v to out, waiting at most slow for room.
func send[T any](ctx, hubCtx context.Context, c clock.Clock, out chan<- T, v T, slow time.Duration) error {
	select {
	case out <- v:
		return nil
	default:
	}
	t := c.NewTimer(slow)
	defer t.Stop()
	select {
	case out <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-hubCtx.Done():
		return ErrShuttingDown
	case <-t.C():
		return ErrSlowConsumer
	}
}

func instanceName(id int64) string { return fmt.Sprintf("instance %d", id) }
