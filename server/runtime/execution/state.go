package execution

import (
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/gammazero/deque"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/runtime/dispatch"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// state is one app's execution state and every decision made on it. It does
// no I/O and starts no goroutines: the actor (actor.go) loads what a batch
// needs, calls the decisions with the batch's time in now, and commits the
// changes they collect. That split is what makes the decisions testable
// without a database (state_test.go).
type state struct {
	app   int64
	epoch int64
	name  string
	cfg   Config
	log   *slog.Logger
	// now is the current batch's time.
	now time.Time

	workers   map[string]*worker
	instances map[int64]*inst
	tasks     map[int64]*task // on workers, by id (each is in its inst.onWorkers too)
	// ready are the instances with queued tasks, oldest first, each once
	// (inst.inReady). An instance that ended meanwhile is dropped when
	// assign comes to it.
	ready     []*inst
	picker    *dispatch.Picker
	lastCheck time.Time
	adopted   time.Time
	// blocked marks jobs with a catch-up run waiting for a free slot.
	blocked map[int64]bool
	// backlogged are the instances with a backlog (inst.backlog > 0).
	backlogged map[int64]*inst
	// refillAfter pauses refills after the database failed one.
	refillAfter time.Time
	// findings are the "why no worker?" findings last recorded (noworker.go).
	findings dispatch.Findings
	// queues hold the fires of QUEUE jobs waiting for a running instance
	// to end, per job; queuedIDs maps each held fire to its job (queue.go).
	queues    map[int64]*jobQueue
	queuedIDs map[int64]int64
	// delayed are the instances with tasks held for their retry back-off
	// (backoff.go).
	delayed map[int64]*inst
	// Pools (pools.go): their definitions as last read (a nil value: the
	// pool does not exist), the instances waiting for their slots per
	// pool and each one's pool, the slots in use as counted at poolUseAt,
	// and the instance promotePools starts past the gate.
	poolDefs   map[string]*db.Pool
	poolQueues map[string]*poolQueue
	pooledIDs  map[int64]string
	poolUse    map[string]int
	poolUseAt  time.Time
	poolBypass int64
	// jitter returns a number from 0 to 1 for the retry back-off's jitter.
	jitter func() float64
	// tookOver is set by the first adopt: the tasks on workers it read were
	// sent by an earlier owner; those a later adopt reads may be this one's.
	tookOver bool
	// Dispatch ahead (ahead.go): the fires handed over ahead that wait for
	// their time, and the tasks sent to be held on their workers until
	// their fire's time.
	deferred []deferredFire
	held     map[int64]*task
}

// Bounds of the tasks an instance holds in memory (its window): twice the
// slots of the connected workers, within these. Map payloads are at most
// protocol.MaxPayloadBytes, so the window's memory is bounded too.
const (
	minWindow = 256
	maxWindow = 1024
)

// window is how many queued tasks an instance holds in memory.
func (s *state) window() int {
	slots := 0
	for _, w := range s.workers {
		if w.connected {
			slots += w.Slots
		}
	}
	return min(max(2*slots, minWindow), maxWindow)
}

func newState(appID, epoch int64, cfg Config, log *slog.Logger) *state {
	return &state{app: appID, epoch: epoch, cfg: cfg, log: log, workers: map[string]*worker{}, instances: map[int64]*inst{},
		tasks: map[int64]*task{}, picker: dispatch.NewPicker(), blocked: map[int64]bool{}, backlogged: map[int64]*inst{},
		queues: map[int64]*jobQueue{}, queuedIDs: map[int64]int64{}, delayed: map[int64]*inst{}, jitter: rand.Float64,
		poolDefs: map[string]*db.Pool{}, poolQueues: map[string]*poolQueue{}, pooledIDs: map[int64]string{},
		held: map[int64]*task{}}
}

type worker struct {
	dispatch.Worker
	connected    bool
	disconnected time.Time
	running      map[int64]bool // task ids assigned to it
	// pagedResults: it reads POST and REDUCE results in pages (results.go).
	pagedResults bool
	// startAt: it holds a task sent with a start time until then (ahead.go).
	startAt bool
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
	// queue holds the attempt's WAITING tasks, in order; onWorkers its
	// DISPATCHED and RUNNING ones. Per instance, so that what one batch
	// does to an instance costs what that instance holds, not what the app
	// holds.
	queue     deque.Deque[*task]
	onWorkers map[int64]*task
	inReady   bool // in state.ready
	// mapKeys are the map messages this actor stored for the instance (the
	// database has them too, for the next owner).
	mapKeys map[string]bool
	// mapped and mappedBytes count the subtasks the instance's maps
	// created and their payload bytes, against Config.MapMaxTasks and
	// MapMaxBytes. An adopter starts from the instance's stored task count
	// (and from zero bytes: payloads are not read back to count them).
	mapped      int
	mappedBytes int64
	// backlog counts the attempt's WAITING tasks stored but not held in
	// memory: an instance with more tasks than its window keeps the rest
	// in the database, and refill loads them in id order from cursor, the
	// highest task id it loaded or created in memory. Tasks go to the
	// backlog only while it is not empty or the window is full, so every
	// WAITING task with an id above cursor is in the backlog.
	backlog int
	cursor  int64
	// delayed are the attempt's WAITING tasks held for their retry
	// back-off (backoff.go), queued when their NotBefore comes.
	delayed []*task
}

func newInst(in db.Instance, job *db.Job) *inst {
	it := &inst{Instance: in, job: job, used: map[string]int{}, onWorkers: map[int64]*task{}}
	it.deadline = deadlineOf(in, job)
	return it
}

// Stages of multi-step instances.
const (
	stageMain   = ""
	stagePre    = "PRE"
	stageBcast  = "BROADCAST"
	stagePost   = "POST"
	stageReduce = "REDUCE"
)

// task is a task of an active instance: queued (WAITING, in inst.queue)
// or on a worker (DISPATCHED or RUNNING, in state.tasks and inst.onWorkers).
type task struct {
	db.Task
	inst   *inst
	reason string // why it failed, for the attempt
	pinned string // a broadcast task runs on this worker only
	acked  bool
	new    bool // not inserted yet
	// span is the task's trace span while it is on a worker (traces.go);
	// nil when tracing is off.
	span trace.Span
	// inherited: sent to its worker under an earlier lease epoch (by the
	// app's previous owner), as read when this actor took the app over,
	// and not sent again since (joined).
	inherited bool
	// startAt is the time it was sent to start at, when dispatched ahead.
	startAt time.Time
}

// firing is an instance the wheel fired, and when.
type firing struct {
	id int64
	at time.Time
}

// enqueue queues a WAITING task for assign, or holds it while its retry
// back-off lasts.
func (s *state) enqueue(t *task) {
	if t.NotBefore != nil && t.NotBefore.After(s.now) {
		s.delayTask(t)
		return
	}
	it := t.inst
	it.queue.PushBack(t)
	if !it.inReady {
		it.inReady = true
		s.ready = append(s.ready, it)
	}
}

// queued counts the queued tasks of the active instances.
func (s *state) queued() int {
	n := 0
	for _, it := range s.instances {
		n += it.queue.Len()
	}
	return n
}

func (s *state) connected() []*dispatch.Worker {
	out := make([]*dispatch.Worker, 0, len(s.workers))
	for _, w := range s.workers {
		if w.connected {
			out = append(out, &w.Worker)
		}
	}
	return out
}

func deadlineOf(in db.Instance, job *db.Job) time.Time {
	timeout := timeoutOf(in, job)
	if timeout <= 0 || in.ActualTriggerAt == nil {
		return time.Time{}
	}
	return in.ActualTriggerAt.Add(timeout)
}

// timeoutOf is the instance's timeout: a workflow node's override, or the
// job's.
func timeoutOf(in db.Instance, job *db.Job) time.Duration {
	if in.TimeoutMs != nil {
		return time.Duration(*in.TimeoutMs) * time.Millisecond
	}
	return time.Duration(job.TimeoutMs) * time.Millisecond
}

// retriesOf is how many times a failed attempt is retried: a workflow
// node's override, or the job's instanceRetries.
func retriesOf(in db.Instance, job *db.Job) int {
	if in.MaxRetries != nil {
		return *in.MaxRetries
	}
	return job.InstanceRetries
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

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
