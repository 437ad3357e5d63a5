// Command jobwheel-conformance checks a jobwheel worker against the worker
// wire protocol (docs/protocol.md) by playing the server. It listens on
// loopback (discovery and /worker/connect, as a server serves them), starts
// the worker command it is given with JOBWHEEL_SERVERS, JOBWHEEL_APP and
// JOBWHEEL_APP_SECRET pointing at itself, and drives it through one check
// per rule of the specification, printing PASS, FAIL or SKIP for each:
//
//	jobwheel-conformance -- python3 worker/python/examples/conformance_worker.py
//	go build -o /tmp/testworker ./worker/conformance/testworker && go run ./worker/conformance -- /tmp/testworker
//
// The worker must register the kit's processors (README.md). The exit
// status is 0 when no check failed, 1 when one did, 2 on a usage error.
//
// The kit imports only worker/protocol: it is a model of the server's side
// of the channel, not the server, so it can drop acks, close connections,
// redirect and refuse at the moments a rule needs.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jobwheel-conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: jobwheel-conformance [flags] -- <command that starts the worker> [args…]\n\n"+
			"Plays a jobwheel server against the worker and checks it follows docs/protocol.md.\n"+
			"The worker reads JOBWHEEL_SERVERS, JOBWHEEL_APP, JOBWHEEL_APP_SECRET, JOBWHEEL_WORKER_SLOTS\n"+
			"and JOBWHEEL_WORKER_TAGS and registers the kit's processors (worker/conformance/README.md).\n\n")
		fs.PrintDefaults()
	}
	only := fs.String("run", "", "run only the checks whose names match this regular expression")
	list := fs.Bool("list", false, "list the checks and exit")
	verbose := fs.Bool("v", false, "print every frame and the worker's output as they happen (to standard error)")
	wait := fs.Duration("wait", 20*time.Second, "how long to wait for the worker to do something before failing the check")
	quiet := fs.Duration("quiet", time.Second, "how long to watch for something that must not happen")
	heartbeat := fs.Duration("heartbeat", 500*time.Millisecond, "the heartbeat interval given to the worker in welcome")
	slots := fs.Int("slots", 3, "JOBWHEEL_WORKER_SLOTS given to the worker")
	app := fs.String("app", "conformance&kit", "JOBWHEEL_APP given to the worker (its & must be escaped in discovery)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *list {
		for _, c := range checks {
			fmt.Fprintf(stdout, "%-20s %-18s %s\n", c.name, c.spec, c.rule)
		}
		return 0
	}
	opts := options{command: fs.Args(), verbose: *verbose, wait: *wait, quiet: *quiet, heartbeat: *heartbeat,
		slots: *slots, app: *app, out: stdout, log: stderr}
	switch {
	case len(opts.command) == 0:
		fmt.Fprintln(stderr, "jobwheel-conformance: no worker command; give it after --")
		fs.Usage()
		return 2
	case opts.heartbeat < 10*time.Millisecond || opts.slots < 1 || opts.wait <= 0 || opts.quiet <= 0:
		fmt.Fprintln(stderr, "jobwheel-conformance: -heartbeat must be at least 10ms, -slots at least 1, -wait and -quiet positive")
		return 2
	}
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fmt.Fprintf(stderr, "jobwheel-conformance: -run: %v\n", err)
			return 2
		}
		opts.only = re
	}
	failed, err := runChecks(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "jobwheel-conformance: %v\n", err)
		return 2
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// runChecks runs the checks and prints one line for each; it returns how
// many failed.
func runChecks(ctx context.Context, opts options) (int, error) {
	var suffix [8]byte
	_, _ = rand.Read(suffix[:])
	rec := newRecorder()
	if opts.verbose {
		rec.verbose = func(e *event) { printEvent(opts.log, e) }
	}
	k := &kit{ctx: ctx, opts: opts, rec: rec, secret: "jwa_conformance-" + hex.EncodeToString(suffix[:]),
		nextTask: 100, nextInst: 1000}
	srv, err := newServer(opts.app, k.secret, opts.heartbeat, rec)
	if err != nil {
		return 0, err
	}
	defer srv.close()
	k.srv = srv
	if k.dead, err = deadURL(); err != nil {
		return 0, err
	}
	defer k.stopProcess()

	passed, failed, skipped := 0, 0, 0
	for _, c := range checks {
		if opts.only != nil && !opts.only.MatchString(c.name) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		k.note = ""
		err := c.run(k)
		status, detail := "PASS", k.note
		switch {
		case errors.Is(err, errSkip):
			status, detail = "SKIP", strings.TrimPrefix(err.Error(), errSkip.Error()+": ")
			skipped++
		case err != nil:
			status, detail = "FAIL", err.Error()
			failed++
		default:
			passed++
		}
		line := fmt.Sprintf("%s %-19s %s %s", status, c.name, c.spec, c.rule)
		if detail != "" {
			line += " — " + detail
		}
		fmt.Fprintln(opts.out, line)
	}
	fmt.Fprintf(opts.out, "%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed > 0 && k.proc != nil {
		out := strings.Split(strings.TrimRight(k.proc.out.String(), "\n"), "\n")
		if len(out) > 40 {
			out = out[len(out)-40:]
		}
		fmt.Fprintf(opts.out, "the worker's last output lines:\n%s\n", strings.Join(out, "\n"))
	}
	return failed, nil
}

// deadURL is a loopback URL nothing listens on.
func deadURL() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr, nil
}

func printEvent(w io.Writer, e *event) {
	at := e.at.Format("15:04:05.000")
	conn := ""
	if e.conn != nil {
		conn = fmt.Sprintf("%s#%d", e.ep, e.conn.n)
	}
	switch e.kind {
	case evDiscover:
		fmt.Fprintf(w, "%s %s   GET discover app=%q\n", at, e.ep, e.app)
	case evOpen:
		fmt.Fprintf(w, "%s %s open\n", at, conn)
	case evFrame:
		fmt.Fprintf(w, "%s %s W→S %s\n", at, conn, protocol.Truncate(string(e.raw), 400))
	case evSent:
		fmt.Fprintf(w, "%s %s S→W %s\n", at, conn, protocol.Truncate(string(e.raw), 400))
	case evPong:
		fmt.Fprintf(w, "%s %s pong %q\n", at, conn, e.payload)
	case evClosed:
		fmt.Fprintf(w, "%s %s closed (code %d): %v\n", at, conn, e.closeCode, e.err)
	case evExit:
		fmt.Fprintf(w, "%s worker exited with status %d\n", at, e.exitCode)
	}
}
