package execution

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/dispatch"
	"github.com/jobwheel/jobwheel/server/hub"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

var errNotOwner = errors.New("this server does not own the app now; reconnect")

// mailboxSize bounds an app's queued events. A full mailbox blocks the
// senders (worker readers), which pushes back on workers.
const mailboxSize = 8192

// maxBatch bounds the events handled in one transaction.
const maxBatch = 2000

// firing is an instance the wheel fired, and when.
type firing struct {
	id int64
	at time.Time
}

// event is one thing that happened to an app. Exactly one group of fields
// is set.
type event struct {
	fire    []int64
	firedAt time.Time
	refresh bool
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

// app is the actor of one owned app. Only its goroutine touches the fields
// below mailbox.
type app struct {
	e       *Engine
	id      int64
	epoch   int64
	name    string
	mailbox chan event
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}

	workers   map[string]*worker
	instances map[int64]*inst
	tasks     map[int64]*task // on workers
	queue     []*task         // WAITING, in order
	picker    *dispatch.Picker
	jobs      map[int64]cachedJob
	lastCheck time.Time
	adopted   time.Time
	// blocked marks jobs with a catch-up run waiting for a free slot.
	blocked map[int64]bool
	// mapKeys are the map messages this actor stored (the database has
	// them too, for the next owner).
	mapKeys map[string]bool
}

type worker struct {
	dispatch.Worker
	connected    bool
	disconnected time.Time
	running      map[int64]bool // task ids assigned to it
}

// inst is an active (DISPATCHED or RUNNING) instance.
type inst struct {
	db.Instance
	job      *db.Job
	deadline time.Time // zero: none
	// succeeded and failed count the finished tasks of this attempt.
	succeeded, failed int
	// pending counts this attempt's unfinished tasks.
	pending int
	// stage of a BROADCAST or MAP_REDUCE instance.
	stage string
	// broadcast workers chosen at fire time.
	targets []string
	// used counts tasks per worker in flight, for taskConcurrency and
	// maxWorkers.
	used map[string]int
}

// Stages of multi-step instances.
const (
	stageMain   = ""
	stagePre    = "PRE"
	stageBcast  = "BROADCAST"
	stagePost   = "POST"
	stageReduce = "REDUCE"
)

// task is a task of an active instance: queued (WAITING, in app.queue)
// or on a worker (DISPATCHED or RUNNING, in app.tasks).
type task struct {
	db.Task
	inst   *inst
	reason string // why it failed, for the attempt
	pinned string // a broadcast task runs on this worker only
	acked  bool
	new    bool // not inserted yet
}

func newApp(e *Engine, id, epoch int64) *app {
	ctx, cancel := context.WithCancel(e.ctx)
	return &app{e: e, id: id, epoch: epoch, mailbox: make(chan event, mailboxSize), ctx: ctx, cancel: cancel,
		done: make(chan struct{}), workers: map[string]*worker{}, instances: map[int64]*inst{}, tasks: map[int64]*task{},
		picker: dispatch.NewPicker(), jobs: map[int64]cachedJob{}, blocked: map[int64]bool{}, mapKeys: map[string]bool{}}
}

func (a *app) start() { go a.run() }

// stop lets the actor finish its current batch and waits for it.
func (a *app) stop() {
	a.cancel()
	select {
	case <-a.done:
	case <-time.After(stopWait):
		// The actor is in a database call that hangs (the likely reason the
		// lease was lost). Its context is cancelled, so it sends nothing
		// more to workers; it ends by itself.
		a.e.log.Warn("execution: the app's actor is still in a database call; leaving it to end", "app", a.id)
	}
}

// stopWait bounds how long stopping an actor waits for its current batch.
const stopWait = 2 * time.Second

func (a *app) post(ev event) bool {
	select {
	case <-a.ctx.Done():
		return false
	default:
	}
	select {
	case a.mailbox <- ev:
		return true
	case <-a.ctx.Done():
		return false
	}
}

func (a *app) run() {
	defer close(a.done)
	log := a.e.log.With("app", a.id)
	if err := a.adopt(); err != nil {
		log.Error("execution: adopting the app's running instances failed; retrying", "err", err)
		for a.ctx.Err() == nil {
			time.Sleep(time.Second)
			if err = a.adopt(); err == nil {
				break
			}
		}
	}
	ticker := time.NewTicker(a.e.cfg.CheckInterval)
	defer ticker.Stop()
	batch := make([]event, 0, 64)
	for {
		batch = batch[:0]
		select {
		case <-a.ctx.Done():
			a.drain()
			return
		case ev := <-a.mailbox:
			batch = append(batch, ev)
		case <-ticker.C:
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
		a.handle(batch)
	}
}

// drain refuses what is still queued so workers re-send it to the next owner.
func (a *app) drain() {
	for {
		select {
		case ev := <-a.mailbox:
			if ev.done != nil {
				ev.done(errNotOwner)
			}
		default:
			return
		}
	}
}

// adopt loads the app's unfinished work from the database: after a start,
// a take-over or a failed write.
func (a *app) adopt() error {
	ctx := a.ctx
	app, err := a.e.db.AppGet(ctx, a.id)
	if err != nil {
		return err
	}
	a.name = app.Name
	active, err := a.e.db.InstancesActive(ctx, a.id)
	if err != nil {
		return err
	}
	ids := make([]int64, len(active))
	jobIDs := make([]int64, 0, len(active))
	for i, in := range active {
		ids[i] = in.ID
		jobIDs = append(jobIDs, in.JobID)
	}
	jobs, err := a.loadJobs(ctx, jobIDs)
	if err != nil {
		return err
	}
	counts, err := a.e.db.TaskCountsByInstance(ctx, ids)
	if err != nil {
		return err
	}
	tasks, err := a.e.db.TasksUnfinished(ctx, ids)
	if err != nil {
		return err
	}
	// Forget the old picture but keep the connected workers.
	for _, w := range a.workers {
		w.running = map[int64]bool{}
		w.Busy = 0
	}
	a.instances = map[int64]*inst{}
	a.tasks = map[int64]*task{}
	a.queue = nil
	a.mapKeys = map[string]bool{}
	now := a.e.now()
	a.adopted = now
	for _, in := range active {
		job := jobs[in.JobID]
		if job == nil {
			continue
		}
		it := &inst{Instance: in, job: job, used: map[string]int{}}
		it.deadline = deadlineOf(in, job)
		a.instances[in.ID] = it
	}
	// Finished-task counts are per instance, not per attempt; adopted
	// instances recount from their unfinished tasks plus these.
	for _, t := range tasks {
		it := a.instances[t.InstanceID]
		if it == nil || t.InstanceAttempt != it.Attempt {
			continue
		}
		tk := &task{Task: t, inst: it}
		it.pending++
		it.stage = stageOf(it, t.Kind)
		switch t.Status {
		case db.StatusWaiting:
			a.queue = append(a.queue, tk)
		default:
			a.tasks[t.ID] = tk
			wid := deref(t.WorkerID)
			w := a.workers[wid]
			if w == nil {
				// Not connected (yet): it has AdoptGrace to come back.
				w = &worker{Worker: dispatch.Worker{ID: wid}, running: map[int64]bool{}, disconnected: now}
				a.workers[wid] = w
			}
			w.running[t.ID] = true
			w.Busy++
			it.used[wid]++
			tk.acked = true
		}
	}
	for id, c := range counts {
		if it := a.instances[id]; it != nil {
			it.succeeded = c.Succeeded
			it.failed = c.Failed
		}
	}
	a.e.log.Info("execution: took over app", "app", a.id, "name", a.name, "epoch", a.epoch, "instances", len(a.instances), "tasks", len(a.tasks))
	c := newChanges()
	// Workers that connected before this actor started announced
	// themselves to nobody: take them from the hub.
	for _, w := range a.e.send.Workers(a.id) {
		a.joined(c, &w)
	}
	// Instances between stages (e.g. PRE finished, broadcast not created
	// yet) move on now.
	for _, it := range a.instances {
		if it.pending == 0 {
			a.progress(c, it)
		}
	}
	a.assign(c)
	a.commit(c)
	return nil
}

// jobCacheTTL bounds how stale a cached job definition may be when a
// change's hint was lost; hints (JobsChanged) clear the cache at once.
const jobCacheTTL = 5 * time.Second

type cachedJob struct {
	job    *db.Job
	loaded time.Time
}

// loadJobs returns the jobs, from the cache when fresh.
func (a *app) loadJobs(ctx context.Context, ids []int64) (map[int64]*db.Job, error) {
	out := map[int64]*db.Job{}
	var missing []int64
	now := time.Now()
	for _, id := range ids {
		if c, ok := a.jobs[id]; ok && now.Sub(c.loaded) < jobCacheTTL {
			out[id] = c.job
		} else if !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		list, err := a.e.db.JobsByIDs(ctx, missing)
		if err != nil {
			return nil, err
		}
		for i := range list {
			j := &list[i]
			a.jobs[j.ID] = cachedJob{job: j, loaded: now}
			out[j.ID] = j
		}
	}
	return out, nil
}

// handle processes one batch of events in one transaction.
func (a *app) handle(batch []event) {
	c := newChanges()
	var fires []firing
	refresh := false
	for i := range batch {
		ev := &batch[i]
		switch {
		case ev.fire != nil:
			for _, id := range ev.fire {
				fires = append(fires, firing{id: id, at: ev.firedAt})
			}
		case ev.refresh:
			refresh = true
		case ev.jobsChanged:
			clear(a.jobs)
		case ev.joined != nil:
			a.joined(c, ev.joined)
		case ev.left != "":
			a.left(ev.left)
		case ev.heartbeat != nil:
			a.heartbeat(c, ev.worker, ev.heartbeat)
		case ev.report != nil:
			a.reported(c, ev.worker, ev.report)
			c.acks = append(c.acks, ev.done)
		case ev.mapReq != nil:
			if err := a.mapped(c, ev.worker, ev.mapReq); err != nil {
				ev.done(err)
			} else {
				c.acks = append(c.acks, ev.done)
			}
		case ev.dispatched != nil:
			a.dispatchResult(c, ev.dispatched)
		}
	}
	now := a.e.now()
	if refresh || now.Sub(a.lastCheck) >= a.e.cfg.CheckInterval {
		a.lastCheck = now
		if err := a.refresh(c); err != nil {
			a.e.log.Warn("execution: re-reading instances", "app", a.id, "err", err)
		}
		a.check(c, now)
	}
	if len(fires) > 0 {
		if err := a.fire(c, fires); err != nil {
			a.e.log.Error("execution: firing instances", "app", a.id, "err", err)
			a.unfired(fires)
		} else {
			c.fired = fires
		}
	}
	a.assign(c)
	a.commit(c)
}

// unfired hands fires that were not processed back to the trigger loop.
func (a *app) unfired(fires []firing) {
	if a.e.waker == nil || len(fires) == 0 {
		return
	}
	ids := make([]int64, len(fires))
	for i, f := range fires {
		ids[i] = f.id
	}
	a.e.waker.Unfired(a.id, ids)
}

// joined attaches a (re)connected worker.
func (a *app) joined(c *changes, info *hub.WorkerInfo) {
	w := a.workers[info.ID]
	if w == nil {
		w = &worker{running: map[int64]bool{}}
		a.workers[info.ID] = w
	}
	busy := w.Busy
	w.Worker = dispatch.Worker{ID: info.ID, Host: info.Host, Tags: info.Tags, Processors: info.Processors,
		Types: info.Types, Slots: info.Slots, Busy: busy, Metrics: info.Metrics}
	w.connected = true
	w.disconnected = time.Time{}
	// Instances waiting for a worker may go now.
	c.wake = true
	// Tasks it still runs that we gave up on (stopped, re-dispatched)
	// must stop there.
	for _, id := range info.Running {
		if !w.running[id] {
			c.stops = append(c.stops, stopFrame{worker: info.ID, stop: protocol.Stop{TaskIDs: []int64{id}, Reason: "the task is no longer assigned to this worker"}})
		}
	}
}

func (a *app) left(workerID string) {
	if w := a.workers[workerID]; w != nil && w.connected {
		w.connected = false
		w.disconnected = a.e.now()
	}
}

// heartbeat updates metrics and notices acked tasks the worker no longer
// runs without having reported them (it restarted, or the dispatch was lost).
func (a *app) heartbeat(c *changes, workerID string, hb *protocol.Heartbeat) {
	w := a.workers[workerID]
	if w == nil {
		return
	}
	w.Metrics = hb.Metrics
	running := make(map[int64]bool, len(hb.Running))
	for _, id := range hb.Running {
		running[id] = true
	}
	for id := range w.running {
		t := a.tasks[id]
		if t != nil && t.acked && !running[id] {
			a.taskFailed(c, t, ReasonWorkerLost, fmt.Sprintf("worker %s is no longer running the task", w.Host))
		}
	}
}

// reported applies task status reports.
func (a *app) reported(c *changes, workerID string, r *protocol.Report) {
	for _, item := range r.Items {
		t := a.tasks[item.TaskID]
		if t == nil || deref(t.WorkerID) != workerID {
			continue // finished already, or no longer this worker's: a re-send
		}
		t.acked = true
		at := item.At.UTC()
		if at.IsZero() || at.After(a.e.now()) {
			at = a.e.now()
		}
		switch item.Status {
		case protocol.TaskRunning:
			if t.Status == db.StatusDispatched {
				c.taskMove(t, db.StatusRunning, nil)
				t.Status = db.StatusRunning
				a.instanceRunning(c, t.inst, workerID, at)
			}
		case protocol.TaskSucceeded:
			if t.Status == db.StatusDispatched {
				a.instanceRunning(c, t.inst, workerID, at)
			}
			a.taskFinished(c, t, db.StatusSucceeded, item.Result, item.WorkflowContext)
		case protocol.TaskFailed:
			if t.Status == db.StatusDispatched {
				a.instanceRunning(c, t.inst, workerID, at)
			}
			reason := ReasonFailed
			if item.Reason == protocol.ReasonTimeout {
				reason = ReasonTimeout
			}
			a.taskFailed(c, t, reason, item.Result)
		case protocol.TaskStopped:
			a.taskFailed(c, t, ReasonStopped, orDefault(item.Result, "stopped on the worker"))
		}
	}
}

// mapped stores the subtasks a running task emitted.
func (a *app) mapped(c *changes, workerID string, m *protocol.Map) error {
	parent := a.tasks[m.ParentTaskID]
	if parent == nil || parent.inst.ID != m.InstanceID || deref(parent.WorkerID) != workerID {
		return fmt.Errorf("task %d of instance %d is not running on this worker", m.ParentTaskID, m.InstanceID)
	}
	it := parent.inst
	if it.job.ExecutionMode != "MAP" && it.job.ExecutionMode != "MAP_REDUCE" {
		return fmt.Errorf("map() needs execution mode MAP or MAP_REDUCE; job %q is %s", it.job.Name, it.job.ExecutionMode)
	}
	if m.Key != "" {
		// A re-sent map (its ack was lost) is acked without new subtasks.
		if a.mapKeys[m.Key] {
			return nil
		}
		applied, err := a.e.db.MapRequestApplied(a.ctx, it.ID, m.Key)
		if err != nil {
			return err
		}
		if applied {
			return nil
		}
		a.mapKeys[m.Key] = true
		c.mapRequests = append(c.mapRequests, db.MapRequest{InstanceID: it.ID, Key: m.Key})
	}
	for _, p := range m.Payloads {
		a.newTask(c, it, protocol.KindMap, m.Name, p, &parent.ID, "")
	}
	return nil
}

func (a *app) dispatchResult(c *changes, r *dispatchResult) {
	if r.err != nil {
		// The worker may or may not have the tasks. Treat them as acked: its
		// next heartbeat says whether it runs them.
		for _, id := range r.tasks {
			if t := a.tasks[id]; t != nil {
				t.acked = true
			}
		}
		return
	}
	for _, id := range r.ack.Accepted {
		if t := a.tasks[id]; t != nil {
			t.acked = true
		}
	}
	for _, rej := range r.ack.Rejected {
		if t := a.tasks[rej.TaskID]; t != nil && deref(t.WorkerID) == r.worker {
			a.taskFailed(c, t, ReasonRejected, "the worker refused the task: "+rej.Reason)
		}
	}
}

// refresh re-reads the active instances: any the API finished (stopped)
// is dropped and its tasks stopped on their workers.
func (a *app) refresh(c *changes) error {
	if len(a.instances) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(a.instances))
	for id := range a.instances {
		ids = append(ids, id)
	}
	list, err := a.e.db.InstancesByIDs(a.ctx, ids)
	if err != nil {
		return err
	}
	found := make(map[int64]bool, len(list))
	for _, in := range list {
		found[in.ID] = true
		it := a.instances[in.ID]
		if it == nil || !db.IsFinal(in.Status) {
			continue
		}
		it.Instance = in
		a.dropInstance(c, it, "the instance was "+in.Status)
	}
	for _, id := range ids {
		if !found[id] { // deleted with its job
			a.dropInstance(c, a.instances[id], "the instance was deleted")
		}
	}
	return nil
}

// check fails what is overdue: instances past their timeout and tasks of
// workers gone longer than the grace period.
func (a *app) check(c *changes, now time.Time) {
	for _, it := range a.instances {
		if !it.deadline.IsZero() && now.After(it.deadline) {
			a.timeout(c, it)
		}
	}
	for id, w := range a.workers {
		if w.connected {
			continue
		}
		grace := a.e.cfg.LostGrace
		if w.disconnected.Sub(a.adopted) < time.Second {
			grace = a.e.cfg.AdoptGrace
		}
		if now.Sub(w.disconnected) < grace {
			continue
		}
		for tid := range w.running {
			if t := a.tasks[tid]; t != nil {
				a.taskFailed(c, t, ReasonWorkerLost, fmt.Sprintf("worker %s disconnected and did not come back", orDefault(w.Host, id)))
			}
		}
		if len(w.running) == 0 {
			delete(a.workers, id)
		}
	}
}

func deadlineOf(in db.Instance, job *db.Job) time.Time {
	if job.TimeoutMs <= 0 || in.ActualTriggerAt == nil {
		return time.Time{}
	}
	return in.ActualTriggerAt.Add(time.Duration(job.TimeoutMs) * time.Millisecond)
}

func stageOf(it *inst, kind string) string {
	switch kind {
	case protocol.KindPre:
		return stagePre
	case protocol.KindBroadcast:
		return stageBcast
	case protocol.KindPost:
		return stagePost
	case protocol.KindReduce:
		return stageReduce
	}
	return it.stage
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func ptr[T any](v T) *T { return &v }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
