// Package harness runs real jobwheel processes for end-to-end tests and
// benchmarks: it builds the binaries once, starts servers and agents on free
// loopback ports against SQLite or PostgreSQL, talks GraphQL to them, and
// stops them gently (SIGTERM) or not (SIGKILL).
package harness

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"

	"strings"
	"sync"
	"syscall"
	"time"
)

// TB is the part of testing.TB the harness uses, so benchmarks outside
// `go test` can drive it too.
type TB interface {
	Helper()
	Logf(format string, args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
	TempDir() string
}

// Binaries are the built programs.
type Binaries struct {
	Server string
	Agent  string
	// CLI is the command-line tool (cmd/jobwheel); with JOBWHEEL_E2E_BIN,
	// the directory's jobwheel if it has one, else "".
	CLI string
	Dir string
}

var (
	buildOnce sync.Once
	built     Binaries
	buildErr  error
)

// RepoRoot finds the repository root from the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// BinEnv names a directory of prebuilt binaries (jobwheel-server and
// jobwheel-agent) the harness runs instead of building the working tree:
// the benchmarks use it to measure an older commit's binaries side by side
// with the current ones.
const BinEnv = "JOBWHEEL_E2E_BIN"

// Build compiles the server, the agent and the command-line tool once per
// process into a temporary directory. The server embeds whatever
// frontend/dist holds, so build the console first for browser tests. With
// JOBWHEEL_E2E_BIN set, it builds nothing and returns that directory's
// binaries.
func Build(tb TB) Binaries {
	tb.Helper()
	buildOnce.Do(func() {
		if dir := os.Getenv(BinEnv); dir != "" {
			built, buildErr = prebuilt(dir)
			return
		}
		root, err := RepoRoot()
		if err != nil {
			buildErr = err
			return
		}
		dir, err := os.MkdirTemp("", "jobwheel-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		built = Binaries{Dir: dir, Server: filepath.Join(dir, "jobwheel-server"), Agent: filepath.Join(dir, "jobwheel-agent"),
			CLI: filepath.Join(dir, "jobwheel")}
		for pkg, out := range map[string]string{"./cmd/jobwheel-server": built.Server, "./cmd/jobwheel-agent": built.Agent, "./cmd/jobwheel": built.CLI} {
			if _, err := os.Stat(filepath.Join(root, pkg)); err != nil {
				continue
			}
			cmd := exec.Command("go", "build", "-o", out, pkg)
			cmd.Dir = root
			if b, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
				return
			}
		}
	})
	if buildErr != nil {
		tb.Fatalf("building binaries: %v", buildErr)
	}
	return built
}

// prebuilt are the binaries in dir, which must both be there.
func prebuilt(dir string) (Binaries, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Binaries{}, fmt.Errorf("%s=%q: %w", BinEnv, dir, err)
	}
	b := Binaries{Dir: abs, Server: filepath.Join(abs, "jobwheel-server"), Agent: filepath.Join(abs, "jobwheel-agent")}
	for _, f := range []string{b.Server, b.Agent} {
		st, err := os.Stat(f)
		if err != nil {
			return Binaries{}, fmt.Errorf("%s=%q: %w (build them with go build -o DIR/jobwheel-server ./cmd/jobwheel-server and go build -o DIR/jobwheel-agent ./cmd/jobwheel-agent)", BinEnv, dir, err)
		}
		if st.IsDir() || st.Mode()&0o111 == 0 {
			return Binaries{}, fmt.Errorf("%s=%q: %s is not an executable file", BinEnv, dir, f)
		}
	}
	// The command-line tool is optional: older commits' builds lack it.
	if st, err := os.Stat(filepath.Join(abs, "jobwheel")); err == nil && !st.IsDir() {
		b.CLI = filepath.Join(abs, "jobwheel")
	}
	return b, nil
}

// FreeAddr returns a loopback address nothing listens on right now.
func FreeAddr(tb TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("finding a free port: %v", err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// Process is a started program with its output captured.
type Process struct {
	Name string
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error
}

func startProcess(tb TB, name, bin string, args []string, env []string, dir string) *Process {
	tb.Helper()
	return startProcessWith(tb, name, bin, args, env, dir, nil)
}

// startProcessWith is startProcess with the process's attributes (its
// user, its process group).
func startProcessWith(tb TB, name, bin string, args []string, env []string, dir string, attr *syscall.SysProcAttr) *Process {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = attr
	// A process's children may hold its output open after it ends (Patroni's
	// PostgreSQL): it has ended all the same.
	cmd.WaitDelay = time.Second
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	buf := &syncBuffer{}
	var w io.Writer = buf
	if os.Getenv("JOBWHEEL_E2E_VERBOSE") != "" {
		w = io.MultiWriter(buf, prefixWriter{name: name, w: os.Stderr})
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting %s: %v", name, err)
	}
	p := &Process{Name: name, cmd: cmd, out: buf, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	// Registered before the caller's stop, so it runs after it and sees the
	// whole output.
	tb.Cleanup(func() { p.keepOutputOnFailure(tb) })
	return p
}

// keepOutputOnFailure saves a failed test's process output under
// e2e/output and prints its end, so a CI failure shows what the server or
// agent was doing without a rerun.
func (p *Process) keepOutputOnFailure(tb TB) {
	t, ok := tb.(interface {
		Failed() bool
		Name() string
	})
	if !ok || !t.Failed() {
		return
	}
	file := filepath.Join(OutputDir(tb, t.Name()), fmt.Sprintf("%s-%d.log", strings.ReplaceAll(p.Name, " ", "-"), p.cmd.Process.Pid))
	if err := os.WriteFile(file, []byte(p.Output()), 0o644); err != nil {
		tb.Logf("saving %s output: %v", p.Name, err)
	}
	lines := strings.Split(strings.TrimRight(p.Output(), "\n"), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	tb.Logf("%s (pid %d) output saved to %s; its last lines:\n%s", p.Name, p.cmd.Process.Pid, file, strings.Join(lines, "\n"))
}

// Output is everything the process printed so far.
func (p *Process) Output() string { return p.out.String() }

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Wait waits for the process to end, up to timeout, and returns its exit error.
func (p *Process) Wait(timeout time.Duration) (error, bool) {
	select {
	case <-p.done:
		return p.err, true
	case <-time.After(timeout):
		return nil, false
	}
}

// Signal sends sig to the process.
func (p *Process) Signal(sig syscall.Signal) {
	if !p.Exited() {
		_ = p.cmd.Process.Signal(sig)
	}
}

// Kill ends the process with SIGKILL and waits for it.
func (p *Process) Kill() {
	p.Signal(syscall.SIGKILL)
	<-p.done
}

// Stop sends SIGTERM and waits up to timeout, then kills.
func (p *Process) Stop(timeout time.Duration) error {
	p.Signal(syscall.SIGTERM)
	if err, ok := p.Wait(timeout); ok {
		return err
	}
	p.Kill()
	return fmt.Errorf("%s did not stop within %s of SIGTERM; killed", p.Name, timeout)
}

// waitHTTP waits until GET url answers 200.
func waitHTTP(ctx context.Context, url string) error {
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			if err == nil {
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
			return fmt.Errorf("%s did not become ready: %w", url, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type prefixWriter struct {
	name string
	w    io.Writer
}

func (p prefixWriter) Write(b []byte) (int, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		fmt.Fprintf(p.w, "[%s] %s\n", p.name, sc.Text())
	}
	return len(b), nil
}

// Chromium returns the path of Debian's Chromium, failing the test with
// how to install it if it is missing.
func Chromium(tb TB) string {
	tb.Helper()
	p := os.Getenv("CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("Chromium not found at %s: run `make test` (it installs Debian's chromium) or `apt-get install -y chromium`", p)
	}
	return p
}

// OutputDir returns e2e/output/<name>, created, for screenshots and logs.
func OutputDir(tb TB, name string) string {
	tb.Helper()
	root, err := RepoRoot()
	if err != nil {
		tb.Fatalf("%v", err)
	}
	dir := filepath.Join(root, "e2e", "output", strings.ReplaceAll(name, "/", "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatalf("%v", err)
	}
	return dir
}

// StopTimeout is how long a graceful stop may take before the harness
// kills the process and reports it.
const StopTimeout = 20 * time.Second

// Elapse lets real time pass: the one wait a test cannot replace with a
// condition, because what it asserts is what happens over that time —
// every-second jobs firing, an outage or a downtime lasting. Every other wait
// waits for its condition (Eventually).
func Elapse(tb TB, d time.Duration, what string) {
	tb.Helper()
	tb.Logf("letting %s go on for %s", what, d)
	time.Sleep(d)
}
