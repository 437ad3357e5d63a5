package trigger

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/server/runtime/trigger/wheel"
	"github.com/jobwheel/jobwheel/server/schedule"
)

// Loop is the trigger loop of one owned app.
type Loop struct {
	lifecycle.Base
	s     *Service
	app   int64
	firer Jobs  // job instances: the app's execution actor
	runs  Firer // workflow runs: the app's workflow engine
	wake  chan struct{}

	mu          sync.Mutex
	stopped     bool
	onWheel     map[int64]wheel.Handle[fireRef] // instance → its wheel entry
	runsOnWheel map[int64]wheel.Handle[fireRef] // workflow run → its wheel entry
	// inHand remembers instances handed to the actor recently: one still
	// WAITING (for a worker, or in the actor's queue) is in hand, not stale.
	inHand map[int64]time.Time
	// inFlight counts, per instance, its hand-overs the actor has not
	// taken yet (FiresTaken); inFlightN is their sum, at most
	// Config.MaxInFlight.
	inFlight  map[int64]int
	inFlightN int
	// taken are fires the actor took and did not leave WAITING: they leave
	// inHand when the next pass begins, so that no read of a pass that
	// began before their commit finds them WAITING and not in hand.
	taken []int64
	// behind says fires came due that the actor had no room for: they are
	// WAITING in the database, none due before behindSince, and readBack
	// hands them over oldest first as room frees (room is signalled).
	// deferrals counts them, so that a read-back that raced one does not
	// take the backlog to be over.
	behind      bool
	behindSince time.Time
	deferrals   uint64
	room        chan struct{}
	cache       map[int64]cachedSchedule
	// passes counts passes: the first, and every fullLoadEvery-th, load
	// every WAITING instance of the window; the others skip the fires
	// this loop recorded ahead itself (load).
	passes int
}

// fullLoadEvery is how often a pass reads back the window's scheduled
// fires too: the first pass after the app was taken over finds its
// predecessor's, and every so often one makes sure nothing recorded ahead
// is missing from the wheel.
const fullLoadEvery = 30

type cachedSchedule struct {
	updated time.Time
	s       *schedule.Schedule
}

// Start runs passes until Stop.
func (l *Loop) Start(ctx context.Context) error {
	ctx, ok, started, stopped := l.StartInit(ctx)
	if !ok {
		return nil
	}
	l.mu.Lock()
	l.stopped = false
	l.mu.Unlock()
	go func() {
		started()
		defer stopped()
		l.run(ctx)
	}()
	return nil
}

// Stop drops the app's wheel entries at once, so nothing of the app fires
// after it returns, then ends the loop. A pass in a database call that
// hangs (the likely reason the lease was lost) is cancelled; whatever it
// records is protected by compare-and-set and UNIQUE, and it puts nothing
// on the wheel any more.
func (l *Loop) Stop() {
	l.mu.Lock()
	l.stopped = true
	l.s.wheel.DropGroup(l.app)
	clear(l.onWheel)
	clear(l.runsOnWheel)
	l.mu.Unlock()
	l.Base.Stop()
}

// Wake makes the loop run a pass now (new WAITING instances, a job re-armed
// or edited).
func (l *Loop) Wake() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Unfired forgets that fires were handed to the actor: it could not
// process them (the database failed), so the next pass treats them as
// missed fires under their jobs' misfire policy.
// It ends their hand-overs too: the actor has them no more.
func (l *Loop) Unfired(instanceIDs []int64) {
	l.mu.Lock()
	for _, id := range instanceIDs {
		delete(l.inHand, id)
		if n, ok := l.inFlight[id]; ok {
			l.inFlightN -= n
			delete(l.inFlight, id)
		}
	}
	signal := l.behind && l.inFlightN < l.s.cfg.MaxInFlight
	l.mu.Unlock()
	if signal {
		l.signalRoom()
	}
}

// signalRoom makes the loop read back fires kept in the database.
func (l *Loop) signalRoom() {
	select {
	case l.room <- struct{}{}:
	default:
	}
}

// FiresTaken ends a hand-over of each of ids (see execution.Waker): the
// actor has room for more. Those not waiting are no longer WAITING, so
// the loop forgets them at its next pass.
func (l *Loop) FiresTaken(ids, waiting []int64) {
	var left map[int64]bool
	if len(waiting) > 0 {
		left = make(map[int64]bool, len(waiting))
		for _, id := range waiting {
			left[id] = true
		}
	}
	l.mu.Lock()
	for _, id := range ids {
		n, ok := l.inFlight[id]
		if !ok {
			continue // not handed over by this loop (a workflow node's)
		}
		l.inFlightN--
		if n > 1 {
			l.inFlight[id] = n - 1
			continue
		}
		delete(l.inFlight, id)
		if !left[id] {
			l.taken = append(l.taken, id)
		}
	}
	signal := l.behind && l.inFlightN < l.s.cfg.MaxInFlight
	l.mu.Unlock()
	if signal {
		l.signalRoom()
	}
}

// InFlight is how many fires the loop has handed to the actor that it
// has not taken yet; never more than Config.MaxInFlight.
func (l *Loop) InFlight() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inFlightN
}

// handOver records that the actor is handed id. l.mu is held.
func (l *Loop) handOver(id int64, at time.Time) {
	l.inHand[id] = at
	l.inFlight[id]++
	l.inFlightN++
}

// roomLeft is how many more fires the actor may be handed. l.mu is held.
func (l *Loop) roomLeft() int {
	return max(l.s.cfg.MaxInFlight-l.inFlightN, 0)
}

// keepBack leaves fires due from at in the database for readBack: the
// actor has no room for them. l.mu is held.
func (l *Loop) keepBack(at time.Time) {
	if !l.behind || at.Before(l.behindSince) {
		l.behindSince = at
	}
	l.behind = true
	l.deferrals++
}

// FireCreated takes an instance just recorded WAITING by someone else on
// this server (runJob): due now, it goes to the actor at once, as
// recorded, and is in hand like a fire from the wheel; due within the
// look-ahead, it goes on the wheel; due later, a pass loads it when its
// time comes. No pass has to read it back to start it. One the actor has
// no room for stays in the database until readBack hands it over.
func (l *Loop) FireCreated(in db.Instance) {
	now := l.s.cfg.Clock.Now()
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return
	}
	if in.TriggerAt.After(now) {
		if _, ok := l.onWheel[in.ID]; !ok && !in.TriggerAt.After(now.Add(l.s.cfg.Lookahead)) {
			l.onWheel[in.ID] = l.s.wheel.Schedule(l.app, in.TriggerAt, fireRef{loop: l, id: in.ID, recorded: &in})
		}
		l.mu.Unlock()
		return
	}
	if l.behind || l.roomLeft() == 0 {
		l.keepBack(in.TriggerAt)
		l.mu.Unlock()
		return
	}
	l.handOver(in.ID, db.Stamp(now))
	l.mu.Unlock()
	l.firer.FireRecorded([]db.Instance{in}, now)
}

// fired hands fires from the wheel to the actor, oldest first as far as
// it has room; the rest stay in the database for readBack, and so does
// every fire while older ones wait there (behind), so that fires start in
// trigger-time order.
func (l *Loop) fired(refs []fireRef, at time.Time) {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return // dropped with the app while the batch was on its way
	}
	for _, r := range refs {
		delete(l.onWheel, r.id)
	}
	slices.SortFunc(refs, func(x, y fireRef) int {
		if c := x.at.Compare(y.at); c != 0 {
			return c
		}
		return cmp.Compare(x.id, y.id)
	})
	n := 0
	if !l.behind {
		n = min(len(refs), l.roomLeft())
	}
	if n < len(refs) {
		l.keepBack(refs[n].at)
	}
	refs = refs[:n]
	stamp := db.Stamp(at)
	var ids []int64
	var recorded []db.Instance
	for _, r := range refs {
		l.handOver(r.id, stamp)
		if r.recorded != nil {
			recorded = append(recorded, *r.recorded)
		} else {
			ids = append(ids, r.id)
		}
	}
	l.mu.Unlock()
	if len(recorded) > 0 {
		l.firer.FireRecorded(recorded, at)
	}
	if len(ids) > 0 {
		l.firer.Fire(ids, at)
	}
}

// readBackRounds bounds the restarts of one readBack when fires were kept
// back while it read; a later signal or pass goes on.
const readBackRounds = 4

// readBack hands the actor the due fires kept back in the database, oldest
// first, as many as it has room for: one page of at most MaxInFlight ids
// at a time. Once it has handed all of them, and none was kept back
// meanwhile, the loop is no longer behind.
func (l *Loop) readBack(ctx context.Context) error {
	page := l.s.cfg.MaxInFlight
	for range readBackRounds {
		l.mu.Lock()
		if l.stopped || !l.behind {
			l.mu.Unlock()
			return nil
		}
		deferrals := l.deferrals
		l.mu.Unlock()
		var after *db.Due
		for {
			l.mu.Lock()
			room := l.roomLeft()
			l.mu.Unlock()
			if room == 0 {
				return nil
			}
			now := l.s.cfg.Clock.Now()
			var due []db.Due
			var err error
			if after == nil {
				due, err = l.s.store.InstanceListWaitingDue(ctx, l.app, db.Stamp(now), page)
			} else {
				due, err = l.s.store.InstanceListWaitingDueAfter(ctx, l.app, *after, db.Stamp(now), page)
			}
			if err != nil {
				return err
			}
			l.mu.Lock()
			if l.stopped {
				l.mu.Unlock()
				return nil
			}
			stamp := db.Stamp(now)
			room = l.roomLeft()
			var ids []int64
			full := false
			for _, d := range due {
				if _, ok := l.inFlight[d.ID]; ok {
					continue // in the actor's mailbox already
				}
				if _, ok := l.onWheel[d.ID]; ok {
					continue // the wheel fires it, or fired would keep it back
				}
				if at, ok := l.inHand[d.ID]; ok && stamp.Sub(at) < inHandHold {
					continue // the actor left it waiting a moment ago
				}
				if len(ids) == room {
					full = true
					break
				}
				ids = append(ids, d.ID)
				l.handOver(d.ID, stamp)
			}
			end := !full && len(due) < page
			if end && l.deferrals == deferrals {
				l.behind, l.behindSince = false, time.Time{}
			}
			l.mu.Unlock()
			if len(ids) > 0 {
				l.firer.Fire(ids, now)
			}
			if full {
				return nil
			}
			if end {
				break // kept back meanwhile: read again from the oldest
			}
			after = &due[len(due)-1]
		}
	}
	return nil
}

// firedInstances hands workflow runs from the wheel to the engine.
func (l *Loop) firedInstances(refs []fireRef, at time.Time) {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return
	}
	ids := make([]int64, len(refs))
	for i, r := range refs {
		delete(l.runsOnWheel, r.id)
		ids[i] = r.id
	}
	l.mu.Unlock()
	if l.runs != nil {
		l.runs.Fire(ids, at)
	}
}

// now is the loop's time as stored: fires are planned to the millisecond.
func (l *Loop) now() time.Time { return db.Stamp(l.s.cfg.Clock.Now()) }

// schedule returns a job's parsed schedule, cached until the job changes.
func (l *Loop) schedule(j *db.Job) (*schedule.Schedule, error) {
	l.mu.Lock()
	c, ok := l.cache[j.ID]
	l.mu.Unlock()
	if ok && c.updated.Equal(j.UpdatedAt) {
		return c.s, nil
	}
	sch, err := schedule.Parse(schedule.JobSpec(j))
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.cache[j.ID] = cachedSchedule{updated: j.UpdatedAt, s: sch}
	l.mu.Unlock()
	return sch, nil
}

func (l *Loop) run(ctx context.Context) {
	for {
		if err := l.pass(ctx); err != nil && ctx.Err() == nil {
			l.s.log.Warn("trigger: pass failed; retrying next pass", "app", l.app, "err", err)
		}
		l.s.Passed.Signal(l.app)
		t := l.s.cfg.Clock.NewTimer(l.s.cfg.Interval)
	wait:
		for {
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C():
				break wait
			case <-l.wake:
				break wait
			case <-l.room:
				// The actor took fires while others wait in the database.
				if err := l.readBack(ctx); err != nil && ctx.Err() == nil {
					l.s.log.Warn("trigger: reading back fires kept for the actor failed; retrying as it takes more", "app", l.app, "err", err)
				}
			}
		}
		t.Stop()
	}
}

// pass records the window's fires and puts due instances on the wheel.
func (l *Loop) pass(ctx context.Context) error {
	stale, err := l.stale(ctx, l.now())
	if err != nil {
		return err
	}
	for {
		// Jobs whose next fire comes within Refill; their fires are then
		// recorded up to Lookahead, so a job is read and advanced once for
		// several of its fires.
		jobs, err := l.s.store.JobListDue(ctx, l.app, l.now().Add(l.s.cfg.Refill), l.s.cfg.JobsPerPass)
		if err != nil {
			return err
		}
		// Plan from the time the jobs were read, not when the pass began:
		// a pass held up by a slow or absent database must not plan a
		// window already in the past.
		now := l.now()
		if err := l.trigger(ctx, jobs, now, now.Add(l.s.cfg.Lookahead), stale); err != nil {
			return err
		}
		if len(jobs) < l.s.cfg.JobsPerPass {
			break
		}
	}
	if err := l.settleStale(ctx, stale, l.now()); err != nil {
		return err
	}
	if l.runs != nil {
		if err := l.triggerWorkflows(ctx); err != nil {
			return err
		}
	}
	full := l.passes%fullLoadEvery == 0
	l.passes++
	if err := l.load(ctx, l.now().Add(l.s.cfg.Lookahead), full); err != nil {
		return err
	}
	return l.readBack(ctx)
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
func (l *Loop) stale(ctx context.Context, now time.Time) (*staleFires, error) {
	cutoff := now.Add(-l.s.cfg.MisfireThreshold)
	l.mu.Lock()
	// The fires the actor took before this pass are not WAITING (or wait
	// for a worker, and are not among these) in what it reads from here.
	for _, id := range l.taken {
		if _, ok := l.inFlight[id]; !ok {
			delete(l.inHand, id)
		}
	}
	l.taken = nil
	if l.behind && l.behindSince.Before(cutoff) {
		// Fires kept back for the actor are late, not missed: readBack
		// hands them over.
		cutoff = l.behindSince
	}
	l.mu.Unlock()
	list, err := l.s.store.InstanceListStaleScheduled(ctx, l.app, cutoff, 10000)
	if err != nil {
		return nil, err
	}
	st := &staleFires{byJob: map[int64][]db.Instance{}, planMissed: map[int64]bool{}}
	l.mu.Lock()
	for id, at := range l.inHand {
		if now.Sub(at) > 2*time.Minute {
			delete(l.inHand, id)
		}
	}
	for _, in := range list {
		_, queued := l.onWheel[in.ID]
		_, inHand := l.inHand[in.ID]
		_, inFlight := l.inFlight[in.ID]
		if !queued && !inHand && !inFlight {
			st.byJob[in.JobID] = append(st.byJob[in.JobID], in)
		}
	}
	l.mu.Unlock()
	return st, nil
}

// settleStale applies each job's misfire policy to its stale fires,
// together with the fires its plan missed: SKIP cancels them, FIRE_ALL runs
// them as MISFIRE, FIRE_ONCE runs only the latest missed fire.
func (l *Loop) settleStale(ctx context.Context, st *staleFires, now time.Time) error {
	if len(st.byJob) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(st.byJob))
	for id := range st.byJob {
		ids = append(ids, id)
	}
	jobs, err := l.s.store.JobListByIDs(ctx, ids)
	if err != nil {
		return err
	}
	var cancel []db.InstanceTransition
	var keep []int64
	var rearm []db.JobAdvance
	reason, result := db.ReasonMisfire, "skipped: its time passed while no server ran the app (misfire policy)"
	for _, j := range jobs {
		list := st.byJob[j.ID]
		switch {
		case j.MisfirePolicy == db.MisfireFireAll:
			for _, in := range list {
				keep = append(keep, in.ID)
			}
			continue
		case j.MisfirePolicy == db.MisfireFireOnce && !st.planMissed[j.ID]:
			keep = append(keep, list[len(list)-1].ID)
			list = list[:len(list)-1]
		}
		for _, in := range list {
			cancel = append(cancel, db.InstanceTransition{ID: in.ID, From: db.StatusWaiting, To: db.StatusCanceled,
				FinishedAt: &now, Reason: &reason, Result: &result})
		}
		if j.ScheduleType == db.ScheduleFixedDelay && len(list) == len(st.byJob[j.ID]) {
			// A FIXED_DELAY job is re-armed when its run ends; with its
			// only pending fire canceled, nothing would end: arm it here.
			if d, err := time.ParseDuration(j.ScheduleExpression); err == nil {
				rearm = append(rearm, db.JobAdvance{ID: j.ID, New: new(now.Add(d))})
			}
		}
	}
	l.s.log.Info("trigger: settled fires missed while no server ran the app", "app", l.app, "kept", len(keep), "canceled", len(cancel))
	return l.s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		if _, err := tx.InstanceTransitionMany(ctx, cancel); err != nil {
			return err
		}
		for _, r := range rearm {
			if err := tx.JobSetNextIfUnset(ctx, r.ID, *r.New); err != nil {
				return err
			}
		}
		return tx.InstanceRelabelMany(ctx, keep, db.TriggerMisfire)
	})
}

// trigger records the fires of due jobs in one transaction.
func (l *Loop) trigger(ctx context.Context, jobs []db.Job, now, until time.Time, st *staleFires) error {
	if len(jobs) == 0 {
		return nil
	}
	advances := make([]db.JobAdvance, 0, len(jobs))
	fires := make(map[int64][]db.Instance, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		sch, err := l.schedule(j)
		if err != nil {
			// Saved before a validation rule existed, or edited by hand:
			// stop firing it rather than fail the whole pass.
			l.s.log.Error("trigger: job has an invalid schedule; it will not fire until fixed", "job", j.ID, "err", err)
			advances = append(advances, db.JobAdvance{ID: j.ID, Old: *j.NextTriggerAt, New: nil})
			continue
		}
		times, next, missed := plan(jobDue(j), sch, now, until, l.s.cfg.MisfireThreshold, l.s.cfg.FireAllLimit)
		if missed > 0 {
			l.s.log.Info("trigger: job missed fires", "job", j.ID, "missed", missed, "policy", j.MisfirePolicy)
		}
		advances = append(advances, db.JobAdvance{ID: j.ID, Old: *j.NextTriggerAt, New: next})
		if j.NextTriggerAt.Before(now.Add(-l.s.cfg.MisfireThreshold)) {
			st.planMissed[j.ID] = true
		}
		for _, f := range times {
			at := f.at
			trigger := db.TriggerSchedule
			if f.missed {
				trigger = db.TriggerMisfire
			}
			version := j.Version
			fires[j.ID] = append(fires[j.ID], db.Instance{AppID: l.app, JobID: j.ID, Status: db.StatusWaiting,
				TriggerType: trigger, ExpectedTriggerAt: &at, TriggerAt: at, JobVersion: &version})
		}
	}
	var created [][]db.Instance
	err := l.s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		created = nil // a retried transaction starts over
		advanced, err := tx.JobAdvanceMany(ctx, advances)
		if err != nil {
			return err
		}
		var list []db.Instance
		for _, id := range advanced {
			list = append(list, fires[id]...)
		}
		for len(list) > 0 {
			n := min(len(list), recordChunk)
			got, err := tx.InstanceCreateFired(ctx, list[:n])
			if err != nil {
				return err
			}
			created = append(created, got)
			list = list[n:]
		}
		return nil
	})
	if err != nil {
		return err
	}
	// What this pass recorded goes on the wheel as recorded: load (the
	// pass's last step) then skips it, and the actor does not read it back.
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return nil
	}
	for _, chunk := range created {
		for i := range chunk {
			in := &chunk[i]
			if in.TriggerAt.After(until) {
				continue
			}
			if _, ok := l.onWheel[in.ID]; !ok {
				l.onWheel[in.ID] = l.s.wheel.Schedule(l.app, l.handAt(in), fireRef{loop: l, id: in.ID, recorded: in})
			}
		}
	}
	return nil
}

// handAt is when a recorded fire goes to the actor: DispatchAhead before
// its time for a scheduled fire (its task can then be on its worker, held
// until the fire's time), else at its time.
func (l *Loop) handAt(in *db.Instance) time.Time {
	if in.TriggerType == db.TriggerSchedule {
		return in.TriggerAt.Add(-l.s.cfg.DispatchAhead)
	}
	return in.TriggerAt
}

// recordChunk bounds the fires one statement records. A page of 5,000
// jobs records up to 20,000 fires, and a statement is built in memory
// several times over (its JSON rows, the query text, the driver's
// buffer): one statement of them all took tens of MB at once under
// overload. Chunks keep that to a few MB, at the cost of a statement per
// 2,000 fires, in the same transaction.
const recordChunk = 2000

// inHandHold is how long after handing a fire to the actor the loop
// takes it to be the actor's: its commit comes within milliseconds.
const inHandHold = time.Second

// load puts the app's due WAITING instances on the wheel: all of them
// when full, else all but the scheduled fires recorded ahead, which the
// pass that recorded them put there (trigger).
func (l *Loop) load(ctx context.Context, until time.Time, full bool) error {
	const limit = 20000
	var due []db.Due
	var err error
	if full {
		due, err = l.s.store.InstanceListWaitingDue(ctx, l.app, until, limit)
	} else {
		due, err = l.s.store.InstanceListWaitingDueNotAhead(ctx, l.app, l.now(), until, limit)
	}
	if err != nil {
		return err
	}
	var runs []db.WorkflowInstance
	if l.runs != nil {
		if runs, err = l.s.store.WorkflowInstanceListWaitingDue(ctx, l.app, until, limit); err != nil {
			return err
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return nil // the app was stopped meanwhile
	}
	now := l.now()
	for _, in := range due {
		if _, ok := l.onWheel[in.ID]; ok {
			continue
		}
		// A fire the wheel handed to the actor a moment ago is still
		// WAITING until the actor commits it: it is not due a second time.
		// One still WAITING after that waits for a worker (the actor left
		// it so): it goes on the wheel again, to be fired at this pass as
		// at every pass until a worker comes or the actor gives up on it.
		if at, ok := l.inHand[in.ID]; ok && now.Sub(at) < inHandHold {
			continue
		}
		if _, ok := l.inFlight[in.ID]; ok {
			continue // in the actor's mailbox: its batch decides it
		}
		if l.behind && !in.TriggerAt.After(now) {
			continue // due while older fires wait: readBack hands it over in turn
		}
		l.onWheel[in.ID] = l.s.wheel.Schedule(l.app, in.TriggerAt, fireRef{loop: l, id: in.ID})
	}
	for _, r := range runs {
		if _, ok := l.runsOnWheel[r.ID]; ok {
			continue
		}
		l.runsOnWheel[r.ID] = l.s.wheel.Schedule(l.app, r.TriggerAt, fireRef{loop: l, id: r.ID, run: true})
	}
	return nil
}

// triggerWorkflows records the fires of the app's scheduled workflows due
// within the window, as WAITING runs, the way trigger does for jobs: one
// transaction, a compare-and-set on each workflow's next trigger, and
// UNIQUE(workflow_id, expected_trigger_at) against a second record.
func (l *Loop) triggerWorkflows(ctx context.Context) error {
	now := l.now()
	until := now.Add(l.s.cfg.Lookahead)
	wfs, err := l.s.store.WorkflowListDue(ctx, l.app, until, l.s.cfg.JobsPerPass)
	if err != nil || len(wfs) == 0 {
		return err
	}
	type planned struct {
		wf    *db.Workflow
		fires []fire
		next  *time.Time
	}
	var plans []planned
	for i := range wfs {
		wf := &wfs[i]
		sch, err := schedule.Parse(schedule.Spec{Type: wf.ScheduleType, Expression: wf.ScheduleExpression, TimeZone: wf.TimeZone})
		if err != nil {
			l.s.log.Error("trigger: workflow has an invalid schedule; it will not fire until fixed", "workflow", wf.ID, "err", err)
			plans = append(plans, planned{wf: wf})
			continue
		}
		fires, next, missed := plan(due{next: *wf.NextTriggerAt, typ: wf.ScheduleType, policy: wf.MisfirePolicy}, sch, now, until,
			l.s.cfg.MisfireThreshold, l.s.cfg.FireAllLimit)
		if missed > 0 {
			l.s.log.Info("trigger: workflow missed fires", "workflow", wf.ID, "missed", missed, "policy", wf.MisfirePolicy)
		}
		plans = append(plans, planned{wf: wf, fires: fires, next: next})
	}
	return l.s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		for _, p := range plans {
			ok, err := tx.WorkflowAdvance(ctx, p.wf.ID, *p.wf.NextTriggerAt, p.next)
			if err != nil {
				return err
			}
			if !ok {
				continue // another pass or owner recorded these
			}
			for _, f := range p.fires {
				at := f.at
				trigger := db.TriggerSchedule
				if f.missed {
					trigger = db.TriggerMisfire
				}
				r := &db.WorkflowInstance{AppID: l.app, WorkflowID: p.wf.ID, Version: p.wf.Version, Status: db.WorkflowWaiting,
					TriggerType: trigger, ExpectedTriggerAt: &at, TriggerAt: at, Graph: p.wf.Graph, FailFast: p.wf.FailFast}
				if _, err := tx.WorkflowInstanceCreate(ctx, r); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
