// Command testworker is the Go SDK's worker for the conformance kit: it
// registers the kit's processors (worker/conformance/README.md) and reads
// its settings from the environment the kit sets.
//
//	go build -o /tmp/testworker ./worker/conformance/testworker
//	go run ./worker/conformance -- /tmp/testworker
//
// It exits 0 after SIGTERM or SIGINT, 1 when the server refuses the secret.
// The flag -slots overrides JOBWHEEL_WORKER_SLOTS: the kit's own tests use
// it to see the kit fail a worker that ignores its settings.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/jobwheel/jobwheel/worker"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx))
}

func list(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func run(ctx context.Context) int {
	slots := flag.Int("slots", 0, "slots, overriding JOBWHEEL_WORKER_SLOTS")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := worker.Config{
		App:     os.Getenv("JOBWHEEL_APP"),
		Secret:  os.Getenv("JOBWHEEL_APP_SECRET"),
		Servers: list(os.Getenv("JOBWHEEL_SERVERS")),
		Tags:    list(os.Getenv("JOBWHEEL_WORKER_TAGS")),
		Name:    "conformance-go",
		Logger:  log,
	}
	if s := os.Getenv("JOBWHEEL_WORKER_SLOTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testworker: JOBWHEEL_WORKER_SLOTS: %q is not a number\n", s)
			return 2
		}
		cfg.Slots = n
	}
	if *slots > 0 {
		cfg.Slots = *slots
	}
	if path := os.Getenv("JOBWHEEL_JOBS_FILE"); path != "" {
		if err := cfg.DeclareFromFile(path); err != nil {
			fmt.Fprintf(os.Stderr, "testworker: JOBWHEEL_JOBS_FILE: %v\n", err)
			return 2
		}
	}
	w := worker.New(cfg)
	register(w)
	err := w.Run(ctx)
	switch {
	case errors.Is(err, worker.ErrAuth):
		fmt.Fprintf(os.Stderr, "testworker: %v\n", err)
		return 1
	case err != nil:
		fmt.Fprintf(os.Stderr, "testworker: %v\n", err)
		return 2
	}
	return 0
}

// register adds the kit's processors.
func register(w *worker.Worker) {
	w.Register("conformance.succeed", worker.Func(succeed))
	w.Register("conformance.fail", worker.Func(func(ctx worker.TaskContext) (worker.Result, error) {
		ctx.Logger().Info("failing")
		return worker.Result{}, errors.New("conformance failure")
	}))
	w.Register("conformance.block", worker.Func(func(ctx worker.TaskContext) (worker.Result, error) {
		ctx.Logger().Info("blocking")
		<-ctx.Done()
		return worker.Result{}, errors.New("cancelled")
	}))
	w.Register("conformance.map", mapper{})
	w.Register("conformance.workflow", worker.Func(workflow))
}

// succeed logs {"lines": N} lines "line i", each padded to {"size": S}
// bytes, and returns "wrote N lines; params=<instance params>".
func succeed(ctx worker.TaskContext) (worker.Result, error) {
	p := struct{ Lines, Size int }{Lines: 3}
	if ctx.JobParams() != "" {
		if err := json.Unmarshal([]byte(ctx.JobParams()), &p); err != nil {
			return worker.Result{}, fmt.Errorf("job params: %w", err)
		}
	}
	for i := 1; i <= p.Lines; i++ {
		text := fmt.Sprintf("line %d", i)
		if len(text) < p.Size {
			text += " " + strings.Repeat("x", p.Size-len(text)-1)
		}
		ctx.Logger().Info(text)
	}
	return worker.Result{Message: fmt.Sprintf("wrote %d lines; params=%s", p.Lines, ctx.InstanceParams())}, nil
}

// mapper: the ROOT maps 1..k then k+1..2k as subtasks "square" (k from
// the job params); a MAP task squares its payload; REDUCE sums the
// successful squares.
type mapper struct{}

func (mapper) Process(ctx worker.TaskContext) (worker.Result, error) {
	if ctx.IsRoot() {
		k, err := strconv.Atoi(ctx.JobParams())
		if err != nil {
			return worker.Result{}, fmt.Errorf("job params %q: %w", ctx.JobParams(), err)
		}
		for start := 1; start <= k+1; start += k {
			var batch []any
			for i := start; i < start+k; i++ {
				batch = append(batch, i)
			}
			if err := ctx.Map(batch, "square"); err != nil {
				return worker.Result{}, err
			}
		}
		return worker.Result{Message: fmt.Sprintf("mapped %d subtasks", 2*k)}, nil
	}
	var n int
	if err := ctx.DecodePayload(&n); err != nil {
		return worker.Result{}, err
	}
	return worker.Result{Message: strconv.Itoa(n * n)}, nil
}

func (mapper) Reduce(ctx worker.TaskContext, results []worker.TaskResult) (worker.Result, error) {
	sum := 0
	for _, r := range results {
		if r.Name != "square" || !r.Success {
			continue
		}
		n, err := strconv.Atoi(r.Result)
		if err != nil {
			return worker.Result{}, fmt.Errorf("task %d: result %q: %w", r.TaskID, r.Result, err)
		}
		sum += n
	}
	return worker.Result{Message: fmt.Sprintf("sum %d", sum)}, nil
}

// workflow adds "doubled" (the context's n × 2) and "echo" (upstream
// node "up"'s result) to the workflow context.
func workflow(ctx worker.TaskContext) (worker.Result, error) {
	n, _ := ctx.WorkflowContext()["n"].(float64)
	ctx.SetWorkflowValue("doubled", n*2)
	ctx.SetWorkflowValue("echo", ctx.Upstream()["up"])
	run, node := ctx.WorkflowNode()
	return worker.Result{Message: fmt.Sprintf("node %s of run %d", node, run)}, nil
}
