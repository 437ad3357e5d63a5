package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// check is one rule of docs/protocol.md, tested against the worker.
type check struct {
	name string
	spec string // where the rule is written
	rule string // what is checked, for people
	run  func(k *kit) error
}

// checks run in this order; each starts from a connected worker (starting
// it if need be) and leaves it connected, except where it says.
var checks = []check{
	{"auth", "§5.4", "on an AUTH error the worker stops: it exits, or at least never connects again", checkAuth},
	{"discovery", "§2.1", "asks GET /worker/discover?app=<escaped app>, tries the next server when one is down, asks again after a 503", checkDiscovery},
	{"hello", "§4 §5.1", "the first frame is hello (id ≥ 1): the app, a workerId, protocol \"1\", the settings' slots and tags, its processors, the secret, metrics, no running tasks", checkHello},
	{"worker-id", "§5.1 §12", "another process has another workerId", checkWorkerID},
	{"jobs", "§5.1", "declares the jobs of JOBWHEEL_JOBS_FILE in hello (jobSet, jobs, as given); a new process declares a changed set as changed; a reconnect declares again; a hello refused with BAD_FRAME is retried; a set without jobs is still named (its jobs are disabled)", checkJobs},
	{"ping", "§2.2", "answers a websocket ping with a pong", checkPing},
	{"heartbeat", "§7", "heart-beats every welcome.heartbeatMs (never silent for 3 intervals), with no id, with metrics", checkHeartbeat},
	{"dispatch.ack", "§8.3", "answers a dispatch with one ack listing every task, accepted or rejected with a reason (unknown processor, type or kind)", checkDispatchAck},
	{"dispatch.app", "§8.1", "rejects the tasks of a dispatch for another app", checkDispatchApp},
	{"dispatch.slots", "§8.3", "rejects tasks beyond its slots", checkSlots},
	{"dispatch.twice", "§6.4 §8.3", "accepts a task dispatched again, without running it twice", checkTwice},
	{"epoch", "§8.2", "rejects dispatches of an epoch older than the newest seen, and raises it on a newer one", checkEpoch},
	{"report.succeeded", "§8.4 §9 §12", "RUNNING, then SUCCEEDED with the result; the task's log lines with instance, task, increasing seq, level and time", checkSucceeded},
	{"traceparent", "§8.1 §8.5", "runs a task whatever its traceparent: a valid one, and a malformed one (ignored), both SUCCEEDED", checkTraceparent},
	{"report.failed", "§9", "a processor's error: RUNNING, then FAILED with the error as the result", checkFailed},
	{"deadline", "§8.4", "at its deadline a task is cancelled and reported FAILED with reason TIMEOUT", checkDeadline},
	{"logs.before-final", "§6.5 rule 3", "a task's final report waits until its log lines are acknowledged", checkLogsBeforeFinal},
	{"running.until-acked", "§6.5 rule 4 §7.3", "heartbeats list a task from its acceptance until its final report is acknowledged", checkRunningUntilAcked},
	{"resend", "§6.5 rule 1 §6.4", "after a connection is lost with acks outstanding: the same workerId, hello.running lists held tasks, the same lines (same seq) and reports are sent again", checkResend},
	{"resend.refused", "§6.3 §6.5 rule 4", "a refused logs message and a refused final report are sent again (same seq), the task listed meanwhile", checkResendRefused},
	{"stop.instance", "§10", "a stop naming an instance is acknowledged and stops its tasks (STOPPED)", checkStopInstance},
	{"stop.tasks", "§10", "a stop naming tasks stops those and no other", checkStopTasks},
	{"stop.instance0", "§10", "a stop with instanceId 0 stops the tasks named", checkStopInstance0},
	{"map", "§11", "map messages carry instance, parent task, name, payloads and a key of their own; the task waits for the ack", checkMap},
	{"map.resend", "§6.4 §11", "a map whose ack was lost is sent again with the same key and payloads", checkMapResend},
	{"map.kinds", "§8.1", "MAP tasks get their payload, REDUCE tasks the results", checkMapKinds},
	{"results.paged", "§8.1 §11.1 §15", "names results.paged in hello; a REDUCE dispatched with resultsPaged reads every page of its results (instance, task, the last id as the cursor, a limit of 1 to 1,000), asks again for a page whose answer a lost connection took, and reduces them all", checkResultsPaged},
	{"start.at", "§8.1 §8.6 §15", "names start.at in hello; a task dispatched with startAt 2 s ahead is accepted and listed in heartbeats at once, reports RUNNING no earlier than startAt (its at too), then SUCCEEDED; one whose startAt is past runs at once", checkStartAt},
	{"start.at.stop", "§8.6 §10", "a stop naming a task held for its startAt ends it STOPPED, without RUNNING and without running it", checkStartAtStop},
	{"start.at.takeback", "§8.6 §10", "a stop with unstarted ends a held task FAILED with reason HANDED_BACK, without RUNNING, and leaves a started task it names running", checkStartAtTakeback},
	{"workflow", "§8.1 §9", "a workflow node sees its context and upstream results; its additions ride on its final report", checkWorkflow},
	{"unknown-fields", "§4 §15", "ignores unknown fields in frames, bodies and tasks, and acks it does not expect", checkUnknownFields},
	{"limits", "§14", "sends no frame over 4 MiB and no logs message over 1,000 lines, however much a task logs", checkLimits},
	{"bad-frame", "§3 §5.4", "answers a frame it cannot decode with error BAD_FRAME, closes, connects again", checkBadFrame},
	{"redirect", "§13.1", "on redirect, connects to the server named without discovering, keeping its running tasks", checkRedirect},
	{"redirect.empty", "§13.1", "on a redirect naming no server, discovers again", checkRedirectEmpty},
	{"redirect.backoff", "§13.2", "redirected again and again, backs off instead of looping", checkRedirectBackoff},
	{"reconnect.backoff", "§13.2", "refused with INTERNAL again and again, reconnects after growing, jittered delays", checkReconnectBackoff},
	{"framing", "§3 §4 §12", "every frame so far: JSON text within the bounds, a type a worker may send, report/logs/map with an id not in use; no seq reused", checkFraming},
	{"start.at.drain", "§8.6 §13.3", "on SIGTERM, a task held for its startAt is handed back at once (FAILED, HANDED_BACK, no RUNNING) and the worker exits 0", checkStartAtDrain},
	{"shutdown", "§9 §13.3", "on SIGTERM, running tasks are reported FAILED and the worker exits 0", checkShutdown},
}

// authWindow is how long a worker refused for its secret is watched for
// connecting again.
const authWindow = 3 * time.Second

func checkAuth(k *kit) error {
	defer k.killProcess()
	if err := k.launch("jwa_conformance-wrong-secret", []string{k.srv.eps[0].url}); err != nil {
		return err
	}
	first, err := k.helloAfter(k.procStart, "the hello of a worker given a wrong secret")
	if err != nil {
		return err
	}
	k.authHello = first.hello()
	next := k.rec.wait(k.ctx, first.idx+1, authWindow, func(e *event) bool { return e.is(protocol.TypeHello) || e.kind == evExit })
	switch {
	case next == nil:
		k.note = fmt.Sprintf("still running, but did not connect again within %s (it SHOULD stop)", authWindow)
	case next.kind == evExit:
		k.note = fmt.Sprintf("exited with status %d", next.exitCode)
	default:
		return fmt.Errorf("connected again %s after the AUTH error: a wrong secret does not fix itself", next.at.Sub(first.at).Round(time.Millisecond))
	}
	return nil
}

func isDiscover(e *event) bool { return e.kind == evDiscover }

func checkDiscovery(k *kit) error {
	k.srv.setFail503(1)
	defer k.srv.setFail503(0)
	if err := k.launch(k.secret, k.mainServers()); err != nil {
		return err
	}
	d1, err := k.wait(k.procStart, "a discovery request", isDiscover)
	if err != nil {
		return err
	}
	if d1.app != k.opts.app {
		return fmt.Errorf("asked about app %q; the app is %q (is the name URL-escaped?)", d1.app, k.opts.app)
	}
	d2, err := k.wait(d1.idx+1, "a discovery request again after the 503 answer", isDiscover)
	if err != nil {
		return err
	}
	open, err := k.wait(d2.idx+1, "a websocket connection to the server discovery named", func(e *event) bool { return e.kind == evOpen })
	if err != nil {
		return err
	}
	if open.ep != "A" {
		return fmt.Errorf("connected to server %s; discovery named server A", open.ep)
	}
	if _, err := k.welcomedAfter(k.procStart); err != nil {
		return err
	}
	k.note = "past a dead URL first in JOBWHEEL_SERVERS, and again after a 503"
	return nil
}

func checkHello(k *kit) error {
	if _, err := k.connected(); err != nil {
		return err
	}
	var first *event
	var conn *wconn
	for _, e := range k.rec.since(k.procStart) {
		if e.kind == evOpen && conn == nil {
			conn = e.conn
		}
		if conn != nil && e.conn == conn && e.kind == evFrame {
			first = e
			break
		}
	}
	if first == nil {
		return skipf("no frame on the worker's first connection")
	}
	if first.err != nil {
		return fmt.Errorf("the first frame is bad: %w (%s)", first.err, protocol.Truncate(string(first.raw), 300))
	}
	if first.frame.Type != protocol.TypeHello {
		return fmt.Errorf("the first frame is %s, not hello", first.frame.Type)
	}
	h := first.hello()
	var raw struct {
		Body map[string]json.RawMessage `json:"body"`
	}
	_ = json.Unmarshal(first.raw, &raw)
	var bad []string
	if first.frame.ID < 1 {
		bad = append(bad, "no id (welcome answers it by re)")
	}
	if h.App != k.opts.app {
		bad = append(bad, fmt.Sprintf("app %q, not %q", h.App, k.opts.app))
	}
	if h.Protocol != protocol.Version {
		bad = append(bad, fmt.Sprintf("protocol %q, not %q", h.Protocol, protocol.Version))
	}
	if h.Auth != k.secret {
		bad = append(bad, "auth is not JOBWHEEL_APP_SECRET")
	}
	if h.Slots != k.opts.slots {
		bad = append(bad, fmt.Sprintf("slots %d, not JOBWHEEL_WORKER_SLOTS=%d", h.Slots, k.opts.slots))
	}
	if tags := slices.Sorted(slices.Values(h.Tags)); !slices.Equal(tags, workerTags) {
		bad = append(bad, fmt.Sprintf("tags %q, not JOBWHEEL_WORKER_TAGS=%q", h.Tags, strings.Join(workerTags, ",")))
	}
	for _, p := range kitProcessors {
		if !slices.Contains(h.Processors, p) {
			bad = append(bad, fmt.Sprintf("processor %s not declared", p))
		}
	}
	if len(h.Running) > 0 {
		bad = append(bad, fmt.Sprintf("running %v in a new process", h.Running))
	}
	if m := raw.Body["metrics"]; len(m) == 0 || m[0] != '{' {
		bad = append(bad, "no metrics object")
	}
	if len(bad) > 0 {
		return fmt.Errorf("hello: %s", strings.Join(bad, "; "))
	}
	k.note = fmt.Sprintf("workerId %q, version %q", h.WorkerID, h.Version)
	return nil
}

func checkWorkerID(k *kit) error {
	if k.authHello == nil {
		return skipf("needs the auth check's process")
	}
	c, err := k.connected()
	if err != nil {
		return err
	}
	if id := c.helloOf().WorkerID; id == k.authHello.WorkerID {
		return fmt.Errorf("two processes both said workerId %q: log sequence numbers restart with a process and de-duplicate per workerId", id)
	}
	return nil
}

// jobSet is the set of jobs the jobs check has the worker declare.
const jobSet = "conformance-kit"

func checkJobs(k *kit) error {
	dir, err := os.MkdirTemp("", "jobwheel-conformance-jobs-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	k.jobsFile = filepath.Join(dir, "jobs.json")
	defer func() {
		k.killProcess()
		k.jobsFile = ""
	}()
	nightly := protocol.DeclaredJob{Name: "conformance.nightly", Description: "declared by the conformance kit",
		ScheduleType: "CRON", ScheduleExpression: "0 0 3 * * ?", TimeZone: "Europe/Berlin", ExecutionMode: "STANDALONE",
		Processor: procSucceed, Params: `{"lines": 1}`, MaxInstances: 2, TaskConcurrency: 1, TimeoutMs: 60000,
		InstanceRetries: 1, TaskRetries: 2, OverlapPolicy: "QUEUE", MaxQueued: 3, Priority: -2, RetryDelayMs: 1000,
		RetryBackoff: 1.5, RetryDelayMaxMs: 30000}
	adhoc := protocol.DeclaredJob{Name: "conformance.adhoc", ScheduleType: "API", Processor: procFail}

	// Created: a process declaring two jobs says so in its hello.
	first, err := k.declaring("a process declaring two jobs", nightly, adhoc)
	if err != nil {
		return err
	}
	// A reconnect declares the same again.
	c, err := k.welcomedAfter(first.idx)
	if err != nil {
		return err
	}
	from := k.rec.mark()
	c.drop()
	if err := k.declaredIn(from, "the same process, reconnected", nightly, adhoc); err != nil {
		return err
	}
	if _, err := k.welcomedAfter(from); err != nil {
		return err
	}

	// Updated: a new process with a changed job; the server refuses its
	// first hello with BAD_FRAME naming the job (as it does a declaration
	// it would not accept): the worker connects again, declaring it again.
	changed := nightly
	changed.TimeoutMs, changed.ScheduleExpression = 120000, "0 30 3 * * ?"
	k.srv.setPlan(false, helloAction{code: protocol.CodeBadFrame,
		message: `hello: jobs[0].scheduleExpression: job "conformance.nightly": refused once by the conformance kit`})
	defer k.srv.setPlan(false)
	refused, err := k.declaring("a process declaring a changed job", changed, adhoc)
	if err != nil {
		return err
	}
	if err := k.declaredIn(refused.idx+1, "the hello after the BAD_FRAME refusal", changed, adhoc); err != nil {
		return err
	}
	if _, err := k.welcomedAfter(refused.idx + 1); err != nil {
		return err
	}

	// Disabled: a process declaring the set without jobs still names it.
	last, err := k.declaring("a process declaring no jobs")
	if err != nil {
		return err
	}
	if _, err := k.welcomedAfter(last.idx); err != nil {
		return err
	}
	k.note = "declared, reconnected, changed (after a BAD_FRAME refusal) and emptied"
	return nil
}

// declaring writes the jobs check's declaration, starts a worker process
// with it, and requires its first hello to declare exactly those jobs; it
// returns that hello.
func (k *kit) declaring(what string, jobs ...protocol.DeclaredJob) (*event, error) {
	raw, err := json.Marshal(map[string]any{"set": jobSet, "jobs": append([]protocol.DeclaredJob{}, jobs...)})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(k.jobsFile, raw, 0o600); err != nil {
		return nil, err
	}
	if err := k.launch(k.secret, k.mainServers()); err != nil {
		return nil, err
	}
	e, err := k.helloAfter(k.procStart, "the hello of "+what)
	if err != nil {
		if k.proc.exited() {
			return nil, fmt.Errorf("%w; the worker exited with status %d (did it take JOBWHEEL_JOBS_FILE?)", err, k.proc.code)
		}
		return nil, err
	}
	if h := e.hello(); h != nil && h.JobSet == "" {
		return nil, skipf("the worker does not declare the jobs of JOBWHEEL_JOBS_FILE (jobSet is empty); jobs declared in code are optional, but both SDKs here declare them")
	}
	return e, declared(e, what, jobs)
}

// declaredIn requires the next hello from position from on to declare
// exactly jobs.
func (k *kit) declaredIn(from int, what string, jobs ...protocol.DeclaredJob) error {
	e, err := k.helloAfter(from, "the hello of "+what)
	if err != nil {
		return err
	}
	return declared(e, what, jobs)
}

func declared(e *event, what string, jobs []protocol.DeclaredJob) error {
	h := e.hello()
	if h == nil {
		return fmt.Errorf("the hello of %s is bad: %w (%s)", what, e.err, protocol.Truncate(string(e.raw), 300))
	}
	switch {
	case h.JobSet != jobSet:
		return fmt.Errorf("the hello of %s: jobSet %q, not %q", what, h.JobSet, jobSet)
	case h.JobsDryRun:
		return fmt.Errorf("the hello of %s: jobsDryRun, but the file did not ask for a dry run", what)
	case !slices.Equal(h.Jobs, jobs):
		return fmt.Errorf("the hello of %s declares %s; the file has %s", what, js(h.Jobs), js(jobs))
	}
	return nil
}

func checkPing(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	from := k.rec.mark()
	payload := fmt.Sprintf("conformance-%d", time.Now().UnixNano())
	if err := c.ping(payload); err != nil {
		return err
	}
	_, err = k.wait(from, "a pong", func(e *event) bool { return e.kind == evPong && e.conn == c && e.payload == payload })
	return err
}

func checkHeartbeat(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	const n = 8
	from := k.rec.mark()
	var beats []*event
	_, err = k.wait(from, fmt.Sprintf("%d heartbeats", n), func(e *event) bool {
		if e.conn == c && e.is(protocol.TypeHeartbeat) {
			beats = append(beats, e)
		}
		return len(beats) >= n
	})
	if err != nil {
		return err
	}
	hb := k.opts.heartbeat
	var gaps []time.Duration
	for i := 1; i < len(beats); i++ {
		gaps = append(gaps, beats[i].at.Sub(beats[i-1].at))
	}
	longest := slices.Max(gaps)
	var sum time.Duration
	for _, g := range gaps {
		sum += g
	}
	mean := sum / time.Duration(len(gaps))
	for _, b := range beats {
		var raw struct {
			Body map[string]json.RawMessage `json:"body"`
		}
		_ = json.Unmarshal(b.raw, &raw)
		switch m := raw.Body["metrics"]; {
		case b.frame.ID > 0:
			return fmt.Errorf("a heartbeat with id %d: heartbeats are never answered", b.frame.ID)
		case len(m) == 0 || m[0] != '{':
			return fmt.Errorf("a heartbeat without a metrics object: %s", protocol.Truncate(string(b.raw), 300))
		}
	}
	switch {
	case longest >= protocol.LostAfterBeats*hb:
		return fmt.Errorf("silent for %s between two heartbeats: the server drops a worker silent for %d intervals (%s)",
			longest.Round(time.Millisecond), protocol.LostAfterBeats, protocol.LostAfterBeats*hb)
	case mean < hb/2 || mean > hb*3/2:
		return fmt.Errorf("a heartbeat every %s on average; welcome asked for every %s", mean.Round(time.Millisecond), hb)
	}
	k.note = fmt.Sprintf("every %s on average (asked: %s), longest gap %s", mean.Round(time.Millisecond), hb, longest.Round(time.Millisecond))
	return nil
}

func checkDispatchAck(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	good := k.newTask(procSucceed, jobParams(`{"lines":1}`))
	noProc := k.newTask("conformance.no-such-processor")
	noType := k.newTask("echo hi", func(t *protocol.Task) { t.ProcessorType = "CONFORMANCE_NO_SUCH_TYPE" })
	noKind := k.newTask(procSucceed, func(t *protocol.Task) { t.Kind, t.Name = "CONFORMANCE_NO_SUCH_KIND", "X" })
	from := k.rec.mark()
	ack, err := k.dispatch(c, k.opts.app, k.srv.epoch.Load(), good, noProc, noType, noKind)
	if err != nil {
		return err
	}
	var bad []string
	if !ack.OK {
		bad = append(bad, "ok is false")
	}
	if !slices.Equal(ack.Accepted, []int64{good.TaskID}) {
		bad = append(bad, fmt.Sprintf("accepted %v; want [%d]", ack.Accepted, good.TaskID))
	}
	rejected := map[int64]string{}
	for _, r := range ack.Rejected {
		if _, dup := rejected[r.TaskID]; dup {
			bad = append(bad, fmt.Sprintf("task %d rejected twice", r.TaskID))
		}
		rejected[r.TaskID] = r.Reason
	}
	for _, t := range []protocol.Task{noProc, noType, noKind} {
		reason, ok := rejected[t.TaskID]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("task %d (%s %s, kind %s) not rejected", t.TaskID, t.ProcessorType, t.Processor, t.Kind))
		case strings.TrimSpace(reason) == "":
			bad = append(bad, fmt.Sprintf("task %d rejected without a reason", t.TaskID))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("ack %s: %s", js(ack), strings.Join(bad, "; "))
	}
	if _, err := k.finalIs(from, good.TaskID, protocol.TaskSucceeded); err != nil {
		return err
	}
	for _, t := range []protocol.Task{noProc, noType, noKind} {
		if its := k.reportsOf(from, t.TaskID); len(its) > 0 {
			return fmt.Errorf("rejected task %d was reported %s", t.TaskID, its[0].Status)
		}
	}
	k.note = fmt.Sprintf("reasons: %q", ack.Rejected[0].Reason)
	return nil
}

func checkDispatchApp(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	t := k.newTask(procSucceed, jobParams(`{"lines":1}`))
	ack, err := k.dispatch(c, "conformance-another-app", k.srv.epoch.Load(), t)
	if err != nil {
		return err
	}
	if slices.Contains(ack.Accepted, t.TaskID) || len(ack.Rejected) != 1 {
		return fmt.Errorf("a task of another app: ack %s; want it rejected", js(ack))
	}
	return nil
}

func checkSlots(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	if err := k.idle(c); err != nil {
		return err
	}
	tasks := make([]protocol.Task, k.opts.slots+1)
	for i := range tasks {
		tasks[i] = k.newTask(procBlock)
		tasks[i].InstanceID = tasks[0].InstanceID
	}
	from := k.rec.mark()
	ack, err := k.dispatch(c, k.opts.app, k.srv.epoch.Load(), tasks...)
	if err != nil {
		return err
	}
	defer func() {
		_, _ = k.stop(c, tasks[0].InstanceID, nil)
		for _, id := range ack.Accepted {
			_, _ = k.final(from, id)
		}
	}()
	if len(ack.Accepted) != k.opts.slots || len(ack.Rejected) != 1 || strings.TrimSpace(ack.Rejected[0].Reason) == "" {
		return fmt.Errorf("%d tasks to a worker with %d slots: ack %s; want %d accepted and 1 rejected with a reason",
			len(tasks), k.opts.slots, js(ack), k.opts.slots)
	}
	k.note = fmt.Sprintf("reason: %q", ack.Rejected[0].Reason)
	return nil
}

func checkTwice(k *kit) error {
	t := k.newTask(procBlock)
	c, from, err := k.start(t)
	if err != nil {
		return err
	}
	defer func() { _, _ = k.stop(c, t.InstanceID, nil) }()
	if err := k.running(from, t.TaskID); err != nil {
		return err
	}
	if _, err := k.waitLines(from, t.InstanceID, 1); err != nil {
		return err
	}
	again := k.rec.mark()
	ack, err := k.dispatch(c, k.opts.app, k.srv.epoch.Load(), t)
	if err != nil {
		return err
	}
	if !slices.Contains(ack.Accepted, t.TaskID) {
		return fmt.Errorf("task %d, running, dispatched again: ack %s; want it accepted", t.TaskID, js(ack))
	}
	if e := k.during(again, func(e *event) bool { return hasReport(t.TaskID, false)(e) || hasLineOf(t.InstanceID)(e) }); e != nil {
		return fmt.Errorf("task %d was started again: %s", t.TaskID, protocol.Truncate(string(e.raw), 300))
	}
	if _, err := k.stop(c, t.InstanceID, nil); err != nil {
		return err
	}
	_, err = k.finalIs(from, t.TaskID, protocol.TaskStopped)
	return err
}

func checkEpoch(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	e := k.srv.epoch.Load()
	old := k.newTask(procSucceed, jobParams(`{"lines":1}`))
	ack, err := k.dispatch(c, k.opts.app, e-1, old)
	if err != nil {
		return err
	}
	if slices.Contains(ack.Accepted, old.TaskID) || len(ack.Rejected) != 1 {
		return fmt.Errorf("a dispatch of epoch %d after welcome said %d: ack %s; want it rejected", e-1, e, js(ack))
	}
	newer := k.newTask(procSucceed, jobParams(`{"lines":1}`))
	from := k.rec.mark()
	ack, err = k.dispatch(c, k.opts.app, e+1, newer)
	if err != nil {
		return err
	}
	if !slices.Contains(ack.Accepted, newer.TaskID) {
		return fmt.Errorf("a dispatch of the newer epoch %d: ack %s; want it accepted", e+1, js(ack))
	}
	k.srv.epoch.Store(e + 1)
	if _, err := k.finalIs(from, newer.TaskID, protocol.TaskSucceeded); err != nil {
		return err
	}
	stale := k.newTask(procSucceed, jobParams(`{"lines":1}`))
	ack, err = k.dispatch(c, k.opts.app, e, stale)
	if err != nil {
		return err
	}
	if slices.Contains(ack.Accepted, stale.TaskID) {
		return fmt.Errorf("a dispatch of epoch %d after one of epoch %d: ack %s; want it rejected (the newest epoch seen rises with dispatches)", e, e+1, js(ack))
	}
	k.note = fmt.Sprintf("reason: %q", ack.Rejected[0].Reason)
	return nil
}

func checkSucceeded(k *kit) error {
	t := k.newTask(procSucceed, jobParams(`{"lines":3}`), func(t *protocol.Task) { t.Params = "p-1" })
	from, fin, err := k.runOne(t, protocol.TaskSucceeded)
	if err != nil {
		return err
	}
	var bad []string
	items := k.reportsOf(from, t.TaskID)
	if items[0].Status != protocol.TaskRunning {
		bad = append(bad, fmt.Sprintf("the first report is %s, not RUNNING", items[0].Status))
	}
	if want := "wrote 3 lines; params=p-1"; fin.Result != want {
		bad = append(bad, fmt.Sprintf("result %q; the processor returned %q", fin.Result, want))
	}
	for _, it := range items {
		if it.At.IsZero() || it.InstanceID != t.InstanceID {
			bad = append(bad, fmt.Sprintf("report %s: at %v, instance %d", it.Status, it.At, it.InstanceID))
		}
	}
	lines := k.linesOf(from, t.InstanceID)
	var texts []string
	for i, l := range lines {
		texts = append(texts, l.Text)
		switch {
		case l.TaskID != 0 && l.TaskID != t.TaskID:
			bad = append(bad, fmt.Sprintf("line %d: taskId %d", i, l.TaskID))
		case l.Seq < 1 || i > 0 && l.Seq <= lines[i-1].Seq:
			bad = append(bad, fmt.Sprintf("line %d: seq %d after %d", i, l.Seq, lines[max(i-1, 0)].Seq))
		case l.Level != "INFO" || l.Time.IsZero():
			bad = append(bad, fmt.Sprintf("line %d: level %q, time %v", i, l.Level, l.Time))
		case l.ev.idx > fin.ev.idx:
			bad = append(bad, fmt.Sprintf("line %d arrived after the final report", i))
		}
	}
	if want := []string{"line 1", "line 2", "line 3"}; !slices.Equal(texts, want) {
		bad = append(bad, fmt.Sprintf("log lines %q; want %q", texts, want))
	}
	if len(bad) > 0 {
		return fmt.Errorf("task %d: %s", t.TaskID, strings.Join(bad, "; "))
	}
	return nil
}

func checkTraceparent(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	for _, tp := range []string{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-not-a-trace-context"} {
		t := k.newTask(procSucceed, jobParams(`{"lines":1}`), func(t *protocol.Task) { t.Traceparent = tp })
		from := k.rec.mark()
		if err := k.run(c, t); err != nil {
			return fmt.Errorf("traceparent %q: %w", tp, err)
		}
		if _, err := k.finalIs(from, t.TaskID, protocol.TaskSucceeded); err != nil {
			return fmt.Errorf("traceparent %q: %w", tp, err)
		}
	}
	return nil
}

func checkFailed(k *kit) error {
	t := k.newTask(procFail)
	from, fin, err := k.runOne(t, protocol.TaskFailed)
	if err != nil {
		return err
	}
	if items := k.reportsOf(from, t.TaskID); items[0].Status != protocol.TaskRunning {
		return fmt.Errorf("the first report is %s, not RUNNING", items[0].Status)
	}
	if !strings.Contains(fin.Result, "conformance failure") || fin.Reason == protocol.ReasonTimeout {
		return fmt.Errorf("result %q, reason %q; want the processor's error \"conformance failure\" and no reason", fin.Result, fin.Reason)
	}
	k.note = fmt.Sprintf("result %q", fin.Result)
	return nil
}

func checkDeadline(k *kit) error {
	t := k.newTask(procBlock, func(t *protocol.Task) { t.Deadline = time.Now().Add(time.Second) })
	_, fin, err := k.runOne(t, protocol.TaskFailed)
	if err != nil {
		return err
	}
	if fin.Reason != protocol.ReasonTimeout {
		return fmt.Errorf("FAILED with reason %q; want %q", fin.Reason, protocol.ReasonTimeout)
	}
	k.note = fmt.Sprintf("result %q", fin.Result)
	return nil
}

func checkLogsBeforeFinal(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	k.srv.setHold(c, protocol.TypeLogs)
	defer k.srv.release()
	t := k.newTask(procSucceed, jobParams(`{"lines":5}`))
	from := k.rec.mark()
	if err := k.run(c, t); err != nil {
		return err
	}
	if _, err := k.waitLines(from, t.InstanceID, 5); err != nil {
		return err
	}
	if err := k.running(from, t.TaskID); err != nil {
		return err
	}
	if e := k.during(from, hasReport(t.TaskID, true)); e != nil {
		return fmt.Errorf("task %d's final report came while its log lines were unacknowledged: %s", t.TaskID, protocol.Truncate(string(e.raw), 200))
	}
	k.srv.release()
	_, err = k.finalIs(from, t.TaskID, protocol.TaskSucceeded)
	return err
}

func checkRunningUntilAcked(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	k.srv.setHold(c, protocol.TypeReport)
	defer k.srv.release()
	t := k.newTask(procSucceed, jobParams(`{"lines":1}`))
	from := k.rec.mark()
	if err := k.run(c, t); err != nil {
		return err
	}
	fin, err := k.final(from, t.TaskID)
	if err != nil {
		return err
	}
	n := 0
	if _, err := k.wait(fin.ev.idx+1, "two heartbeats after the final report", func(e *event) bool {
		if e.conn == c && e.is(protocol.TypeHeartbeat) {
			n++
		}
		return n >= 2
	}); err != nil {
		return err
	}
	released := k.rec.mark()
	k.srv.release()
	acked := false
	for _, e := range k.rec.since(from) {
		acked = acked || e.conn == c && e.is(protocol.TypeAck)
		if e.idx < released && acked && e.conn == c && e.is(protocol.TypeHeartbeat) && !slices.Contains(e.heartbeat().Running, t.TaskID) {
			return fmt.Errorf("a heartbeat after task %d was accepted, before its final report was acknowledged, does not list it: the server fails such a task as WORKER_LOST: %s",
				t.TaskID, protocol.Truncate(string(e.raw), 200))
		}
	}
	_, err = k.wait(released, fmt.Sprintf("a heartbeat no longer listing task %d once its final report was acknowledged", t.TaskID), func(e *event) bool {
		return e.conn == c && e.is(protocol.TypeHeartbeat) && !slices.Contains(e.heartbeat().Running, t.TaskID)
	})
	return err
}

func checkResend(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	k.srv.setHold(c, protocol.TypeLogs, protocol.TypeReport)
	defer k.srv.forget()
	t := k.newTask(procSucceed, jobParams(`{"lines":4}`))
	from := k.rec.mark()
	if err := k.run(c, t); err != nil {
		return err
	}
	before, err := k.waitLines(from, t.InstanceID, 4)
	if err != nil {
		return err
	}
	if err := k.running(from, t.TaskID); err != nil {
		return err
	}
	h1 := c.helloOf()
	drop := k.rec.mark()
	c.drop()
	k.srv.forget()
	c2, err := k.welcomedAfter(drop)
	if err != nil {
		return err
	}
	var bad []string
	h2 := c2.helloOf()
	if h2.WorkerID != h1.WorkerID {
		bad = append(bad, fmt.Sprintf("workerId %q after the reconnect, %q before: log seqs de-duplicate per workerId", h2.WorkerID, h1.WorkerID))
	}
	if !slices.Contains(h2.Running, t.TaskID) {
		bad = append(bad, fmt.Sprintf("hello.running %v does not list task %d, whose final report was not acknowledged", h2.Running, t.TaskID))
	}
	fin, err := k.finalIs(drop, t.TaskID, protocol.TaskSucceeded)
	if err != nil {
		return err
	}
	items := k.reportsOf(drop, t.TaskID)
	if items[0].Status != protocol.TaskRunning {
		bad = append(bad, "the RUNNING report, never acknowledged, was not sent again before the final one")
	}
	first := map[int64]string{}
	for _, l := range before {
		first[l.Seq] = l.Text
	}
	again := map[int64]string{}
	for _, l := range k.linesOf(drop, t.InstanceID) {
		if l.ev.idx > fin.ev.idx {
			bad = append(bad, "a log line re-sent after the final report")
			break
		}
		text, ok := first[l.Seq]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("line %q re-sent with a new seq %d: the server would store it twice", l.Text, l.Seq))
		case text != l.Text:
			bad = append(bad, fmt.Sprintf("seq %d re-sent with another text", l.Seq))
		}
		again[l.Seq] = l.Text
	}
	if len(again) != len(first) {
		bad = append(bad, fmt.Sprintf("%d of the %d unacknowledged lines sent again", len(again), len(first)))
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return nil
}

func checkResendRefused(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	t := k.newTask(procSucceed, jobParams(`{"lines":2}`))
	// The refuse function runs on the connection's reader, one frame at a
	// time, with the server's lock held.
	var refusedLines []protocol.LogLine
	var refusedFinal *event
	k.srv.setRefuse(func(e *event) bool {
		if l := e.logs(); l != nil && refusedLines == nil && slices.ContainsFunc(l.Lines, func(ln protocol.LogLine) bool { return ln.InstanceID == t.InstanceID }) {
			refusedLines = l.Lines
			return true
		}
		if refusedFinal == nil && hasReport(t.TaskID, true)(e) {
			refusedFinal = e
			return true
		}
		return false
	})
	defer k.srv.setRefuse(nil)
	from := k.rec.mark()
	if err := k.run(c, t); err != nil {
		return err
	}
	first, err := k.final(from, t.TaskID)
	if err != nil {
		return err
	}
	again, err := k.final(first.ev.idx+1, t.TaskID)
	if err != nil {
		return fmt.Errorf("the refused final report was not sent again: %w", err)
	}
	var bad []string
	if again.Status != first.Status || again.Result != first.Result {
		bad = append(bad, fmt.Sprintf("the final report came back as %s %q; first %s %q", again.Status, again.Result, first.Status, first.Result))
	}
	seen := map[int64]int{}
	for _, l := range k.linesOf(from, t.InstanceID) {
		seen[l.Seq]++
	}
	for _, l := range refusedLines {
		if l.InstanceID == t.InstanceID && seen[l.Seq] < 2 {
			bad = append(bad, fmt.Sprintf("the refused line seq %d (%q) was not sent again", l.Seq, l.Text))
		}
	}
	if len(seen) != 2 {
		bad = append(bad, fmt.Sprintf("%d distinct seqs for the task's 2 lines: a re-sent line must keep its seq", len(seen)))
	}
	for _, e := range k.rec.since(first.ev.idx + 1) {
		if e.idx >= again.ev.idx {
			break
		}
		if e.conn == c && e.is(protocol.TypeHeartbeat) && !slices.Contains(e.heartbeat().Running, t.TaskID) {
			bad = append(bad, fmt.Sprintf("a heartbeat between the refused final report and its re-send does not list task %d", t.TaskID))
			break
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	k.note = fmt.Sprintf("the final report sent again %s after the refusal", again.ev.at.Sub(first.ev.at).Round(time.Millisecond))
	return nil
}

func checkStopInstance(k *kit) error {
	t := k.newTask(procBlock)
	c, from, err := k.start(t)
	if err != nil {
		return err
	}
	if err := k.running(from, t.TaskID); err != nil {
		return err
	}
	ack, err := k.stop(c, t.InstanceID, nil)
	if err != nil {
		return err
	}
	if !ack.OK {
		return fmt.Errorf("stop acknowledged with %s; want ok true", js(ack))
	}
	fin, err := k.finalIs(from, t.TaskID, protocol.TaskStopped)
	if err == nil {
		k.note = fmt.Sprintf("result %q", fin.Result)
	}
	return err
}

func checkStopTasks(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	a := k.newTask(procBlock)
	b := k.newTask(procBlock, func(t *protocol.Task) { t.InstanceID = a.InstanceID })
	from := k.rec.mark()
	if err := k.run(c, a, b); err != nil {
		return err
	}
	defer func() { _, _ = k.stop(c, a.InstanceID, nil) }()
	for _, t := range []protocol.Task{a, b} {
		if err := k.running(from, t.TaskID); err != nil {
			return err
		}
	}
	stop := k.rec.mark()
	if _, err := k.stop(c, a.InstanceID, []int64{a.TaskID}); err != nil {
		return err
	}
	if _, err := k.finalIs(from, a.TaskID, protocol.TaskStopped); err != nil {
		return err
	}
	if e := k.during(stop, hasReport(b.TaskID, true)); e != nil {
		return fmt.Errorf("a stop naming task %d ended task %d too", a.TaskID, b.TaskID)
	}
	if _, err := k.stop(c, a.InstanceID, nil); err != nil {
		return err
	}
	_, err = k.finalIs(from, b.TaskID, protocol.TaskStopped)
	return err
}

func checkStopInstance0(k *kit) error {
	t := k.newTask(procBlock)
	c, from, err := k.start(t)
	if err != nil {
		return err
	}
	defer func() { _, _ = k.stop(c, t.InstanceID, nil) }()
	if err := k.running(from, t.TaskID); err != nil {
		return err
	}
	if _, err := k.stop(c, 0, []int64{t.TaskID}); err != nil {
		return err
	}
	_, err = k.finalIs(from, t.TaskID, protocol.TaskStopped)
	return err
}

func mapTask(k *kit, opts ...func(*protocol.Task)) protocol.Task {
	return k.newTask(procMap, append([]func(*protocol.Task){func(t *protocol.Task) { t.ExecutionMode = "MAP_REDUCE" }}, opts...)...)
}

func isMapOf(c *wconn, task int64) func(*event) bool {
	return func(e *event) bool {
		m := e.mapReq()
		return m != nil && (c == nil || e.conn == c) && m.ParentTaskID == task
	}
}

func checkMap(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	k.srv.setHold(c, protocol.TypeMap)
	defer k.srv.release()
	t := mapTask(k, jobParams("2"))
	from := k.rec.mark()
	if err := k.run(c, t); err != nil {
		return err
	}
	e1, err := k.wait(from, "a map message", isMapOf(c, t.TaskID))
	if err != nil {
		return err
	}
	m1 := e1.mapReq()
	var bad []string
	if m1.InstanceID != t.InstanceID || m1.Name != "square" || !slices.Equal(m1.Payloads, []string{"1", "2"}) || m1.Key == "" {
		bad = append(bad, fmt.Sprintf("the first map is %s; want instance %d, parent %d, name square, payloads [1 2] and a key", js(m1), t.InstanceID, t.TaskID))
	}
	if e := k.during(from, hasReport(t.TaskID, true)); e != nil {
		return fmt.Errorf("task %d ended before its map was acknowledged: the server refuses a map from a task no longer running", t.TaskID)
	}
	k.srv.release()
	e2, err := k.wait(e1.idx+1, "the second map message", isMapOf(c, t.TaskID))
	if err != nil {
		return err
	}
	m2 := e2.mapReq()
	if !slices.Equal(m2.Payloads, []string{"3", "4"}) || m2.Key == "" || m2.Key == m1.Key {
		bad = append(bad, fmt.Sprintf("the second map is %s; want payloads [3 4] and a key other than %q", js(m2), m1.Key))
	}
	fin, err := k.finalIs(from, t.TaskID, protocol.TaskSucceeded)
	if err != nil {
		return err
	}
	if fin.Result != "mapped 4 subtasks" {
		bad = append(bad, fmt.Sprintf("result %q; want \"mapped 4 subtasks\"", fin.Result))
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	k.note = fmt.Sprintf("keys %q, %q", m1.Key, m2.Key)
	return nil
}

func checkMapResend(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	k.srv.setHold(c, protocol.TypeMap)
	defer k.srv.forget()
	t := mapTask(k, jobParams("2"))
	from := k.rec.mark()
	if err := k.run(c, t); err != nil {
		return err
	}
	e1, err := k.wait(from, "a map message", isMapOf(c, t.TaskID))
	if err != nil {
		return err
	}
	drop := k.rec.mark()
	c.drop()
	k.srv.forget()
	if _, err := k.welcomedAfter(drop); err != nil {
		return err
	}
	e2, err := k.wait(drop, "the map message sent again after the reconnect", isMapOf(nil, t.TaskID))
	if err != nil {
		return err
	}
	m1, m2 := e1.mapReq(), e2.mapReq()
	if m2.Key != m1.Key || !slices.Equal(m2.Payloads, m1.Payloads) || m2.Name != m1.Name || m2.InstanceID != m1.InstanceID {
		return fmt.Errorf("map sent again as %s; first sent as %s: the key identifies it, so the server would store its subtasks twice", js(m2), js(m1))
	}
	_, err = k.finalIs(from, t.TaskID, protocol.TaskSucceeded)
	return err
}

func checkMapKinds(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	sub := mapTask(k, func(t *protocol.Task) { t.Kind, t.Name, t.Payload = protocol.KindMap, "square", "3" })
	red := mapTask(k, func(t *protocol.Task) {
		t.Kind, t.Name = protocol.KindReduce, protocol.KindReduce
		t.Results = []protocol.TaskResult{{TaskID: 1, Name: "ROOT", Success: true, Result: "mapped 4 subtasks"},
			{TaskID: 2, Name: "square", Success: true, Result: "1"}, {TaskID: 3, Name: "square", Success: true, Result: "4"},
			{TaskID: 4, Name: "square", Success: true, Result: "9"}, {TaskID: 5, Name: "square", Success: false, Result: "boom"}}
	})
	from := k.rec.mark()
	if err := k.run(c, sub, red); err != nil {
		return err
	}
	for _, want := range []struct {
		t      protocol.Task
		result string
	}{{sub, "9"}, {red, "sum 14"}} {
		fin, err := k.finalIs(from, want.t.TaskID, protocol.TaskSucceeded)
		if err != nil {
			return err
		}
		if fin.Result != want.result {
			return fmt.Errorf("%s task: result %q; want %q", want.t.Kind, fin.Result, want.result)
		}
	}
	return nil
}

func checkResultsPaged(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	if h := c.helloOf(); h == nil || !slices.Contains(h.Features, protocol.FeaturePagedResults) {
		return skipf("the worker does not name %s in hello.features (optional: it then gets results inside the dispatch)", protocol.FeaturePagedResults)
	}
	// The ROOT's result and 2,500 squares: three pages of the largest size.
	const n = 2500
	results := []protocol.TaskResult{{TaskID: 1, Name: "ROOT", Success: true, Result: fmt.Sprintf("mapped %d subtasks", n)}}
	sum := 0
	for i := 1; i <= n; i++ {
		results = append(results, protocol.TaskResult{TaskID: int64(i + 1), Name: "square", Success: true, Result: fmt.Sprint(i * i)})
		sum += i * i
	}
	red := mapTask(k, func(t *protocol.Task) {
		t.Kind, t.Name = protocol.KindReduce, protocol.KindReduce
		t.ResultsPaged, t.ResultCount = true, len(results)
	})
	// Every request after the first page goes unanswered on this
	// connection, which is then lost.
	k.srv.setPages(pagePlan{task: red.TaskID, results: results, holdConn: c, holdAfter: 1})
	defer k.srv.setPages(pagePlan{})
	isPage := func(conn *wconn, after bool) func(*event) bool {
		return func(e *event) bool {
			r := e.resultsReq()
			return r != nil && (conn == nil || e.conn == conn) && (!after || r.After > 0)
		}
	}
	from := k.rec.mark()
	if err := k.run(c, red); err != nil {
		return err
	}
	cut, err := k.wait(from, "a request for the second page of results", isPage(c, true))
	if err != nil {
		return err
	}
	drop := k.rec.mark()
	c.drop()
	if _, err := k.welcomedAfter(drop); err != nil {
		return err
	}
	again, err := k.wait(drop, "the request for results sent again after the reconnect", isPage(nil, false))
	if err != nil {
		return err
	}
	if r1, r2 := cut.resultsReq(), again.resultsReq(); r2.After != r1.After || r2.TaskID != r1.TaskID {
		return fmt.Errorf("after the reconnect the worker asked for %s; its request cut off was %s: it must ask for that page again", js(r2), js(r1))
	}
	fin, err := k.finalIs(from, red.TaskID, protocol.TaskSucceeded)
	if err != nil {
		return err
	}
	if want := fmt.Sprintf("sum %d", sum); fin.Result != want {
		return fmt.Errorf("REDUCE result %q; want %q (a page missed or read twice)", fin.Result, want)
	}
	// Each request names the task and continues where the previous page
	// ended.
	var reqs []*protocol.Results
	for _, e := range k.rec.since(from) {
		if r := e.resultsReq(); r != nil {
			reqs = append(reqs, r)
		}
	}
	for _, r := range reqs {
		if r.InstanceID != red.InstanceID || r.TaskID != red.TaskID {
			return fmt.Errorf("a results request %s; the task is %d of instance %d", js(r), red.TaskID, red.InstanceID)
		}
		if r.After != 0 && !slices.ContainsFunc(results, func(x protocol.TaskResult) bool { return x.TaskID == r.After }) {
			return fmt.Errorf("a results request after task %d, the id of no result sent: the cursor is the last task id of the previous page", r.After)
		}
	}
	return nil
}

func checkWorkflow(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	t := k.newTask(procWorkflow, func(t *protocol.Task) {
		t.WorkflowRunID, t.WorkflowNode = 7, "n1"
		t.WorkflowContext = map[string]any{"n": 21, "other": "kept"}
		t.Upstream = map[string]string{"up": "hello"}
	})
	from := k.rec.mark()
	if err := k.run(c, t); err != nil {
		return err
	}
	fin, err := k.finalIs(from, t.TaskID, protocol.TaskSucceeded)
	if err != nil {
		return err
	}
	if got, want := js(fin.WorkflowContext), `{"doubled":42,"echo":"hello"}`; got != want || fin.Result != "node n1 of run 7" {
		return fmt.Errorf("final report: result %q, workflowContext %s; want \"node n1 of run 7\" and %s", fin.Result, got, want)
	}
	return nil
}

func checkUnknownFields(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	from := k.rec.mark()
	// An ack answering nothing the worker sent: ignored.
	if err := c.send(0, 987654, protocol.TypeAck, map[string]any{"ok": true}); err != nil {
		return err
	}
	// Every frame, body and task the kit sends carries an unknown field.
	t := k.newTask(procSucceed, jobParams(`{"lines":1,"conformanceUnknownParam":true}`))
	if err := k.run(c, t); err != nil {
		return err
	}
	if _, err := k.finalIs(from, t.TaskID, protocol.TaskSucceeded); err != nil {
		return err
	}
	for _, e := range k.rec.since(from) {
		switch {
		case e.conn == c && e.kind == evClosed:
			return fmt.Errorf("the connection ended: %w", e.err)
		case e.conn == c && e.is(protocol.TypeError):
			return fmt.Errorf("the worker sent an error: %s", e.raw)
		}
	}
	return nil
}

func checkLimits(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	const n, size = 1500, 5000
	t := k.newTask(procSucceed, jobParams(fmt.Sprintf(`{"lines":%d,"size":%d}`, n, size)))
	from := k.rec.mark()
	if err := k.run(c, t); err != nil {
		return err
	}
	if _, err := k.finalIs(from, t.TaskID, protocol.TaskSucceeded); err != nil {
		return err
	}
	largest, messages := 0, 0
	for _, e := range k.rec.since(from) {
		if e.conn != c || e.kind != evFrame {
			continue
		}
		largest = max(largest, e.size)
		if e.size > protocol.MaxFrameBytes {
			return fmt.Errorf("a %d-byte frame; at most %d: the server closes the connection", e.size, protocol.MaxFrameBytes)
		}
		if l := e.logs(); l != nil {
			messages++
		}
	}
	seqs := map[int64]bool{}
	for _, l := range k.linesOf(from, t.InstanceID) {
		seqs[l.Seq] = true
	}
	if len(seqs) != n {
		return fmt.Errorf("%d of the %d lines arrived", len(seqs), n)
	}
	k.note = fmt.Sprintf("%d lines of %d bytes in %d logs messages; the largest frame %d bytes", n, size, messages, largest)
	return nil
}

func checkBadFrame(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	from := k.rec.mark()
	if err := c.write(1, []byte(`{"type":"conformance-no-such-type","body":{}}`)); err != nil {
		return err
	}
	e, err := k.wait(from, "an error frame", func(e *event) bool { return e.conn == c && e.is(protocol.TypeError) })
	if err != nil {
		return err
	}
	if code := e.errFrame().Code; code != protocol.CodeBadFrame {
		return fmt.Errorf("error code %q; want %s", code, protocol.CodeBadFrame)
	}
	if _, err := k.wait(from, "the worker closing the connection", func(e *event) bool { return e.conn == c && e.kind == evClosed }); err != nil {
		return err
	}
	_, err = k.welcomedAfter(from)
	if err == nil {
		k.note = fmt.Sprintf("message %q", e.errFrame().Message)
	}
	return err
}

func checkRedirect(k *kit) error {
	t := k.newTask(procBlock)
	c, from, err := k.start(t)
	if err != nil {
		return err
	}
	if err := k.running(from, t.TaskID); err != nil {
		return err
	}
	target := k.srv.other(c.ep)
	k.srv.epoch.Add(1) // the new owner's epoch
	red := k.rec.mark()
	c.closeWith(protocol.TypeRedirect, map[string]any{"server": target.url, "reason": "conformance kit: the app moved"})
	h, err := k.helloAfter(red, "a hello after the redirect")
	if err != nil {
		return err
	}
	var bad []string
	if h.ep != target.name {
		bad = append(bad, fmt.Sprintf("connected to server %s, not to %s named by the redirect", h.ep, target.name))
	}
	for _, e := range k.rec.since(red) {
		if e.idx < h.idx && e.kind == evDiscover {
			bad = append(bad, "discovered again instead of connecting to the server named")
			break
		}
	}
	if !slices.Contains(h.hello().Running, t.TaskID) {
		bad = append(bad, fmt.Sprintf("hello.running %v does not list running task %d", h.hello().Running, t.TaskID))
	}
	c2, err := k.welcomedAfter(red)
	if err != nil {
		return err
	}
	if _, err := k.stop(c2, t.InstanceID, nil); err != nil {
		return err
	}
	if _, err := k.finalIs(from, t.TaskID, protocol.TaskStopped); err != nil {
		return err
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return nil
}

func checkRedirectEmpty(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	red := k.rec.mark()
	c.closeWith(protocol.TypeRedirect, map[string]any{"server": "", "reason": "conformance kit: ask again"})
	d, err := k.wait(red, "a discovery request after a redirect naming no server", isDiscover)
	if err != nil {
		return err
	}
	h, err := k.helloAfter(red, "a hello after the redirect")
	if err != nil {
		return err
	}
	if h.idx < d.idx {
		return fmt.Errorf("connected to server %s before discovering again", h.ep)
	}
	_, err = k.welcomedAfter(red)
	return err
}

// hellos waits for n hellos from position from on.
func (k *kit) hellos(from, n int) ([]*event, error) {
	var out []*event
	_, err := k.wait(from, fmt.Sprintf("%d connection attempts", n), func(e *event) bool {
		if e.is(protocol.TypeHello) {
			out = append(out, e)
		}
		return len(out) >= n
	})
	return out, err
}

func gapsOf(evs []*event) []time.Duration {
	var gaps []time.Duration
	for i := 1; i < len(evs); i++ {
		gaps = append(gaps, evs[i].at.Sub(evs[i-1].at))
	}
	return gaps
}

func checkRedirectBackoff(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	const n = 5
	plan := make([]helloAction, n)
	for i := range plan {
		plan[i] = helloAction{redirect: true}
	}
	k.srv.setPlan(true, plan...)
	defer k.srv.setPlan(false)
	red := k.rec.mark()
	c.closeWith(protocol.TypeRedirect, map[string]any{"server": k.srv.other(c.ep).url, "reason": "conformance kit: the app moved"})
	hs, err := k.hellos(red, n+1)
	if err != nil {
		return err
	}
	want := k.srv.other(c.ep).name
	for i, h := range hs {
		if h.ep != want {
			return fmt.Errorf("attempt %d went to server %s; the redirect named %s", i+1, h.ep, want)
		}
		want = map[string]string{"A": "B", "B": "A"}[want]
	}
	gaps := gapsOf(hs)
	if msg := judgeBackoff(gaps, 100*time.Millisecond, false); msg != "" {
		return fmt.Errorf("%s", msg)
	}
	if _, err := k.welcomedAfter(red); err != nil {
		return err
	}
	k.note = "delays " + fmtGaps(gaps)
	return nil
}

func checkReconnectBackoff(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	const n = 6
	plan := make([]helloAction, n)
	for i := range plan {
		plan[i] = helloAction{code: protocol.CodeInternal}
	}
	k.srv.setPlan(false, plan...)
	defer k.srv.setPlan(false)
	from := k.rec.mark()
	c.drop()
	hs, err := k.hellos(from, n+1)
	if err != nil {
		return err
	}
	gaps := gapsOf(hs)
	if msg := judgeBackoff(gaps, 100*time.Millisecond, true); msg != "" {
		return fmt.Errorf("%s", msg)
	}
	if _, err := k.welcomedAfter(from); err != nil {
		return err
	}
	k.note = "delays " + fmtGaps(gaps)
	return nil
}

func fmtGaps(gaps []time.Duration) string {
	s := make([]string, len(gaps))
	for i, g := range gaps {
		s[i] = g.Round(time.Millisecond).String()
	}
	return strings.Join(s, ", ")
}

// judgeBackoff says what is wrong with the delays between consecutive
// connection attempts, or "" if nothing: together they must last at least
// minTotal (no tight loop), and with jitter they must not follow a fixed
// schedule. Without jitter, each delay is the one before or twice it
// (doubling, then capped), except at most once where the cap cuts a
// doubling short; jittered delays almost never do that five times over.
func judgeBackoff(gaps []time.Duration, minTotal time.Duration, jitter bool) string {
	var total time.Duration
	for _, g := range gaps {
		total += g
	}
	if total < minTotal {
		return fmt.Sprintf("%d attempts in %s (delays %s): a tight loop; back off", len(gaps)+1, total.Round(time.Millisecond), fmtGaps(gaps))
	}
	if !jitter {
		return ""
	}
	const floor = 20 * time.Millisecond // shorter delays are mostly connection set-up
	// close allows for the time a connection attempt itself takes.
	close := func(got, want time.Duration) bool {
		d := got - want
		return d.Abs() <= got/50+10*time.Millisecond
	}
	fixed, capped := 0, 0
	for i := 1; i < len(gaps); i++ {
		prev, next := gaps[i-1], gaps[i]
		switch {
		case prev < floor || next < floor:
		case close(next, prev) || close(next, 2*prev):
			fixed++
		case next > prev && next < 2*prev:
			capped++
		default:
			return ""
		}
	}
	if fixed+capped >= 4 && capped <= 1 {
		return fmt.Sprintf("the delays %s follow a fixed schedule; randomize them (full jitter) so that workers do not reconnect in step", fmtGaps(gaps))
	}
	return ""
}

func checkFraming(k *kit) error {
	bad := k.srv.violations()
	// seq: one line per (workerId, seq).
	type seen struct {
		instance int64
		text     string
	}
	seqs := map[string]map[int64]seen{}
	frames := 0
	for _, e := range k.rec.since(0) {
		if e.kind == evFrame {
			frames++
		}
		l := e.logs()
		if l == nil {
			continue
		}
		id := e.conn.helloOf().WorkerID
		if seqs[id] == nil {
			seqs[id] = map[int64]seen{}
		}
		for _, ln := range l.Lines {
			s, ok := seqs[id][ln.Seq]
			if ok && (s.instance != ln.InstanceID || s.text != ln.Text) {
				bad = append(bad, fmt.Sprintf("worker %s used seq %d for two lines (%q, %q)", id, ln.Seq, s.text, ln.Text))
			}
			seqs[id][ln.Seq] = seen{ln.InstanceID, ln.Text}
		}
	}
	if len(bad) > 0 {
		more := ""
		if len(bad) > 5 {
			more = fmt.Sprintf(" (and %d more)", len(bad)-5)
			bad = bad[:5]
		}
		return fmt.Errorf("%s%s", strings.Join(bad, "; "), more)
	}
	k.note = fmt.Sprintf("%d frames", frames)
	return nil
}

func checkShutdown(k *kit) error {
	t := k.newTask(procBlock)
	c, from, err := k.start(t)
	if err != nil {
		return err
	}
	if err := k.running(from, t.TaskID); err != nil {
		return err
	}
	sig := k.rec.mark()
	if err := syscall.Kill(-k.proc.cmd.Process.Pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("sending SIGTERM: %w", err)
	}
	fin, err := k.final(sig, t.TaskID)
	if err != nil {
		return err
	}
	if fin.Status != protocol.TaskFailed {
		return fmt.Errorf("a task cancelled by the shutdown was reported %s; want FAILED, so that the server may retry it", fin.Status)
	}
	exit, err := k.wait(sig, "the worker process to exit", func(e *event) bool { return e.kind == evExit })
	if err != nil {
		return err
	}
	if exit.exitCode != 0 {
		return fmt.Errorf("exited with status %d after SIGTERM; want 0", exit.exitCode)
	}
	closeCode := "no close frame"
	for _, e := range k.rec.since(sig) {
		if e.conn == c && e.kind == evClosed && e.closeCode != 0 {
			closeCode = fmt.Sprintf("close code %d", e.closeCode)
		}
	}
	k.note = fmt.Sprintf("result %q, %s", fin.Result, closeCode)
	return nil
}

// startAtSkip skips a start.at check for a worker that does not name the
// feature: a server sends it no task ahead of its start time.
func startAtSkip(c *wconn) error {
	if h := c.helloOf(); h == nil || !slices.Contains(h.Features, protocol.FeatureStartAt) {
		return skipf("the worker does not name %s in hello.features (optional: a server then sends it no task ahead of its start time)", protocol.FeatureStartAt)
	}
	return nil
}

// startIn is a start time d from now, at the millisecond as a server
// stores times.
func startIn(d time.Duration) func(*protocol.Task) {
	at := time.Now().Add(d).UTC().Truncate(time.Millisecond)
	return func(t *protocol.Task) { t.StartAt = at }
}

// notStarted requires that a task sent no RUNNING report and no log line
// of its own from position from on: it ended without running.
func (k *kit) notStarted(from int, t protocol.Task) error {
	for _, it := range k.reportsOf(from, t.TaskID) {
		if it.Status == protocol.TaskRunning {
			return fmt.Errorf("task %d, held for its startAt, reported RUNNING: it must end without starting", t.TaskID)
		}
	}
	// By task id: another task of the instance may run meanwhile.
	for _, l := range k.linesOf(from, t.InstanceID) {
		if l.TaskID == t.TaskID {
			return fmt.Errorf("task %d, held for its startAt, logged %q: its processor ran", t.TaskID, l.Text)
		}
	}
	return nil
}

func checkStartAt(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	if err := startAtSkip(c); err != nil {
		return err
	}
	held := k.newTask(procSucceed, jobParams(`{"lines":1}`), startIn(2*time.Second))
	past := k.newTask(procSucceed, jobParams(`{"lines":1}`), startIn(-time.Minute))
	from := k.rec.mark()
	if err := k.run(c, held, past); err != nil {
		return err
	}
	if _, err := k.finalIs(from, past.TaskID, protocol.TaskSucceeded); err != nil {
		return fmt.Errorf("the task whose startAt is past: %w", err)
	}
	if its := k.reportsOf(from, past.TaskID); its[0].Status != protocol.TaskRunning {
		return fmt.Errorf("the task whose startAt is past: the first report is %s, not RUNNING", its[0].Status)
	}
	fin, err := k.finalIs(from, held.TaskID, protocol.TaskSucceeded)
	if err != nil {
		return err
	}
	its := k.reportsOf(from, held.TaskID)
	first := its[0]
	startAt := held.StartAt
	switch {
	case first.Status != protocol.TaskRunning:
		return fmt.Errorf("task %d: the first report is %s, not RUNNING", held.TaskID, first.Status)
	case first.ev.at.Before(startAt):
		return fmt.Errorf("task %d reported RUNNING %s before its startAt: it must be held until then", held.TaskID, startAt.Sub(first.ev.at).Round(time.Millisecond))
	case first.At.Truncate(time.Millisecond).Before(startAt):
		return fmt.Errorf("task %d reported RUNNING with at %s, before its startAt %s", held.TaskID, first.At.Format(time.RFC3339Nano), startAt.Format(time.RFC3339Nano))
	}
	for _, l := range k.linesOf(from, held.InstanceID) {
		if l.ev.at.Before(startAt) {
			return fmt.Errorf("task %d logged %q before its startAt: its processor ran early", held.TaskID, l.Text)
		}
	}
	// Held, it is the server's as a running task is: every heartbeat from
	// its acceptance to its final report lists it, and one came before
	// startAt.
	before := 0
	for _, e := range k.rec.since(from) {
		if e.idx >= fin.ev.idx {
			break
		}
		if e.conn != c || !e.is(protocol.TypeHeartbeat) || !k.acked(from, e) {
			continue
		}
		if !slices.Contains(e.heartbeat().Running, held.TaskID) {
			return fmt.Errorf("a heartbeat while task %d was held does not list it: the server would take it for lost: %s", held.TaskID, protocol.Truncate(string(e.raw), 200))
		}
		if e.at.Before(startAt) {
			before++
		}
	}
	if before == 0 {
		return fmt.Errorf("no heartbeat between the dispatch and the startAt of task %d (2 s; heartbeats every %s)", held.TaskID, k.opts.heartbeat)
	}
	k.note = fmt.Sprintf("RUNNING %s after startAt, listed in %d heartbeats before it", first.ev.at.Sub(startAt).Round(time.Millisecond), before)
	return nil
}

// acked says whether the kit had the worker's ack of the dispatch sent at
// position from when event e came: from then on the worker lists the task.
func (k *kit) acked(from int, e *event) bool {
	for _, x := range k.rec.since(from) {
		if x.idx >= e.idx {
			return false
		}
		if x.conn == e.conn && x.is(protocol.TypeAck) {
			return true
		}
	}
	return false
}

func checkStartAtStop(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	if err := startAtSkip(c); err != nil {
		return err
	}
	t := k.newTask(procBlock, startIn(time.Hour))
	from := k.rec.mark()
	if err := k.run(c, t); err != nil {
		return err
	}
	if _, err := k.stop(c, t.InstanceID, nil); err != nil {
		return err
	}
	fin, err := k.finalIs(from, t.TaskID, protocol.TaskStopped)
	if err != nil {
		return err
	}
	if err := k.notStarted(from, t); err != nil {
		return err
	}
	k.note = fmt.Sprintf("result %q", fin.Result)
	return nil
}

func checkStartAtTakeback(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	if err := startAtSkip(c); err != nil {
		return err
	}
	started := k.newTask(procBlock)
	held := k.newTask(procBlock, startIn(time.Hour), func(t *protocol.Task) { t.InstanceID = started.InstanceID })
	from := k.rec.mark()
	if err := k.run(c, started, held); err != nil {
		return err
	}
	defer func() { _, _ = k.stop(c, started.InstanceID, nil) }()
	if err := k.running(from, started.TaskID); err != nil {
		return err
	}
	back := k.rec.mark()
	if _, err := k.takeBack(c, started.InstanceID, []int64{held.TaskID, started.TaskID}); err != nil {
		return err
	}
	fin, err := k.finalIs(from, held.TaskID, protocol.TaskFailed)
	if err != nil {
		return err
	}
	if fin.Reason != protocol.ReasonHandedBack {
		return fmt.Errorf("task %d, taken back before it started: FAILED with reason %q; want %s (the server then runs it again without counting a retry)", held.TaskID, fin.Reason, protocol.ReasonHandedBack)
	}
	if err := k.notStarted(from, held); err != nil {
		return err
	}
	// The started task goes on: a take-back never ends a task that began.
	if e := k.during(back, hasReport(started.TaskID, true)); e != nil {
		return fmt.Errorf("a stop with unstarted named task %d, already running, and it ended: %s", started.TaskID, protocol.Truncate(string(e.raw), 300))
	}
	if _, err := k.stop(c, started.InstanceID, nil); err != nil {
		return err
	}
	if _, err := k.finalIs(from, started.TaskID, protocol.TaskStopped); err != nil {
		return fmt.Errorf("the started task, stopped after the take-back: %w", err)
	}
	k.note = fmt.Sprintf("result %q", fin.Result)
	return nil
}

func checkStartAtDrain(k *kit) error {
	c, err := k.connected()
	if err != nil {
		return err
	}
	if err := startAtSkip(c); err != nil {
		return err
	}
	t := k.newTask(procBlock, startIn(time.Hour))
	from := k.rec.mark()
	if err := k.run(c, t); err != nil {
		return err
	}
	sig := k.rec.mark()
	if err := syscall.Kill(-k.proc.cmd.Process.Pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("sending SIGTERM: %w", err)
	}
	fin, err := k.finalIs(sig, t.TaskID, protocol.TaskFailed)
	if err != nil {
		return err
	}
	if fin.Reason != protocol.ReasonHandedBack {
		return fmt.Errorf("task %d, held when the worker began to stop: FAILED with reason %q; want %s", t.TaskID, fin.Reason, protocol.ReasonHandedBack)
	}
	if err := k.notStarted(from, t); err != nil {
		return err
	}
	exit, err := k.wait(sig, "the worker process to exit", func(e *event) bool { return e.kind == evExit })
	if err != nil {
		return err
	}
	if exit.exitCode != 0 {
		return fmt.Errorf("exited with status %d after SIGTERM; want 0", exit.exitCode)
	}
	k.note = fmt.Sprintf("result %q", fin.Result)
	return nil
}
