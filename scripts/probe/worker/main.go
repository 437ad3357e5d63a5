// Command worker is the attacker probe's hostile worker (scripts/probe): it
// serves tenant A with processors that push what a worker may push as far
// as the server lets it — subtasks, log lines, results.
//
//	probe-map     MAP job: the ROOT task emits N subtasks (params: N);
//	              each subtask does nothing.
//	probe-log     writes N log lines of S bytes (params: "N S") as fast as
//	              it can.
//	probe-result  returns a result of N bytes (params: N).
package main

import (
	"context"
	"fmt"
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
	w := worker.New(worker.Config{App: os.Getenv("JOBWHEEL_APP"), Secret: os.Getenv("JOBWHEEL_APP_SECRET"),
		Servers: []string{os.Getenv("JOBWHEEL_SERVERS")}, Tags: []string{"probe-go"}})
	w.Register("probe-map", worker.Func(func(ctx worker.TaskContext) (worker.Result, error) {
		if !ctx.IsRoot() {
			return worker.Result{}, nil
		}
		n, _ := strconv.Atoi(strings.TrimSpace(ctx.InstanceParams()))
		subtasks := make([]any, n)
		for i := range subtasks {
			subtasks[i] = i
		}
		if err := ctx.Map(subtasks, "bomb"); err != nil {
			return worker.Result{}, err
		}
		return worker.Result{Message: fmt.Sprintf("mapped %d", n)}, nil
	}))
	w.Register("probe-log", worker.Func(func(ctx worker.TaskContext) (worker.Result, error) {
		var n, size int
		if _, err := fmt.Sscan(ctx.InstanceParams(), &n, &size); err != nil {
			return worker.Result{}, fmt.Errorf("params %q: want \"<lines> <bytes>\": %w", ctx.InstanceParams(), err)
		}
		line := strings.Repeat("x", size)
		for i := 0; i < n && ctx.Err() == nil; i++ {
			ctx.Logger().Info(line)
		}
		return worker.Result{Message: fmt.Sprintf("logged %d", n)}, nil
	}))
	w.Register("probe-result", worker.Func(func(ctx worker.TaskContext) (worker.Result, error) {
		n, _ := strconv.Atoi(strings.TrimSpace(ctx.InstanceParams()))
		return worker.Result{Message: strings.Repeat("r", n)}, nil
	}))
	if err := w.Run(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
