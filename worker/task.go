package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// TaskContext is what a processor gets: the task, a logger shipped to the
// server, and the means to emit subtasks and to add to a workflow's
// context. As a context.Context it is cancelled when the server stops the
// task, at the instance deadline (protocol.Task.Deadline), and when the
// worker shuts down; context.Cause says which.
type TaskContext interface {
	context.Context

	// Logger writes to the task's log, shown live in the console (levels
	// DEBUG, INFO, WARN, ERROR; every line is shipped unless
	// Config.TaskLogLevel is set), and to the worker's own logger, which
	// prints it only if its own level lets it through.
	Logger() *slog.Logger

	WorkerID() string
	InstanceID() int64
	JobID() int64
	TaskID() int64
	// TaskName is the name given to Map for subtasks, "ROOT" for roots.
	TaskName() string
	// Kind is ROOT, PRE, BROADCAST, POST, MAP or REDUCE (protocol.Kind*).
	Kind() string
	// Attempt is the instance attempt, from 1.
	Attempt() int
	// ExecutionMode is STANDALONE, BROADCAST, MAP or MAP_REDUCE.
	ExecutionMode() string
	// ProcessorType is GO, SHELL, PYTHON or HTTP.
	ProcessorType() string
	// ProcessorSpec is the job's processor field: a GO processor's name,
	// the script text, or the HTTP request as JSON.
	ProcessorSpec() string
	JobParams() string
	// InstanceParams are the parameters given to this run (runJob params,
	// workflow node parameters).
	InstanceParams() string
	// Payload is a MAP subtask's payload: the JSON encoding of the value
	// given to Map.
	Payload() string
	// DecodePayload unmarshals Payload into v.
	DecodePayload(v any) error
	// IsRoot reports whether this is the ROOT task of its instance.
	IsRoot() bool
	// Shard tells a BROADCAST task which share of the work is its own:
	// index from 0 to total-1, one per selected worker (0, 0 for other
	// kinds of task).
	Shard() (index, total int)
	// WorkDir is the worker's work directory (Config.WorkDir).
	WorkDir() string

	// Map emits subtasks of a MAP or MAP_REDUCE instance, from any task
	// (ROOT or MAP, to any depth). Each subtask is JSON-encoded into the
	// payload of a MAP task named name, which the server stores and then
	// dispatches to any worker. Map returns once the server has stored
	// them, or an error when it refused or did not answer within
	// Config.MapTimeout (connected or not). Large calls are sent in several
	// messages; on error, the subtasks before the failing message may be
	// stored already (the error says which).
	Map(subtasks []any, name string) error

	// WorkflowContext is the shared context of the workflow the instance
	// belongs to (empty outside workflows), with this task's additions.
	WorkflowContext() map[string]any
	// SetWorkflowValue adds to the workflow context; additions are sent
	// with the task's final report. value must be JSON-encodable.
	SetWorkflowValue(key string, value any)
	// Upstream are the results of the upstream workflow nodes, by node.
	Upstream() map[string]string
	// WorkflowNode is the workflow run and node the instance runs for;
	// node is "" outside workflows.
	WorkflowNode() (runID int64, node string)

	// Traceparent is the W3C traceparent of the processor's span when the
	// run is traced (docs/tracing.md), for passing on to what the
	// processor calls; "" otherwise. As a context.Context the TaskContext
	// carries that span too (trace.SpanFromContext), so OpenTelemetry
	// instrumentation given it starts child spans.
	Traceparent() string
}

// runningTask is a task between dispatch and the end of its processor.
type runningTask struct {
	task      protocol.Task
	cancel    context.CancelCauseFunc // nil while held
	finalSent bool                    // guarded by Worker.mu: no longer listed as running

	// A task dispatched with a StartAt in the future is held until then
	// (protocol.FeatureStartAt): held is true until its processor starts
	// or it ends unstarted; heldEnd, once set, says how it ends unstarted
	// and wake tells its goroutine. Guarded by Worker.mu.
	held    bool
	heldEnd *heldEnd
	wake    chan struct{}
}

// heldEnd is the final report of a task that ends before it started.
type heldEnd struct {
	status, result, reason string
}

// endHeldLocked ends a held task without running it, unless it started
// or its end is decided already; w.mu is held. It says whether it did.
func (rt *runningTask) endHeldLocked(e heldEnd) bool {
	if !rt.held || rt.heldEnd != nil {
		return false
	}
	rt.heldEnd = &e
	close(rt.wake)
	return true
}

// Why a task's context was cancelled.
var errShutdown = errors.New("worker shutting down")

// errHandedBack cancels the tasks a draining worker did not finish in
// time: they are handed back to run elsewhere.
var errHandedBack = errors.New("handed back: the worker stopped before the task finished; it runs again elsewhere")

type stoppedError struct{ reason string }

func (e *stoppedError) Error() string {
	if e.reason == "" {
		return "stopped by the server"
	}
	return "stopped: " + e.reason
}

type timeoutError struct{ after time.Duration }

func (e *timeoutError) Error() string { return "timed out after " + e.after.String() }

// accept decides, for each task of a dispatch, to run it or to reject it
// with a reason, and starts the accepted ones.
func (w *Worker) accept(d *protocol.Dispatch) *protocol.Ack {
	w.mu.Lock()
	defer w.mu.Unlock()
	ack := &protocol.Ack{OK: true}
	stale := d.Epoch < w.epoch
	if !stale {
		w.epoch = d.Epoch
	}
	for i := range d.Tasks {
		t := &d.Tasks[i]
		reason, full := "", ""
		var p Processor
		switch {
		case d.App != "" && d.App != w.cfg.App:
			reason = fmt.Sprintf("dispatch is for app %q; worker %s serves %q", d.App, w.id, w.cfg.App)
		case stale:
			reason = fmt.Sprintf("stale epoch %d: worker %s has seen epoch %d of app %q", d.Epoch, w.id, w.epoch, w.cfg.App)
		case w.closing:
			reason = fmt.Sprintf("worker %s is shutting down", w.id)
		case w.running[t.TaskID] != nil:
			// Sent again (an ack was lost): it runs already, once.
			ack.Accepted = append(ack.Accepted, t.TaskID)
			continue
		default:
			p, reason = w.lookupLocked(t)
			if reason == "" && w.busy >= w.cfg.Slots {
				reason = fmt.Sprintf("no free slot: worker %s runs %d tasks, its limit", w.id, w.cfg.Slots)
				full = protocol.RejectFull
			}
		}
		if reason != "" {
			ack.Rejected = append(ack.Rejected, protocol.Rejection{TaskID: t.TaskID, Reason: reason, Code: full})
			continue
		}
		ack.Accepted = append(ack.Accepted, t.TaskID)
		w.startLocked(*t, p)
	}
	return ack
}

// startLocked takes a slot for an accepted task and runs it in its own
// goroutine, at once or, when its StartAt is in the future, once that
// comes; w.mu is held. A held task is listed as running and takes its
// slot from now, as the server counts it.
func (w *Worker) startLocked(t protocol.Task, p Processor) {
	rt := &runningTask{task: t}
	w.running[t.TaskID] = rt
	w.busy++
	w.unreported.Add(1)
	if time.Now().Before(t.StartAt) {
		rt.held, rt.wake = true, make(chan struct{})
		go w.hold(rt, p)
		return
	}
	w.launchLocked(rt, p)
}

// hold waits for a held task's StartAt and then starts it, unless it is
// stopped, taken back, handed back by a shutdown, or its deadline comes
// first: then it ends without its processor ever being called, and
// without a RUNNING report (the server never saw it start).
func (w *Worker) hold(rt *runningTask, p Processor) {
	t := &rt.task
	// A deadline that comes no later than the start time ends the task
	// then (a server should not send one): it could not run at all.
	at, timesOut := t.StartAt, !t.Deadline.IsZero() && !t.Deadline.After(t.StartAt)
	if timesOut {
		at = t.Deadline
	}
	if w.waitHeld(rt, at) {
		w.mu.Lock()
		switch {
		case rt.heldEnd != nil: // ended at the same moment
		case w.closing:
			// The worker began stopping at the same moment: it starts no
			// task any more.
			rt.endHeldLocked(handBackBeforeStart(w.shuttingDown()))
		case timesOut:
			rt.endHeldLocked(heldEnd{status: protocol.TaskFailed, reason: protocol.ReasonTimeout,
				result: fmt.Sprintf("timed out before it started: its deadline %s was not after its start time %s",
					t.Deadline.UTC().Format(time.RFC3339Nano), t.StartAt.UTC().Format(time.RFC3339Nano))})
		default:
			rt.held = false
			w.launchLocked(rt, p)
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
	w.endHeld(rt)
}

// waitHeld waits until at, by the wall clock (true), or until the held
// task's end is decided (false). A timer, not a polling loop: one per held
// task, as the held tasks are at most the worker's slots.
func (w *Worker) waitHeld(rt *runningTask, at time.Time) bool {
	timer := time.NewTimer(time.Until(at))
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
			// The timer runs on the monotonic clock, at is a wall time:
			// should the wall clock have been set back meanwhile, wait
			// for the rest, so that the task never starts early.
			if left := time.Until(at); left > 0 {
				timer.Reset(left)
				continue
			}
			return true
		case <-rt.wake:
			return false
		case <-w.tasksCtx.Done():
			// The worker stops without draining (a draining one hands its
			// held tasks back first): a task not begun is handed back too.
			w.mu.Lock()
			rt.endHeldLocked(handBackBeforeStart(w.shuttingDown()))
			w.mu.Unlock()
			return false
		}
	}
}

// handBackBeforeStart is how a held task is given back: the server runs
// it again elsewhere without counting a retry.
func handBackBeforeStart(reason string) heldEnd {
	return heldEnd{status: protocol.TaskFailed, reason: protocol.ReasonHandedBack,
		result: "handed back before it started: " + reason}
}

// endHeld reports the end of a task that never started, in the order
// execute keeps: the slot freed, the final report queued, and only then
// the task no longer listed as running.
func (w *Worker) endHeld(rt *runningTask) {
	t := &rt.task
	w.mu.Lock()
	e := *rt.heldEnd
	w.busy--
	w.mu.Unlock()
	w.report(protocol.TaskReport{TaskID: t.TaskID, InstanceID: t.InstanceID, Status: e.status, Reason: e.reason,
		Result: protocol.Truncate(e.result, protocol.MaxResultBytes), At: time.Now()}, 0)
	w.mu.Lock()
	rt.finalSent = true
	w.mu.Unlock()
	w.unreported.Done()
	w.log.Info("task ended before it started", "instance", t.InstanceID, "task", t.TaskID, "kind", t.Kind,
		"status", e.status, "result", protocol.Truncate(e.result, 200))
	w.mu.Lock()
	delete(w.running, t.TaskID)
	w.mu.Unlock()
}

// launchLocked starts a task's processor in its own goroutine; w.mu is
// held and the task is registered already (startLocked).
func (w *Worker) launchLocked(rt *runningTask, p Processor) {
	t := rt.task
	start := time.Now()
	ctx, cancel := context.WithCancelCause(w.tasksCtx)
	var stopTimer context.CancelFunc = func() {}
	if !t.Deadline.IsZero() {
		ctx, stopTimer = context.WithDeadlineCause(ctx, t.Deadline,
			&timeoutError{after: max(t.Deadline.Sub(start), 0).Round(time.Millisecond)})
	}
	rt.cancel = cancel
	ctx, span := w.startSpan(ctx, &t)
	tc := &taskContext{Context: ctx, w: w, task: t, span: span}
	tc.logger = slog.New(newTaskHandler(w, t.InstanceID, t.TaskID))
	go func() {
		defer cancel(nil)
		defer stopTimer()
		w.execute(rt, p, tc, start)
	}()
}

// stop cancels the tasks a stop frame names: the task ids given, or with
// none every task of the instance. A stop for tasks the server no longer
// assigns to this worker (after a reconnect) names the tasks alone, with
// instance 0. A named task still held for its start time ends without
// running; with Unstarted, only such tasks end (handed back), and started
// ones run on.
func (w *Worker) stop(s *protocol.Stop) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, rt := range w.running {
		byTask := len(s.TaskIDs) > 0 && slices.Contains(s.TaskIDs, id) && (s.InstanceID == 0 || rt.task.InstanceID == s.InstanceID)
		byInstance := len(s.TaskIDs) == 0 && s.InstanceID != 0 && rt.task.InstanceID == s.InstanceID
		switch {
		case !byTask && !byInstance:
		case s.Unstarted:
			rt.endHeldLocked(handBackBeforeStart(orDefault(s.Reason, "taken back by the server")))
		case rt.held:
			rt.endHeldLocked(heldEnd{status: protocol.TaskStopped,
				result: "stopped before it started: " + orDefault(s.Reason, "stopped by the server")})
		default:
			rt.cancel(&stoppedError{reason: s.Reason})
		}
	}
}

// handBackHeldLocked hands back every task still held for its start time
// (a draining worker starts none of them: they run elsewhere); w.mu is
// held. It returns how many it handed back.
func (w *Worker) handBackHeldLocked(reason string) int {
	n := 0
	for _, rt := range w.running {
		if rt.endHeldLocked(handBackBeforeStart(reason)) {
			n++
		}
	}
	return n
}

// shuttingDown is why a stopping worker hands its held tasks back.
func (w *Worker) shuttingDown() string { return fmt.Sprintf("worker %s is shutting down", w.id) }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// outcome is what a processor call gave back.
type outcome struct {
	res       Result
	err       error
	panicked  any
	stack     []byte
	abandoned bool // did not return in time after its context was done
}

// execute runs the processor and reports the task's progress: RUNNING,
// then its final status.
func (w *Worker) execute(rt *runningTask, p Processor, tc *taskContext, start time.Time) {
	t := &rt.task
	log := w.log.With("instance", t.InstanceID, "task", t.TaskID, "kind", t.Kind)
	log.Debug("task started", "processor", t.Processor)
	w.report(protocol.TaskReport{TaskID: t.TaskID, InstanceID: t.InstanceID, Status: protocol.TaskRunning, At: start}, 0)

	done := make(chan outcome, 1)
	go func() { done <- call(p, tc) }()
	var out outcome
	select {
	case out = <-done:
	case <-tc.Done():
		// Give the processor a while to notice; then report anyway so the
		// instance does not hang on a processor that ignores its context.
		abandon := time.NewTimer(w.cfg.AbandonAfter)
		select {
		case out = <-done:
		case <-abandon.C:
			out.abandoned = true
		}
		abandon.Stop()
	}
	if out.panicked != nil {
		tc.Logger().Error(fmt.Sprintf("panic: %v\n%s", out.panicked, out.stack))
	}
	status, result, reason := classify(tc, out)
	wf, wfBytes, err := tc.additions()
	if err != nil && status == protocol.TaskSucceeded {
		status, result = protocol.TaskFailed, err.Error()
	}
	if !out.abandoned {
		// The slot is free from here: the server frees it when it reads
		// the report, and may send the next task before this goroutine
		// reaches its end.
		w.mu.Lock()
		w.busy--
		w.mu.Unlock()
	}
	endSpan(tc.span, status, result)
	w.report(protocol.TaskReport{
		TaskID: t.TaskID, InstanceID: t.InstanceID, Status: status, Reason: reason,
		Result: protocol.Truncate(result, protocol.MaxResultBytes), At: time.Now(), WorkflowContext: wf,
	}, wfBytes)
	// Only once the final report is queued (and so listed among the unacked
	// finals) does the task leave the heartbeat's running list: set before,
	// a heartbeat in between would list it nowhere, and the server would
	// take the task for lost and run it again.
	w.mu.Lock()
	rt.finalSent = true
	w.mu.Unlock()
	w.unreported.Done()
	level := slog.LevelInfo
	if t.Kind == protocol.KindMap && status == protocol.TaskSucceeded {
		level = slog.LevelDebug // map subtasks can be very many
	}
	log.Log(context.Background(), level, "task ended", "status", status, "took", time.Since(start).Round(time.Millisecond),
		"result", protocol.Truncate(result, 200))
	if out.abandoned {
		log.Warn("the processor did not return after its context ended; its slot stays taken until it does")
		<-done
	}
	w.mu.Lock()
	delete(w.running, t.TaskID)
	if out.abandoned {
		w.busy--
	}
	w.mu.Unlock()
}

// report queues a report; it waits for room rather than drop it.
func (w *Worker) report(r protocol.TaskReport, wfBytes int) {
	if err := w.out.addReport(r, wfBytes); err != nil {
		w.log.Error("task report lost: the worker has stopped", "task", r.TaskID, "status", r.Status)
	}
}

// call runs the processor method the task's kind asks for, turning a
// panic into a failure.
func call(p Processor, tc *taskContext) (out outcome) {
	defer func() {
		if v := recover(); v != nil {
			out = outcome{panicked: v, stack: debug.Stack()}
		}
	}()
	switch tc.task.Kind {
	case protocol.KindPre:
		bp, ok := p.(BroadcastProcessor)
		if !ok {
			return outcome{res: Result{Message: "no pre-process"}}
		}
		return outcome{err: bp.PreProcess(tc)}
	case protocol.KindPost:
		results, err := collect(tc.results())
		if err != nil {
			return outcome{err: err}
		}
		bp, ok := p.(BroadcastProcessor)
		if !ok {
			ok := 0
			for _, r := range results {
				if r.Success {
					ok++
				}
			}
			return outcome{res: Result{Message: fmt.Sprintf("no post-process; %d of %d tasks succeeded", ok, len(results))}}
		}
		res, err := bp.PostProcess(tc, results)
		return outcome{res: res, err: err}
	case protocol.KindReduce:
		if sr, ok := p.(StreamReducer); ok {
			res, err := sr.ReduceStream(tc, tc.results())
			return outcome{res: res, err: err}
		}
		mr, ok := p.(MapReduceProcessor)
		if !ok {
			return outcome{err: fmt.Errorf("processor %q cannot reduce: it implements neither worker.MapReduceProcessor (Reduce) nor worker.StreamReducer (ReduceStream), one of which a MAP_REDUCE job needs", tc.task.Processor)}
		}
		results, err := collect(tc.results())
		if err != nil {
			return outcome{err: err}
		}
		res, err := mr.Reduce(tc, results)
		return outcome{res: res, err: err}
	default: // ROOT, BROADCAST, MAP
		res, err := p.Process(tc)
		return outcome{res: res, err: err}
	}
}

// classify turns an outcome into a final status and result. A stop or a
// timeout decides over what the processor returned: the server has already
// moved on.
func classify(tc *taskContext, out outcome) (status, result, reason string) {
	if tc.Err() != nil {
		cause := context.Cause(tc)
		var stopped *stoppedError
		var timedOut *timeoutError
		switch {
		case errors.Is(cause, errHandedBack) && (out.err != nil || out.panicked != nil || out.abandoned):
			// (A task that succeeded all the same keeps its result, below.)
			return protocol.TaskFailed, withOutput(errHandedBack.Error(), out), protocol.ReasonHandedBack
		case errors.As(cause, &stopped):
			return protocol.TaskStopped, withOutput(stopped.Error(), out), ""
		case errors.As(cause, &timedOut):
			return protocol.TaskFailed, withOutput(timedOut.Error(), out), protocol.ReasonTimeout
		case out.abandoned:
			return protocol.TaskFailed, "worker shutting down; the task did not return", ""
		case out.panicked == nil && out.err != nil:
			return protocol.TaskFailed, withOutput("worker shutting down: "+out.err.Error(), out), ""
		}
	}
	switch {
	case out.panicked != nil:
		return protocol.TaskFailed, fmt.Sprintf("panic: %v", out.panicked), ""
	case out.err != nil:
		return protocol.TaskFailed, withOutput(out.err.Error(), out), ""
	default:
		return protocol.TaskSucceeded, out.res.Message, ""
	}
}

// withOutput follows the reason a task did not succeed with the message
// its processor returned all the same (a script's last output lines), so
// a failed, stopped or timed-out task's result says both why it ended and
// how far it got.
func withOutput(reason string, out outcome) string {
	if strings.TrimSpace(out.res.Message) == "" {
		return reason
	}
	return reason + "\n" + out.res.Message
}

// taskContext implements TaskContext.
type taskContext struct {
	context.Context
	w      *Worker
	task   protocol.Task
	logger *slog.Logger
	// span is the processor's span; nil when the task is not traced.
	span trace.Span

	mu  sync.Mutex
	add map[string]any // SetWorkflowValue additions
	// maps counts the task's map messages: with the task id it keys each
	// one, so a task run again (its worker lost) that maps the same
	// subtasks again has them stored once.
	maps int
}

func (c *taskContext) Logger() *slog.Logger        { return c.logger }
func (c *taskContext) WorkerID() string            { return c.w.id }
func (c *taskContext) InstanceID() int64           { return c.task.InstanceID }
func (c *taskContext) JobID() int64                { return c.task.JobID }
func (c *taskContext) TaskID() int64               { return c.task.TaskID }
func (c *taskContext) TaskName() string            { return c.task.Name }
func (c *taskContext) Kind() string                { return c.task.Kind }
func (c *taskContext) Attempt() int                { return c.task.Attempt }
func (c *taskContext) ExecutionMode() string       { return c.task.ExecutionMode }
func (c *taskContext) ProcessorType() string       { return c.task.ProcessorType }
func (c *taskContext) ProcessorSpec() string       { return c.task.Processor }
func (c *taskContext) JobParams() string           { return c.task.JobParams }
func (c *taskContext) InstanceParams() string      { return c.task.Params }
func (c *taskContext) Payload() string             { return c.task.Payload }
func (c *taskContext) IsRoot() bool                { return c.task.Kind == protocol.KindRoot }
func (c *taskContext) Shard() (int, int)           { return c.task.ShardIndex, c.task.ShardTotal }
func (c *taskContext) WorkDir() string             { return c.w.cfg.WorkDir }
func (c *taskContext) Upstream() map[string]string { return maps.Clone(c.task.Upstream) }
func (c *taskContext) Traceparent() string         { return traceparentOf(c) }

func (c *taskContext) DecodePayload(v any) error {
	if err := json.Unmarshal([]byte(c.task.Payload), v); err != nil {
		return fmt.Errorf("decoding the payload of task %d: %w", c.task.TaskID, err)
	}
	return nil
}

func (c *taskContext) WorkflowNode() (int64, string) {
	return c.task.WorkflowRunID, c.task.WorkflowNode
}

func (c *taskContext) WorkflowContext() map[string]any {
	m := maps.Clone(c.task.WorkflowContext)
	if m == nil {
		m = map[string]any{}
	}
	c.mu.Lock()
	maps.Copy(m, c.add)
	c.mu.Unlock()
	return m
}

func (c *taskContext) SetWorkflowValue(key string, value any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.add == nil {
		c.add = map[string]any{}
	}
	c.add[key] = value
}

// additions encodes the workflow context additions for the final report,
// with their estimated size. An addition that cannot be encoded, or too
// many bytes of them, fail the task: silently losing them would break the
// workflow downstream.
func (c *taskContext) additions() (map[string]any, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.add) == 0 {
		return nil, 0, nil
	}
	out := make(map[string]any, len(c.add))
	size := 0
	for k, v := range c.add {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, 0, fmt.Errorf("workflow context value %q cannot be encoded as JSON: %w", k, err)
		}
		out[k] = json.RawMessage(raw)
		size += jsonLen(k) + len(raw) + 1
	}
	if limit := protocol.MaxFrameBytes / 4; size > limit {
		return nil, 0, fmt.Errorf("workflow context additions take %d bytes; at most %d", size, limit)
	}
	return out, size, nil
}

// mapPayloadLimit bounds one subtask's encoded payload.
const mapPayloadLimit = protocol.MaxPayloadBytes

// nextMapKey keys the task's next map message: "t<task id>/<n>" for its
// n-th, whichever worker runs it and however often.
func (c *taskContext) nextMapKey() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.maps++
	return fmt.Sprintf("t%d/%d", c.task.TaskID, c.maps)
}

func (c *taskContext) Map(subtasks []any, name string) error {
	t := &c.task
	switch {
	case t.ExecutionMode != "MAP" && t.ExecutionMode != "MAP_REDUCE":
		return fmt.Errorf("map: only MAP and MAP_REDUCE jobs can emit subtasks; task %d belongs to a %s job", t.TaskID, orUnknown(t.ExecutionMode))
	case t.Kind != protocol.KindRoot && t.Kind != protocol.KindMap:
		return fmt.Errorf("map: a %s task cannot emit subtasks; only ROOT and MAP tasks can", t.Kind)
	case name == "" || len(name) > 255:
		return errors.New("map: the subtask name must be 1 to 255 characters")
	case len(subtasks) == 0:
		return nil
	}
	var chunks []*mapChunk
	var cur *mapChunk
	for i, s := range subtasks {
		raw, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("map: subtask %d cannot be encoded as JSON: %w", i, err)
		}
		p := string(raw)
		if len(p) > mapPayloadLimit {
			return fmt.Errorf("map: subtask %d is %d bytes encoded; a subtask's payload is at most %d (protocol.MaxPayloadBytes)", i, len(p), mapPayloadLimit)
		}
		size := jsonLen(p) + 1
		if cur == nil || len(cur.m.Payloads) == protocol.MaxBatch || cur.size+size > defaultBatchBytes {
			cur = &mapChunk{
				m:     protocol.Map{InstanceID: t.InstanceID, ParentTaskID: t.TaskID, Name: name, Key: c.nextMapKey()},
				first: i, size: 200 + jsonLen(name), done: make(chan error, 1),
			}
			chunks = append(chunks, cur)
		}
		cur.m.Payloads = append(cur.m.Payloads, p)
		cur.size += size
	}
	return c.w.sendMap(c, chunks)
}

// sendMap queues a Map call's chunks and waits for the server to store
// each, for the task's context, or until the server stored none of this
// worker's map chunks for Config.MapTimeout. A server that is storing
// them, only slower than the worker's tasks map (thousands of subtasks
// queued from many tasks at once), holds the call back rather than
// failing it: that is the back-pressure. A server that stores nothing
// for that long is down or cut off, and the task fails saying how far
// its subtasks got.
func (w *Worker) sendMap(ctx context.Context, chunks []*mapChunk) error {
	if err := w.out.addMap(chunks); err != nil {
		return fmt.Errorf("map: %w", err)
	}
	timer := time.NewTimer(w.cfg.MapTimeout)
	defer timer.Stop()
	progress := w.out.mapProgress()
	// stored says what became of the subtasks before chunk i.
	stored := func(i int, sure bool) string {
		switch {
		case i == 0 && sure:
			return "none was stored"
		case i == 0:
			return "they may or may not be stored"
		case sure:
			return "subtasks 0.." + strconv.Itoa(chunks[i].first-1) + " were stored"
		}
		return "subtasks 0.." + strconv.Itoa(chunks[i].first-1) + " were stored, later ones may or may not be"
	}
	for i := 0; i < len(chunks); {
		select {
		case err := <-chunks[i].done:
			if err != nil {
				w.out.abandon(chunks[i+1:])
				return fmt.Errorf("map: %w (%s)", err, stored(i, true))
			}
			i++
		case <-progress:
			progress = w.out.mapProgress()
			timer.Reset(w.cfg.MapTimeout) // no stale fire to drain since Go 1.23
		case <-ctx.Done():
			w.out.abandon(chunks[i:])
			return fmt.Errorf("map: %w (%s)", context.Cause(ctx), stored(i, false))
		case <-timer.C:
			w.out.abandon(chunks[i:])
			return fmt.Errorf("map: the server did not confirm storing the subtasks within %s (connected: %t; %s)",
				w.cfg.MapTimeout, w.isConnected(), stored(i, false))
		}
	}
	return nil
}
