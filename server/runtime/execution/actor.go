package execution

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/internal/testsignal"
	"github.com/jobwheel/jobwheel/internal/tracing"
	"github.com/jobwheel/jobwheel/server/runtime/hub"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// Config tunes the actors.
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
	// RetryDelay is the pause before an instance's next attempt when its
	// job sets no retryDelayMs. Default 1s.
	RetryDelay time.Duration
	// NoWorkerWait is how long a fired instance waits for a worker that can
	// run it before it fails with NO_WORKER: workers restarting in a rolling
	// deploy, or reconnecting after a fail-over, are not failures. It is
	// counted from the later of the trigger time and the take-over of the
	// app. Default 10s.
	NoWorkerWait time.Duration
	// MapMaxTasks bounds the subtasks the maps of one instance may create
	// in all; a map past it is REFUSED, naming the limit, and stores
	// nothing. Default DefaultMapMaxTasks.
	MapMaxTasks int
	// MapMaxBytes bounds the payload bytes of those subtasks in all, the
	// same way. Default DefaultMapMaxBytes.
	MapMaxBytes int64
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Bounds of one instance's maps (attacker probe, docs/security.md): a
// worker's map was bounded per message only, so one ROOT task could
// store without end (200,000 subtasks were; at 64 KiB a payload, 13 GB).
// The defaults leave room for the documented ten-million-task map (and
// ten million payloads of 400 bytes), and refuse the probe's 200,000
// payloads of 64 KiB.
const (
	DefaultMapMaxTasks = 20_000_000
	DefaultMapMaxBytes = 4 << 30
)

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
	if c.MapMaxTasks <= 0 {
		c.MapMaxTasks = DefaultMapMaxTasks
	}
	if c.MapMaxBytes <= 0 {
		c.MapMaxBytes = DefaultMapMaxBytes
	}
	c.Clock = clock.OrSystem(c.Clock)
}

// Store is what an actor needs from the database.
type Store interface {
	AppGet(ctx context.Context, id int64) (*db.App, error)
	InstanceListActive(ctx context.Context, appID int64) ([]db.Instance, error)
	InstanceListByIDs(ctx context.Context, ids []int64) ([]db.Instance, error)
	InstanceListQueued(ctx context.Context, appID int64) ([]db.Instance, error)
	InstanceListPoolWaiting(ctx context.Context, appID int64, pool string) ([]db.Instance, error)
	PoolListByNames(ctx context.Context, appID int64, names []string) ([]db.Pool, error)
	JobListByIDs(ctx context.Context, ids []int64) ([]db.Job, error)
	TaskCountsByInstance(ctx context.Context, instanceIDs []int64) (map[int64]db.TaskCounts, error)
	TaskListOnWorkers(ctx context.Context, instanceIDs []int64) ([]db.Task, error)
	TaskListWaitingAfter(ctx context.Context, instanceID int64, attempt int, afterID int64, limit int) ([]db.Task, error)
	TaskListResults(ctx context.Context, instanceID int64, attempt int, kinds []string) ([]db.Task, error)
	TaskListResultsAfter(ctx context.Context, instanceID int64, attempt int, kinds []string, afterID int64, limit int) ([]db.Task, error)
	TaskGetInApp(ctx context.Context, appID, instanceID, taskID int64) (*db.Task, error)
	MapRequestApplied(ctx context.Context, instanceID int64, key string) (bool, error)
	InTx(ctx context.Context, fn func(ctx context.Context, tx *db.Store) error) error
}

// Sender sends frames to the app's connected workers and lists them (the
// app's hub.Registry).
type Sender interface {
	Send(workerID, typ string, body any, onReply func(*protocol.Ack, error)) error
	Workers() []hub.WorkerInfo
}

// Waker is the app's trigger loop: told that the app has new WAITING
// instances or re-armed jobs, so it should look again now.
type Waker interface {
	Wake()
	// Unfired says fired instances were not processed (the database
	// failed, or the actor is stopping): they are missed fires again, for
	// the misfire policy, and no longer the actor's.
	Unfired(instanceIDs []int64)
	// FiresTaken says the actor is done with fires it was handed (Fire,
	// FireRecorded), each id once per hand-over, after the batch that
	// processed them: the loop bounds the fires handed over and not yet
	// taken, and hands over those it kept back as room frees. waiting are
	// the ones left WAITING to be fired again (no worker qualifies yet).
	// Fires already handed back (Unfired) may be among ids.
	FiresTaken(ids, waiting []int64)
}

// Runs is the app's workflow engine: told that node instances of these
// runs ended, so their nodes settle and the next ones start.
type Runs interface {
	WorkflowInstancesChanged(runIDs []int64)
}

// Links are the app's other parts an actor talks to.
type Links struct {
	Sender Sender
	Waker  Waker // the trigger loop
	Runs   Runs  // the workflow engine; may be nil
}

// Notifier hears about instances whose state changed (API subscriptions).
type Notifier interface {
	InstancesChanged(appID int64, instanceIDs []int64)
}

// Alarmer hears about instances that ended FAILED or SUCCEEDED, and that
// started (package alarm). It only queues: it never blocks.
type Alarmer interface {
	InstanceEnded(app string, job *db.Job, in db.Instance)
	InstanceStarted(app string, job *db.Job, in db.Instance)
}

// Versions says when job definitions changed anywhere (the read cache's
// jobs generation), and whether that is known now.
type Versions interface {
	Generation(scope string) (gen uint64, serving bool)
}

// Deps are the server-wide parts every actor uses.
type Deps struct {
	Store    Store
	Notifier Notifier // may be nil
	Alarmer  Alarmer  // may be nil
	// Versions, if set, keeps the actor's job definitions as fresh as the
	// API's: dropped as soon as any server changed a job (see package
	// readcache); without it they live jobCacheTTL.
	Versions Versions
	Log      *slog.Logger
	// Tracer traces fires, dispatches and tasks (traces.go); its zero
	// value is off.
	Tracer tracing.Tracer
}

// mailboxSize bounds an app's queued events. A full mailbox blocks the
// senders (worker readers), which pushes back on workers.
const mailboxSize = 8192

// maxBatch bounds the events handled in one transaction.
const maxBatch = 2000

var errNotOwner = errors.New("this server does not own the app now; reconnect")

// event is one thing that happened to an app. Exactly one group of fields
// is set.
type event struct {
	fire []int64
	// recorded are fired instances as the trigger loop recorded them.
	recorded []db.Instance
	firedAt  time.Time
	refresh  bool
	// jobsChanged says job definitions changed: forget cached ones.
	jobsChanged bool

	joined    *hub.WorkerInfo
	left      string
	worker    string
	heartbeat *protocol.Heartbeat
	report    *protocol.Report
	mapReq    *protocol.Map
	done      func(error)

	dispatched *dispatchResult
}

type dispatchResult struct {
	worker string
	tasks  []int64
	ack    *protocol.Ack
	err    error
}

// Actor runs one owned app's instances.
type Actor struct {
	lifecycle.Base
	cfg   Config
	deps  Deps
	log   *slog.Logger
	send  Sender
	waker Waker
	runs  Runs

	mailbox chan event
	// pages bounds the result pages read at once (results.go).
	pages   chan struct{}
	app     int64
	mu      sync.Mutex
	stopped <-chan struct{} // closed once the actor is stopping; nil before Start
	// life is the actor's running context: work it starts beside its
	// loop (result pages) ends with it, when the app's lease goes.
	life context.Context

	// Only the actor's goroutine touches these.
	st    *state
	jobs  map[int64]cachedJob
	pools map[string]cachedPool
	// jobsGen is the jobs generation the cached jobs were read under.
	jobsGen uint64
	// stale says the actor's picture may differ from the database: a
	// batch's write failed (its outcome unknown) after its decisions were
	// made in memory, and the adopt that should have read the truth back
	// failed too. Nothing is decided on such a picture: the next batch
	// adopts first, and refuses its events if that fails again (commit.go).
	stale bool
	// jobsRead counts the times job definitions were forgotten or read
	// from the database, so may differ from those a task was sent with;
	// heldRead is its value when the held tasks were last compared with
	// their jobs, and heldAt when (ahead.go).
	jobsRead, heldRead uint64
	heldAt             time.Time
	// unsent are the dispatches of writes whose outcome is unknown (the
	// commit failed), until an adopt has read what was written (unsent.go).
	unsent []sentTask
	// beforeWrite, when set (tests only), runs as a batch's commit begins,
	// with the actor's run context and the number of tasks it dispatches.
	beforeWrite func(ctx context.Context, dispatches int)

	// Committed, if Init'ed by a test, signals each batch committed.
	Committed testsignal.Signal[struct{}]
}

// New returns the actor of an app held under epoch, talking to the app's
// other parts through links.
func New(cfg Config, deps Deps, appID, epoch int64, links Links) *Actor {
	cfg.defaults()
	return &Actor{cfg: cfg, deps: deps, log: deps.Log.With("app", appID), send: links.Sender, waker: links.Waker, runs: links.Runs,
		mailbox: make(chan event, mailboxSize), pages: make(chan struct{}, maxPageReads), app: appID, st: newState(appID, epoch, cfg, deps.Log), jobs: map[int64]cachedJob{},
		pools: map[string]cachedPool{}}
}

// Start adopts the app's unfinished work and runs batches until Stop.
// Events posted before Start wait in the mailbox.
func (a *Actor) Start(ctx context.Context) error {
	ctx, ok, started, stopped := a.StartInit(ctx)
	if !ok {
		return nil
	}
	a.mu.Lock()
	a.stopped = ctx.Done()
	a.life = ctx
	a.mu.Unlock()
	go func() {
		started()
		defer stopped()
		a.run(ctx)
	}()
	return nil
}

// Fire dispatches WAITING instances whose time has come (from the wheel,
// at `at`, which is recorded as their actual trigger time).
func (a *Actor) Fire(instanceIDs []int64, at time.Time) {
	if !a.post(event{fire: instanceIDs, firedAt: at}) && a.waker != nil {
		a.waker.Unfired(instanceIDs)
	}
}

// FireRecorded is Fire for instances the trigger loop recorded itself and
// hands over as recorded, so the batch need not read them back. Whether
// they still are WAITING is decided by the batch's compare-and-set: a fire
// that lost its race (canceled meanwhile) is dropped (unfire).
func (a *Actor) FireRecorded(recorded []db.Instance, at time.Time) {
	if !a.post(event{recorded: recorded, firedAt: at}) && a.waker != nil {
		a.waker.Unfired(idsOf(recorded))
	}
}

// Kick makes the actor re-read its instances now, e.g. after the API
// stopped one.
func (a *Actor) Kick() { a.post(event{refresh: true}) }

// JobsChanged makes the actor re-read job definitions.
func (a *Actor) JobsChanged() { a.post(event{jobsChanged: true}) }

// WorkerJoined implements hub.Handler.
func (a *Actor) WorkerJoined(w hub.WorkerInfo) { a.post(event{joined: &w}) }

// WorkerLeft implements hub.Handler.
func (a *Actor) WorkerLeft(workerID string) { a.post(event{left: workerID}) }

// WorkerHeartbeat implements hub.Handler.
func (a *Actor) WorkerHeartbeat(workerID string, hb *protocol.Heartbeat) {
	a.post(event{worker: workerID, heartbeat: hb})
}

// Report implements hub.Handler.
func (a *Actor) Report(workerID string, r *protocol.Report, done func(error)) {
	if !a.post(event{worker: workerID, report: r, done: done}) {
		done(errNotOwner)
	}
}

// Map implements hub.Handler.
func (a *Actor) Map(workerID string, m *protocol.Map, done func(error)) {
	if !a.post(event{worker: workerID, mapReq: m, done: done}) {
		done(errNotOwner)
	}
}

// post delivers an event to the mailbox; false once the actor is stopping.
func (a *Actor) post(ev event) bool {
	a.mu.Lock()
	stopped := a.stopped
	a.mu.Unlock()
	select {
	case <-stopped: // a nil channel (not started yet) never is
		return false
	default:
	}
	select {
	case a.mailbox <- ev:
		return true
	case <-stopped:
		return false
	}
}

func (a *Actor) run(ctx context.Context) {
	if err := a.adopt(ctx); err != nil {
		a.log.Error("execution: adopting the app's running instances failed; retrying", "err", err)
		for clock.Sleep(a.cfg.Clock, time.Second, ctx.Done()) {
			if err = a.adopt(ctx); err == nil {
				break
			}
		}
	}
	check := a.cfg.Clock.NewTimer(a.wakeIn())
	defer check.Stop()
	batch := make([]event, 0, 64)
	for {
		batch = batch[:0]
		if a.st.refillDue() {
			// Workers wait for the tasks still in the database: go on at
			// once with whatever has queued up meanwhile.
			if ctx.Err() != nil {
				a.drain()
				return
			}
		} else {
			select {
			case <-ctx.Done():
				a.drain()
				return
			case ev := <-a.mailbox:
				batch = append(batch, ev)
			case <-check.C():
			}
		}
	more:
		for len(batch) < maxBatch {
			select {
			case ev := <-a.mailbox:
				batch = append(batch, ev)
			default:
				break more
			}
		}
		a.handle(ctx, batch)
		// The next status check, or sooner the next task whose retry
		// back-off ends.
		check.Reset(a.wakeIn())
	}
}

// wakeIn is how long the actor may wait for events before it runs a batch
// of its own: the check interval, or less until the next held task is due.
func (a *Actor) wakeIn() time.Duration {
	d := a.cfg.CheckInterval
	if next := a.st.nextDelayed(); !next.IsZero() {
		d = min(d, max(next.Sub(a.cfg.Clock.Now()), time.Millisecond))
	}
	if next := a.st.nextDeferred(); !next.IsZero() {
		d = min(d, max(next.Sub(a.cfg.Clock.Now()), time.Millisecond))
	}
	return d
}

// readBack adopts the app again after a write whose outcome is unknown
// left the picture stale (and the adopt after it failed). Until it can,
// the batch's events are refused, as a failed write's are: workers send
// their reports and map requests again, and fires go back to the trigger
// loop. Applied to the stale picture, a report could be acked for a
// transition whose compare-and-set then lost against the stored row (a
// task RUNNING in memory, DISPATCHED in the database): the worker would
// drop its final report, and the task never end — or run again under the
// next owner, as one it never received.
func (a *Actor) readBack(ctx context.Context, batch []event) bool {
	err := a.adopt(ctx)
	if err == nil && !a.stale {
		return true
	}
	if err == nil {
		// Read back, but the adopt's own write failed and so did the
		// re-read after it.
		err = errors.New("the app's state could not be read back from the database")
	}
	a.log.Warn("execution: re-reading the app failed; refusing what came meanwhile", "err", err)
	for i := range batch {
		ev := &batch[i]
		a.refuse(ev, err)
		switch {
		case ev.jobsChanged:
			a.forgetJobs()
		case ev.left != "":
			// Who is connected is not the database's to say: a worker
			// that left stays gone. One that joined is in the registry,
			// which the adopt reads.
			a.st.now = a.cfg.Clock.Now()
			a.st.left(ev.left)
		}
	}
	return false
}

// drain refuses what is still queued so workers re-send it to the next owner.
func (a *Actor) drain() {
	if len(a.st.deferred) > 0 && a.waker != nil {
		// Fires handed over ahead and left for their time are the trigger
		// loop's again, as a stopping actor's mailbox is.
		ids := make([]int64, len(a.st.deferred))
		for i, d := range a.st.deferred {
			ids[i] = d.in.ID
		}
		a.st.deferred = nil
		a.waker.Unfired(ids)
	}
	for {
		select {
		case ev := <-a.mailbox:
			a.refuse(&ev, errNotOwner)
		default:
			return
		}
	}
}

// refuse answers an event without handling it: a report or map request
// gets err (the worker sends it again), fires go back to the trigger loop.
func (a *Actor) refuse(ev *event, err error) {
	if ev.done != nil {
		ev.done(err)
	}
	if ev.fire != nil && a.waker != nil {
		a.waker.Unfired(ev.fire)
	}
	if ev.recorded != nil && a.waker != nil {
		a.waker.Unfired(idsOf(ev.recorded))
	}
}

// forgetJobs drops the cached job and pool definitions: one changed.
func (a *Actor) forgetJobs() {
	clear(a.jobs)
	clear(a.pools)
	a.jobsRead++
}

// handle processes one batch of events in one transaction: it reads what
// the batch needs, lets the state decide, and commits.
func (a *Actor) handle(ctx context.Context, batch []event) {
	if a.stale && !a.readBack(ctx, batch) {
		return
	}
	st := a.st
	st.now = a.cfg.Clock.Now()
	// First, while every earlier batch's tasks are committed and so
	// visible: load the next window of instances whose backlog is stored.
	a.refill(ctx)
	// Tasks whose retry back-off ended are queued again.
	st.wakeDelayed()
	c := newChanges()
	var fires []firing
	var recorded []db.Instance
	refresh := false
	for i := range batch {
		ev := &batch[i]
		switch {
		case ev.fire != nil:
			for _, id := range ev.fire {
				fires = append(fires, firing{id: id, at: ev.firedAt})
			}
		case ev.recorded != nil:
			for _, in := range ev.recorded {
				fires = append(fires, firing{id: in.ID, at: ev.firedAt})
			}
			recorded = append(recorded, ev.recorded...)
		case ev.refresh:
			refresh = true
		case ev.jobsChanged:
			a.forgetJobs()
		case ev.joined != nil:
			st.joined(c, ev.joined)
		case ev.left != "":
			st.left(ev.left)
		case ev.heartbeat != nil:
			st.heartbeat(c, ev.worker, ev.heartbeat)
		case ev.report != nil:
			st.reported(c, ev.worker, ev.report)
			c.acks = append(c.acks, ev.done)
		case ev.mapReq != nil:
			if err := a.mapped(ctx, c, ev.worker, ev.mapReq); err != nil {
				ev.done(err)
			} else {
				c.acks = append(c.acks, ev.done)
			}
		case ev.dispatched != nil:
			st.dispatchResult(c, ev.dispatched)
		}
	}
	// Fires handed over ahead whose time has come are decided now, as any
	// fire (ahead.go).
	for _, d := range st.dueDeferred() {
		fires = append(fires, firing{id: d.in.ID, at: st.now})
		recorded = append(recorded, d.in)
	}
	if refresh || st.now.Sub(st.lastCheck) >= a.cfg.CheckInterval {
		st.lastCheck = st.now
		if err := a.refresh(ctx, c); err != nil {
			a.log.Warn("execution: re-reading instances", "err", err)
		}
		st.check(c, db.Stamp(st.now))
	}
	if len(fires) > 0 {
		loaded, jobs, err := a.loadFired(ctx, fires, recorded)
		if err != nil {
			a.log.Error("execution: reading fired instances", "err", err)
			a.unfired(fires)
		} else {
			a.loadPoolDefs(ctx, st.poolNames(loaded, jobs))
			st.fire(c, fires, loaded, jobs)
			c.fired = fires
			if len(c.deferred) > 0 {
				// Left for their time: not part of this batch's write.
				c.fired = slices.DeleteFunc(slices.Clone(fires), func(f firing) bool {
					_, left := c.deferred[f.id]
					return left
				})
			}
		}
	}
	if len(st.held) > 0 && a.heldJobsMayHaveChanged() {
		// A job changed since its task was sent to be held: take it back.
		a.takeHeldJobs(ctx, c)
	}
	if len(st.queues) > 0 {
		// Held fires start as running instances end, under their jobs'
		// current limits.
		if jobs, err := a.loadJobs(ctx, st.queueJobs()); err != nil {
			a.log.Warn("execution: reading the jobs of queued fires", "err", err)
		} else {
			st.queueJobsRead(jobs)
			a.loadPoolDefs(ctx, st.poolNames(nil, nil))
			st.promote(c)
		}
	}
	if len(st.poolQueues) > 0 {
		// Instances waiting for a pool start as slots free.
		a.promotePools(ctx, c)
	}
	st.assign(c)
	a.commit(ctx, c)
	if len(c.fired) > 0 && a.waker != nil {
		// After the commit: a fire taken is no longer WAITING unless it
		// waits for a worker, so the loop may forget it. A deferred one is
		// not taken yet.
		ids := make([]int64, len(c.fired))
		for i, f := range c.fired {
			ids[i] = f.id
		}
		a.waker.FiresTaken(ids, c.waiting)
	}
}

// refill loads the next tasks of instances whose window ran low from
// their backlog in the database: one indexed read per instance, of at
// most a window's tasks.
func (a *Actor) refill(ctx context.Context) {
	st := a.st
	for _, it := range st.backlogged {
		if !st.needsRefill(it) {
			continue
		}
		asked := st.window() - it.queue.Len()
		rows, err := a.deps.Store.TaskListWaitingAfter(ctx, it.ID, it.Attempt, it.cursor, asked)
		if err != nil {
			a.log.Warn("execution: loading an instance's next tasks; trying again shortly", "instance", it.ID, "err", err)
			st.refillAfter = st.now.Add(time.Second)
			return
		}
		st.refilled(it, asked, rows)
	}
}

// refillDue says whether an instance's window is low while workers have
// free slots: the actor runs another batch at once rather than wait for
// the next event.
func (s *state) refillDue() bool {
	if len(s.backlogged) == 0 || s.now.Before(s.refillAfter) {
		return false
	}
	free := false
	for _, w := range s.workers {
		if w.connected && w.Free() > 0 {
			free = true
			break
		}
	}
	if !free {
		return false
	}
	for _, it := range s.backlogged {
		if s.needsRefill(it) {
			return true
		}
	}
	return false
}

// mapped stores a map message's subtasks, first checking with the database
// whether a message of that key was stored before (by this actor's
// predecessor, whose ack the worker never got).
func (a *Actor) mapped(ctx context.Context, c *changes, workerID string, m *protocol.Map) error {
	if _, err := a.st.mapCheck(workerID, m); err != nil {
		return err
	}
	stored := false
	if it := a.st.instances[m.InstanceID]; m.Key != "" && it != nil && !it.mapKeys[m.Key] {
		var err error
		if stored, err = a.deps.Store.MapRequestApplied(ctx, m.InstanceID, m.Key); err != nil {
			return err
		}
	}
	return a.st.mapped(c, workerID, m, stored)
}

// refresh re-reads the active instances, for those the API finished, and
// the fires held in queues, for those the API stopped.
func (a *Actor) refresh(ctx context.Context, c *changes) error {
	ids := a.st.activeIDs()
	queued := append(a.st.queuedList(), a.st.pooledList()...)
	if len(ids)+len(queued) == 0 {
		return nil
	}
	list, err := a.deps.Store.InstanceListByIDs(ctx, append(slices.Clip(ids), queued...))
	if err != nil {
		return err
	}
	a.st.refreshed(c, ids, list)
	a.st.queueRefreshed(queued, list)
	a.st.poolRefreshed(queued, list)
	return nil
}

// loadQueues reloads the fires held in the app's job queues (WAITING,
// reason QUEUED) and pools' queues (POOL_FULL), on taking the app over or
// after a failed write.
func (a *Actor) loadQueues(ctx context.Context) error {
	list, err := a.deps.Store.InstanceListQueued(ctx, a.st.app)
	if err != nil {
		return err
	}
	jobIDs := make([]int64, 0, len(list))
	for _, in := range list {
		jobIDs = append(jobIDs, in.JobID)
	}
	jobs, err := a.loadJobs(ctx, jobIDs)
	if err != nil {
		return err
	}
	a.st.requeue(list, jobs)
	return a.loadPoolQueues(ctx)
}

// loadFired reads the fired instances not handed over as recorded, and the
// jobs of all.
func (a *Actor) loadFired(ctx context.Context, fires []firing, recorded []db.Instance) ([]db.Instance, map[int64]*db.Job, error) {
	have := make(map[int64]bool, len(recorded))
	for _, in := range recorded {
		have[in.ID] = true
	}
	ids := make([]int64, 0, len(fires)-len(recorded))
	for _, f := range fires {
		if !have[f.id] {
			ids = append(ids, f.id)
		}
	}
	list := recorded
	if len(ids) > 0 {
		read, err := a.deps.Store.InstanceListByIDs(ctx, ids)
		if err != nil {
			return nil, nil, err
		}
		list = append(slices.Clip(recorded), read...)
	}
	jobIDs := make([]int64, 0, len(list))
	for _, in := range list {
		jobIDs = append(jobIDs, in.JobID)
	}
	jobs, err := a.loadJobs(ctx, jobIDs)
	if err != nil {
		return nil, nil, err
	}
	return list, jobs, nil
}

func idsOf(list []db.Instance) []int64 {
	ids := make([]int64, len(list))
	for i := range list {
		ids[i] = list[i].ID
	}
	return ids
}

// unfired hands fires that were not processed back to the trigger loop.
func (a *Actor) unfired(fires []firing) {
	if a.waker == nil || len(fires) == 0 {
		return
	}
	ids := make([]int64, len(fires))
	for i, f := range fires {
		ids[i] = f.id
	}
	a.waker.Unfired(ids)
}

// jobCacheTTL bounds how stale a cached job definition may be when a
// change's hint was lost; hints (JobsChanged) clear the cache at once.
const jobCacheTTL = 5 * time.Second

type cachedJob struct {
	job    *db.Job
	loaded time.Time
}

// loadJobs returns the jobs, from the cache when fresh.
func (a *Actor) loadJobs(ctx context.Context, ids []int64) (map[int64]*db.Job, error) {
	out := map[int64]*db.Job{}
	var missing []int64
	asked := map[int64]struct{}{}
	now := a.cfg.Clock.Now()
	if a.deps.Versions != nil {
		if gen, serving := a.deps.Versions.Generation(db.VersionJobs); !serving || gen != a.jobsGen {
			clear(a.jobs)
			a.jobsGen = gen
			a.jobsRead++
		}
	}
	for _, id := range ids {
		if c, ok := a.jobs[id]; ok && now.Sub(c.loaded) < jobCacheTTL {
			out[id] = c.job
		} else if _, listed := asked[id]; !listed {
			// Once each: a burst names the same job many times.
			asked[id] = struct{}{}
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		list, err := a.deps.Store.JobListByIDs(ctx, missing)
		if err != nil {
			return nil, err
		}
		a.jobsRead++
		for i := range list {
			j := &list[i]
			a.jobs[j.ID] = cachedJob{job: j, loaded: now}
			out[j.ID] = j
		}
	}
	return out, nil
}
