package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// options are the kit's settings.
type options struct {
	command   []string       // the worker under test
	only      *regexp.Regexp // checks to run; nil: all
	verbose   bool
	wait      time.Duration // failsafe bound on waiting for the worker
	quiet     time.Duration // how long "nothing happens" is watched for
	heartbeat time.Duration // the interval told in welcome
	slots     int
	app       string
	out, log  io.Writer
}

// The processors a worker under test registers (README.md).
const (
	procSucceed  = "conformance.succeed"
	procFail     = "conformance.fail"
	procBlock    = "conformance.block"
	procMap      = "conformance.map"
	procWorkflow = "conformance.workflow"
)

var kitProcessors = []string{procSucceed, procFail, procBlock, procMap, procWorkflow}

// workerTags are given in JOBWHEEL_WORKER_TAGS and expected in hello.
var workerTags = []string{"conformance", "kit"}

// errSkip marks a check that could not run.
var errSkip = errors.New("skipped")

func skipf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errSkip, fmt.Sprintf(format, args...))
}

// kit runs the checks against one worker command.
type kit struct {
	ctx    context.Context
	opts   options
	rec    *recorder
	srv    *server
	secret string

	proc      *process
	procStart int             // the recorder's position when proc started
	dead      string          // a URL nothing listens on, first in JOBWHEEL_SERVERS
	authHello *protocol.Hello // what the process refused for its secret said
	jobsFile  string          // JOBWHEEL_JOBS_FILE for the processes launched; "" for none

	nextTask, nextInst int64
	note               string // said on the PASS line of the running check
}

// process is a running worker under test.
type process struct {
	cmd  *exec.Cmd
	out  *tail
	done chan struct{}
	code int
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// launch starts the worker command with the kit's settings.
func (k *kit) launch(secret string, servers []string) error {
	if k.proc != nil && !k.proc.exited() {
		k.stopProcess()
	}
	cmd := exec.Command(k.opts.command[0], k.opts.command[1:]...)
	cmd.Env = append(os.Environ(),
		"JOBWHEEL_SERVERS="+strings.Join(servers, ","),
		"JOBWHEEL_APP="+k.opts.app,
		"JOBWHEEL_APP_SECRET="+secret,
		"JOBWHEEL_WORKER_SLOTS="+strconv.Itoa(k.opts.slots),
		"JOBWHEEL_WORKER_TAGS="+strings.Join(workerTags, ","),
	)
	if k.jobsFile != "" {
		cmd.Env = append(cmd.Env, "JOBWHEEL_JOBS_FILE="+k.jobsFile)
	}
	out := &tail{max: 64 << 10}
	var w io.Writer = out
	if k.opts.verbose {
		w = io.MultiWriter(out, &prefixed{prefix: "worker| ", w: k.opts.log})
	}
	cmd.Stdout, cmd.Stderr = w, w
	// Its own process group, so that a wrapper (a shell) and what it
	// starts are stopped together.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	k.procStart = k.rec.mark()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the worker %q: %w", k.opts.command, err)
	}
	p := &process{cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		if err != nil && p.code == 0 {
			p.code = -1
		}
		close(p.done)
		k.rec.add(&event{kind: evExit, exitCode: p.code})
	}()
	k.proc = p
	return nil
}

// stopProcess ends the worker: SIGTERM, then SIGKILL to its group after
// the failsafe.
func (k *kit) stopProcess() {
	p := k.proc
	if p == nil || p.exited() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(k.opts.wait):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// killProcess ends the worker at once.
func (k *kit) killProcess() {
	p := k.proc
	if p == nil || p.exited() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// mainServers is JOBWHEEL_SERVERS of the main worker process: a dead URL
// first, so the worker must try the next one.
func (k *kit) mainServers() []string { return []string{k.dead, k.srv.eps[0].url} }

// connected returns the worker's current welcomed connection, starting
// the worker first if it is not running.
func (k *kit) connected() (*wconn, error) {
	if k.proc == nil || k.proc.exited() {
		if err := k.launch(k.secret, k.mainServers()); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(k.opts.wait)
	for {
		from := k.rec.mark()
		if c := k.srv.currentConn(); c != nil {
			return c, nil
		}
		left := time.Until(deadline)
		if left <= 0 || k.proc.exited() {
			break
		}
		k.rec.wait(k.ctx, from, left, func(*event) bool { return true })
	}
	if k.proc.exited() {
		return nil, skipf("the worker process has ended (exit status %d)", k.proc.code)
	}
	return nil, skipf("the worker is not connected (waited %s)", k.opts.wait)
}

// wait waits for the first event from position from on that matches.
func (k *kit) wait(from int, what string, match func(*event) bool) (*event, error) {
	e := k.rec.wait(k.ctx, from, k.opts.wait, match)
	if e == nil {
		if k.ctx.Err() != nil {
			return nil, k.ctx.Err()
		}
		return nil, fmt.Errorf("waited %s for %s; it never came", k.opts.wait, what)
	}
	return e, nil
}

// during watches for an event matching for the quiet window: nil if none.
func (k *kit) during(from int, match func(*event) bool) *event {
	return k.rec.wait(k.ctx, from, k.opts.quiet, match)
}

// newTask makes a task of a new instance for a processor.
func (k *kit) newTask(proc string, opts ...func(*protocol.Task)) protocol.Task {
	k.nextTask++
	k.nextInst++
	t := protocol.Task{TaskID: k.nextTask, InstanceID: k.nextInst, JobID: 7, Attempt: 1, Kind: protocol.KindRoot,
		Name: protocol.KindRoot, ExecutionMode: "STANDALONE", ProcessorType: "GO", Processor: proc}
	for _, o := range opts {
		o(&t)
	}
	return t
}

func jobParams(p string) func(*protocol.Task) { return func(t *protocol.Task) { t.JobParams = p } }

// dispatch sends tasks and returns the worker's ack.
func (k *kit) dispatch(c *wconn, app string, epoch int64, tasks ...protocol.Task) (*protocol.Ack, error) {
	list := make([]json.RawMessage, len(tasks))
	for i, t := range tasks {
		raw, err := withExtra(t)
		if err != nil {
			return nil, err
		}
		list[i] = raw
	}
	from := k.rec.mark()
	id, err := c.request(protocol.TypeDispatch, map[string]any{"app": app, "epoch": epoch, "tasks": list})
	if err != nil {
		return nil, err
	}
	e, err := k.wait(from, fmt.Sprintf("the ack of dispatch %d", id), func(e *event) bool {
		return e.conn == c && e.is(protocol.TypeAck) && e.frame.Re == id
	})
	if err != nil {
		return nil, err
	}
	return e.ack(), nil
}

// run dispatches tasks in the app's current epoch and requires every one
// to be accepted.
func (k *kit) run(c *wconn, tasks ...protocol.Task) error {
	ack, err := k.dispatch(c, k.opts.app, k.srv.epoch.Load(), tasks...)
	if err != nil {
		return err
	}
	for _, t := range tasks {
		if !slices.Contains(ack.Accepted, t.TaskID) {
			return fmt.Errorf("task %d (%s) was not accepted: ack %s", t.TaskID, t.Processor, js(ack))
		}
	}
	return nil
}

// stop sends a stop frame and waits for its ack.
func (k *kit) stop(c *wconn, instance int64, tasks []int64) (*protocol.Ack, error) {
	return k.sendStop(c, instance, tasks, false)
}

// takeBack sends a stop frame with unstarted (protocol.FeatureStartAt):
// only the named tasks not started yet end, handed back.
func (k *kit) takeBack(c *wconn, instance int64, tasks []int64) (*protocol.Ack, error) {
	return k.sendStop(c, instance, tasks, true)
}

func (k *kit) sendStop(c *wconn, instance int64, tasks []int64, unstarted bool) (*protocol.Ack, error) {
	from := k.rec.mark()
	body := map[string]any{"instanceId": instance, "reason": "conformance kit stop"}
	if len(tasks) > 0 {
		body["taskIds"] = tasks
	}
	if unstarted {
		body["unstarted"] = true
	}
	id, err := c.request(protocol.TypeStop, body)
	if err != nil {
		return nil, err
	}
	e, err := k.wait(from, fmt.Sprintf("the ack of stop %d", id), func(e *event) bool {
		return e.conn == c && e.is(protocol.TypeAck) && e.frame.Re == id
	})
	if err != nil {
		return nil, err
	}
	return e.ack(), nil
}

// item is a report item with the event that carried it.
type item struct {
	protocol.TaskReport
	ev *event
}

// reportsOf lists the report items about a task from position from on.
func (k *kit) reportsOf(from int, task int64) []item {
	var out []item
	for _, e := range k.rec.since(from) {
		if r := e.report(); r != nil {
			for _, it := range r.Items {
				if it.TaskID == task {
					out = append(out, item{it, e})
				}
			}
		}
	}
	return out
}

func hasReport(task int64, final bool) func(*event) bool {
	return func(e *event) bool {
		r := e.report()
		if r == nil {
			return false
		}
		for _, it := range r.Items {
			if it.TaskID == task && (it.Status != protocol.TaskRunning) == final {
				return true
			}
		}
		return false
	}
}

// final waits for a task's final report from position from on.
func (k *kit) final(from int, task int64) (item, error) {
	e, err := k.wait(from, fmt.Sprintf("the final report of task %d", task), hasReport(task, true))
	if err != nil {
		return item{}, err
	}
	for _, it := range e.report().Items {
		if it.TaskID == task && it.Status != protocol.TaskRunning {
			return item{it, e}, nil
		}
	}
	panic("unreachable")
}

// finalIs waits for a task's final report and requires its status.
func (k *kit) finalIs(from int, task int64, status string) (item, error) {
	it, err := k.final(from, task)
	if err == nil && it.Status != status {
		err = fmt.Errorf("task %d ended %s (result %q); want %s", task, it.Status, it.Result, status)
	}
	return it, err
}

// start has the worker connected (launching it if need be) and dispatches
// t; from is where t's events begin in the record.
func (k *kit) start(t protocol.Task) (c *wconn, from int, err error) {
	if c, err = k.connected(); err != nil {
		return nil, 0, err
	}
	from = k.rec.mark()
	return c, from, k.run(c, t)
}

// runOne is most checks' start: it has the worker connected (launching it
// if need be), dispatches t, and waits for t's final report, which must
// have status want. from is where the task's events begin in the record.
func (k *kit) runOne(t protocol.Task, want string) (from int, fin item, err error) {
	if _, from, err = k.start(t); err != nil {
		return from, item{}, err
	}
	fin, err = k.finalIs(from, t.TaskID, want)
	return from, fin, err
}

// running waits for a task's RUNNING report from position from on.
func (k *kit) running(from int, task int64) error {
	_, err := k.wait(from, fmt.Sprintf("the RUNNING report of task %d", task), hasReport(task, false))
	return err
}

// line is a log line with the event that carried it.
type line struct {
	protocol.LogLine
	ev *event
}

// linesOf lists the log lines of an instance from position from on.
func (k *kit) linesOf(from int, instance int64) []line {
	var out []line
	for _, e := range k.rec.since(from) {
		if l := e.logs(); l != nil {
			for _, ln := range l.Lines {
				if ln.InstanceID == instance {
					out = append(out, line{ln, e})
				}
			}
		}
	}
	return out
}

func hasLineOf(instance int64) func(*event) bool {
	return func(e *event) bool {
		l := e.logs()
		return l != nil && slices.ContainsFunc(l.Lines, func(ln protocol.LogLine) bool { return ln.InstanceID == instance })
	}
}

// waitLines waits until n log lines of an instance have arrived.
func (k *kit) waitLines(from int, instance int64, n int) ([]line, error) {
	_, err := k.wait(from, fmt.Sprintf("%d log lines of instance %d", n, instance), func(e *event) bool {
		return e.logs() != nil && len(k.linesOf(from, instance)) >= n
	})
	return k.linesOf(from, instance), err
}

// idle waits until the worker's heartbeats list no task, twice in a row,
// so that slots freed by the last check are free.
func (k *kit) idle(c *wconn) error {
	from := k.rec.mark()
	empty := 0
	_, err := k.wait(from, "two heartbeats listing no task (the worker idle)", func(e *event) bool {
		if e.conn != c || !e.is(protocol.TypeHeartbeat) {
			return false
		}
		if len(e.heartbeat().Running) == 0 {
			empty++
		} else {
			empty = 0
		}
		return empty >= 2
	})
	return err
}

// helloAfter waits for the next hello from position from on.
func (k *kit) helloAfter(from int, what string) (*event, error) {
	return k.wait(from, what, func(e *event) bool { return e.is(protocol.TypeHello) })
}

// welcomedAfter waits until the kit welcomes a connection after position
// from, and returns it.
func (k *kit) welcomedAfter(from int) (*wconn, error) {
	e, err := k.wait(from, "the worker connecting again", isWelcome)
	if err != nil {
		return nil, err
	}
	return e.conn, nil
}

// isWelcome matches the kit sending welcome.
func isWelcome(e *event) bool {
	return e.kind == evSent && strings.Contains(string(e.raw), `"type":"welcome"`)
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return protocol.Truncate(string(b), 400)
}

// tail keeps the end of what is written.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// prefixed writes each line with a prefix.
type prefixed struct {
	mu     sync.Mutex
	prefix string
	w      io.Writer
	rest   []byte
}

func (p *prefixed) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rest = append(p.rest, b...)
	for {
		i := slices.Index(p.rest, '\n')
		if i < 0 {
			break
		}
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.rest[:i])
		p.rest = p.rest[i+1:]
	}
	return len(b), nil
}
