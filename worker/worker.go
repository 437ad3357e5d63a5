// Package worker is the jobwheel worker SDK: a Go service embeds a Worker,
// registers processors, and calls Run. The worker finds the server that owns
// its app (GET /worker/discover), keeps one websocket to it
// (/worker/connect, see package protocol), runs the tasks it is sent, and
// ships their status, results and log lines back.
//
//	w := worker.New(worker.Config{App: "orders", Secret: os.Getenv("JOBWHEEL_APP_SECRET"),
//		Servers: []string{"http://localhost:7700"}})
//	w.Register("sync-orders", worker.Func(func(ctx worker.TaskContext) (worker.Result, error) {
//		ctx.Logger().Info("syncing", "params", ctx.JobParams())
//		return worker.Result{Message: "synced 42 orders"}, nil
//	}))
//	err := w.Run(ctx) // blocks until ctx is done; reconnects by itself
//
// Delivery: task reports, log lines and map requests are queued in a bounded
// outbox, sent in batches and kept until the server acknowledges them, so a
// dropped connection loses nothing: tasks keep running while the worker
// reconnects, and what was not acknowledged is sent again (the server
// de-duplicates). Only log lines can be lost, when more pile up while
// disconnected than Config.MaxBufferedLogLines; the oldest go first and the
// number lost is told to the server.
package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// SDKVersion is stated in hello when Config.Version is empty.
const SDKVersion = "jobwheel-go/0.1"

// ErrAuth is returned (wrapped) by Run when the server refuses the app
// secret. Run does not retry then: a wrong secret does not fix itself.
var ErrAuth = errors.New("authentication refused")

// Config configures a Worker. App, Secret and Servers are required; every
// other field has a default.
type Config struct {
	// App is the name of the app the worker serves.
	App string
	// Secret is the app secret, shown once when the app was created.
	Secret string
	// Servers are base URLs of jobwheel servers (http:// or https://), any
	// of which can tell the worker which server owns its app. Servers
	// learned from the server are tried too.
	Servers []string

	// Name identifies the worker to people (default: the host name). The
	// wire worker id is Name plus a random suffix, unique per process,
	// because log sequence numbers restart with the process.
	Name string
	// Host is the address shown for the worker (default: the host name).
	Host string
	// Tags let jobs select workers.
	Tags []string
	// Slots is how many tasks the worker runs at once (default 4 × CPUs).
	Slots int
	// WorkDir is the directory whose free space is reported and under which
	// script processors make their temporary directories (default
	// os.TempDir()).
	WorkDir string
	// Version is the application version shown in the console (default
	// SDKVersion).
	Version string

	// Logger receives the worker's own log and a copy of every task log
	// line, each filtered by the logger's own level (default
	// slog.Default()). Its level never filters what is shipped to the
	// server.
	Logger *slog.Logger
	// TaskLogLevel, if set, is the lowest level of task log lines shipped
	// to the server. Nil (the default) ships every line, DEBUG included.
	TaskLogLevel slog.Leveler

	// MaxBufferedLogLines bounds the log lines waiting to be sent (default
	// 20000). When full, the oldest lines are dropped and counted.
	MaxBufferedLogLines int
	// MaxBufferedReports bounds the task reports waiting to be sent
	// (default 10000). Reports are never dropped: when full, finishing
	// tasks wait for room.
	MaxBufferedReports int
	// FlushInterval is how often queued reports and log lines are sent
	// (default 50ms: a line reaches a live viewer within about that; under
	// load the writer is busy meanwhile and lines go out together, so a
	// short interval costs no extra frames when it matters); a large
	// backlog is sent at once.
	FlushInterval time.Duration
	// MapTimeout bounds how long TaskContext.Map waits while the server
	// stores none of this worker's subtasks, connected or not (default
	// 30s). While the server stores some, however slowly, Map waits on.
	MapTimeout time.Duration
	// DrainTimeout is how long running tasks may go on finishing when Run's
	// context is done (the worker drains: it takes no new tasks and the
	// server lists it as DRAINING); what is still running then is handed
	// back, to run again elsewhere without counting a retry (default 10s).
	DrainTimeout time.Duration
	// ShutdownTimeout bounds the graceful part of Run's return after the
	// drain: waiting for handed-back tasks to end and for queued reports
	// and logs to be acknowledged (default 10s).
	ShutdownTimeout time.Duration
	// AbandonAfter is how long a task whose context is done (stopped, timed
	// out, shut down) may take to return before its final status is
	// reported anyway (default 5s). Its slot stays taken until it returns.
	AbandonAfter time.Duration

	// HTTPClient is used for discovery (default: a client with a 10s timeout).
	HTTPClient *http.Client

	// TracerProvider records a span per traced task, the child of the
	// server's span for it (protocol.Task.Traceparent); nil records none,
	// but a traced task's context still carries the server's span, so
	// what the processor calls is traced under it (docs/tracing.md).
	TracerProvider trace.TracerProvider

	// JobSet names the jobs this service declares in code (Jobs), next to
	// the processors that run them; empty: it declares none. On every
	// connect the server creates or updates the set's jobs, marks them
	// managed by code, and disables (never deletes) the set's jobs no
	// longer declared. Every worker of the service should declare the same
	// set.
	JobSet string
	// Jobs are the set's jobs, each run by a GO processor of this worker.
	Jobs []JobDeclaration
	// JobsDryRun has the server only list what the declaration would
	// change (JobChanges, and the log) without changing anything.
	JobsDryRun bool
}

// JobDeclaration is a job declared in code (Config.Jobs): name, schedule,
// mode, limits and the GO processor that runs it; omitted fields take the
// API's defaults.
type JobDeclaration = protocol.DeclaredJob

// Defaults and limits.
const (
	defaultMaxLogLines   = 20000
	defaultMaxReports    = 10000
	defaultFlush         = 50 * time.Millisecond
	defaultMapTimeout    = 30 * time.Second
	defaultShutdown      = 10 * time.Second
	defaultDrain         = 10 * time.Second
	defaultAbandonAfter  = 5 * time.Second
	defaultHeartbeat     = 5 * time.Second
	minHeartbeat         = 10 * time.Millisecond
	maxSlots             = 10000 // protocol.Hello's bound
	maxNameLen           = 100   // leaves room for the random suffix in 128
	maxTags              = 64
	discoverTimeout      = 10 * time.Second
	handshakeTimeout     = 15 * time.Second
	backoffMinDefault    = 200 * time.Millisecond
	backoffMaxDefault    = 3 * time.Second
	shutdownPollInterval = 20 * time.Millisecond
)

// withDefaults fills the empty fields of c.
func (c Config) withDefaults() Config {
	host, _ := os.Hostname()
	if host == "" {
		host = "worker"
	}
	if c.Name == "" {
		c.Name = host
	}
	if c.Host == "" {
		c.Host = host
	}
	if c.Slots == 0 {
		c.Slots = min(4*runtime.NumCPU(), maxSlots)
	}
	if c.WorkDir == "" {
		c.WorkDir = os.TempDir()
	}
	if c.Version == "" {
		c.Version = SDKVersion
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.MaxBufferedLogLines == 0 {
		c.MaxBufferedLogLines = defaultMaxLogLines
	}
	if c.MaxBufferedReports == 0 {
		c.MaxBufferedReports = defaultMaxReports
	}
	if c.FlushInterval == 0 {
		c.FlushInterval = defaultFlush
	}
	if c.MapTimeout == 0 {
		c.MapTimeout = defaultMapTimeout
	}
	if c.DrainTimeout == 0 {
		c.DrainTimeout = defaultDrain
	}
	if c.ShutdownTimeout == 0 {
		c.ShutdownTimeout = defaultShutdown
	}
	if c.AbandonAfter == 0 {
		c.AbandonAfter = defaultAbandonAfter
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: discoverTimeout}
	}
	c.Servers = slices.Clone(c.Servers)
	c.Tags = slices.Clone(c.Tags)
	return c
}

// ConfigError is what Validate returns: the Config field at fault and why.
type ConfigError struct {
	// Field is the field's name, with an index for a list item
	// ("Servers[1]").
	Field  string
	Reason string
}

func (e *ConfigError) Error() string { return "worker config: " + e.Field + ": " + e.Reason }

// Validate reports the first problem of c as a *ConfigError naming the
// field. Empty optional fields are fine: they get defaults.
func (c Config) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &ConfigError{Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case strings.TrimSpace(c.App) == "":
		return bad("App", "is empty; set the name of the app this worker serves")
	case c.Secret == "":
		return bad("Secret", "is empty; set the app secret (JOBWHEEL_APP_SECRET), shown when the app was created")
	case len(c.Servers) == 0:
		return bad("Servers", "is empty; give at least one server URL such as http://localhost:7700")
	case len(c.Name) > maxNameLen:
		return bad("Name", "is %d characters; at most %d", len(c.Name), maxNameLen)
	case c.Slots < 0 || c.Slots > maxSlots:
		return bad("Slots", "%d is not between 1 and %d", c.Slots, maxSlots)
	case len(c.Tags) > maxTags:
		return bad("Tags", "%d tags; at most %d", len(c.Tags), maxTags)
	case c.JobSet == "" && (len(c.Jobs) > 0 || c.JobsDryRun):
		return bad("JobSet", "is empty; name the set the declared jobs belong to (e.g. the service's name)")
	case len(c.Jobs) > protocol.MaxDeclaredJobs:
		return bad("Jobs", "%d jobs; at most %d", len(c.Jobs), protocol.MaxDeclaredJobs)
	}
	for i, s := range c.Servers {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad(fmt.Sprintf("Servers[%d]", i), "%q is not an http:// or https:// URL such as http://localhost:7700", s)
		}
	}
	for i, t := range c.Tags {
		if strings.TrimSpace(t) == "" {
			return bad(fmt.Sprintf("Tags[%d]", i), "is empty")
		}
	}
	for _, n := range []struct {
		field string
		v     int
	}{{"MaxBufferedLogLines", c.MaxBufferedLogLines}, {"MaxBufferedReports", c.MaxBufferedReports}} {
		if n.v < 0 {
			return bad(n.field, "%d is negative", n.v)
		}
	}
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"FlushInterval", c.FlushInterval}, {"MapTimeout", c.MapTimeout}, {"ShutdownTimeout", c.ShutdownTimeout}, {"DrainTimeout", c.DrainTimeout}, {"AbandonAfter", c.AbandonAfter}} {
		if d.v < 0 {
			return bad(d.field, "%s is negative", d.v)
		}
	}
	if c.WorkDir != "" {
		if fi, err := os.Stat(c.WorkDir); err != nil {
			return bad("WorkDir", "%q cannot be used: %v", c.WorkDir, errors.Unwrap(err))
		} else if !fi.IsDir() {
			return bad("WorkDir", "%q is not a directory", c.WorkDir)
		}
	}
	return nil
}

// Worker runs tasks for one app. Create it with New, register processors,
// then call Run once.
type Worker struct {
	cfg Config
	id  string // the wire worker id: Name-<random hex>
	log *slog.Logger
	out *outbox

	// Fields used by tests to speed things up.
	backoffMin, backoffMax time.Duration

	started atomic.Bool

	mu         sync.Mutex
	processors map[string]Processor // GO processors by name
	types      map[string]Processor // SHELL, PYTHON, HTTP… by type
	running    map[int64]*runningTask
	// busy counts the slots taken: running tasks whose final report is not
	// queued yet, and those that did not return after their context ended.
	busy    int
	epoch   int64 // the newest app epoch seen: older dispatches are rejected
	closing bool  // Run is returning: no new tasks
	learned []string
	// jobChanges are the welcome's answer to the jobs declared in code.
	jobChanges []protocol.JobChange
	redirectTo string // set by a redirect, used once by the next connect
	rotate     int    // where discovery starts in the server list
	connected  bool

	// unreported counts the tasks whose final report is not queued yet.
	unreported sync.WaitGroup
	// tasksCtx is the parent of every task's context, cancelled on shutdown.
	tasksCtx context.Context
	stopAll  context.CancelCauseFunc
	// draining is set once Run's context is done (heartbeats say so);
	// beat asks the writer for a heartbeat now.
	draining atomic.Bool
	beat     chan struct{}
}

// New makes a Worker. The configuration is checked by Run (and Validate);
// New only fills in defaults.
func New(cfg Config) *Worker {
	cfg = cfg.withDefaults()
	var suffix [6]byte
	_, _ = rand.Read(suffix[:])
	w := &Worker{
		cfg:        cfg,
		id:         cfg.Name + "-" + hex.EncodeToString(suffix[:]),
		processors: map[string]Processor{},
		types:      map[string]Processor{},
		running:    map[int64]*runningTask{},
		backoffMin: backoffMinDefault,
		backoffMax: backoffMaxDefault,
	}
	w.log = cfg.Logger.With("worker", w.id, "app", cfg.App)
	w.out = newOutbox(w.log, cfg.MaxBufferedLogLines, cfg.MaxBufferedReports)
	// A RUNNING report waits up to a flush interval for its task's end, to
	// go with it: a task that ends by then costs the server one write of
	// its rows instead of two, and one that runs longer is seen RUNNING at
	// most a flush interval later.
	w.out.runningHold = cfg.FlushInterval
	w.tasksCtx, w.stopAll = context.WithCancelCause(context.Background())
	w.beat = make(chan struct{}, 1)
	return w
}

// ID is the worker id sent to the server: Config.Name with a random suffix.
func (w *Worker) ID() string { return w.id }

// Config returns the configuration with defaults filled in.
func (w *Worker) Config() Config {
	c := w.cfg
	c.Servers, c.Tags = slices.Clone(c.Servers), slices.Clone(c.Tags)
	return c
}

// Register makes a GO processor available under name: tasks whose
// processor type is GO and processor is name run it. It panics on an empty
// name, a nil processor or a name registered twice, like http.Handle.
// Processors registered after Run starts are announced at the next
// connection.
func (w *Worker) Register(name string, p Processor) {
	w.register(w.processors, "processor name", name, p)
}

// RegisterType makes p run every task of a processor type other than GO
// (SHELL, PYTHON, HTTP…); p reads the script or request from
// TaskContext.ProcessorSpec. It panics like Register.
func (w *Worker) RegisterType(typ string, p Processor) {
	if typ == "GO" {
		panic("worker: RegisterType(\"GO\"): register GO processors by name with Register")
	}
	w.register(w.types, "processor type", typ, p)
}

func (w *Worker) register(m map[string]Processor, what, name string, p Processor) {
	if strings.TrimSpace(name) == "" {
		panic("worker: empty " + what)
	}
	if p == nil {
		panic("worker: nil processor for " + what + " " + name)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, dup := m[name]; dup {
		panic("worker: " + what + " " + name + " registered twice")
	}
	m[name] = p
}

// Run connects to the app's server and runs the tasks it sends until ctx is
// done, reconnecting by itself when the connection drops. It returns nil
// after a graceful stop, an error wrapping ErrAuth if the server refuses
// the secret, or a configuration error.
//
// When ctx is done, the worker drains: it takes no new tasks, tells the
// server (which lists it as DRAINING), and lets running tasks finish for
// up to DrainTimeout. Then it cancels the contexts of those still running:
// they are handed back (FAILED with reason HANDED_BACK) unless they still
// succeed, and the server runs them again elsewhere without counting a
// retry (a task that ignores cancellation is reported after AbandonAfter).
// Tasks held for their start time (protocol.Task.StartAt) are handed back
// at once when the drain begins, without being started.
// Run waits up to ShutdownTimeout for those final reports and for
// everything queued to be acknowledged, then closes the connection.
func (w *Worker) Run(ctx context.Context) error {
	if err := w.cfg.Validate(); err != nil {
		return err
	}
	if !w.started.CompareAndSwap(false, true) {
		return errors.New("worker: Run called twice")
	}
	loopCtx, stopLoop := context.WithCancel(context.Background())
	defer stopLoop()
	loopDone := make(chan error, 1)
	go func() { loopDone <- w.connectLoop(loopCtx) }()

	var loopErr error
	select {
	case <-ctx.Done():
	case loopErr = <-loopDone:
	}
	w.shutdown(loopErr == nil)
	stopLoop()
	if loopErr == nil {
		loopErr = <-loopDone
	}
	w.out.close()
	return loopErr
}

// shutdown stops taking work, cancels the running tasks and, when the
// connection loop still runs (graceful), waits a bounded time for the
// tasks to return and the outbox to drain.
func (w *Worker) shutdown(graceful bool) {
	w.mu.Lock()
	w.closing = true
	// Tasks held for their start time are handed back at once, not kept
	// through the drain: they have not begun, so they lose nothing by
	// running elsewhere, and one started in the drain would most likely
	// be cut short by its end.
	handedBack := w.handBackHeldLocked(w.shuttingDown())
	n := len(w.running) - handedBack
	w.mu.Unlock()
	if handedBack > 0 {
		w.log.Info("worker draining: handed back the tasks held for their start time", "tasks", handedBack)
	}
	if !graceful {
		w.stopAll(errShutdown)
		return
	}
	if n > 0 {
		w.draining.Store(true)
		w.beatNow()
		w.log.Info("worker draining: running tasks may finish", "tasks", n, "within", w.cfg.DrainTimeout)
		if !w.waitTasks(w.cfg.DrainTimeout) {
			w.log.Info("worker draining: handing back the tasks still running", "tasks", w.runningIDs(false))
		}
	}
	w.stopAll(errHandedBack)
	deadline := time.NewTimer(w.cfg.ShutdownTimeout)
	defer deadline.Stop()
	reported := make(chan struct{})
	go func() { w.unreported.Wait(); close(reported) }()
	select {
	case <-reported:
	case <-deadline.C:
		w.log.Warn("worker stopping: tasks still running after the shutdown timeout", "tasks", w.runningIDs(true))
		return
	}
	tick := time.NewTicker(shutdownPollInterval)
	defer tick.Stop()
	for w.out.pending() {
		w.out.poke()
		select {
		case <-tick.C:
		case <-deadline.C:
			w.log.Warn("worker stopping: reports or logs not acknowledged before the shutdown timeout")
			return
		}
	}
}

// waitTasks waits up to d for every running task to finish; false if
// some still run.
func (w *Worker) waitTasks(d time.Duration) bool {
	done := make(chan struct{})
	go func() { w.unreported.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// beatNow asks the session writer for a heartbeat at once.
func (w *Worker) beatNow() {
	select {
	case w.beat <- struct{}{}:
	default:
	}
}

// runningIDs lists the tasks this worker holds. With live, it lists what
// the server must still consider running: tasks not finished, and finished
// ones whose final report the server has not acked yet. Without live, every
// task still holding a slot.
func (w *Worker) runningIDs(live bool) []int64 {
	// The running tasks first, then the unacked finals: a task whose final
	// report is queued in between is in the second list (finalSent is set
	// only after the report is queued), so no task slips through both.
	w.mu.Lock()
	ids := make([]int64, 0, len(w.running))
	for id, rt := range w.running {
		if live && rt.finalSent {
			continue
		}
		ids = append(ids, id)
	}
	w.mu.Unlock()
	var unacked []int64
	if live {
		unacked = w.out.unackedFinals()
	}
	for _, id := range unacked {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// names lists the registered GO processor names and types, sorted.
func (w *Worker) names() (processors, types []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for n := range w.processors {
		processors = append(processors, n)
	}
	for t := range w.types {
		types = append(types, t)
	}
	slices.Sort(processors)
	slices.Sort(types)
	return processors, types
}

// hello builds the hello message for a new connection.
func (w *Worker) hello() protocol.Hello {
	procs, types := w.names()
	return protocol.Hello{
		App:        w.cfg.App,
		WorkerID:   w.id,
		Host:       w.cfg.Host,
		Version:    w.cfg.Version,
		Protocol:   protocol.Version,
		Features:   []string{protocol.FeaturePagedResults, protocol.FeatureStartAt},
		Tags:       w.cfg.Tags,
		Processors: procs,
		Types:      types,
		Slots:      w.cfg.Slots,
		Auth:       w.cfg.Secret,
		Running:    w.runningIDs(true),
		Metrics:    collectMetrics(w.cfg.WorkDir),
		JobSet:     w.cfg.JobSet,
		Jobs:       w.cfg.Jobs,
		JobsDryRun: w.cfg.JobsDryRun,
	}
}
