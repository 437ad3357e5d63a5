package trigger

import (
	"context"
	"log/slog"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/internal/testsignal"
	"github.com/jobwheel/jobwheel/server/runtime/trigger/wheel"
)

// Config tunes the loops.
type Config struct {
	// Lookahead is how far ahead fires are recorded and loaded. Default 5s.
	Lookahead time.Duration
	// Refill is how soon a job's next fire must be for a pass to read the
	// job and record its fires up to Lookahead: a job that fires every
	// second is read and advanced once every Lookahead − Refill seconds,
	// for that many fires, not at every pass. At most Lookahead; default
	// 2s (a pass late by up to Refill still finds the fire recorded).
	Refill time.Duration
	// Interval is the time between passes. Default 1s.
	Interval time.Duration
	// MisfireThreshold is how late a fire may be first seen before it
	// counts as missed and the misfire policy applies. Default 2s.
	MisfireThreshold time.Duration
	// FireAllLimit bounds the missed fires FIRE_ALL catches up, per job and
	// pass (the most recent ones are kept). Default 100.
	FireAllLimit int
	// JobsPerPass bounds the jobs read at once: a pass reads and records
	// due jobs a page of this many at a time, each page in one transaction.
	// Default 2000: a page of 10,000 every-second jobs' fires (four each,
	// their rows read back and kept for the wheel, the statements built)
	// made most of an overloaded server's peak heap at 5,000.
	JobsPerPass int
	// WheelWorkers is the size of the fire pool. Default 4.
	WheelWorkers int
	// MaxInFlight bounds the fires an app's loop has handed to its actor
	// and the actor has not taken yet (in its mailbox, or in the batch it
	// runs): fires due beyond it stay WAITING in the database and are read
	// back, oldest first, as the actor takes what it has. It bounds what an
	// overloaded app holds in memory. Default DefaultMaxInFlight.
	MaxInFlight int
	// DispatchAhead is how long before its time a scheduled fire is handed
	// to the actor, which dispatches it then, if it certainly runs, to be
	// held on its worker and started at its time (execution/ahead.go):
	// committing a burst of fires then costs the fires no lateness. At most
	// Lookahead − Refill. 0: fires are handed over at their time.
	DispatchAhead time.Duration
	// Clock defaults to the system clock.
	Clock clock.Clock
}

func (c *Config) defaults() {
	if c.Lookahead == 0 {
		c.Lookahead = 5 * time.Second
	}
	if c.Interval == 0 {
		c.Interval = time.Second
	}
	if c.Refill == 0 {
		c.Refill = 2 * time.Second
	}
	c.Refill = min(c.Refill, c.Lookahead)
	c.DispatchAhead = min(max(c.DispatchAhead, 0), c.Lookahead-c.Refill)
	if c.MisfireThreshold == 0 {
		c.MisfireThreshold = 2 * time.Second
	}
	if c.FireAllLimit == 0 {
		c.FireAllLimit = 100
	}
	if c.JobsPerPass == 0 {
		c.JobsPerPass = 2000
	}
	if c.WheelWorkers == 0 {
		c.WheelWorkers = 4
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = DefaultMaxInFlight
	}
	c.Clock = clock.OrSystem(c.Clock)
}

// DefaultMaxInFlight is Config.MaxInFlight's default. What a fire costs
// in memory until the actor's batch is done with it — its instance, its
// job read for the batch, its task, its writes — is a few KB, and the
// garbage of a batch makes the heap grow by as much again: at 10,000 in
// flight a server overloaded by 10,000 fires a second peaked at 314 MB,
// at 2,000 (and JobsPerPass 2,000) at 163 MB (docs/benchmarks.md). A
// burst larger than this goes to the actor in several batches, back to
// back.
const DefaultMaxInFlight = 2000

// Store is what the trigger loop needs from the database.
type Store interface {
	JobListDue(ctx context.Context, appID int64, until time.Time, limit int) ([]db.Job, error)
	JobListByIDs(ctx context.Context, ids []int64) ([]db.Job, error)
	InstanceListStaleScheduled(ctx context.Context, appID int64, before time.Time, limit int) ([]db.Instance, error)
	InstanceListWaitingDue(ctx context.Context, appID int64, until time.Time, limit int) ([]db.Due, error)
	InstanceListWaitingDueNotAhead(ctx context.Context, appID int64, now, until time.Time, limit int) ([]db.Due, error)
	InstanceListWaitingDueAfter(ctx context.Context, appID int64, after db.Due, until time.Time, limit int) ([]db.Due, error)
	WorkflowListDue(ctx context.Context, appID int64, until time.Time, limit int) ([]db.Workflow, error)
	WorkflowInstanceListWaitingDue(ctx context.Context, appID int64, until time.Time, limit int) ([]db.WorkflowInstance, error)
	InTx(ctx context.Context, fn func(ctx context.Context, tx *db.Store) error) error
}

// Firer runs what the wheel fired: job instances (the app's execution
// actor) or workflow runs (its workflow engine). at is when the wheel
// fired them: their actual trigger time.
type Firer interface {
	Fire(ids []int64, at time.Time)
}

// Jobs runs the job instances the wheel fires: the app's execution actor.
type Jobs interface {
	Firer
	// FireRecorded is Fire for instances the loop recorded itself, or
	// runJob recorded on this server (FireCreated), handed over as
	// recorded so that the actor need not read them back. The actor's
	// compare-and-set from WAITING still decides whether they run.
	FireRecorded(recorded []db.Instance, at time.Time)
}

// fireRef is a wheel entry: an instance or a workflow run, and the loop
// that put it there.
type fireRef struct {
	loop *Loop
	id   int64
	at   time.Time // when it is due (set when the wheel fires it)
	run  bool      // a workflow run, not a job instance
	// recorded is the instance as this loop recorded it; nil for
	// instances read from the database (API runs, retries, a take-over).
	recorded *db.Instance
}

// Service is the server's timing wheel, shared by the trigger loops of
// every owned app (one wheel group per app).
type Service struct {
	lifecycle.Base
	cfg   Config
	store Store
	log   *slog.Logger
	wheel *wheel.Wheel[fireRef]

	// Passed, if Init'ed by a test, signals each finished pass (its app).
	Passed testsignal.Signal[int64]
}

// NewService returns the service; Start starts its wheel.
func NewService(cfg Config, store Store, log *slog.Logger) *Service {
	cfg.defaults()
	s := &Service{cfg: cfg, store: store, log: log}
	s.wheel = wheel.New(s.fired, wheel.Options{Workers: cfg.WheelWorkers, Clock: cfg.Clock})
	return s
}

// Start runs the wheel until Stop.
func (s *Service) Start(ctx context.Context) error {
	ctx, ok, started, stopped := s.StartInit(ctx)
	if !ok {
		return nil
	}
	s.wheel.Start(ctx)
	go func() {
		started()
		defer stopped()
		<-ctx.Done()
		s.wheel.Stop()
	}()
	return nil
}

// NewLoop returns the trigger loop of an app, firing job instances into
// jobs and workflow runs into runs (nil: the app's workflows are not
// scheduled); it is started and stopped with the app (package owned).
func (s *Service) NewLoop(appID int64, jobs Jobs, runs Firer) *Loop {
	return &Loop{s: s, app: appID, firer: jobs, runs: runs, wake: make(chan struct{}, 1),
		onWheel: map[int64]wheel.Handle[fireRef]{}, runsOnWheel: map[int64]wheel.Handle[fireRef]{},
		inHand: map[int64]time.Time{}, inFlight: map[int64]int{}, room: make(chan struct{}, 1), cache: map[int64]cachedSchedule{}}
}

// fired hands a tick's fires to their loops.
func (s *Service) fired(_ context.Context, batch []wheel.Entry[fireRef]) {
	now := s.cfg.Clock.Now()
	type key struct {
		l   *Loop
		run bool
	}
	byLoop := map[key][]fireRef{}
	for _, e := range batch {
		k := key{e.Value.loop, e.Value.run}
		r := e.Value
		r.at = e.At
		byLoop[k] = append(byLoop[k], r)
	}
	for k, refs := range byLoop {
		if k.run {
			k.l.firedInstances(refs, now)
		} else {
			k.l.fired(refs, now)
		}
	}
}
