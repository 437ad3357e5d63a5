//go:build linux

package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// TestMakeRun runs scripts/run.sh — what `make run` runs — with the built
// binaries on a fresh SQLite file, as a newcomer would: the demo's jobs
// write their log lines while they run, the demo job shows its job and run
// parameters, and stopping it ends the server and the agent, with a task
// running, at once (no agent retrying a vanished server) and with exit
// status 0 — through make on a terminal (Ctrl-C), and with SIGINT to the
// script alone, as a process supervisor sends.
func TestMakeRun(t *testing.T) {
	t.Parallel()
	t.Run("make on a terminal, Ctrl-C", func(t *testing.T) {
		t.Parallel()
		if _, err := exec.LookPath("make"); err != nil {
			t.Fatal("make is needed to test `make run`: apt-get install -y make")
		}
		d := newRunDir(t)
		// The repository's run target, minus the build (done already).
		if err := os.WriteFile(filepath.Join(d.dir, "Makefile"), []byte("run:\n\t./scripts/run.sh\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("make", "run")
		term := startOnTerminal(t, cmd, d)
		d.exercise(t, term.output)
		term.write(t, "\x03") // Ctrl-C
		d.checkStopped(t, cmd, term.output)
		if out := term.output(); strings.Contains(out, "make: ***") {
			t.Errorf("make reports an error:\n%s", tail(out, 20))
		}
	})
	t.Run("SIGINT to the script", func(t *testing.T) {
		t.Parallel()
		d := newRunDir(t)
		cmd := exec.Command(filepath.Join(d.dir, "scripts", "run.sh"))
		cmd.Dir, cmd.Env = d.dir, d.env
		var out syncBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { killAll(d) })
		d.exercise(t, out.String)
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		d.checkStopped(t, cmd, out.String)
	})
}

// runDir is a copy of the repository's layout for run.sh: scripts/run.sh
// and bin/ with the built binaries, and the SQLite file and demo secret it
// writes.
type runDir struct {
	dir, url string
	env      []string
	pids     []int // the server's and the agent's, once seen
}

func newRunDir(t *testing.T) *runDir {
	bins := harness.Build(t)
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, sub := range []string{"scripts", "bin"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script, err := os.ReadFile(filepath.Join(root, "scripts", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scripts", "run.sh"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{bins.Server, bins.Agent} {
		if err := os.Symlink(b, filepath.Join(dir, "bin", filepath.Base(b))); err != nil {
			t.Fatal(err)
		}
	}
	addr := harness.FreeAddr(t)
	d := &runDir{dir: dir, url: "http://" + addr}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "JOBWHEEL_") {
			d.env = append(d.env, kv)
		}
	}
	// run.sh serves the metrics on the console's port + 1 unless told;
	// that port is not known to be free (CI: "bind: address already in
	// use" while other tests held it), so the test names a free one.
	d.env = append(d.env, "JOBWHEEL_DATABASE_URL=sqlite:"+filepath.Join(dir, "jobwheel.db"), "JOBWHEEL_HTTP_ADDR="+addr,
		"JOBWHEEL_ADVERTISE_URL="+d.url, "JOBWHEEL_ADMIN_PASSWORD="+harness.DefaultAdminPassword,
		"JOBWHEEL_METRICS_ADDR="+harness.FreeAddr(t))
	return d
}

// exercise waits for the demo to run, checks its logs and parameters, and
// leaves a task running.
func (d *runDir) exercise(t *testing.T, output func() string) {
	t.Helper()
	if !testkit.Poll(settle, func() bool { return strings.Contains(output(), `demo: an agent runs the jobs of app "demo"`) }) {
		t.Fatalf("the demo did not start:\n%s", tail(output(), 40))
	}
	c := harness.NewClient(d.url)
	if err := c.Login("admin", harness.DefaultAdminPassword); err != nil {
		t.Fatal(err)
	}
	var jobs struct {
		Jobs struct {
			Edges []struct{ Node struct{ ID, Name string } }
		}
	}
	if err := c.Do(`{ jobs(app: "demo") { edges { node { id name } } } }`, nil, &jobs); err != nil {
		t.Fatal(err)
	}
	hello := ""
	for _, e := range jobs.Jobs.Edges {
		if e.Node.Name == "hello-every-10s" {
			hello = e.Node.ID
		}
	}
	if hello == "" {
		t.Fatalf("no demo job hello-every-10s in %+v", jobs)
	}

	// A scheduled run shows its lines while it runs, the job's parameters
	// among them.
	var live *harness.Instance
	testkit.Poll(settle, func() bool {
		list, err := c.Instances("demo", hello)
		for i := range list {
			if err == nil && list[i].Status == "RUNNING" {
				if in, err := c.Instance(list[i].ID); err == nil && in.Status == "RUNNING" && len(in.Logs.Lines) > 0 {
					live = in
					return true
				}
			}
		}
		return false
	})
	if live == nil {
		t.Fatalf("no demo instance showed log lines while running\n%s", tail(output(), 40))
	}
	if text := strings.Join(texts(live), "\n"); !strings.Contains(text, "(JOBWHEEL_JOB_PARAMS, also $1): region=eu") {
		t.Errorf("the demo's log does not show its job parameters:\n%s", text)
	}

	// A run with parameters shows them; it is left running.
	id, err := c.RunJob(hello, "color=blue")
	if err != nil {
		t.Fatal(err)
	}
	var run *harness.Instance
	if !testkit.Poll(settle, func() bool {
		run, err = c.Instance(id)
		return err == nil && strings.Contains(strings.Join(texts(run), "\n"), "(JOBWHEEL_INSTANCE_PARAMS, also $2): color=blue")
	}) {
		t.Fatalf("the demo's log does not show the run parameters: %+v", run)
	}
	if run.Status != "RUNNING" {
		t.Logf("the run with parameters is %s, not RUNNING, when stopping", run.Status)
	}

	d.pids = d.processes()
	if len(d.pids) != 2 {
		t.Fatalf("found processes %v for the server and the agent; want two", d.pids)
	}
}

// processes are the pids of the jobwheel binaries running in the dir.
func (d *runDir) processes() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
		if base := filepath.Base(exe); (base == "jobwheel-server" || base == "jobwheel-agent") && cwd == d.dir {
			pids = append(pids, pid)
		}
	}
	return pids
}

// checkStopped waits for cmd to end and checks it ended well, with the
// server and the agent.
func (d *runDir) checkStopped(t *testing.T, cmd *exec.Cmd, output func() string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v; want status 0\n%s", err, tail(output(), 30))
		}
	case <-time.After(settle):
		t.Fatalf("still running %s after the interrupt\n%s", settle, tail(output(), 30))
	}
	for _, pid := range d.pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d (server or agent) is still there: %v", pid, err)
		}
	}
	for _, bad := range []string{"connecting to the server failed", "not acknowledged before the shutdown timeout", "level=ERROR"} {
		if strings.Contains(output(), bad) {
			t.Errorf("the output says %q:\n%s", bad, tail(output(), 30))
		}
	}
}

// killAll ends what a failed test left running.
func killAll(d *runDir) {
	for _, pid := range d.processes() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// terminal is a pseudo-terminal whose other end is a process's
// controlling terminal.
type terminal struct {
	master *os.File
	out    syncBuffer
}

// startOnTerminal starts cmd in a new session with a new pseudo-terminal as
// its controlling terminal and stdin, stdout and stderr, as a shell would.
func startOnTerminal(t *testing.T, cmd *exec.Cmd, d *runDir) *terminal {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	master := os.NewFile(uintptr(fd), "/dev/ptmx")
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir, cmd.Env = d.dir, d.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	term := &terminal{master: master}
	go func() { _, _ = io.Copy(&term.out, master) }() // ends with EIO once every holder of the terminal is gone
	t.Cleanup(func() {
		killAll(d)
		master.Close()
	})
	return term
}

func (term *terminal) output() string { return term.out.String() }

func (term *terminal) write(t *testing.T, s string) {
	t.Helper()
	if _, err := term.master.Write([]byte(s)); err != nil {
		t.Fatalf("typing on the terminal: %v", err)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and many readers.
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

// TestMakeRebuildsOnlyWhatChanged (issue 16, item 15): `make build`, which
// `make run` starts with, builds the console and the binaries once, then
// nothing while their sources are unchanged (the console used to be
// rebuilt on every start, 14 s); a changed console source rebuilds the
// console and the server that embeds it, not the agent; a changed Go
// source rebuilds the binaries, not the console. It runs the repository's
// Makefile on a copy of the layout, with npm and go stand-ins that note
// each call.
func TestMakeRebuildsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is needed: apt-get install -y make")
	}
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls.log")
	write := func(name, content string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	write("Makefile", string(makefile), 0o644)
	for _, f := range []string{"frontend/src/main.tsx", "frontend/public/favicon.svg", "frontend/index.html", "frontend/package.json",
		"frontend/package-lock.json", "frontend/vite.config.ts", "frontend/tsconfig.json", "go.mod", "go.sum",
		"cmd/jobwheel-server/main.go", "cmd/jobwheel-agent/main.go"} {
		write(f, "// "+f+"\n", 0o644)
	}
	// npm ci makes node_modules; npm run build writes dist/index.html; go
	// build -o <file> writes the file. Each notes its call.
	write("fake/npm", "#!/bin/sh\necho \"npm $*\" >> "+calls+"\n"+
		"case \"$1\" in ci) mkdir -p node_modules;; run) mkdir -p dist && echo built > dist/index.html;; esac\n", 0o755)
	write("fake/go", "#!/bin/sh\necho \"go $*\" >> "+calls+"\n"+
		"if [ \"$1\" = build ] && [ \"$2\" = -o ]; then mkdir -p \"$(dirname \"$3\")\" && echo built > \"$3\"; fi\n", 0o755)

	build := func(step string, want ...string) {
		t.Helper()
		if err := os.WriteFile(calls, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("make", "build")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "fake")+string(os.PathListSeparator)+os.Getenv("PATH"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: make build: %v\n%s", step, err, out)
		}
		raw, err := os.ReadFile(calls)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if line != "" {
				got = append(got, line)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: make build ran\n\t%s\nwant\n\t%s", step, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
		}
	}
	// touch gives a file a modification time after everything built so far.
	touch := func(name string) {
		t.Helper()
		later := time.Now().Add(time.Second)
		if err := os.Chtimes(filepath.Join(dir, name), later, later); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1100 * time.Millisecond) // what make builds next is newer still
	}
	const (
		npmCI    = "npm ci --no-audit --no-fund"
		npmBuild = "npm run build"
		goServer = "go build -o bin/jobwheel-server ./cmd/jobwheel-server"
		goAgent  = "go build -o bin/jobwheel-agent ./cmd/jobwheel-agent"
		goCLI    = "go build -o bin/jobwheel ./cmd/jobwheel"
	)
	build("first build", npmCI, npmBuild, goServer, goAgent, goCLI)
	build("nothing changed")
	touch("frontend/src/main.tsx")
	build("a console source changed", npmBuild, goServer)
	touch("cmd/jobwheel-server/main.go")
	build("a Go source changed", goServer, goAgent, goCLI)
	touch("frontend/package-lock.json")
	build("the console's packages changed", npmCI, npmBuild, goServer)
	build("nothing changed since")
}
