package worker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

func nop() Processor {
	return Func(func(TaskContext) (Result, error) { return Result{}, nil })
}

func TestConfigValidation(t *testing.T) {
	good := Config{App: "orders", Secret: "s", Servers: []string{"http://localhost:7700"}}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for field, edit := range map[string]func(*Config){
		"App":                 func(c *Config) { c.App = " " },
		"Secret":              func(c *Config) { c.Secret = "" },
		"Servers":             func(c *Config) { c.Servers = nil },
		"Servers[1]":          func(c *Config) { c.Servers = append(c.Servers, "ftp://x") },
		"Slots":               func(c *Config) { c.Slots = 10001 },
		"Name":                func(c *Config) { c.Name = strings.Repeat("n", 101) },
		"Tags[0]":             func(c *Config) { c.Tags = []string{""} },
		"WorkDir":             func(c *Config) { c.WorkDir = file },
		"WorkDir ":            func(c *Config) { c.WorkDir = filepath.Join(file, "missing") },
		"MaxBufferedLogLines": func(c *Config) { c.MaxBufferedLogLines = -1 },
		"MaxBufferedReports":  func(c *Config) { c.MaxBufferedReports = -1 },
		"FlushInterval":       func(c *Config) { c.FlushInterval = -time.Second },
		"MapTimeout":          func(c *Config) { c.MapTimeout = -time.Second },
		"ShutdownTimeout":     func(c *Config) { c.ShutdownTimeout = -time.Second },
		"AbandonAfter":        func(c *Config) { c.AbandonAfter = -time.Second },
	} {
		field = strings.TrimSpace(field)
		c := good
		edit(&c)
		err := c.Validate()
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != field || !strings.Contains(err.Error(), field+":") {
			t.Errorf("%s: error %v, want one naming the field", field, err)
		}
		// Run reports it too, before doing anything.
		if err := New(c).Run(t.Context()); err == nil || !strings.Contains(err.Error(), field+":") {
			t.Errorf("%s: Run: %v", field, err)
		}
	}
	if err := good.Validate(); err != nil {
		t.Errorf("good config: %v", err)
	}
}

func TestRegisterPanicsOnMisuse(t *testing.T) {
	w := New(Config{})
	w.Register("a", nop())
	for name, f := range map[string]func(){
		"duplicate": func() { w.Register("a", nop()) },
		"empty":     func() { w.Register("", nop()) },
		"nil":       func() { w.Register("b", nil) },
		"GO type":   func() { w.RegisterType("GO", nop()) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestWorkerIDIsUniquePerProcess(t *testing.T) {
	a, b := New(Config{Name: "box"}), New(Config{Name: "box"})
	if a.ID() == b.ID() || !regexp.MustCompile(`^box-[0-9a-f]{12}$`).MatchString(a.ID()) {
		t.Errorf("ids %s and %s", a.ID(), b.ID())
	}
	host, _ := os.Hostname()
	if c := New(Config{}).Config(); c.Name != host || c.Host != host || c.Slots != 4*runtime.NumCPU() || c.WorkDir != os.TempDir() {
		t.Errorf("defaults: %+v", c)
	}
}

func TestHelloWelcomeHeartbeat(t *testing.T) {
	s := newFakeServer(t)
	s.heartbeatMs.Store(10)
	w, _, _ := testWorker(t, s, func(c *Config) { c.Tags = []string{"gpu", "eu"}; c.Version = "orders/1.2" }, func(w *Worker) {
		w.Register("sync-orders", nop())
		w.Register("archive", nop())
		w.RegisterType("SHELL", nop())
	})
	h := s.conn().hello
	if h.App != "orders" || h.WorkerID != w.ID() || h.Auth != "s3cret" || h.Slots != 4 || h.Protocol != protocol.Version ||
		h.Version != "orders/1.2" || !slices.Equal(h.Tags, []string{"gpu", "eu"}) ||
		!slices.Equal(h.Processors, []string{"archive", "sync-orders"}) || !slices.Equal(h.Types, []string{"SHELL"}) {
		t.Errorf("hello %+v", h)
	}
	if h.Metrics.CPUCores != runtime.NumCPU() {
		t.Errorf("metrics %+v", h.Metrics)
	}
	if runtime.GOOS == "linux" && (h.Metrics.FreeMemoryMB <= 0 || h.Metrics.FreeDiskMB <= 0) {
		t.Errorf("metrics on Linux %+v", h.Metrics)
	}
	hb := recv(t, s.beats, "a heartbeat")
	if hb.Metrics.CPUCores != runtime.NumCPU() || hb.Running == nil {
		t.Errorf("heartbeat %+v", hb)
	}
}

func TestAuthRefusedStopsRun(t *testing.T) {
	s := newFakeServer(t)
	_, _, done := testWorker(t, s, func(c *Config) { c.Secret = "wrong" }, nil)
	err := recv(t, done, "Run to return")
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), `the server refused the app secret for app "orders"`) {
		t.Fatalf("Run: %v", err)
	}
	if n := len(s.hellos); n != 0 {
		t.Errorf("%d hellos; discovery refuses a wrong secret, and it must not be retried", n)
	}
}

func TestDiscoveryTriesEveryServer(t *testing.T) {
	s := newFakeServer(t)
	s.servers = []string{s.URL(), "http://learned.example"}
	w, _, _ := testWorker(t, s, func(c *Config) { c.Servers = []string{"http://127.0.0.1:1", s.URL()} }, nil)
	s.conn()
	testkit.EventuallyWithin(t, failsafe, "the servers of the welcome to be learned", func() bool {
		return slices.Contains(w.serverList(), "http://learned.example")
	})
}

// A task still running when the drain's time is up is cancelled and
// handed back, for the server to run elsewhere.
func TestRunReturnsAfterGracefulStop(t *testing.T) {
	s := newFakeServer(t)
	started := make(chan struct{})
	_, cancel, done := testWorker(t, s, func(c *Config) { c.DrainTimeout = 20 * time.Millisecond }, func(w *Worker) {
		w.Register("wait", Func(func(ctx TaskContext) (Result, error) {
			close(started)
			<-ctx.Done()
			return Result{}, context.Cause(ctx)
		}))
	})
	c := s.conn()
	c.dispatch(1, goTask(1, "wait"))
	recv(t, started, "the task to start")
	cancel()
	if err := recv(t, done, "Run to return"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	r := s.final(1)
	if r.Status != protocol.TaskFailed || r.Reason != protocol.ReasonHandedBack || !strings.Contains(r.Result, "handed back") {
		t.Errorf("final report %+v; want FAILED, HANDED_BACK", r)
	}
	if code := recv(t, s.closures, "a close frame"); code != 1000 {
		t.Errorf("close code %d, want 1000", code)
	}
}

// goTask is a STANDALONE root task of a GO processor.
func goTask(id int64, processor string) protocol.Task {
	return protocol.Task{
		TaskID: id, InstanceID: 100 + id, JobID: 9, Attempt: 1, Kind: protocol.KindRoot, Name: "ROOT",
		ExecutionMode: "STANDALONE", ProcessorType: "GO", Processor: processor,
	}
}

func TestMetricsParsing(t *testing.T) {
	info := []byte("MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    8192000 kB\n")
	if got := parseMemAvailable(info); got != 8000 {
		t.Errorf("MemAvailable: %d MB", got)
	}
	if got := parseMemAvailable([]byte("MemFree: 1 kB\n")); got != 0 {
		t.Errorf("no MemAvailable: %d", got)
	}
}

// A processor that ignores its context does not keep its final report
// from the server at shutdown.
func TestShutdownReportsADeafTask(t *testing.T) {
	s := newFakeServer(t)
	release := make(chan struct{})
	defer close(release)
	_, cancel, done := testWorker(t, s, func(c *Config) {
		c.AbandonAfter, c.DrainTimeout = time.Millisecond, time.Millisecond
	}, func(w *Worker) {
		w.Register("deaf", Func(func(TaskContext) (Result, error) {
			<-release
			return Result{}, nil
		}))
	})
	s.conn().dispatch(1, goTask(1, "deaf"))
	s.report(1, protocol.TaskRunning)
	cancel()
	if err := recv(t, done, "Run to return"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if r := s.final(1); r.Status != protocol.TaskFailed || r.Reason != protocol.ReasonHandedBack {
		t.Errorf("final %+v; want FAILED, HANDED_BACK", r)
	}
}

// Stopping a worker drains it: it tells the server, takes no new task,
// and a task that finishes within DrainTimeout reports its own result.
func TestDrainLetsRunningTasksFinish(t *testing.T) {
	s := newFakeServer(t)
	started, finish := make(chan struct{}), make(chan struct{})
	_, cancel, done := testWorker(t, s, func(c *Config) { c.DrainTimeout = time.Minute }, func(w *Worker) {
		w.Register("short", Func(func(ctx TaskContext) (Result, error) {
			close(started)
			<-finish
			return Result{Message: "finished"}, nil
		}))
	})
	c := s.conn()
	c.dispatch(1, goTask(1, "short"))
	recv(t, started, "the task to start")
	cancel()
	for hb := range s.beats {
		if hb.Draining {
			break
		}
	}
	if ack := c.dispatch(1, goTask(2, "short")); len(ack.Rejected) != 1 {
		t.Errorf("a draining worker accepted a task: %+v", ack)
	}
	close(finish)
	if err := recv(t, done, "Run to return"); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if r := s.final(1); r.Status != protocol.TaskSucceeded || r.Result != "finished" {
		t.Errorf("final %+v; want SUCCEEDED with its own result", r)
	}
}
