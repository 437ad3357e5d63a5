package harness

import (
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/jobwheel/jobwheel/internal/javaworker"
)

// AgentOptions configure a standalone agent process.
type AgentOptions struct {
	Servers []string
	App     string
	Secret  string
	Tags    []string
	Name    string
	Slots   int
	Env     []string
}

// StartAgent starts cmd/jobwheel-agent; it is killed when the test ends if it is
// still running.
func StartAgent(tb TB, opts AgentOptions) *Process {
	tb.Helper()
	bins := Build(tb)
	env := append([]string{
		"JOBWHEEL_SERVERS=" + strings.Join(opts.Servers, ","),
		"JOBWHEEL_APP=" + opts.App,
		"JOBWHEEL_APP_SECRET=" + opts.Secret,
		"JOBWHEEL_WORKER_TAGS=" + strings.Join(opts.Tags, ","),
		"JOBWHEEL_LOG_LEVEL=debug",
	}, opts.Env...)
	if opts.Name != "" {
		env = append(env, "JOBWHEEL_WORKER_NAME="+opts.Name)
	}
	if opts.Slots > 0 {
		env = append(env, "JOBWHEEL_WORKER_SLOTS="+itoa(opts.Slots))
	}
	name := "agent"
	if opts.Name != "" {
		name = "agent " + opts.Name
	}
	p := startProcess(tb, name, bins.Agent, nil, env, tb.TempDir())
	tb.Cleanup(func() {
		if !p.Exited() {
			_ = p.Stop(StopTimeout)
		}
	})
	return p
}

func itoa(n int) string {
	const digits = "0123456789"
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{digits[n%10]}, b...)
		n /= 10
	}
	return string(b)
}

// StartPythonWorker starts the Python SDK's example worker
// (worker/python/examples/worker.py) with the agent's settings; it is
// stopped (SIGTERM) when the test ends if it is still running.
func StartPythonWorker(tb TB, opts AgentOptions) *Process {
	tb.Helper()
	root, err := RepoRoot()
	if err != nil {
		tb.Fatalf("%v", err)
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		tb.Fatalf("python3 is needed for the Python worker (make test-deps installs it): %v", err)
	}
	env := append([]string{
		"JOBWHEEL_SERVERS=" + strings.Join(opts.Servers, ","),
		"JOBWHEEL_APP=" + opts.App,
		"JOBWHEEL_APP_SECRET=" + opts.Secret,
		"JOBWHEEL_WORKER_TAGS=" + strings.Join(opts.Tags, ","),
		"JOBWHEEL_LOG_LEVEL=debug",
		"PYTHONUNBUFFERED=1",
	}, opts.Env...)
	if opts.Name != "" {
		env = append(env, "JOBWHEEL_WORKER_NAME="+opts.Name)
	}
	if opts.Slots > 0 {
		env = append(env, "JOBWHEEL_WORKER_SLOTS="+itoa(opts.Slots))
	}
	p := startProcess(tb, "python worker", python, []string{filepath.Join(root, "worker", "python", "examples", "worker.py")}, env, tb.TempDir())
	tb.Cleanup(func() {
		if !p.Exited() {
			_ = p.Stop(StopTimeout)
		}
	})
	return p
}

// StartJavaWorker starts the Java SDK's example worker
// (worker/java/examples: io.jobwheel.examples.ExampleWorker, its jar built
// with Maven once unless it is up to date) with the agent's settings; it is
// stopped (SIGTERM) when the test ends if it is still running.
func StartJavaWorker(tb TB, opts AgentOptions) *Process {
	tb.Helper()
	cmd, err := javaworker.Command(javaworker.ExampleMain)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	env := append([]string{
		"JOBWHEEL_SERVERS=" + strings.Join(opts.Servers, ","),
		"JOBWHEEL_APP=" + opts.App,
		"JOBWHEEL_APP_SECRET=" + opts.Secret,
		"JOBWHEEL_WORKER_TAGS=" + strings.Join(opts.Tags, ","),
		"JOBWHEEL_LOG_LEVEL=debug",
	}, opts.Env...)
	if opts.Name != "" {
		env = append(env, "JOBWHEEL_WORKER_NAME="+opts.Name)
	}
	if opts.Slots > 0 {
		env = append(env, "JOBWHEEL_WORKER_SLOTS="+itoa(opts.Slots))
	}
	name := "java worker"
	if opts.Name != "" {
		name = "java worker " + opts.Name
	}
	p := startProcess(tb, name, cmd[0], cmd[1:], env, tb.TempDir())
	tb.Cleanup(func() {
		if !p.Exited() {
			_ = p.Stop(StopTimeout)
		}
	})
	return p
}
