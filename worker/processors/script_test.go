//go:build unix

package processors

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/worker/protocol"
	"github.com/jobwheel/jobwheel/worker/workertest"
)

func scriptTask(script, jobParams string) protocol.Task {
	return protocol.Task{
		TaskID: 7, InstanceID: 42, JobID: 3, Attempt: 1, Kind: protocol.KindRoot, Name: "ROOT",
		ProcessorType: "SHELL", Processor: script, JobParams: jobParams, Params: "inst-params",
	}
}

func newCtx(t *testing.T, ctx context.Context, task protocol.Task) *workertest.Context {
	c := workertest.New(ctx, task)
	c.Dir = t.TempDir()
	return c
}

func TestShellSuccess(t *testing.T) {
	ctx := newCtx(t, t.Context(), scriptTask(`
echo "dir=$(pwd)"
echo "args=$1|$2"
echo "env=$JOBWHEEL_INSTANCE_ID/$JOBWHEEL_TASK_ID/$JOBWHEEL_JOB_PARAMS/$JOBWHEEL_INSTANCE_PARAMS"
echo "secret=${JOBWHEEL_APP_SECRET:-unset}"
echo last
`, "job params"))
	t.Setenv("JOBWHEEL_APP_SECRET", "s3cret") // the agent's environment must not reach jobs
	res, err := Shell().Process(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lines := ctx.Lines()
	if want := lines[0].Text + "\nargs=job params|inst-params\nenv=42/7/job params/inst-params\nsecret=unset\nlast"; res.Message != want {
		t.Errorf("result %q, want the whole output %q", res.Message, want)
	}
	if len(lines) != 5 || lines[1].Text != "args=job params|inst-params" || lines[0].Level != "INFO" {
		t.Fatalf("lines %v", lines)
	}
	dir := strings.TrimPrefix(lines[0].Text, "dir=")
	if filepath.Dir(dir) != ctx.Dir {
		t.Errorf("script ran in %s, want a directory under the work dir %s", dir, ctx.Dir)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the script's directory %s is still there: %v", dir, err)
	}
}

func TestShellExitCode(t *testing.T) {
	ctx := newCtx(t, t.Context(), scriptTask("echo working\necho 'disk full' >&2\nexit 3\n", ""))
	res, err := Shell().Process(ctx)
	if err == nil || err.Error() != "exit status 3" || res.Message != "working\ndisk full" {
		t.Fatalf("error %v, result %q; want exit status 3 with the output, both streams", err, res.Message)
	}
	lines := ctx.Lines()
	if len(lines) != 2 || lines[0] != (workertest.Line{Level: "INFO", Text: "working"}) ||
		lines[1] != (workertest.Line{Level: "ERROR", Text: "disk full"}) {
		t.Errorf("lines %v", lines)
	}
}

// The result of a script is the end of its output, not just its last
// few lines: 12 short lines are all there (only 3 used to be), and a
// bound keeps the newest whole lines.
func TestShellResultIsTheEndOfTheOutput(t *testing.T) {
	script := `i=1; while [ $i -le 12 ]; do echo "line $i"; i=$((i+1)); done`
	res, err := Shell().Process(newCtx(t, t.Context(), scriptTask(script, "")))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := 1; i <= 12; i++ {
		want = append(want, "line "+strconv.Itoa(i))
	}
	if res.Message != strings.Join(want, "\n") {
		t.Errorf("result %q; want all 12 lines", res.Message)
	}
	s := Shell()
	s.ResultBytes = 22 // "line 10\nline 11\nline 12" is 23
	res, err = s.Process(newCtx(t, t.Context(), scriptTask(script, "")))
	if err != nil || res.Message != protocol.CutHeadMark+"line 11\nline 12" {
		t.Errorf("result %q, error %v; want the last whole lines within 22 bytes, marked as cut (issue 26, item 4)", res.Message, err)
	}
}

// A script stopped midway returns what it printed with the error, so the
// stopped task's result shows how far it got (the worker puts the reason
// first).
func TestShellStoppedReturnsItsOutput(t *testing.T) {
	cctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ctx := newCtx(t, cctx, scriptTask(`for i in 1 2 3 4 5 6 7; do echo "step $i"; done; echo "oops" >&2; sleep 60`, ""))
	ctx.OnLine = func(l workertest.Line) {
		if l.Text == "oops" {
			cancel()
		}
	}
	s := Shell()
	s.KillGrace = 100 * time.Millisecond
	res, err := s.Process(ctx)
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("error %v, want the script killed", err)
	}
	if want := "step 1\nstep 2\nstep 3\nstep 4\nstep 5\nstep 6\nstep 7\noops"; res.Message != want {
		t.Errorf("result %q; want its output %q", res.Message, want)
	}
}

// Lines must reach the log while the script runs: the script below waits
// for a file that the test creates only once it has seen a line. A stdout
// line followed at once by a stderr line keeps that order (the reader
// prefers stdout when both pipes are readable).
func TestShellLinesArriveInOrderAsWritten(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	ctx := newCtx(t, t.Context(), scriptTask(`
echo out1
echo err1 >&2
while [ ! -e "$1" ]; do sleep 0.01; done
echo out2
echo err2 >&2
`, gate))
	ctx.OnLine = func(l workertest.Line) {
		if l.Text == "err1" {
			_ = os.WriteFile(gate, nil, 0o600)
		}
	}
	if _, err := Shell().Process(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range ctx.Lines() {
		got = append(got, l.Level+" "+l.Text)
	}
	if want := "INFO out1,ERROR err1,INFO out2,ERROR err2"; strings.Join(got, ",") != want {
		t.Errorf("lines %v, want %s", got, want)
	}
}

func TestLineSplitter(t *testing.T) {
	var got []string
	s := &lineSplitter{emit: func(l string) { got = append(got, l) }}
	for _, chunk := range []string{"a\r\nb", "c\n", "", "\n", strings.Repeat("x", maxLine+5), "yy\nlast"} {
		s.write([]byte(chunk))
	}
	s.flush()
	if len(got) != 5 || got[0] != "a" || got[1] != "bc" || got[2] != "" || !strings.HasSuffix(got[3], "…[cut]") || len(got[3]) > maxLine+10 || got[4] != "last" {
		t.Errorf("lines %q", got)
	}
}

func TestShellCancelKillsProcessGroup(t *testing.T) {
	for name, script := range map[string]string{
		// The child dies with the group's SIGTERM.
		"SIGTERM": `sleep 60 & echo $! > "$1"; echo started; wait`,
		// Everyone ignores SIGTERM: SIGKILL after the grace.
		"SIGKILL": `trap '' TERM; (exec sleep 60) & echo $! > "$1"; echo started; while true; do sleep 0.05; done`,
	} {
		t.Run(name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			cctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			ctx := newCtx(t, cctx, scriptTask(script, pidFile))
			ctx.OnLine = func(l workertest.Line) {
				if l.Text == "started" {
					cancel()
				}
			}
			s := Shell()
			s.KillGrace = 100 * time.Millisecond
			_, err := s.Process(ctx)
			if err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("error %v, want the script killed", err)
			}
			waitGone(t, readPid(t, pidFile))
		})
	}
}

func TestShellExitKillsLeftovers(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx := newCtx(t, t.Context(), scriptTask(`sleep 60 >/dev/null 2>&1 & echo $! > "$1"; echo done`, pidFile))
	res, err := Shell().Process(ctx)
	if err != nil || res.Message != "done" {
		t.Fatalf("result %q, error %v", res.Message, err)
	}
	waitGone(t, readPid(t, pidFile))
}

func TestShellLongLineIsCut(t *testing.T) {
	ctx := newCtx(t, t.Context(), scriptTask(`head -c 40000 /dev/zero | tr '\0' x; echo; echo after`, ""))
	if _, err := Shell().Process(ctx); err != nil {
		t.Fatal(err)
	}
	lines := ctx.Lines()
	if len(lines) != 2 || len(lines[0].Text) > protocol.MaxLogLineBytes+10 || !strings.HasSuffix(lines[0].Text, "[cut]") || lines[1].Text != "after" {
		t.Errorf("got %d lines; first %d bytes", len(lines), len(lines[0].Text))
	}
}

func TestShellEmptyScript(t *testing.T) {
	if _, err := Shell().Process(newCtx(t, t.Context(), scriptTask("  \n", ""))); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("error %v", err)
	}
}

func TestPython(t *testing.T) {
	task := scriptTask(`
import os, sys
print("hello from python", sys.argv[1])
print("instance", os.environ["JOBWHEEL_INSTANCE_ID"])
print("warning", file=sys.stderr)
`, "p1")
	task.ProcessorType = "PYTHON"
	ctx := newCtx(t, t.Context(), task)
	res, err := Python().Process(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message != "hello from python p1\ninstance 42" {
		t.Errorf("result %q", res.Message)
	}
	task.Processor = "import sys\nsys.exit(4)\n"
	if _, err := Python().Process(newCtx(t, t.Context(), task)); err == nil || !strings.Contains(err.Error(), "exit status 4") {
		t.Errorf("error %v, want exit status 4", err)
	}
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitGone waits for pid to be dead (gone, or a zombie nobody reaped yet).
// Killing and reaping are asynchronous, so it polls; the bound is only
// there to fail rather than hang.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return
		}
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i+1:]), " Z") {
				return
			}
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("process %d survived its script", pid)
}

// A script running as a workflow node reads the run's context and its
// upstream results from $JOBWHEEL_WORKFLOW_CONTEXT and adds to the context
// by writing a JSON object to $JOBWHEEL_WORKFLOW_OUTPUT.
func TestShellWorkflowContextFiles(t *testing.T) {
	task := scriptTask(`
python3 -c 'import json,os; d=json.load(open(os.environ["JOBWHEEL_WORKFLOW_CONTEXT"])); print(d["context"]["region"], d["upstream"]["extract"])'
echo '{"rows": 12, "tables": ["a","b"]}' > "$JOBWHEEL_WORKFLOW_OUTPUT"
`, "")
	task.WorkflowContext = map[string]any{"region": "eu"}
	task.Upstream = map[string]string{"extract": "10 rows"}
	task.WorkflowRunID, task.WorkflowNode = 5, "transform"
	ctx := newCtx(t, t.Context(), task)
	if _, err := Shell().Process(ctx); err != nil {
		t.Fatal(err)
	}
	if lines := ctx.Lines(); len(lines) != 1 || lines[0].Text != "eu 10 rows" {
		t.Fatalf("the script saw %v; want the context and the upstream result", lines)
	}
	got := ctx.WorkflowValues()
	if got["rows"] != float64(12) || len(got["tables"].([]any)) != 2 {
		t.Fatalf("added %v; want rows and tables", got)
	}
}

// What is not one JSON object, or too big, fails the task saying so.
func TestShellWorkflowOutputRefused(t *testing.T) {
	for name, c := range map[string]struct{ script, want string }{
		"not an object": {`echo '[1,2]' > "$JOBWHEEL_WORKFLOW_OUTPUT"`, "must hold one JSON object"},
		"too big":       {`head -c 1048577 /dev/zero | tr '\0' 'x' > "$JOBWHEEL_WORKFLOW_OUTPUT"`, "at most 1048576 bytes (1 MiB)"},
	} {
		t.Run(name, func(t *testing.T) {
			task := scriptTask(c.script, "")
			task.WorkflowRunID, task.WorkflowNode = 5, "n"
			_, err := Shell().Process(newCtx(t, t.Context(), task))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v; want one saying %q", err, c.want)
			}
		})
	}
}

// Outside a workflow, the variables are not set.
func TestShellNoWorkflowOutsideWorkflows(t *testing.T) {
	ctx := newCtx(t, t.Context(), scriptTask(`echo "ctx=${JOBWHEEL_WORKFLOW_CONTEXT:-unset}"`, ""))
	if _, err := Shell().Process(ctx); err != nil {
		t.Fatal(err)
	}
	if l := ctx.Lines(); len(l) != 1 || l[0].Text != "ctx=unset" {
		t.Fatalf("lines %v", l)
	}
}

// BenchmarkShellTrue is the agent's own cost of one script task: temporary
// directory, script file, process group, pipes, wait and clean-up around a
// `true` (go test -bench ShellTrue ./worker/processors/).
// BenchmarkShellTrue also reports the CPU per script, the agent's own
// (self-cpu-µs/op) apart from the script's process (child-cpu-µs/op):
// wall time on a shared machine says little, CPU time is what a burst of
// scripts costs.
func BenchmarkShellTrue(b *testing.B) {
	s := Shell()
	dir := b.TempDir()
	self0, child0 := cpuMicros(syscall.RUSAGE_SELF), cpuMicros(syscall.RUSAGE_CHILDREN)
	for b.Loop() {
		c := workertest.New(b.Context(), scriptTask("true", ""))
		c.Dir = dir
		if _, err := s.Process(c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuMicros(syscall.RUSAGE_SELF)-self0)/float64(b.N), "self-cpu-µs/op")
	b.ReportMetric((cpuMicros(syscall.RUSAGE_CHILDREN)-child0)/float64(b.N), "child-cpu-µs/op")
}

// cpuMicros is the user+system CPU of this process or of its waited-for
// children, in microseconds.
func cpuMicros(who int) float64 {
	var r syscall.Rusage
	_ = syscall.Getrusage(who, &r)
	return float64(r.Utime.Nano()+r.Stime.Nano()) / 1e3
}

// A shell script is given to sh as text (-c), not written to a file: $0,
// $1 and $2 and the shell's own messages must read as they did from the
// file, a script that begins with "-" must not be taken for options, and
// a script too long for one argument still runs, from its file.
func TestShellInlineKeepsArgumentsAndMessages(t *testing.T) {
	ctx := newCtx(t, t.Context(), scriptTask("-x 2>/dev/null\necho \"0=$0 1=$1 2=$2\"\nno-such-command-here\nexit 0", "jp"))
	if _, err := Shell().Process(ctx); err != nil {
		t.Fatal(err)
	}
	lines := ctx.Lines()
	if len(lines) != 2 {
		t.Fatalf("lines %v", lines)
	}
	zero, rest, _ := strings.Cut(strings.TrimPrefix(lines[0].Text, "0="), " ")
	if filepath.Base(zero) != "script.sh" || filepath.Dir(filepath.Dir(zero)) != ctx.Dir || rest != "1=jp 2=inst-params" {
		t.Errorf("arguments %q, want $0 the script file in its directory under %s, $1 the job's and $2 the instance's parameters", lines[0].Text, ctx.Dir)
	}
	if want := zero + ": 3: no-such-command-here: not found"; lines[1].Text != want || lines[1].Level != "ERROR" {
		t.Errorf("message %q (%s), want %q as from the file", lines[1].Text, lines[1].Level, want)
	}

	long := "# " + strings.Repeat("x", maxInlineScript) + "\n" + `[ -f "$0" ] && echo "from $(basename "$0")"`
	ctx = newCtx(t, t.Context(), scriptTask(long, ""))
	res, err := Shell().Process(ctx)
	if err != nil || res.Message != "from script.sh" {
		t.Fatalf("a script over %d bytes: result %q, error %v; want it run from its file", maxInlineScript, res.Message, err)
	}
}
