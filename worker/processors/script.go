// Package processors holds the built-in processors of the SHELL, PYTHON and
// HTTP processor types, which the standalone agent registers:
//
//	w.RegisterType("SHELL", processors.Shell())
//	w.RegisterType("PYTHON", processors.Python())
//	w.RegisterType("HTTP", &processors.HTTP{})
package processors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/worker"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// Script runs the job's script text (TaskContext.ProcessorSpec) with an
// interpreter:
//
//   - it runs in a fresh directory under the worker's WorkDir, which is
//     removed afterwards;
//   - it is run as `Interpreter Args… <script file> <job params> <instance params>`,
//     the script written to that file in the directory; with InlineFlag
//     (the shell's -c) a script of up to 64 KiB is given as text instead,
//     `Interpreter Args… InlineFlag -- <script> <script file> <job params>
//     <instance params>`, so $0, $1 and $2 and the shell's messages
//     ("<script file>: 3: foo: not found") are the same while no file is
//     written (its write, and the walk that removed it, were 12 of the
//     ~300 system calls per `true`: docs/benchmarks.md);
//     with the environment of the worker minus its JOBWHEEL_* variables
//     (the app secret must not leak into jobs), plus JOBWHEEL_INSTANCE_ID,
//     JOBWHEEL_TASK_ID, JOBWHEEL_JOB_ID, JOBWHEEL_TASK_NAME, JOBWHEEL_ATTEMPT,
//     JOBWHEEL_WORKER_ID, JOBWHEEL_JOB_PARAMS, JOBWHEEL_INSTANCE_PARAMS,
//     JOBWHEEL_PAYLOAD, JOBWHEEL_SHARD_INDEX and JOBWHEEL_SHARD_TOTAL, and
//     TRACEPARENT (the run's W3C trace context, empty when not traced);
//   - each line of standard output is logged at INFO, of standard error at
//     ERROR, as it comes; lines of one stream keep their order, and a
//     stdout line written before a stderr line is logged before it (the
//     reverse is only kept when the lines are not written within the same
//     instant: two pipes carry no common order);
//   - the result is a summary, the log holds the whole output: exit
//     status 0 succeeds with the end of standard output as the result (its
//     last ResultBytes, in whole lines; blank lines left out; after
//     protocol.CutHeadMark when earlier lines were left out); any other
//     status fails with "exit status N" followed by the end of the output,
//     both streams in the order logged. A stopped or timed-out script's
//     result is likewise the reason followed by the end of its output
//     (the SDK puts them together: see worker.Processor);
//   - the script runs in its own process group. When the task's context
//     ends (stop, timeout, shutdown) the whole group gets SIGTERM, then
//     SIGKILL after KillGrace; when the script exits, whatever it left
//     running in its group is killed, so a task never leaks processes (a
//     process that must outlive its task has to leave the group, e.g. with
//     setsid).
type Script struct {
	// Interpreter is the program that runs the script file.
	Interpreter string
	// Args come before the script file.
	Args []string
	// FileName is the script file's name in its temporary directory.
	FileName string
	// InlineFlag, when set, is the interpreter's option that takes the
	// script as text ("-c"): a script up to maxInlineScript bytes is
	// passed that way rather than written to FileName.
	InlineFlag string
	// Env is added to the environment.
	Env []string
	// KillGrace is the time between SIGTERM and SIGKILL (default 3s).
	KillGrace time.Duration
	// ResultBytes bounds the end of the output kept as the result
	// (default 4 KiB).
	ResultBytes int
}

// Shell runs scripts with /bin/sh.
func Shell() *Script {
	return &Script{Interpreter: "/bin/sh", FileName: "script.sh", InlineFlag: "-c"}
}

// Python runs scripts with python3, unbuffered so lines arrive as printed.
func Python() *Script {
	return &Script{Interpreter: "python3", Args: []string{"-u"}, FileName: "script.py", Env: []string{"PYTHONUNBUFFERED=1"}}
}

const (
	defaultKillGrace = 3 * time.Second
	// pipeDrain bounds the wait for the output pipes to close once the
	// script's group is gone: a process that left the group may hold them.
	pipeDrain = 2 * time.Second
	// defaultResultBytes bounds a script's result.
	defaultResultBytes = 4 << 10
	// maxInlineScript bounds a script passed as an argument: Linux takes
	// at most 128 KiB in one argument, and the environment and the
	// parameters share the argument space.
	maxInlineScript = 64 << 10
)

// Process runs the script. See Script.
func (s *Script) Process(ctx worker.TaskContext) (worker.Result, error) {
	script := ctx.ProcessorSpec()
	if strings.TrimSpace(script) == "" {
		return worker.Result{}, errors.New("the job's script is empty")
	}
	dir, err := os.MkdirTemp(ctx.WorkDir(), fmt.Sprintf("jobwheel-%d-%d-", ctx.InstanceID(), ctx.TaskID()))
	if err != nil {
		return worker.Result{}, fmt.Errorf("making the script's directory: %w", err)
	}
	defer func() {
		// Most scripts leave their directory empty: one rmdir, and only
		// otherwise the walk of RemoveAll.
		if os.Remove(dir) == nil {
			return
		}
		if err := os.RemoveAll(dir); err != nil {
			ctx.Logger().Warn("removing the script's directory", "dir", dir, "err", err)
		}
	}()
	name := s.FileName
	if name == "" {
		name = "script"
	}
	file := filepath.Join(dir, name)
	args := slices.Concat(s.Args, []string{file, ctx.JobParams(), ctx.InstanceParams()})
	if s.InlineFlag != "" && len(script) <= maxInlineScript {
		args = slices.Concat(s.Args, []string{s.InlineFlag, "--", script, file, ctx.JobParams(), ctx.InstanceParams()})
	} else if err := os.WriteFile(file, []byte(script), 0o700); err != nil {
		return worker.Result{}, fmt.Errorf("writing the script: %w", err)
	}

	wf, err := writeWorkflowFiles(ctx, dir)
	if err != nil {
		return worker.Result{}, err
	}
	cmd := exec.Command(s.Interpreter, args...)
	cmd.Dir = dir
	cmd.Env = append(s.env(ctx), wf.env()...)
	ownGroup(cmd)
	outR, outW, err := outputPipe()
	if err != nil {
		return worker.Result{}, err
	}
	defer outR.Close()
	errR, errW, err := outputPipe()
	if err != nil {
		outW.Close()
		return worker.Result{}, err
	}
	defer errR.Close()
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close() // the child has its copies; EOF comes when every holder exits
	errW.Close()
	if err != nil {
		return worker.Result{}, fmt.Errorf("starting %s: %w", s.Interpreter, err)
	}

	log := ctx.Logger()
	// outTail is the result of a success; allTail, both streams as
	// logged, goes with a failure's reason.
	outTail := &tail{max: s.resultBytes()}
	allTail := &tail{max: s.resultBytes()}
	stopPump := make(chan struct{})
	pumped := make(chan struct{})
	go func() {
		defer close(pumped)
		pumpOutput(outR, errR, [2]func(string){
			func(l string) { log.Info(l); outTail.add(l); allTail.add(l) },
			func(l string) { log.Error(l); allTail.add(l) },
		}, stopPump)
	}()

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-exited:
	case <-ctx.Done():
		signalGroup(cmd, sigTerm)
		grace := time.NewTimer(s.killGrace())
		select {
		case waitErr = <-exited:
		case <-grace.C:
			signalGroup(cmd, sigKill)
			waitErr = <-exited
		}
		grace.Stop()
	}
	signalGroup(cmd, sigKill) // what the script left running in its group

	select {
	case <-pumped:
	case <-time.After(pipeDrain):
		close(stopPump)
		<-pumped
	}

	output := worker.Result{Message: allTail.String()}
	if ctx.Err() != nil {
		return output, fmt.Errorf("script killed: %w", context.Cause(ctx))
	}
	if waitErr != nil {
		var ee *exec.ExitError
		if !errors.As(waitErr, &ee) {
			return output, fmt.Errorf("running %s: %w", s.Interpreter, waitErr)
		}
		return output, errors.New(ee.Error()) // "exit status 3", or "signal: killed"
	}
	if err := wf.readOutput(ctx); err != nil {
		return output, err
	}
	return worker.Result{Message: outTail.String()}, nil
}

// workflowFiles are how a script that runs as a workflow node reads the
// run's context and adds to it: $JOBWHEEL_WORKFLOW_CONTEXT names a JSON
// file holding {"context": {...}, "upstream": {"node": "result", ...}},
// and a JSON object the script writes to the file $JOBWHEEL_WORKFLOW_OUTPUT
// names is added to the context once the script succeeds.
type workflowFiles struct {
	context, output string // "" outside workflows
	run             int64
	node            string
}

// MaxWorkflowOutputBytes bounds what a script may add to a workflow's
// context; the run's whole context is bounded by the server (1 MiB).
const MaxWorkflowOutputBytes = 1 << 20

func writeWorkflowFiles(ctx worker.TaskContext, dir string) (workflowFiles, error) {
	if _, node := ctx.WorkflowNode(); node == "" {
		return workflowFiles{}, nil
	}
	wctx := ctx.WorkflowContext()
	up := ctx.Upstream()
	if up == nil {
		up = map[string]string{}
	}
	b, err := json.Marshal(map[string]any{"context": wctx, "upstream": up})
	if err != nil {
		return workflowFiles{}, fmt.Errorf("encoding the workflow context: %w", err)
	}
	run, node := ctx.WorkflowNode()
	f := workflowFiles{context: filepath.Join(dir, "workflow-context.json"), output: filepath.Join(dir, "workflow-output.json"), run: run, node: node}
	if err := os.WriteFile(f.context, b, 0o600); err != nil {
		return workflowFiles{}, fmt.Errorf("writing the workflow context: %w", err)
	}
	return f, nil
}

func (f workflowFiles) env() []string {
	if f.context == "" {
		return nil
	}
	return []string{"JOBWHEEL_WORKFLOW_CONTEXT=" + f.context, "JOBWHEEL_WORKFLOW_OUTPUT=" + f.output,
		"JOBWHEEL_WORKFLOW_RUN_ID=" + strconv.FormatInt(f.run, 10), "JOBWHEEL_WORKFLOW_NODE=" + f.node}
}

// readOutput adds what the script wrote to $JOBWHEEL_WORKFLOW_OUTPUT to the
// context. Something that is not a JSON object, or too big, fails the task
// saying so: a silent drop would break the nodes after it.
func (f workflowFiles) readOutput(ctx worker.TaskContext) error {
	if f.output == "" {
		return nil
	}
	st, err := os.Stat(f.output)
	if errors.Is(err, os.ErrNotExist) || (err == nil && st.Size() == 0) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading $JOBWHEEL_WORKFLOW_OUTPUT: %w", err)
	}
	if st.Size() > MaxWorkflowOutputBytes {
		return fmt.Errorf("$JOBWHEEL_WORKFLOW_OUTPUT holds %d bytes; a node may add at most %d bytes (1 MiB) to the workflow context", st.Size(), MaxWorkflowOutputBytes)
	}
	b, err := os.ReadFile(f.output)
	if err != nil {
		return fmt.Errorf("reading $JOBWHEEL_WORKFLOW_OUTPUT: %w", err)
	}
	var add map[string]any
	if err := json.Unmarshal(b, &add); err != nil {
		return fmt.Errorf("$JOBWHEEL_WORKFLOW_OUTPUT must hold one JSON object to add to the workflow context: %w", err)
	}
	for k, v := range add {
		ctx.SetWorkflowValue(k, v)
	}
	return nil
}

func (s *Script) killGrace() time.Duration {
	if s.KillGrace > 0 {
		return s.KillGrace
	}
	return defaultKillGrace
}

func (s *Script) resultBytes() int {
	if s.ResultBytes > 0 {
		return s.ResultBytes
	}
	return defaultResultBytes
}

// env is the worker's environment without JOBWHEEL_* (which holds the app
// secret when the agent is configured by environment) plus the task's.
func (s *Script) env(ctx worker.TaskContext) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "JOBWHEEL_") })
	index, total := ctx.Shard()
	return append(append(env, s.Env...),
		"JOBWHEEL_INSTANCE_ID="+strconv.FormatInt(ctx.InstanceID(), 10),
		"JOBWHEEL_TASK_ID="+strconv.FormatInt(ctx.TaskID(), 10),
		"JOBWHEEL_JOB_ID="+strconv.FormatInt(ctx.JobID(), 10),
		"JOBWHEEL_TASK_NAME="+ctx.TaskName(),
		"JOBWHEEL_ATTEMPT="+strconv.Itoa(ctx.Attempt()),
		"JOBWHEEL_WORKER_ID="+ctx.WorkerID(),
		"JOBWHEEL_JOB_PARAMS="+ctx.JobParams(),
		"JOBWHEEL_INSTANCE_PARAMS="+ctx.InstanceParams(),
		"JOBWHEEL_PAYLOAD="+ctx.Payload(),
		"JOBWHEEL_SHARD_INDEX="+strconv.Itoa(index),
		"JOBWHEEL_SHARD_TOTAL="+strconv.Itoa(total),
		// The W3C trace context of the run, for what the script calls
		// (docs/tracing.md); empty when the run is not traced.
		"TRACEPARENT="+ctx.Traceparent(),
	)
}

// tail keeps the last non-empty lines written to it, at most max bytes
// joined (a last line longer than that alone is cut). Once lines were left
// out it begins with protocol.CutHeadMark (beyond max), so a result that
// is not the whole output says so (issue 26, item 4).
type tail struct {
	mu    sync.Mutex
	max   int
	lines []string
	size  int // bytes of lines joined by newlines
	cut   bool
}

func (t *tail) add(l string) {
	if strings.TrimSpace(l) == "" {
		return
	}
	l = protocol.Truncate(l, t.max)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, l)
	t.size += len(l) + 1
	drop := 0
	for t.size-1 > t.max {
		t.size -= len(t.lines[drop]) + 1
		drop++
	}
	if drop > 0 {
		t.cut = true
	}
	t.lines = t.lines[drop:]
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.Join(t.lines, "\n")
	if t.cut {
		s = protocol.CutHeadMark + s
	}
	return s
}
