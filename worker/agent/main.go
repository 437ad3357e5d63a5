// Command agent is the standalone jobwheel worker: it runs SHELL, PYTHON
// and HTTP jobs, and a few example GO processors, for one app.
//
//	JOBWHEEL_APP=orders JOBWHEEL_APP_SECRET=… go run ./worker/agent
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
	"strconv"
	"strings"
	"syscall"

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

// option is a flag with its environment variable.
type option struct {
	flag, env, def, usage string
	value                 *string
}

// options parses args, then fills what the command line did not set from
// the environment, then from the defaults. (Defaults are not taken from the
// environment before parsing so that -h never prints the secret.)
func options(args []string, getenv func(string) string, stderr io.Writer) (map[string]string, error) {
	opts := []*option{
		{flag: "servers", env: "JOBWHEEL_SERVERS", def: "http://localhost:7700", usage: "comma-separated server URLs; any of them tells the agent which server owns its app"},
		{flag: "app", env: "JOBWHEEL_APP", usage: "the app this worker serves (required)"},
		{flag: "secret", env: "JOBWHEEL_APP_SECRET", usage: "the app secret (required; prefer the environment variable: flags show in ps)"},
		{flag: "tags", env: "JOBWHEEL_WORKER_TAGS", usage: "comma-separated tags jobs can select this worker by"},
		{flag: "slots", env: "JOBWHEEL_WORKER_SLOTS", usage: "tasks run at once (default 4 × CPUs)"},
		{flag: "name", env: "JOBWHEEL_WORKER_NAME", usage: "the worker's name (default: the host name)"},
		{flag: "work-dir", env: "JOBWHEEL_WORKER_WORK_DIR", usage: "directory for scripts' temporary directories, whose free space is reported (default: the system temp dir)"},
		{flag: "log-level", env: "JOBWHEEL_LOG_LEVEL", def: "info", usage: "debug, info, warn or error: the agent's own log, and the lowest level of task log lines shipped to the server"},
	}
	fs := flag.NewFlagSet("jobwheel-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, o := range opts {
		usage := o.usage
		if o.def != "" {
			usage += " (default " + o.def + ")"
		}
		o.value = fs.String(o.flag, "", fmt.Sprintf("%s [$%s]", usage, o.env))
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: jobwheel-agent [flags]\n\n"+
			"The standalone jobwheel worker: runs SHELL, PYTHON and HTTP jobs and the example GO\n"+
			"processors example.sleep, example.fail, example.broadcast and example.mapreduce.\n"+
			"Each flag can be given by the environment variable in brackets; a flag wins.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	out := map[string]string{}
	for _, o := range opts {
		v := *o.value
		if !set[o.flag] {
			v = getenv(o.env)
		}
		if v == "" {
			v = o.def
		}
		out[o.flag] = v
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for p := range strings.SplitSeq(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// config turns options into a worker configuration.
func config(o map[string]string, stderr io.Writer) (worker.Config, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o["log-level"])); err != nil {
		return worker.Config{}, fmt.Errorf("-log-level / JOBWHEEL_LOG_LEVEL: %q is not debug, info, warn or error", o["log-level"])
	}
	cfg := worker.Config{
		App:          o["app"],
		Secret:       o["secret"],
		Servers:      splitList(o["servers"]),
		Tags:         splitList(o["tags"]),
		Name:         o["name"],
		WorkDir:      o["work-dir"],
		Version:      "jobwheel-agent " + worker.SDKVersion,
		Logger:       slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
		TaskLogLevel: level,
	}
	if s := o["slots"]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return cfg, fmt.Errorf("-slots / JOBWHEEL_WORKER_SLOTS: %q is not a positive number", s)
		}
		cfg.Slots = n
	}
	return cfg, cfg.Validate()
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
	w := worker.New(cfg)
	w.RegisterType("SHELL", processors.Shell())
	w.RegisterType("PYTHON", processors.Python())
	w.RegisterType("HTTP", &processors.HTTP{})
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
