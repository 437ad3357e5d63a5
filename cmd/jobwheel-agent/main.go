// Command agent is the standalone jobwheel worker: it runs SHELL, PYTHON
// and HTTP jobs, and a few example GO processors, for one app.
//
//	JOBWHEEL_APP=orders JOBWHEEL_APP_SECRET=… go run ./cmd/jobwheel-agent
//
// Every flag has an environment variable of the same meaning; a flag given
// on the command line wins. Run with -h for the list. The agent stops
// gracefully on SIGINT or SIGTERM (running tasks are cancelled and
// reported, exit status 0); it exits with status 1 when the server refuses
// the app secret and 2 on a configuration error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/jobwheel/jobwheel/internal/envflag"
	"github.com/jobwheel/jobwheel/internal/tracing"
	"github.com/jobwheel/jobwheel/worker"
	"github.com/jobwheel/jobwheel/worker/processors"
)

func main() {
	// First, before anything can run: the scripts must not find the app
	// secret in the agent's environment or arguments (secret.go).
	getenv, args, err := keepSecret(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "jobwheel-agent: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, args, getenv, os.Stderr))
}

// settings are the agent's flags and their environment variables.
type settings struct {
	set                                                               *envflag.Set
	servers, app, secret, tags, slots, name, workDir, logLevel, drain *envflag.Setting
	jobsFile, otlp                                                    *envflag.Setting
}

// options parses args, then fills what the command line did not set from
// the environment, then from the defaults. (Defaults are not taken from the
// environment before parsing so that -h never prints the secret.)
func options(args []string, getenv func(string) string, stderr io.Writer) (*settings, error) {
	set := envflag.New("jobwheel-agent", getenv, stderr)
	o := &settings{
		set:      set,
		servers:  set.String("servers", "JOBWHEEL_SERVERS", "http://localhost:7700", "comma-separated server URLs; any of them tells the agent which server owns its app"),
		app:      set.String("app", "JOBWHEEL_APP", "", "the app this worker serves (required)"),
		secret:   set.String("secret", "JOBWHEEL_APP_SECRET", "", "the app secret (required; prefer the environment variable: flags show in ps)"),
		tags:     set.String("tags", "JOBWHEEL_WORKER_TAGS", "", "comma-separated tags jobs can select this worker by"),
		slots:    set.String("slots", "JOBWHEEL_WORKER_SLOTS", "", "tasks run at once (default 4 × CPUs, at least 32)"),
		name:     set.String("name", "JOBWHEEL_WORKER_NAME", "", "the worker's name (default: the host name)"),
		workDir:  set.String("work-dir", "JOBWHEEL_WORKER_WORK_DIR", "", "directory for scripts' temporary directories, whose free space is reported (default: the system temp dir)"),
		logLevel: set.String("log-level", "JOBWHEEL_LOG_LEVEL", "info", "debug, info, warn or error: the agent's own log only (what tasks write is always shipped whole to the server)"),
		drain:    set.String("drain-timeout", "JOBWHEEL_DRAIN_TIMEOUT", "10s", "on SIGTERM, how long running tasks may finish (the agent takes no new ones); those still running then are handed back to run elsewhere"),
		otlp: set.String("otlp-endpoint", "JOBWHEEL_OTLP_ENDPOINT", "",
			"OTLP/HTTP collector to send traces to, e.g. http://127.0.0.1:4318: a span per traced task and per HTTP job request, under the server's (docs/tracing.md); empty: none"),
		jobsFile: set.String("jobs-file", "JOBWHEEL_JOBS_FILE", "", `a JSON file of jobs the agent declares, run by its GO processors: {"set": "…", "dryRun": false, "jobs": [{"name": …, "scheduleType": …, "processor": …}]}`),
	}
	set.SetUsage(func() {
		fmt.Fprintf(stderr, "Usage: jobwheel-agent [flags]\n\n"+
			"The standalone jobwheel worker: runs SHELL, PYTHON and HTTP jobs and the example GO\n"+
			"processors example.noop, example.sleep, example.fail, example.broadcast,\n"+
			"example.mapreduce and example.context, and example.logs and example.fanout (benchmarks).\n"+
			"Each flag can be given by the environment variable beside it; a flag wins.\n\n")
		set.PrintDefaults()
	})
	if err := set.Parse(args); err != nil {
		return nil, err
	}
	return o, nil
}

// config turns options into a worker configuration. Errors name the flag
// or variable at fault.
func config(o *settings, stderr io.Writer) (worker.Config, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel.Value())); err != nil {
		return worker.Config{}, o.logLevel.Errorf("%q is not debug, info, warn or error", o.logLevel.Value())
	}
	cfg := worker.Config{
		App:     o.app.Value(),
		Secret:  o.secret.Value(),
		Servers: o.servers.List(),
		Tags:    o.tags.List(),
		Name:    o.name.Value(),
		WorkDir: o.workDir.Value(),
		Version: "jobwheel-agent " + worker.SDKVersion,
		// The level filters the agent's own log only: TaskLogLevel stays
		// unset so every line a task writes reaches the server.
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	}
	drain, err := o.drain.Duration()
	if err != nil {
		return cfg, err
	}
	if drain <= 0 {
		return cfg, o.drain.Errorf("%s is not a positive duration", o.drain.Value())
	}
	cfg.DrainTimeout = drain
	cfg.Slots = defaultSlots()
	if o.slots.Value() != "" {
		n, err := o.slots.Int()
		if err != nil {
			return cfg, err
		}
		if n < 1 {
			return cfg, o.slots.Errorf("%d is less than 1", n)
		}
		cfg.Slots = n
	}
	if path := o.jobsFile.Value(); path != "" {
		if err := cfg.DeclareFromFile(path); err != nil {
			return cfg, o.jobsFile.Errorf("%v", err)
		}
	}
	err = cfg.Validate()
	var ce *worker.ConfigError
	if errors.As(err, &ce) {
		field, _, _ := strings.Cut(ce.Field, "[") // Servers[1] → Servers
		if st := map[string]*envflag.Setting{"App": o.app, "Secret": o.secret, "Servers": o.servers, "Tags": o.tags,
			"Slots": o.slots, "Name": o.name, "WorkDir": o.workDir}[field]; st != nil {
			return cfg, st.Errorf("%s", ce.Reason)
		}
	}
	return cfg, err
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	o, err := options(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "jobwheel-agent: %v\n", err)
		return 2
	}
	cfg, err := config(o, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "jobwheel-agent: %v\n", err)
		return 2
	}
	if e := o.otlp.Value(); e != "" {
		if err := tracing.CheckEndpoint(e); err != nil {
			fmt.Fprintf(stderr, "jobwheel-agent: %v\n", o.otlp.Errorf("%q: %v", e, err))
			return 2
		}
	}
	// Sampling is the server's: a task is traced when its fire was.
	traces, err := tracing.New(tracing.Config{Endpoint: o.otlp.Value(), Sample: 1, Service: "jobwheel-agent", Version: worker.SDKVersion})
	if err != nil {
		fmt.Fprintf(stderr, "jobwheel-agent: %v\n", err)
		return 2
	}
	defer traces.Stop() // exports the spans still buffered
	cfg.TracerProvider = traces.TracerProvider()
	w := worker.New(cfg)
	w.RegisterType("SHELL", processors.Shell())
	w.RegisterType("PYTHON", processors.Python())
	w.RegisterType("HTTP", &processors.HTTP{TracerProvider: cfg.TracerProvider})
	registerExamples(w)
	cfg.Logger.Info("jobwheel agent starting", "app", cfg.App, "servers", cfg.Servers, "worker", w.ID())
	err = w.Run(ctx)
	switch {
	case errors.Is(err, worker.ErrAuth):
		fmt.Fprintf(stderr, "jobwheel-agent: %v\n", err)
		if !strings.Contains(err.Error(), "JOBWHEEL_APP_SECRET") {
			fmt.Fprintln(stderr, "(set JOBWHEEL_APP and JOBWHEEL_APP_SECRET to the app's name and the secret shown when it was created)")
		}
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "jobwheel-agent: %v\n", err)
		return 1
	}
	cfg.Logger.Info("jobwheel agent stopped")
	return 0
}

// minSlots is the least the agent runs at once by default. Its tasks are
// processes and HTTP calls, which mostly wait: with the Go SDK's 4 × CPUs
// (8 on two cores) a second's burst of scripts queued for slots, each
// freed slot a round trip to the server and a commit, so 50 `true`
// scripts a second started up to 65 ms late, and every queued task cost
// one more row write. With 32 the same burst starts within 40 ms and
// PostgreSQL spends a third less per script (docs/benchmarks.md, the
// shell scenario's slots). Scripts that each take a core are better with
// JOBWHEEL_WORKER_SLOTS set to the cores.
const minSlots = 32

// defaultSlots is the agent's slots when none are set: 4 × CPUs, at least
// minSlots.
func defaultSlots() int { return max(4*runtime.NumCPU(), minSlots) }
