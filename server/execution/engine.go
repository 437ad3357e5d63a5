// Package execution runs instances: it turns a fired instance into tasks,
// hands tasks to workers within their free slots, and moves instances and
// tasks through their state machines as workers report, fail or vanish.
//
// One actor goroutine per owned app does all of this. Every event for the
// app (fires, reports, maps, worker joins and losses, dispatch acks, status
// checks, API stops) goes through its mailbox; the actor takes whatever has
// queued up as one batch, decides in memory, writes every change of the
// batch in ONE transaction of compare-and-set statements, and only then
// sends frames to workers and acks what workers sent. So the hot path costs
// a transaction per batch, not per task, and nothing is sent that is not
// durable. The in-memory state is a cache of the database: when a write
// fails or a compare-and-set loses a race (an instance stopped through the
// API, another owner), the actor re-reads from the database.
//
// State machines (docs/design.md §5.6): instances go WAITING → DISPATCHED → RUNNING →
// SUCCEEDED | FAILED | STOPPED, or WAITING → CANCELED. Tasks follow the
// same states. A failed task is retried up to the job's taskRetries; a
// failed attempt is retried (the instance back to WAITING with attempt+1)
// up to instanceRetries. A worker that disconnects keeps its tasks for a
// grace period to reconnect; after that they fail as "worker lost".
package execution

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/hub"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// Reasons recorded on instances and attempts.
const (
	ReasonNoWorker     = "NO_WORKER"
	ReasonTimeout      = "TIMEOUT"
	ReasonMaxInstances = "MAX_INSTANCES"
	ReasonWorkerLost   = "WORKER_LOST"
	ReasonFailed       = "FAILED"
	ReasonStopped      = "STOPPED"
	ReasonRejected     = "REJECTED"
	ReasonJobDisabled  = "JOB_DISABLED"
)

// Sender sends frames to connected workers and lists them (package hub).
type Sender interface {
	Send(appID int64, workerID, typ string, body any, onReply func(*protocol.Ack, error)) error
	Workers(appID int64) []hub.WorkerInfo
}

// Waker is told that an app has new WAITING instances or re-armed jobs,
// so the trigger loop should look again now (package scheduler).
type Waker interface {
	Wake(appID int64)
	// Unfired says fired instances were not processed (the database
	// failed): they are missed fires again, for the misfire policy.
	Unfired(appID int64, instanceIDs []int64)
}

// Notifier hears about instances whose state changed (API subscriptions).
type Notifier interface {
	InstancesChanged(appID int64, instanceIDs []int64)
}

// Alarmer hears about instances that ended FAILED (package alarm).
type Alarmer interface {
	InstanceFailed(app string, job *db.Job, in db.Instance)
}

// Config tunes the engine.
type Config struct {
	// CheckInterval is how often deadlines, lost workers and API stops are
	// checked. Default 1s.
	CheckInterval time.Duration
	// LostGrace is how long a disconnected worker's tasks wait for it to
	// reconnect before they fail. Default 5s.
	LostGrace time.Duration
	// AdoptGrace is the same for workers of an app this server just took
	// over, who need time to discover it. Default 20s.
	AdoptGrace time.Duration
	// RetryDelay is the pause before an instance's next attempt. Default 1s.
	RetryDelay time.Duration
	// NoWorkerWait is how long a fired instance waits for a worker that can
	// run it before it fails with NO_WORKER: workers restarting in a rolling
	// deploy, or reconnecting after a fail-over, are not failures. It is
	// counted from the later of the trigger time and the take-over of the
	// app. Default 10s.
	NoWorkerWait time.Duration
}

func (c *Config) defaults() {
	if c.CheckInterval == 0 {
		c.CheckInterval = time.Second
	}
	if c.LostGrace == 0 {
		c.LostGrace = 5 * time.Second
	}
	if c.AdoptGrace == 0 {
		c.AdoptGrace = 20 * time.Second
	}
	if c.RetryDelay == 0 {
		c.RetryDelay = time.Second
	}
	if c.NoWorkerWait == 0 {
		c.NoWorkerWait = 10 * time.Second
	}
}

// Engine runs the instances of every app this server owns.
type Engine struct {
	cfg    Config
	db     *db.DB
	send   Sender
	waker  Waker
	notify Notifier
	alarms Alarmer
	log    *slog.Logger
	now    func() time.Time

	mu   sync.Mutex
	apps map[int64]*app
	ctx  context.Context
}

// New returns an Engine. Wire it as the hub's handler and a lease listener.
func New(cfg Config, store *db.DB, send Sender, waker Waker, notify Notifier, log *slog.Logger) *Engine {
	cfg.defaults()
	return &Engine{cfg: cfg, db: store, send: send, waker: waker, notify: notify, log: log, now: db.Now,
		apps: map[int64]*app{}, ctx: context.Background()}
}

// SetAlarmer sets who is told of failed instances.
func (e *Engine) SetAlarmer(a Alarmer) { e.alarms = a }

// SetWaker sets the trigger loop to wake (it is built after the engine).
func (e *Engine) SetWaker(w Waker) { e.waker = w }

// LeaseGained starts the app's actor, which adopts its running instances.
func (e *Engine) LeaseGained(ctx context.Context, appID, epoch int64) {
	a := newApp(e, appID, epoch)
	e.mu.Lock()
	old := e.apps[appID]
	e.apps[appID] = a
	e.mu.Unlock()
	if old != nil {
		old.stop()
	}
	a.start()
}

// LeaseLost stops the app's actor after it finished what it was doing.
func (e *Engine) LeaseLost(appID int64) {
	e.mu.Lock()
	a := e.apps[appID]
	delete(e.apps, appID)
	e.mu.Unlock()
	if a != nil {
		a.stop()
	}
}

// Stop stops every actor.
func (e *Engine) Stop() {
	e.mu.Lock()
	list := make([]*app, 0, len(e.apps))
	for _, a := range e.apps {
		list = append(list, a)
	}
	e.apps = map[int64]*app{}
	e.mu.Unlock()
	for _, a := range list {
		a.stop()
	}
}

func (e *Engine) app(appID int64) *app {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.apps[appID]
}

// post delivers an event to the app's actor; false if the app is not owned.
func (e *Engine) post(appID int64, ev event) bool {
	a := e.app(appID)
	if a == nil {
		return false
	}
	return a.post(ev)
}

// Fire dispatches WAITING instances whose time has come (from the wheel,
// at `at`, which is recorded as their actual trigger time).
func (e *Engine) Fire(appID int64, instanceIDs []int64, at time.Time) {
	e.post(appID, event{fire: instanceIDs, firedAt: at})
}

// Kick makes the app's actor re-read its instances now, e.g. after the API
// stopped one.
func (e *Engine) Kick(appID int64) {
	e.post(appID, event{refresh: true})
}

// JobsChanged makes the app's actor re-read job definitions.
func (e *Engine) JobsChanged(appID int64) {
	e.post(appID, event{jobsChanged: true})
}

// Owns reports whether this engine runs the app now.
func (e *Engine) Owns(appID int64) bool { return e.app(appID) != nil }

// WorkerJoined implements hub.Handler.
func (e *Engine) WorkerJoined(w hub.WorkerInfo) {
	e.post(w.AppID, event{joined: &w})
}

// WorkerLeft implements hub.Handler.
func (e *Engine) WorkerLeft(appID int64, workerID string) {
	e.post(appID, event{left: workerID})
}

// WorkerHeartbeat implements hub.Handler.
func (e *Engine) WorkerHeartbeat(appID int64, workerID string, hb *protocol.Heartbeat) {
	e.post(appID, event{worker: workerID, heartbeat: hb})
}

// Report implements hub.Handler.
func (e *Engine) Report(appID int64, workerID string, r *protocol.Report, done func(error)) {
	if !e.post(appID, event{worker: workerID, report: r, done: done}) {
		done(errNotOwner)
	}
}

// Map implements hub.Handler.
func (e *Engine) Map(appID int64, workerID string, m *protocol.Map, done func(error)) {
	if !e.post(appID, event{worker: workerID, mapReq: m, done: done}) {
		done(errNotOwner)
	}
}
