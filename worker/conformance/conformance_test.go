package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/internal/javaworker"
)

var (
	binDir    string // removed when the tests end
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildOut  []byte
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "jobwheel-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// goWorker builds the Go SDK's test worker once (with the race detector
// when the tests have it, so the kit's run exercises the SDK under it).
func goWorker(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		builtBin = filepath.Join(binDir, "testworker")
		args := []string{"build", "-o", builtBin}
		if raceEnabled {
			args = append(args, "-race")
		}
		buildOut, buildErr = exec.Command("go", append(args, "./testworker")...).CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building the test worker: %v\n%s", buildErr, buildOut)
	}
	return builtBin
}

// kitRun runs the kit with args and returns its exit status and output.
func kitRun(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, log bytes.Buffer
	code := run(t.Context(), args, &out, &log)
	t.Logf("jobwheel-conformance %s:\n%s", strings.Join(args, " "), out.String())
	if code == 2 {
		t.Fatalf("usage error: %s", log.String())
	}
	return code, out.String()
}

// requireAllPass fails the test unless every check of the kit ran and
// passed.
func requireAllPass(t *testing.T, code int, out string) {
	t.Helper()
	if code != 0 || strings.Contains(out, "\nSKIP ") || strings.HasPrefix(out, "SKIP ") {
		t.Fatalf("the kit did not pass every check (exit status %d); see its output above", code)
	}
	if got := strings.Count(out, "PASS "); got != len(checks) {
		t.Fatalf("%d checks passed; the kit has %d", got, len(checks))
	}
}

// loadedWait is how long a check waits for the worker here: generous, as
// the tests share a small machine with everything else make test runs (a
// bound on "it happens at all", never on speed).
const loadedWait = "60s"

// TestGoSDK: the Go worker SDK passes every check of the kit.
func TestGoSDK(t *testing.T) {
	t.Parallel()
	code, out := kitRun(t, "-wait", loadedWait, "--", goWorker(t))
	requireAllPass(t, code, out)
}

// TestPythonSDK: the Python worker SDK (worker/python) passes every check
// of the kit.
func TestPythonSDK(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is needed to test the Python SDK (make test-deps installs it): %v", err)
	}
	code, out := kitRun(t, "-wait", loadedWait, "--", python, filepath.Join("..", "python", "examples", "conformance_worker.py"))
	requireAllPass(t, code, out)
}

// TestJavaSDK: the Java worker SDK (worker/java) passes every check of the
// kit, with its conformance worker (io.jobwheel.examples.ConformanceWorker
// in the examples jar, built with Maven unless it is up to date).
func TestJavaSDK(t *testing.T) {
	t.Parallel()
	cmd, err := javaworker.Command(javaworker.ConformanceMain)
	if err != nil {
		t.Fatal(err)
	}
	code, out := kitRun(t, append([]string{"-wait", loadedWait, "--"}, cmd...)...)
	requireAllPass(t, code, out)
}

// TestKitFails: a worker that does not follow its settings fails the
// check that looks at them, and the kit exits 1 saying why.
func TestKitFails(t *testing.T) {
	t.Parallel()
	code, out := kitRun(t, "-run", "^hello$", "--", goWorker(t), "-slots", "7")
	if code != 1 || !strings.Contains(out, "FAIL hello") || !strings.Contains(out, "slots 7, not JOBWHEEL_WORKER_SLOTS=3") {
		t.Fatalf("exit status %d; want 1 and a FAIL line for hello naming the slots", code)
	}
}

// TestKitUsage: no worker command is a usage error.
func TestKitUsage(t *testing.T) {
	var out, log bytes.Buffer
	if code := run(t.Context(), nil, &out, &log); code != 2 || !strings.Contains(log.String(), "no worker command") {
		t.Fatalf("no command: exit status %d, %q; want 2 and a message", code, log.String())
	}
}

// TestJudgeBackoff: a tight loop and a schedule without jitter are told
// apart from jittered back-off.
func TestJudgeBackoff(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		name   string
		gaps   []time.Duration
		jitter bool
		bad    bool
	}{
		{"tight loop", ms(1, 2, 1, 3, 2), false, true},
		{"immediate twice, then backing off", ms(1, 2, 1057, 1299, 168), false, false},
		{"doubling then capped, no jitter", ms(410, 811, 1645, 3005, 3005, 3011), true, true},
		{"constant, no jitter", ms(1000, 1004, 998, 1001, 1000, 1002), true, true},
		{"full jitter", ms(153, 338, 1314, 2751, 2727, 980), true, false},
		{"full jitter with short delays", ms(12, 656, 589, 142, 2360, 2271), true, false},
	} {
		if msg := judgeBackoff(c.gaps, 100*time.Millisecond, c.jitter); (msg != "") != c.bad {
			t.Errorf("%s: %q; want a complaint: %t", c.name, msg, c.bad)
		}
	}
}
