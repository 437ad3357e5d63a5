package execution

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// commit writes the batch in one transaction, then sends and acks. If the
// write fails, nothing is sent, every ack carries the error (workers
// re-send), and the app's state is re-read from the database.
func (a *Actor) commit(runCtx context.Context, c *changes) {
	ctx := runCtx
	if ctx.Err() != nil {
		// The lease is gone; the next owner redoes this batch from the
		// database and from what workers re-send.
		ctx = context.WithoutCancel(ctx)
	}
	c.coalesce()
	var fires *fireSpans
	if a.deps.Tracer.On() {
		fires = a.startFires(c, db.Stamp(a.st.now))
	}
	// Tasks ended by this batch end their spans, written or not.
	defer endTaskSpans(c.spans)
	var lost lostRaces
	if a.beforeWrite != nil {
		n := 0
		for _, list := range c.dispatch {
			n += len(list)
		}
		a.beforeWrite(runCtx, n)
		if runCtx.Err() != nil {
			ctx = context.WithoutCancel(runCtx)
		}
	}
	err := a.write(ctx, c, &lost)
	fires.endFires(err, lost.fires)
	if err != nil {
		// The commit may have happened all the same (the connection died
		// after COMMIT was sent): the batch's outcome is unknown, not
		// failed. Nothing of it is sent; the adopt below reads what was
		// written, and sends what it finds dispatched but never sent.
		a.log.Error("execution: writing a batch failed, or its outcome is unknown; re-reading the app", "err", err)
		a.holdUnsent(c)
		for _, ack := range c.acks {
			if ack != nil {
				ack(err)
			}
		}
		a.unfired(c.fired)
		if errors.Is(err, context.Canceled) && runCtx.Err() != nil {
			return
		}
		a.stale = true // until an adopt has read the app back
		if err := a.adopt(runCtx); err != nil {
			a.log.Error("execution: re-reading the app failed; trying again before the next batch", "err", err)
		}
		return
	}
	defer fires.endDispatches(err, lost.fires)
	a.st.unfire(c, lost.fires)
	a.st.unqueue(lost.ids) // held fires someone else moved first
	a.st.unpool(lost.ids)
	a.st.committed(c)
	for _, ack := range c.acks {
		if ack != nil {
			ack(nil)
		}
	}
	a.Committed.Signal(struct{}{})
	// The batch is durable, so its frames go out even when the actor is
	// stopping. Not sent, a committed dispatch would be adopted by the next
	// owner as on its worker, which never had it, and fail WORKER_LOST when
	// the worker says it does not run it: a graceful stop (SIGTERM) that
	// fell on a second's fires lost them. Sending late is safe: a stop
	// for shutdown holds the lease until the app's parts have stopped, and
	// after a lost lease a worker refuses a dispatch of an epoch older than
	// one it has seen (protocol.md §8.2), so a frame that reaches it after
	// the new owner's welcome is refused.
	sendCtx := runCtx
	if runCtx.Err() != nil {
		sendCtx = context.WithoutCancel(runCtx)
	}
	for wid, list := range c.dispatch {
		a.sendDispatch(sendCtx, wid, list)
	}
	for _, s := range c.stops {
		_ = a.send.Send(s.worker, protocol.TypeStop, &s.stop, nil)
	}
	if runCtx.Err() != nil {
		// Stopped meanwhile: the next owner adopts what was written and
		// tells the rest.
		return
	}
	if len(lost.ids) > 0 {
		// Someone else moved these instances (the API stopped one): look
		// at the next batch, which comes at once.
		a.Kick()
	}
	if len(c.notify) > 0 && a.deps.Notifier != nil {
		a.deps.Notifier.InstancesChanged(a.st.app, c.notify)
	}
	if c.wake && a.waker != nil {
		a.waker.Wake()
	}
	if len(c.runs) > 0 && a.runs != nil {
		a.runs.WorkflowInstancesChanged(c.runs)
	}
	if len(c.downstream) > 0 && a.runs != nil {
		a.runs.WorkflowInstancesChanged(c.downstream) // they start now
	}
	if a.deps.Alarmer != nil {
		for _, f := range c.started {
			a.deps.Alarmer.InstanceStarted(a.st.name, f.job, f.in)
		}
		for _, f := range c.failures {
			a.deps.Alarmer.InstanceEnded(a.st.name, f.job, f.in)
		}
		for _, f := range c.successes {
			a.deps.Alarmer.InstanceEnded(a.st.name, f.job, f.in)
		}
	}
}

// sendDispatch sends a worker its tasks in one frame; the ack comes back as
// an event.
func (a *Actor) sendDispatch(ctx context.Context, wid string, list []*task) {
	if len(list) == 0 {
		return
	}
	var specs []protocol.Task
	var ids []int64
	size := 0
	flush := func() {
		if len(specs) == 0 {
			return
		}
		body := &protocol.Dispatch{App: a.st.name, Epoch: a.st.epoch, Tasks: specs}
		sent := ids
		_ = a.send.Send(wid, protocol.TypeDispatch, body, func(ack *protocol.Ack, err error) {
			a.post(event{dispatched: &dispatchResult{worker: wid, tasks: sent, ack: ack, err: err}})
		})
		specs, ids, size = nil, nil, 0
	}
	var refused []protocol.Rejection
	w := a.st.workers[wid]
	var now time.Time
	if w != nil && w.startAt {
		now = a.cfg.Clock.Now()
	}
	for _, t := range list {
		spec := a.st.taskSpec(t)
		if at := a.st.startAt(t, w, now); !at.IsZero() {
			// Dispatched ahead: the worker holds it until its fire's time.
			spec.StartAt = at
			a.st.holdUntil(t, at)
		}
		if a.deps.Tracer.On() {
			a.startTask(t, wid, &spec)
		}
		if t.Kind == protocol.KindPost || t.Kind == protocol.KindReduce {
			if w := a.st.workers[wid]; w != nil && w.pagedResults {
				spec.ResultsPaged, spec.ResultCount = true, t.inst.succeeded+t.inst.failed
			} else {
				spec.Results = a.results(ctx, t)
			}
		}
		n := specSize(&spec)
		if n > maxDispatchBytes {
			refused = append(refused, protocol.Rejection{TaskID: t.ID, Reason: fmt.Sprintf(
				"the task takes %d bytes to send (its script, parameters, payload and results); a dispatch frame holds at most %d", n, maxDispatchBytes)})
			continue
		}
		if size+n > maxDispatchBytes {
			flush() // several frames rather than one too large to send
		}
		specs, ids, size = append(specs, spec), append(ids, t.ID), size+n
	}
	flush()
	if len(refused) > 0 {
		// Failed as refused, the way a worker's refusal is.
		go a.post(event{dispatched: &dispatchResult{worker: wid, ack: &protocol.Ack{OK: true, Rejected: refused}}})
	}
}

// maxDispatchBytes bounds one dispatch frame's tasks, well inside the
// frame limit for the JSON around them.
const maxDispatchBytes = protocol.MaxFrameBytes * 3 / 4

// specSize estimates a task's encoded size from its variable parts.
func specSize(t *protocol.Task) int {
	n := 512 + len(t.Processor) + len(t.JobParams) + len(t.Params) + len(t.Payload)
	for _, r := range t.Results {
		n += 64 + len(r.Name) + len(r.Result)
	}
	if len(t.WorkflowContext) > 0 || len(t.Upstream) > 0 {
		if b, err := json.Marshal(t.WorkflowContext); err == nil {
			n += len(b)
		}
		for k, v := range t.Upstream {
			n += len(k) + len(v) + 8
		}
	}
	return n
}

// results are the finished subtasks a POST or REDUCE task works on.
func (a *Actor) results(ctx context.Context, t *task) []protocol.TaskResult {
	rows, err := a.deps.Store.TaskListResults(ctx, t.inst.ID, t.inst.Attempt, resultKinds(t.Kind))
	if err != nil {
		a.log.Error("execution: reading task results", "instance", t.inst.ID, "err", err)
		return nil
	}
	return toResults(rows)
}

// lostRaces are the instance transitions of a batch that did not apply:
// someone else moved the instance first (the API stopped it, a misfire
// policy canceled it, another owner). fires are those that were fires
// (WAITING → DISPATCHED): their tasks were neither created nor may be sent.
type lostRaces struct {
	ids   []int64
	fires map[int64]bool
}

// write applies the batch's changes in one transaction, and skips the
// database entirely when the batch changed nothing (an idle app's check
// tick, a heartbeat).
func (a *Actor) write(ctx context.Context, c *changes, lost *lostRaces) error {
	if c.empty() {
		return nil
	}
	return a.deps.Store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		*lost = lostRaces{}
		moved, err := tx.InstanceTransitionMany(ctx, c.inst)
		if err != nil {
			return err
		}
		movedSet := make(map[int64]bool, len(moved))
		for _, id := range moved {
			movedSet[id] = true
		}
		if err := a.startDownstream(ctx, tx, c, movedSet); err != nil {
			return err
		}
		for _, tr := range c.inst {
			if movedSet[tr.ID] {
				continue
			}
			lost.ids = append(lost.ids, tr.ID)
			if tr.From == db.StatusWaiting && tr.To == db.StatusDispatched {
				if lost.fires == nil {
					lost.fires = map[int64]bool{}
				}
				lost.fires[tr.ID] = true
			}
		}
		if _, err := tx.TaskTransitionMany(ctx, c.task); err != nil {
			return err
		}
		if len(c.newTasks) > 0 {
			// The first task of a fire that lost its race is not created:
			// the instance is not the actor's to run.
			rows := make([]db.Task, 0, len(c.newTasks))
			created := make([]*task, 0, len(c.newTasks))
			for _, t := range c.newTasks {
				if !lost.fires[t.inst.ID] {
					rows, created = append(rows, t.Task), append(created, t)
				}
			}
			if err := tx.TaskCreateMany(ctx, rows); err != nil {
				return err
			}
			for i, t := range created {
				t.ID = rows[i].ID
			}
		}
		// After the tasks held in memory, so that the backlog's ids are
		// above every id the instance's cursor has passed.
		if err := tx.TaskCreateManyChunked(ctx, c.backlog); err != nil {
			return err
		}
		for _, id := range c.stopWaiting {
			if err := tx.TaskStopWaiting(ctx, id.id, id.attempt, db.Stamp(a.st.now)); err != nil {
				return err
			}
		}
		if err := tx.AttemptUpsertMany(ctx, c.attempts); err != nil {
			return err
		}
		if err := tx.MapRequestCreateMany(ctx, c.mapRequests); err != nil {
			return err
		}
		for _, r := range c.retries {
			if _, err := tx.InstanceRetry(ctx, r.id, r.from, r.attempt, r.at, r.reason, nil); err != nil {
				return err
			}
		}
		for _, r := range c.rearms {
			if err := tx.JobSetNextIfUnset(ctx, r.job, r.at); err != nil {
				return err
			}
		}
		for id, out := range c.wfContext {
			if err := tx.InstanceSetWorkflowOutput(ctx, id, out); err != nil {
				return err
			}
		}
		if err := tx.InstanceSetNoWorkerMany(ctx, c.noWorker); err != nil {
			return err
		}
		if err := tx.InstanceSetPoolMany(ctx, c.pools); err != nil {
			return err
		}
		for _, id := range c.stoppedInDB {
			if _, err := tx.TaskStopByInstance(ctx, id.id, id.attempt, db.StatusStopped); err != nil {
				return err
			}
		}
		return nil
	})
}

// startDownstream records, in the batch's transaction, a run of each
// workflow linked downstream of a job whose instance succeeded in it (and
// moved): each success starts each exactly once, whatever fail-over
// follows. Only jobs a workflow names upstream are looked up.
func (a *Actor) startDownstream(ctx context.Context, tx *db.Store, c *changes, moved map[int64]bool) error {
	c.downstream = c.downstream[:0]
	for i := range c.upstream {
		in := &c.upstream[i]
		if !moved[in.ID] {
			continue
		}
		started, err := tx.WorkflowLinkStart(ctx, 0, 0, in.JobID, in.ID, func(context.Context) (map[string]any, error) {
			return map[string]any{"type": "JOB", "jobId": strconv.FormatInt(in.JobID, 10),
				"instanceId": strconv.FormatInt(in.ID, 10), "result": in.Result}, nil
		}, db.Stamp(a.st.now))
		if err != nil {
			return err
		}
		for _, r := range started {
			c.downstream = append(c.downstream, r.ID)
		}
	}
	return nil
}
