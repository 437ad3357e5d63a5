// Package scheduler is the trigger loop: for every app this server owns it
// turns jobs' schedules into instances and fires them on time.
//
// Each pass (every Interval, or sooner when woken) does, per app:
//
//  1. Read the enabled jobs whose next_trigger_at falls within the
//     look-ahead window.
//  2. For each, compute every fire up to the window's end (applying the
//     job's misfire policy to fires already missed), and in ONE transaction
//     advance next_trigger_at by compare-and-set on its old value and insert
//     the fires as WAITING instances; UNIQUE(job_id, expected_trigger_at)
//     drops any fire already recorded. Two owners, a crash between the two
//     writes, or a retried pass can therefore never record a fire twice.
//  3. Read the app's WAITING instances due within the window (the fires
//     just recorded, delayed API runs, instance retries) and put the ones
//     not yet there on the timing wheel.
//
// The wheel hands each millisecond's fires back as one batch, which goes to
// the execution engine. Only the window is in memory; the rest is
// next_trigger_at in the database, so memory is bounded however many jobs
// exist. When the app's lease is lost its wheel entries are dropped at once.
package scheduler

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/schedule"
	"github.com/jobwheel/jobwheel/server/wheel"
)

// Trigger types of scheduled instances: on time, or a run the misfire
// policy catches up after downtime.
const (
	TriggerSchedule = "SCHEDULE"
	TriggerMisfire  = "MISFIRE"
)

// fire is one fire to record.
type fire struct {
	at     time.Time
	missed bool // caught up by the misfire policy
}

// Misfire policies (docs/design.md §5.4).
const (
	FireOnce = "FIRE_ONCE"
	Skip     = "SKIP"
	FireAll  = "FIRE_ALL"
)

// Policies lists the misfire policies.
var Policies = []string{FireOnce, Skip, FireAll}

// Config tunes the loop.
type Config struct {
	// Lookahead is how far ahead fires are loaded. Default 5s.
	Lookahead time.Duration
	// Interval is the time between passes. Default 1s.
	Interval time.Duration
	// MisfireThreshold is how late a fire may be first seen before it
	// counts as missed and the misfire policy applies. Default 2s.
	MisfireThreshold time.Duration
	// FireAllLimit bounds the missed fires FIRE_ALL catches up, per job and
	// pass (the most recent ones are kept). Default 100.
	FireAllLimit int
	// JobsPerPass bounds the jobs read in one pass. Default 5000.
	JobsPerPass int
	// WheelWorkers is the size of the fire pool. Default 4.
	WheelWorkers int
}

func (c *Config) defaults() {
	if c.Lookahead == 0 {
		c.Lookahead = 5 * time.Second
	}
	if c.Interval == 0 {
		c.Interval = time.Second
	}
	if c.MisfireThreshold == 0 {
		c.MisfireThreshold = 2 * time.Second
	}
	if c.FireAllLimit == 0 {
		c.FireAllLimit = 100
	}
	if c.JobsPerPass == 0 {
		c.JobsPerPass = 5000
	}
	if c.WheelWorkers == 0 {
		c.WheelWorkers = 4
	}
}

// Firer runs fired instances (package execution). at is when the wheel
// fired them: their actual trigger time.
type Firer interface {
	Fire(appID int64, instanceIDs []int64, at time.Time)
}

// Scheduler runs the trigger loop of every owned app.
type Scheduler struct {
	cfg   Config
	db    *db.DB
	firer Firer
	log   *slog.Logger
	now   func() time.Time
	wheel *wheel.Wheel[int64]

	mu      sync.Mutex
	apps    map[int64]*loop
	onWheel map[int64]onWheel // instance → entry, across apps
	// inHand remembers instances handed to the engine recently: one still
	// WAITING (for a worker, or in the engine's queue) is in hand, not stale.
	inHand map[int64]time.Time
	cache  map[int64]cachedSchedule
	ctx    context.Context
	cancel context.CancelFunc
}

type onWheel struct {
	app int64
	h   wheel.Handle[int64]
}

type cachedSchedule struct {
	updated time.Time
	s       *schedule.Schedule
}

// New returns a Scheduler; Start starts its wheel.
func New(cfg Config, store *db.DB, firer Firer, log *slog.Logger) *Scheduler {
	cfg.defaults()
	s := &Scheduler{cfg: cfg, db: store, firer: firer, log: log, now: db.Now,
		apps: map[int64]*loop{}, onWheel: map[int64]onWheel{}, inHand: map[int64]time.Time{}, cache: map[int64]cachedSchedule{}}
	s.wheel = wheel.New(s.fired, wheel.Options{Workers: cfg.WheelWorkers})
	return s
}

// Start starts the wheel.
func (s *Scheduler) Start(ctx context.Context) {
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.wheel.Start(s.ctx)
}

// Stop stops every app's loop and the wheel.
func (s *Scheduler) Stop() {
	s.mu.Lock()
	loops := make([]*loop, 0, len(s.apps))
	for id, l := range s.apps {
		loops = append(loops, l)
		delete(s.apps, id)
	}
	s.mu.Unlock()
	for _, l := range loops {
		l.stop()
		s.wheel.DropGroup(l.app)
	}
	s.wheel.Stop()
	if s.cancel != nil {
		s.cancel()
	}
}

// LeaseGained starts the app's trigger loop.
func (s *Scheduler) LeaseGained(ctx context.Context, appID, epoch int64) {
	l := &loop{s: s, app: appID, wake: make(chan struct{}, 1), done: make(chan struct{})}
	l.ctx, l.cancel = context.WithCancel(context.WithoutCancel(ctx))
	s.mu.Lock()
	old := s.apps[appID]
	s.apps[appID] = l
	s.mu.Unlock()
	if old != nil {
		old.stop()
	}
	go l.run()
}

// LeaseLost stops the app's loop and drops its wheel entries at once.
//
// Nothing of the app fires after it returns: its wheel entries are dropped
// first, in O(1). The loop is then cancelled and given a moment to finish
// its pass; if the database hangs (the likely reason the lease was lost)
// it is left to end by itself, since whatever it records is protected by
// compare-and-set and UNIQUE, and it puts nothing on the wheel any more.
func (s *Scheduler) LeaseLost(appID int64) {
	s.mu.Lock()
	l := s.apps[appID]
	delete(s.apps, appID)
	s.wheel.DropGroup(appID)
	for id, e := range s.onWheel {
		if e.app == appID {
			delete(s.onWheel, id)
		}
	}
	s.mu.Unlock()
	if l != nil {
		l.cancel()
		select {
		case <-l.done:
		case <-time.After(stopWait):
			s.log.Warn("scheduler: the app's trigger loop is still in a database call; leaving it to end", "app", appID)
		}
	}
}

// stopWait bounds how long losing a lease waits for the app's loop.
const stopWait = 2 * time.Second

// Wake makes the app's loop run a pass now (new WAITING instances, a job
// re-armed or edited).
func (s *Scheduler) Wake(appID int64) {
	s.mu.Lock()
	l := s.apps[appID]
	s.mu.Unlock()
	if l != nil {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
}

// Unfired forgets that fires were handed to the engine: it could not
// process them (the database failed), so the next pass treats them as
// missed fires under their jobs' misfire policy.
func (s *Scheduler) Unfired(_ int64, instanceIDs []int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range instanceIDs {
		delete(s.inHand, id)
	}
}

// fired hands a tick's fires to the engine, app by app.
func (s *Scheduler) fired(_ context.Context, batch []wheel.Entry[int64]) {
	byApp := map[int64][]int64{}
	now := s.now()
	s.mu.Lock()
	for _, e := range batch {
		delete(s.onWheel, e.Value)
		s.inHand[e.Value] = now
		byApp[e.Group] = append(byApp[e.Group], e.Value)
	}
	s.mu.Unlock()
	for app, ids := range byApp {
		s.firer.Fire(app, ids, now)
	}
}

// schedule returns a job's parsed schedule, cached until the job changes.
func (s *Scheduler) schedule(j *db.Job) (*schedule.Schedule, error) {
	s.mu.Lock()
	c, ok := s.cache[j.ID]
	s.mu.Unlock()
	if ok && c.updated.Equal(j.UpdatedAt) {
		return c.s, nil
	}
	sch, err := schedule.Parse(schedule.Spec{Type: j.ScheduleType, Expression: j.ScheduleExpression, TimeZone: j.TimeZone,
		Start: j.LifecycleStart, End: j.LifecycleEnd})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.cache[j.ID] = cachedSchedule{updated: j.UpdatedAt, s: sch}
	s.mu.Unlock()
	return sch, nil
}

// loop is one app's trigger loop.
type loop struct {
	s      *Scheduler
	app    int64
	wake   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
}

func (l *loop) stop() {
	l.cancel()
	<-l.done
}

func (l *loop) run() {
	defer close(l.done)
	t := time.NewTicker(l.s.cfg.Interval)
	defer t.Stop()
	for {
		if err := l.pass(); err != nil && l.ctx.Err() == nil {
			l.s.log.Warn("scheduler: pass failed; retrying next pass", "app", l.app, "err", err)
		}
		select {
		case <-l.ctx.Done():
			return
		case <-t.C:
		case <-l.wake:
		}
	}
}

// pass records the window's fires and puts due instances on the wheel.
func (l *loop) pass() error {
	ctx := l.ctx
	stale, err := l.stale(ctx, l.s.now())
	if err != nil {
		return err
	}
	var until time.Time
	for {
		until = l.s.now().Add(l.s.cfg.Lookahead)
		jobs, err := l.s.db.JobsDue(ctx, l.app, until, l.s.cfg.JobsPerPass)
		if err != nil {
			return err
		}
		// Plan from the time the jobs were read, not when the pass began:
		// a pass held up by a slow or absent database must not plan a
		// window already in the past.
		now := l.s.now()
		if err := l.trigger(ctx, jobs, now, now.Add(l.s.cfg.Lookahead), stale); err != nil {
			return err
		}
		if len(jobs) < l.s.cfg.JobsPerPass {
			break
		}
	}
	if err := l.settleStale(ctx, stale, l.s.now()); err != nil {
		return err
	}
	return l.load(ctx, l.s.now().Add(l.s.cfg.Lookahead))
}

// staleFires are scheduled fires recorded ahead that nobody ran in time,
// per job, oldest first; planMissed marks jobs whose plan also missed
// fires this pass.
type staleFires struct {
	byJob      map[int64][]db.Instance
	planMissed map[int64]bool
}

// stale finds the app's fires recorded ahead whose time passed while no
// server ran them (they are not on this server's wheel, nor handed to the
// engine): they are missed fires like any other.
func (l *loop) stale(ctx context.Context, now time.Time) (*staleFires, error) {
	list, err := l.s.db.InstancesStaleScheduled(ctx, l.app, now.Add(-l.s.cfg.MisfireThreshold), 10000)
	if err != nil {
		return nil, err
	}
	st := &staleFires{byJob: map[int64][]db.Instance{}, planMissed: map[int64]bool{}}
	s := l.s
	s.mu.Lock()
	for id, at := range s.inHand {
		if now.Sub(at) > 2*time.Minute {
			delete(s.inHand, id)
		}
	}
	for _, in := range list {
		_, queued := s.onWheel[in.ID]
		_, inHand := s.inHand[in.ID]
		if !queued && !inHand {
			st.byJob[in.JobID] = append(st.byJob[in.JobID], in)
		}
	}
	s.mu.Unlock()
	return st, nil
}

// settleStale applies each job's misfire policy to its stale fires,
// together with the fires its plan missed: SKIP cancels them, FIRE_ALL runs
// them as MISFIRE, FIRE_ONCE runs only the latest missed fire.
func (l *loop) settleStale(ctx context.Context, st *staleFires, now time.Time) error {
	if len(st.byJob) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(st.byJob))
	for id := range st.byJob {
		ids = append(ids, id)
	}
	jobs, err := l.s.db.JobsByIDs(ctx, ids)
	if err != nil {
		return err
	}
	var cancel []db.InstanceTransition
	var keep []int64
	reason, result := "MISFIRE", "skipped: its time passed while no server ran the app (misfire policy)"
	for _, j := range jobs {
		list := st.byJob[j.ID]
		switch {
		case j.MisfirePolicy == FireAll:
			for _, in := range list {
				keep = append(keep, in.ID)
			}
			continue
		case j.MisfirePolicy == FireOnce && !st.planMissed[j.ID]:
			keep = append(keep, list[len(list)-1].ID)
			list = list[:len(list)-1]
		}
		for _, in := range list {
			cancel = append(cancel, db.InstanceTransition{ID: in.ID, From: db.StatusWaiting, To: db.StatusCanceled,
				FinishedAt: &now, Reason: &reason, Result: &result})
		}
	}
	l.s.log.Info("scheduler: settled fires missed while no server ran the app", "app", l.app, "kept", len(keep), "canceled", len(cancel))
	return l.s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		if _, err := tx.InstanceTransitionMany(ctx, cancel); err != nil {
			return err
		}
		return tx.InstanceRelabel(ctx, keep, TriggerMisfire)
	})
}

// trigger records the fires of due jobs in one transaction.
func (l *loop) trigger(ctx context.Context, jobs []db.Job, now, until time.Time, st *staleFires) error {
	if len(jobs) == 0 {
		return nil
	}
	advances := make([]db.JobAdvance, 0, len(jobs))
	fires := make(map[int64][]db.Instance, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		sch, err := l.s.schedule(j)
		if err != nil {
			// Saved before a validation rule existed, or edited by hand:
			// stop firing it rather than fail the whole pass.
			l.s.log.Error("scheduler: job has an invalid schedule; it will not fire until fixed", "job", j.ID, "err", err)
			advances = append(advances, db.JobAdvance{ID: j.ID, Old: *j.NextTriggerAt, New: nil})
			continue
		}
		times, next := l.plan(j, sch, now, until)
		advances = append(advances, db.JobAdvance{ID: j.ID, Old: *j.NextTriggerAt, New: next})
		if j.NextTriggerAt.Before(now.Add(-l.s.cfg.MisfireThreshold)) {
			st.planMissed[j.ID] = true
		}
		for _, f := range times {
			at := f.at
			trigger := TriggerSchedule
			if f.missed {
				trigger = TriggerMisfire
			}
			fires[j.ID] = append(fires[j.ID], db.Instance{AppID: l.app, JobID: j.ID, Status: db.StatusWaiting,
				TriggerType: trigger, ExpectedTriggerAt: &at, TriggerAt: at})
		}
	}
	return l.s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		advanced, err := tx.JobAdvanceMany(ctx, advances)
		if err != nil {
			return err
		}
		var list []db.Instance
		for _, id := range advanced {
			list = append(list, fires[id]...)
		}
		_, err = tx.InstanceCreateMany(ctx, list)
		return err
	})
}

// maxWalk bounds how many missed fires of one job a pass walks through
// one by one; past it, the walk jumps to the present.
const maxWalk = 100000

// plan returns the fires to record for a due job and its next trigger
// after them (nil: none yet, for FIXED_DELAY, or ever).
func (l *loop) plan(j *db.Job, sch *schedule.Schedule, now, until time.Time) ([]fire, *time.Time) {
	t := *j.NextTriggerAt
	cutoff := now.Add(-l.s.cfg.MisfireThreshold)
	// Fires already missed (the server was down, or took the app over)
	// go through the misfire policy.
	var missed []time.Time
	if t.Before(cutoff) {
		if j.ScheduleType == schedule.FixedDelay {
			// One run was owed; the next is armed when it ends.
			l.s.log.Info("scheduler: job missed its run", "job", j.ID, "policy", j.MisfirePolicy)
			if j.MisfirePolicy == Skip {
				next := now.Add(sch.Interval()).Truncate(time.Millisecond)
				return nil, &next
			}
			return []fire{{at: t, missed: true}}, nil
		}
		walked := 0
		for t.Before(cutoff) {
			missed = append(missed, t)
			if len(missed) > l.s.cfg.FireAllLimit {
				missed = missed[1:]
			}
			walked++
			next, ok := sch.Next(t)
			if !ok {
				return missedFires(j.MisfirePolicy, missed), nil
			}
			if walked >= maxWalk && next.Before(cutoff) {
				// Very long downtime: resume from the present. FIXED_RATE
				// keeps its grid by jumping whole intervals.
				if d := sch.Interval(); d > 0 {
					next = next.Add(cutoff.Sub(next) / d * d)
				} else if n, ok := sch.Next(cutoff.Add(-time.Second)); ok {
					next = n
				}
			}
			t = next
		}
		l.s.log.Info("scheduler: job missed fires", "job", j.ID, "missed", walked, "policy", j.MisfirePolicy)
	}
	fires := missedFires(j.MisfirePolicy, missed)
	for !t.After(until) {
		fires = append(fires, fire{at: t})
		if j.ScheduleType == schedule.FixedDelay {
			return fires, nil
		}
		next, ok := sch.Next(t)
		if !ok {
			return fires, nil
		}
		t = next
	}
	return fires, &t
}

// missedFires applies the misfire policy to the fires missed, oldest first.
func missedFires(policy string, missed []time.Time) []fire {
	if len(missed) == 0 || policy == Skip {
		return nil
	}
	if policy != FireAll { // FIRE_ONCE: one catch-up run, for the latest missed fire
		missed = missed[len(missed)-1:]
	}
	out := make([]fire, len(missed))
	for i, t := range missed {
		out[i] = fire{at: t, missed: true}
	}
	return out
}

// load puts the app's due WAITING instances on the wheel.
func (l *loop) load(ctx context.Context, until time.Time) error {
	const limit = 20000
	due, err := l.s.db.InstancesWaitingDue(ctx, l.app, until, limit)
	if err != nil {
		return err
	}
	s := l.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.apps[l.app] != l {
		return nil // lost the lease meanwhile
	}
	for _, in := range due {
		if _, ok := s.onWheel[in.ID]; ok {
			continue
		}
		s.onWheel[in.ID] = onWheel{app: l.app, h: s.wheel.Schedule(l.app, in.TriggerAt, in.ID)}
	}
	return nil
}
