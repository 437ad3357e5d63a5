// Command bench is jobwheel's benchmark harness (`make bench`). Each
// scenario starts a real server on PostgreSQL and real agents on loopback,
// drives them, measures, and prints one JSON object:
//
//	fires     N jobs firing every second for T seconds: fires/s sustained,
//	          trigger lateness (actual - expected) percentiles, missed and
//	          duplicate fires, server CPU seconds and peak RSS
//	api       instances triggered through the API, end to end: instances/s
//	tasks     a MAP_REDUCE job's subtasks (or, above 20,000, a two-level
//	          MAP job's) dispatched to 4 workers and reported back: tasks/s
//	          (the dispatch→report round trip), peak RSS, tasks table size
//	failover  three servers, an app with every-second jobs; kill -9 its owner,
//	          then SIGTERM the next one: time to the first fire on the new
//	          owner, fires missed, caught up, duplicated or run twice
//	workflow  a 10-node chain of no-op GO jobs: node end → next node start
//	          percentiles over 100 runs one at a time, then runs/s with 100
//	          chains at once
//	shell     N SHELL `true` jobs every second through ONE agent with its
//	          defaults: fires, ran, canceled by reason, start lateness, the
//	          worker's overhead per task, agent RSS; -shell-sweep runs
//	          several N and names the largest with nothing canceled
//	logs      a worker writing log lines at a steady rate across many
//	          instances: line written → GraphQL subscriber latency, lines
//	          stored per second
//	scale     many jobs defined (bulk-inserted), some firing every second:
//	          server peak RSS, the console's jobs page and dashboard query
//	          latencies under that load
//	retention a finished instance of -tasks tasks removed by retention, with
//	          no server: its history partition dropped (this tree's
//	          PostgreSQL schema) against its rows deleted (on a database
//	          at the schema before partitioning), and converting that
//	          database's tables; wall and PostgreSQL backend CPU seconds
//	          of each
//
// -bin DIR runs prebuilt binaries (an older commit's, for before/after);
// -profile DIR saves a CPU and a heap profile of the server over each
// scenario's measured phase.
//
// Usage: go run ./e2e/bench [-scenario fires,api,tasks] [-jobs 1000] [-seconds 60]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
)

// options are the command line's settings.
type options struct {
	jobs, seconds, instances, tasks, taskConcurrency, workers, runs int
	leaseTTL                                                        time.Duration
	shellJobs                                                       int
	shellSlots                                                      int
	shellSweep                                                      []int
	logRate, logInstances                                           int
	scaleJobs, scaleFiring, scaleReaders                            int
}

func main() {
	var o options
	scenarios := flag.String("scenario", "fires,api,tasks,failover,workflow,shell,logs,scale,retention",
		"comma-separated scenarios to run: fires, api, tasks, failover, workflow, shell, logs, scale, retention")
	flag.IntVar(&o.jobs, "jobs", 1000, "fires: jobs firing every second")
	flag.IntVar(&o.seconds, "seconds", 60, "fires, shell, logs, scale: how long to measure")
	flag.IntVar(&o.instances, "instances", 2000, "api: instances to trigger")
	flag.IntVar(&o.tasks, "tasks", 20000, "tasks, retention: subtasks (up to 10,000,000; above 20,000 a two-level MAP job, as a REDUCE task's results must fit one frame)")
	flag.IntVar(&o.taskConcurrency, "task-concurrency", 64, "tasks: the job's taskConcurrency")
	flag.IntVar(&o.workers, "workers", 4, "agents to start (fires, api, tasks, workflow, scale; shell uses one, logs one)")
	flag.DurationVar(&o.leaseTTL, "lease-ttl", 0, "failover: the servers' lease TTL (0: the server's default)")
	flag.IntVar(&o.runs, "runs", 100, "workflow: runs of the 10-node chain, one at a time and then all at once")
	flag.IntVar(&o.shellJobs, "shell-jobs", 200, "shell: SHELL `true` jobs firing every second")
	flag.IntVar(&o.shellSlots, "shell-slots", 0, "shell: the agent's slots (JOBWHEEL_WORKER_SLOTS); 0: its default")
	sweep := flag.String("shell-sweep", "", "shell: comma-separated job counts to run one after another (e.g. 50,100,200,500) instead of -shell-jobs; reports the largest with 0 CANCELED")
	flag.IntVar(&o.logRate, "log-rate", 1000, "logs: lines per second written in all")
	flag.IntVar(&o.logInstances, "log-instances", 50, "logs: instances writing them at once")
	flag.IntVar(&o.scaleJobs, "scale-jobs", 100000, "scale: jobs defined")
	flag.IntVar(&o.scaleFiring, "scale-firing", 10000, "scale: of those, jobs firing every second")
	flag.IntVar(&o.scaleReaders, "scale-readers", 4, "scale: concurrent console readers (jobs page, then dashboard, then 100 ms pause)")
	bin := flag.String("bin", "", "directory with prebuilt jobwheel-server and jobwheel-agent to run instead of building this tree (sets "+harness.BinEnv+")")
	ahead := flag.String("dispatch-ahead", "", "the servers' -dispatch-ahead, e.g. 0s to turn it off (design.md §5.10); empty: their default")
	profileDir := flag.String("profile", "", "directory to save a CPU and a heap profile of the server over each scenario's measured phase")
	flag.Parse()
	if *bin != "" {
		if err := os.Setenv(harness.BinEnv, *bin); err != nil {
			fatal("-bin: %v", err)
		}
	}
	if *profileDir != "" {
		if err := os.MkdirAll(*profileDir, 0o755); err != nil {
			fatal("-profile: %v", err)
		}
	}
	for _, f := range strings.Split(*sweep, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			fatal("-shell-sweep: %q is not a positive number of jobs", f)
		}
		o.shellSweep = append(o.shellSweep, n)
	}
	if o.tasks < 1 || o.tasks > maxTasks {
		fatal("-tasks: %d is not from 1 to %d", o.tasks, maxTasks)
	}
	if o.scaleFiring > o.scaleJobs {
		fatal("-scale-firing: %d is more than -scale-jobs %d", o.scaleFiring, o.scaleJobs)
	}
	for _, s := range strings.Split(*scenarios, ",") {
		name := strings.TrimSpace(s)
		b := newBench(*profileDir)
		b.ahead = *ahead
		var out map[string]any
		func() {
			defer b.Close()
			switch name {
			case "fires":
				out = b.fires(o.jobs, o.seconds, o.workers)
			case "api":
				out = b.api(o.instances, o.workers)
			case "tasks":
				out = b.tasks(o.tasks, o.taskConcurrency, o.workers)
			case "failover":
				out = b.failover(o.leaseTTL)
			case "workflow":
				out = b.workflow(o.runs, o.workers)
			case "shell":
				out = b.shellScenario(o)
			case "logs":
				out = b.logs(o.logRate, o.logInstances, o.seconds)
			case "scale":
				out = b.scale(o.scaleJobs, o.scaleFiring, o.scaleReaders, o.seconds, o.workers)
			case "retention":
				out = b.retention(o.tasks)
			default:
				b.Fatalf("unknown scenario %q", s)
			}
		}()
		out["scenario"] = name
		out["machine"] = fmt.Sprintf("%s/%s, %d CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
		out["commit"] = commit()
		if *bin != "" {
			// The tree's commit says nothing about prebuilt binaries.
			out["commit"] = "binaries in " + *bin
		}
		out["database"] = "postgres"
		// CPU figures read higher while other work shares the cores.
		out["loadAvgAtEnd"] = loadAvg()
		line, _ := json.Marshal(out)
		fmt.Println(string(line))
	}
}

func fatal(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	os.Exit(2)
}

// bench is one scenario's run: what it starts is stopped at Close.
type bench struct {
	*harness.Command
	// profileDir receives the server's profiles; empty: none taken.
	profileDir string
	// ahead is the servers' -dispatch-ahead; empty: their default.
	ahead string
}

func newBench(profileDir string) *bench {
	return &bench{Command: harness.NewCommand("bench", 1), profileDir: profileDir}
}

// env is a server on a fresh PostgreSQL schema with an app and agents.
type env struct {
	srv *harness.Server
	// servers, when set (failover), are every server of the scenario,
	// srv among them: their CPU is the server's part.
	servers []*harness.Server
	// serverCPU is the last CPU reading of each server process, by pid:
	// a server killed or stopped in the phase keeps what it had used.
	serverCPU map[int]float64
	c         *harness.Client
	db        *db.DB
	appID     int64
	secret    string
	agents    []*harness.Process
	// debugAddr is the server's pprof listener, when profiling.
	debugAddr string
	// stmts counts the statements the bench sent through db (its own
	// commits, which perJob leaves out).
	stmts *atomic.Int64
}

// benchApplication is the application_name of the bench's own database
// connections, whose backends perJob leaves out.
const benchApplication = "jobwheel-bench"

// openCounted opens the scenario's database for the bench's own reads,
// counting its statements.
func (b *bench) openCounted(url string) (*db.DB, *atomic.Int64) {
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	d := dbtest.OpenURL(b, url+sep+"application_name="+benchApplication)
	n := new(atomic.Int64)
	d.Bun().AddQueryHook(stmtCounter{n})
	return d, n
}

// stmtCounter is a bun query hook counting statements.
type stmtCounter struct{ n *atomic.Int64 }

func (c stmtCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }
func (c stmtCounter) AfterQuery(context.Context, *bun.QueryEvent)                        { c.n.Add(1) }

func (b *bench) start(workers, slots int) *env {
	url := dbtest.NewDatabase(b)
	srvEnv := []string{"JOBWHEEL_LOG_LEVEL=warn"}
	if b.ahead != "" {
		srvEnv = append(srvEnv, "JOBWHEEL_DISPATCH_AHEAD="+b.ahead)
	}
	var debugAddr string
	if b.profileDir != "" {
		debugAddr = harness.FreeAddr(b)
		srvEnv = append(srvEnv, "JOBWHEEL_DEBUG_ADDR="+debugAddr)
	}
	srv := harness.StartServer(b, harness.ServerOptions{DatabaseURL: url, Env: srvEnv})
	c := srv.Client()
	app := harness.StartApp(b, c, "bench", workers, 60*time.Second, func(i int) harness.AgentOptions {
		return harness.AgentOptions{Servers: []string{srv.URL}, Name: fmt.Sprintf("bench%d", i+1), Slots: slots,
			Env: []string{"JOBWHEEL_LOG_LEVEL=warn"}}
	})
	d, stmts := b.openCounted(url)
	return &env{srv: srv, c: c, db: d, stmts: stmts, appID: app.ID, secret: app.Secret, agents: app.Agents, debugAddr: debugAddr}
}

// fires: N every-second jobs for T seconds.
func (b *bench) fires(n, seconds, workers int) map[string]any {
	e := b.start(workers, 256)
	ctx := context.Background()
	created := time.Now()
	ids := make([]string, 0, n)
	for i := 0; i < n; i++ {
		id, err := e.c.CreateJob(map[string]any{"app": "bench", "name": fmt.Sprintf("every-second-%d", i), "scheduleType": "CRON",
			"scheduleExpression": "* * * * * ?", "processorType": "GO", "processor": "example.noop"})
		if err != nil {
			b.Fatalf("creating job %d: %v", i, err)
		}
		ids = append(ids, id)
	}
	createdIn := time.Since(created)
	// Measure whole seconds after every job exists and has warmed up.
	from := time.Now().Truncate(time.Second).Add(3 * time.Second)
	to := from.Add(time.Duration(seconds) * time.Second)
	time.Sleep(time.Until(from))
	prof := b.profile(e, fmt.Sprintf("fires-%d", n))
	share := newCPUShare(e, false)
	cpu0 := cpuSeconds(e.srv.Pid())
	// The server's own figures over the same window, as Prometheus sees
	// them: set beside the bench's, they show how far a dashboard can be
	// trusted (the histograms are observed as instances finish).
	late0, err0 := scrapeHistogram(e.srv.URL, "jobwheel_trigger_lateness_seconds", "bench")
	start0, err1 := scrapeHistogram(e.srv.URL, "jobwheel_fire_to_start_seconds", "bench")
	time.Sleep(time.Until(to))
	cpu1 := cpuSeconds(e.srv.Pid())
	cpuShare := share.finish()
	profiles := prof.finish()
	time.Sleep(time.Until(to.Add(3 * time.Second)))
	rss := peakRSSMB(e.srv.Pid())
	late1, err2 := scrapeHistogram(e.srv.URL, "jobwheel_trigger_lateness_seconds", "bench")
	start1, err3 := scrapeHistogram(e.srv.URL, "jobwheel_fire_to_start_seconds", "bench")
	var scraped map[string]any
	if err := errors.Join(err0, err1, err2, err3); err != nil {
		scraped = map[string]any{"error": err.Error()}
	} else {
		late, start := late1.since(late0), start1.since(start0)
		scraped = map[string]any{"fires": late.count,
			"latenessMsBucket":     map[string]any{"p50": late.bucketOf(50), "p99": late.bucketOf(99)},
			"startLatencyMsBucket": map[string]any{"p50": start.bucketOf(50), "p99": start.bucketOf(99)}}
	}
	for _, id := range ids {
		_ = e.c.Do(`mutation($id: ID!) { setJobEnabled(id: $id, enabled: false) { id } }`, map[string]any{"id": id}, nil)
	}
	records, err := e.db.FireRecordList(ctx, e.appID, from, to)
	if err != nil {
		b.Fatalf("%v", err)
	}
	// The window's fires, at the rate they were fired at throughout.
	perJob := share.perJob(map[string]int{"instance": len(records)})
	type key struct {
		job int64
		at  int64
	}
	seen := map[key]int{}
	lateBySecond := map[int64]float64{} // second of the window → its latest fire, ms
	var lateness, started []float64
	statuses := map[string]int{}
	for _, r := range records {
		seen[key{r.JobID, r.ExpectedTriggerAt.Unix()}]++
		statuses[r.Status]++
		if r.ActualTriggerAt != nil {
			ms := float64(r.ActualTriggerAt.Sub(*r.ExpectedTriggerAt).Microseconds()) / 1000
			lateness = append(lateness, ms)
			sec := int64(r.ExpectedTriggerAt.Sub(from) / time.Second)
			lateBySecond[sec] = max(lateBySecond[sec], ms)
		}
		if r.StartedAt != nil {
			started = append(started, float64(r.StartedAt.Sub(*r.ExpectedTriggerAt).Microseconds())/1000)
		}
	}
	duplicates := 0
	for _, k := range seen {
		if k > 1 {
			duplicates += k - 1
		}
	}
	expected := n * seconds
	missed := expected - len(seen)
	sort.Float64s(lateness)
	sort.Float64s(started)
	// The seconds of the window whose latest fire was over 10 ms late
	// (offset from the window's start → ms): a lateness percentile moved
	// by one slow second looks different from a slow scheduler.
	lateSeconds := map[string]float64{}
	for sec, ms := range lateBySecond {
		if ms > 10 {
			lateSeconds[strconv.FormatInt(sec, 10)] = round(ms)
		}
	}
	return map[string]any{
		"jobs": n, "seconds": seconds, "workers": workers,
		"lateSeconds": lateSeconds,
		"fires":       len(records), "expectedFires": expected, "missed": missed, "duplicates": duplicates,
		"firesPerSec": round(float64(len(records)) / float64(seconds)),
		"latenessMs":  map[string]any{"p50": pct(lateness, 50), "p99": pct(lateness, 99), "max": pct(lateness, 100)},
		// Expected fire to the worker starting the task: trigger lateness
		// plus dispatch (database write, network, worker).
		"startLatencyMs": map[string]any{"p50": pct(started, 50), "p99": pct(started, 99), "max": pct(started, 100)},
		// /metrics over the window: the bucket (upper bound) each
		// percentile falls in, and the fires observed.
		"metrics":         scraped,
		"statuses":        statuses,
		"serverCpuSec":    round(cpu1 - cpu0),
		"serverPeakRssMB": rss,
		"createJobsSec":   round(createdIn.Seconds()),
		"profiles":        profiles,
		"cpuSec":          cpuShare,
		"perJob":          perJob,
	}
}

// api: instances triggered through the API until all succeeded.
func (b *bench) api(n, workers int) map[string]any {
	e := b.start(workers, 256)
	ctx := context.Background()
	jobID, err := e.c.CreateJob(map[string]any{"app": "bench", "name": "on-demand", "scheduleType": "API",
		"processorType": "GO", "processor": "example.noop", "maxInstances": n})
	if err != nil {
		b.Fatalf("%v", err)
	}
	prof := b.profile(e, "api")
	share := newCPUShare(e, true)
	start := time.Now()
	const clients = 16
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := c; i < n; i += clients {
				if _, err := e.c.RunJob(jobID, ""); err != nil {
					errs <- err
					return
				}
			}
		}(c)
	}
	wg.Wait()
	triggered := time.Since(start)
	close(errs)
	for err := range errs {
		b.Fatalf("runJob: %v", err)
	}
	var counts map[string]int
	for {
		counts, err = e.db.InstanceStatusCounts(ctx, e.appID)
		if err != nil {
			b.Fatalf("%v", err)
		}
		if counts["SUCCEEDED"]+counts["FAILED"]+counts["CANCELED"] >= n || time.Since(start) > 10*time.Minute {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	total := time.Since(start)
	cpuShare := share.finish()
	profiles := prof.finish()
	return map[string]any{
		"profiles":  profiles,
		"cpuSec":    cpuShare,
		"perJob":    share.perJob(map[string]int{"instance": n}),
		"instances": n, "workers": workers, "clients": clients,
		"triggerPerSec":     round(float64(n) / triggered.Seconds()),
		"endToEndPerSec":    round(float64(n) / total.Seconds()),
		"seconds":           round(total.Seconds()),
		"statuses":          counts,
		"serverPeakRssMB":   peakRSSMB(e.srv.Pid()),
		"serverCpuSecTotal": round(cpuSeconds(e.srv.Pid())),
	}
}

// maxTasks is the most -tasks allows: example.fanout's limit.
const maxTasks = 10000000

// maxReduceTasks is the most subtasks the tasks scenario runs as one
// MAP_REDUCE job (example.mapreduce, comparable with earlier figures): the
// REDUCE task receives every subtask's result in one dispatch frame, which
// much more than 20,000 results would not fit. Above it, a MAP job of
// example.fanout: the root maps ranges of 10,000, each range maps its
// leaves.
const maxReduceTasks = 20000

// tasks: one MAP_REDUCE (or, for large n, two-level MAP) instance with n
// subtasks over the workers.
func (b *bench) tasks(n, concurrency, workers int) map[string]any {
	e := b.start(workers, 64)
	ctx := context.Background()
	job := map[string]any{"app": "bench", "name": "squares", "scheduleType": "API",
		"executionMode": "MAP_REDUCE", "processorType": "GO", "processor": "example.mapreduce", "params": strconv.Itoa(n),
		"taskConcurrency": concurrency}
	if n > maxReduceTasks {
		job["name"], job["executionMode"], job["processor"] = "fanout", "MAP", "example.fanout"
	}
	jobID, err := e.c.CreateJob(job)
	if err != nil {
		b.Fatalf("%v", err)
	}
	prof := b.profile(e, fmt.Sprintf("tasks-%d", n))
	share := newCPUShare(e, true)
	start := time.Now()
	id, err := e.c.RunJob(jobID, "")
	if err != nil {
		b.Fatalf("%v", err)
	}
	instID, _ := strconv.ParseInt(id, 10, 64)
	// Polled from the database (one row by key, every 100 ms): the API's
	// instance query counts the tasks by status, which over millions of
	// rows would load the database being measured.
	timeout := max(30*time.Minute, time.Duration(n/200)*time.Second)
	var status string
	for {
		in, err := e.db.InstanceGet(ctx, instID)
		if err != nil {
			b.Fatalf("reading instance %d: %v", instID, err)
		}
		status = in.Status
		if status == db.StatusSucceeded || status == db.StatusFailed || status == db.StatusStopped || status == db.StatusCanceled {
			break
		}
		if time.Since(start) > timeout {
			b.Fatalf("instance %d still %s after %s", instID, status, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	took := time.Since(start)
	cpuShare := share.finish()
	profiles := prof.finish()
	var total int
	var bytes int64
	// From the counters the database keeps (task_counts): a COUNT over ten
	// million rows outlasts the driver's read timeout, and lost a 76-minute
	// run's figures at its very end.
	counts, err := e.db.TaskCountsByInstance(ctx, []int64{instID})
	if err != nil {
		b.Fatalf("counting tasks: %v", err)
	}
	total = counts[instID].Total
	// Its partitions' sizes (a partitioned parent holds nothing itself);
	// a plain table is its own one-member tree.
	if err := e.db.Bun().NewRaw("SELECT COALESCE(SUM(pg_total_relation_size(relid)), 0) FROM pg_partition_tree('tasks')").Scan(ctx, &bytes); err != nil {
		b.Fatalf("measuring the tasks table: %v", err)
	}
	in, err := e.db.InstanceGet(ctx, instID)
	if err != nil {
		b.Fatalf("%v", err)
	}
	return map[string]any{
		"subtasks": n, "workers": workers, "executionMode": job["executionMode"], "processor": job["processor"],
		"taskConcurrency": concurrency, "status": status, "result": in.Result,
		"tasksPerSec":     round(float64(total) / took.Seconds()),
		"seconds":         round(took.Seconds()),
		"tasks":           total,
		"serverPeakRssMB": peakRSSMB(e.srv.Pid()),
		// Every row of the table, its indexes and TOAST: the one instance's
		// tasks, as the schema is the scenario's own.
		"tasksTableMB": round(float64(bytes) / (1 << 20)),
		"profiles":     profiles,
		"cpuSec":       cpuShare,
		"perJob":       share.perJob(map[string]int{"task": total}),
	}
}

func pct(sorted []float64, p int) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted) - 1) * p / 100
	return round(sorted[i])
}

func round(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// cpuSeconds is a process's user+system CPU time from /proc.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / 100 // USER_HZ
}

// childrenCPUSeconds is the CPU time of a process's children it has
// waited for (cutime + cstime): for an agent, the scripts it ran.
func childrenCPUSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	cutime, _ := strconv.ParseFloat(fields[13], 64)
	cstime, _ := strconv.ParseFloat(fields[14], 64)
	return (cutime + cstime) / 100 // USER_HZ
}

// peakRSSMB is a process's peak resident set (VmHWM) in MB.
func peakRSSMB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return round(kb / 1024)
		}
	}
	return 0
}

func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// failover: an app owned by one of three servers; its owner is killed
// (kill -9), then the next owner is stopped (SIGTERM); measured from the
// database.
func (b *bench) failover(ttl time.Duration) map[string]any {
	var ttlEnv []string
	if ttl > 0 {
		ttlEnv = []string{"JOBWHEEL_LEASE_TTL=" + ttl.String()}
	}
	const jobs = 50
	ctx := context.Background()
	// A database of its own, so that its statistics are the scenario's
	// (perJob).
	url := dbtest.NewDatabase(b)
	var servers []*harness.Server
	for i := 0; i < 3; i++ {
		servers = append(servers, harness.StartServer(b, harness.ServerOptions{DatabaseURL: url, Name: fmt.Sprintf("s%d", i+1),
			Env: append([]string{fmt.Sprintf("JOBWHEEL_SERVER_ID=s%d", i+1), "JOBWHEEL_LOG_LEVEL=warn"}, ttlEnv...)}))
	}
	d, stmts := b.openCounted(url)
	c := servers[2].Client()
	idStr, secret, err := c.CreateApp("bench")
	if err != nil {
		b.Fatalf("%v", err)
	}
	appID, _ := strconv.ParseInt(idStr, 10, 64)
	for i := 0; i < jobs; i++ {
		if _, err := c.CreateJob(map[string]any{"app": "bench", "name": fmt.Sprintf("tick-%d", i), "scheduleType": "CRON",
			"scheduleExpression": "* * * * * ?", "processorType": "GO", "processor": "example.noop"}); err != nil {
			b.Fatalf("%v", err)
		}
	}
	urls := []string{servers[0].URL, servers[1].URL, servers[2].URL}
	e := &env{srv: servers[0], servers: servers, db: d, stmts: stmts, appID: appID}
	for i := 0; i < 2; i++ {
		e.agents = append(e.agents, harness.StartAgent(b, harness.AgentOptions{Servers: urls, App: "bench", Secret: secret,
			Name: fmt.Sprintf("bench%d", i+1), Env: []string{"JOBWHEEL_LOG_LEVEL=warn"}}))
	}
	owner := func() (string, int64) {
		l, live, err := d.LeaseGet(ctx, appID, db.Now())
		if err != nil || !live {
			return "", 0
		}
		return l.ServerID, l.Epoch
	}
	serverByID := func(id string) *harness.Server {
		for i, s := range servers {
			if fmt.Sprintf("s%d", i+1) == id {
				return s
			}
		}
		return nil
	}
	firstFireAfter := func(epoch int64, from time.Time) (time.Duration, time.Duration) {
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			recs, _ := d.FireRecordList(ctx, appID, from.Add(-time.Minute), time.Now().Add(time.Minute))
			var fired, started time.Time
			for _, r := range recs {
				if r.Epoch > epoch && r.ActualTriggerAt != nil && (fired.IsZero() || r.ActualTriggerAt.Before(fired)) {
					fired = *r.ActualTriggerAt
				}
				if r.Epoch > epoch && r.StartedAt != nil && (started.IsZero() || r.StartedAt.Before(started)) {
					started = *r.StartedAt
				}
			}
			if !started.IsZero() {
				return fired.Sub(from), started.Sub(from)
			}
			time.Sleep(50 * time.Millisecond)
		}
		return -1, -1
	}
	time.Sleep(10 * time.Second)
	start := time.Now()
	// What the whole failover costs per instance: the kill, the take-over,
	// the SIGTERM and the hand-over with the fires around them.
	share := newCPUShare(e, false)

	victim, epoch := owner()
	cpuByPart(e) // the victim's CPU until now: it has none to read after
	killedAt := time.Now()
	serverByID(victim).Kill()
	killFire, killStart := firstFireAfter(epoch, killedAt)

	time.Sleep(5 * time.Second)
	heir, epoch2 := owner()
	stopping := serverByID(heir)
	cpuByPart(e)
	if err := stopping.Stop(harness.StopTimeout); err != nil {
		b.Fatalf("%v", err)
	}
	stoppedAt := time.Now()
	stopFire, stopStart := firstFireAfter(epoch2, stoppedAt)
	time.Sleep(5 * time.Second)
	end := time.Now().Add(-3 * time.Second)
	cpu := share.finish()

	recs, err := d.FireRecordList(ctx, appID, start.Truncate(time.Second).Add(time.Second), end.Truncate(time.Second))
	if err != nil {
		b.Fatalf("%v", err)
	}
	seconds := int(end.Truncate(time.Second).Sub(start.Truncate(time.Second).Add(time.Second)) / time.Second)
	type key struct {
		job int64
		at  int64
	}
	seen := map[key]int{}
	caughtUp, skipped, canceled := 0, 0, 0
	for _, r := range recs {
		seen[key{r.JobID, r.ExpectedTriggerAt.Unix()}]++
		switch {
		case r.TriggerType == "MISFIRE":
			caughtUp++
		case r.Status == "CANCELED" && r.Reason == "MISFIRE":
			skipped++
		case r.Status == "CANCELED":
			canceled++
		}
	}
	duplicates := 0
	for _, n := range seen {
		duplicates += n - 1
	}
	twice, _ := d.InstanceCountRunTwice(ctx, appID)
	ms := func(d time.Duration) float64 { return round(float64(d.Microseconds()) / 1000) }
	return map[string]any{
		"servers": 3, "workers": 2, "jobs": jobs, "leaseTtl": ttlLabel(ttl),
		"killToFirstFireMs": ms(killFire), "killToFirstStartMs": ms(killStart),
		"sigtermToFirstFireMs": ms(stopFire), "sigtermToFirstStartMs": ms(stopStart),
		"expectedFires": jobs * seconds, "recordedFires": len(seen), "missedNotRecorded": jobs*seconds - len(seen),
		"caughtUpMisfire": caughtUp, "skippedByPolicy": skipped, "canceledOverLimit": canceled,
		"duplicates": duplicates, "ranTwice": twice,
		// The servers' CPU is the three's, the killed one's until the kill.
		"cpuSec": cpu, "perJob": share.perJob(map[string]int{"instance": len(recs)}),
	}
}

// workflow: a 10-node chain of no-op GO jobs. First runs one at a time, to
// measure the gap from a node's instance ending (its report stored) to the
// next node's instance starting on a worker; then as many runs at once, to
// measure runs/s.
func (b *bench) workflow(runs, workers int) map[string]any {
	e := b.start(workers, 256)
	ctx := context.Background()
	jobID, err := e.c.CreateJob(map[string]any{"app": "bench", "name": "step", "scheduleType": "API",
		"processorType": "GO", "processor": "example.noop", "maxInstances": 10000})
	if err != nil {
		b.Fatalf("%v", err)
	}
	const chain = 10
	var nodes, edges []map[string]any
	for i := 0; i < chain; i++ {
		nodes = append(nodes, map[string]any{"key": fmt.Sprintf("n%d", i), "type": "JOB", "jobId": jobID})
		if i > 0 {
			edges = append(edges, map[string]any{"from": fmt.Sprintf("n%d", i-1), "to": fmt.Sprintf("n%d", i)})
		}
	}
	wfID, err := e.c.CreateWorkflow(map[string]any{"app": "bench", "name": "chain", "scheduleType": "API",
		"maxInstances": 10000, "nodes": nodes, "edges": edges})
	if err != nil {
		b.Fatalf("%v", err)
	}
	wait := func(ids []string) {
		for _, id := range ids {
			if _, err := e.c.WaitWorkflowInstance(id, 5*time.Minute, "SUCCEEDED"); err != nil {
				b.Fatalf("%v", err)
			}
		}
	}
	// One at a time: the gap on the path, undisturbed.
	var serial []string
	for i := 0; i < runs; i++ {
		id, err := e.c.RunWorkflow(wfID, nil)
		if err != nil {
			b.Fatalf("%v", err)
		}
		wait([]string{id})
		serial = append(serial, id)
	}
	var gaps []float64
	for _, id := range serial {
		rid, _ := strconv.ParseInt(id, 10, 64)
		ins, err := e.db.InstanceListByWorkflowInstances(ctx, []int64{rid})
		if err != nil {
			b.Fatalf("%v", err)
		}
		byNode := map[string]db.Instance{}
		for _, in := range ins {
			byNode[*in.WorkflowNodeID] = in
		}
		for i := 1; i < chain; i++ {
			prev, next := byNode[fmt.Sprintf("n%d", i-1)], byNode[fmt.Sprintf("n%d", i)]
			if prev.FinishedAt != nil && next.StartedAt != nil {
				gaps = append(gaps, float64(next.StartedAt.Sub(*prev.FinishedAt).Microseconds())/1000)
			}
		}
	}
	sort.Float64s(gaps)
	// All at once.
	prof := b.profile(e, "workflow")
	share := newCPUShare(e, true)
	cpu0 := cpuSeconds(e.srv.Pid())
	start := time.Now()
	var parallel []string
	for i := 0; i < runs; i++ {
		id, err := e.c.RunWorkflow(wfID, nil)
		if err != nil {
			b.Fatalf("%v", err)
		}
		parallel = append(parallel, id)
	}
	wait(parallel)
	took := time.Since(start)
	cpu1 := cpuSeconds(e.srv.Pid())
	cpuShare := share.finish()
	profiles := prof.finish()
	return map[string]any{
		"profiles": profiles,
		"cpuSec":   cpuShare,
		"perJob":   share.perJob(map[string]int{"instance": runs * chain, "workflowRun": runs}),
		"nodes":    chain, "runs": runs, "workers": workers,
		// From a node's instance ending (its final report stored) to the
		// next node's instance starting on a worker.
		"nodeGapMs":           map[string]any{"p50": pct(gaps, 50), "p99": pct(gaps, 99), "max": pct(gaps, 100)},
		"concurrentInstances": runs,
		"runsPerSec":          round(float64(runs) / took.Seconds()),
		"nodesPerSec":         round(float64(runs*chain) / took.Seconds()),
		"serverCpuSec":        round(cpu1 - cpu0),
		"serverPeakRssMB":     peakRSSMB(e.srv.Pid()),
	}
}

// ttlLabel names the lease TTL the failover servers ran with.
func ttlLabel(ttl time.Duration) string {
	if ttl == 0 {
		return "default"
	}
	return ttl.String()
}
