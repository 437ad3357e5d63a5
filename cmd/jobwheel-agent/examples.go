package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/worker"
)

// registerExamples adds the example GO processors, handy to try jobwheel
// out and used by the end-to-end tests.
func registerExamples(w *worker.Worker) {
	w.Register("example.noop", worker.Func(noop))
	w.Register("example.sleep", worker.Func(sleep))
	w.Register("example.fail", worker.Func(fail))
	w.Register("example.broadcast", broadcast{})
	w.Register("example.mapreduce", mapReduce{})
	w.Register("example.context", worker.Func(workflowContext))
	w.Register("example.logs", worker.Func(logLines))
	w.Register("example.fanout", fanout{})
}

// workflowContext is a workflow node that reads the run's context: it
// logs it, returns the value of the key named by its parameters (as JSON),
// and adds go_saw to the context with that value, for the nodes after it.
func workflowContext(ctx worker.TaskContext) (worker.Result, error) {
	wctx := ctx.WorkflowContext()
	ctx.Logger().Info("workflow context", "context", wctx, "upstream", ctx.Upstream())
	key := params(ctx)
	v, ok := wctx[key]
	if key != "" && !ok {
		return worker.Result{}, fmt.Errorf("example.context: the context has no %q", key)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return worker.Result{}, err
	}
	ctx.SetWorkflowValue("go_saw", v)
	return worker.Result{Message: string(b)}, nil
}

// params are the instance's parameters if given, else the job's.
func params(ctx worker.TaskContext) string {
	if p := strings.TrimSpace(ctx.InstanceParams()); p != "" {
		return p
	}
	return strings.TrimSpace(ctx.JobParams())
}

// noop does nothing and succeeds: the benchmarks measure jobwheel itself
// with it.
func noop(worker.TaskContext) (worker.Result, error) { return worker.Result{}, nil }

// sleep logs a few lines and sleeps for the duration in its parameters
// ("3s"; default 1s), returning early when stopped.
func sleep(ctx worker.TaskContext) (worker.Result, error) {
	d := time.Second
	if p := params(ctx); p != "" {
		var err error
		if d, err = time.ParseDuration(p); err != nil || d < 0 {
			return worker.Result{}, fmt.Errorf("example.sleep: parameters %q are not a duration such as 3s", p)
		}
	}
	log := ctx.Logger()
	log.Info("going to sleep", "for", d)
	start := time.Now()
	timer := time.NewTimer(d)
	defer timer.Stop()
	tick := time.NewTicker(max(d/4, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-timer.C:
			log.Info("woke up")
			return worker.Result{Message: "slept " + d.String()}, nil
		case <-tick.C:
			log.Info("still sleeping", "elapsed", time.Since(start).Round(time.Millisecond))
		case <-ctx.Done():
			log.Warn("interrupted", "after", time.Since(start).Round(time.Millisecond))
			return worker.Result{}, ctx.Err()
		}
	}
}

// fail fails on purpose, to try alarms and retries.
func fail(ctx worker.TaskContext) (worker.Result, error) {
	ctx.Logger().Info("about to fail on purpose")
	ctx.Logger().Error("example.fail always fails")
	return worker.Result{}, fmt.Errorf("example.fail failed on purpose (attempt %d, params %q)", ctx.Attempt(), params(ctx))
}

// broadcast shows the BROADCAST hooks: pre once, process on every worker,
// post once with every worker's result.
type broadcast struct{}

func (broadcast) PreProcess(ctx worker.TaskContext) error {
	ctx.Logger().Info("pre-process: runs once, before the broadcast")
	return nil
}

func (broadcast) Process(ctx worker.TaskContext) (worker.Result, error) {
	host, _ := os.Hostname()
	ctx.Logger().Info("hello from this worker", "host", host, "worker", ctx.WorkerID())
	return worker.Result{Message: host}, nil
}

func (broadcast) PostProcess(ctx worker.TaskContext, results []worker.TaskResult) (worker.Result, error) {
	var hosts []string
	failed := 0
	for _, r := range results {
		if r.Success {
			hosts = append(hosts, r.Result)
		} else {
			failed++
		}
	}
	slices.Sort(hosts)
	msg := fmt.Sprintf("%d workers: %d succeeded, %d failed; hosts: %s", len(results), len(hosts), failed, strings.Join(hosts, ", "))
	ctx.Logger().Info("post-process: " + msg)
	return worker.Result{Message: msg}, nil
}

// mapReduce squares 1..N in N subtasks, then sums the squares as they
// stream in (exactly: a big integer, as the sum passes int64 beyond about
// three million squares). Its parameters are "N" (default 10) or
// "N,pauseMs": the root then pauses between its map calls, and the reduce
// before it reads, to watch a run (or stop a worker) in the middle.
type mapReduce struct{}

const (
	maxSquares = 10_000_000
	// mapChunk is how many subtasks the root maps per call: each call
	// returns once the server stored them, so the root never holds more.
	mapChunk = 10_000
)

func (mapReduce) Process(ctx worker.TaskContext) (worker.Result, error) {
	if !ctx.IsRoot() {
		n, err := worker.PayloadOf[int64](ctx)
		if err != nil {
			return worker.Result{}, err
		}
		return worker.Result{Message: strconv.FormatInt(n*n, 10)}, nil
	}
	n, pause, err := mapReduceParams(params(ctx))
	if err != nil {
		return worker.Result{}, err
	}
	ctx.Logger().Info("mapping subtasks", "count", n)
	chunk := make([]int64, 0, min(n, mapChunk))
	for i := 1; i <= n; i++ {
		chunk = append(chunk, int64(i))
		if len(chunk) == cap(chunk) || i == n {
			if err := worker.MapOf(ctx, chunk, "square"); err != nil {
				return worker.Result{}, err
			}
			chunk = chunk[:0]
			if i < n && !pauseFor(ctx, pause) {
				return worker.Result{}, context.Cause(ctx)
			}
		}
	}
	return worker.Result{Message: fmt.Sprintf("mapped %d subtasks", n)}, nil
}

// mapReduceParams reads "N" or "N,pauseMs".
func mapReduceParams(p string) (n int, pause time.Duration, err error) {
	if p == "" {
		return 10, 0, nil
	}
	count, ms, paused := strings.Cut(p, ",")
	n, err = strconv.Atoi(strings.TrimSpace(count))
	if err != nil || n < 1 || n > maxSquares {
		return 0, 0, fmt.Errorf("example.mapreduce: parameters %q must be a number of subtasks from 1 to %d, optionally followed by \",pauseMs\"", p, maxSquares)
	}
	if paused {
		v, err := strconv.Atoi(strings.TrimSpace(ms))
		if err != nil || v < 0 || v > 600_000 {
			return 0, 0, fmt.Errorf("example.mapreduce: the pause in parameters %q must be 0 to 600000 milliseconds", p)
		}
		pause = time.Duration(v) * time.Millisecond
	}
	return n, pause, nil
}

// pauseFor waits d or until the task ends; false if it ended.
func pauseFor(ctx worker.TaskContext, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func (mapReduce) ReduceStream(ctx worker.TaskContext, results worker.Results) (worker.Result, error) {
	if _, pause, err := mapReduceParams(params(ctx)); err == nil && !pauseFor(ctx, pause) {
		return worker.Result{}, context.Cause(ctx)
	}
	sum, v := new(big.Int), new(big.Int)
	count, failed := 0, 0
	for r, err := range results {
		if err != nil {
			return worker.Result{}, err
		}
		if r.Name != "square" {
			continue // the root's own result
		}
		if !r.Success {
			failed++
			continue
		}
		if _, ok := v.SetString(r.Result, 10); !ok {
			return worker.Result{}, fmt.Errorf("subtask %d: result %q is not a number", r.TaskID, r.Result)
		}
		sum.Add(sum, v)
		count++
	}
	ctx.Logger().Info("reduced", "subtasks", count, "failed", failed, "sum", sum.String())
	if failed > 0 {
		return worker.Result{}, fmt.Errorf("%d of %d subtasks failed; sum of the others %s", failed, failed+count, sum)
	}
	return worker.Result{Message: fmt.Sprintf("sum of %d squares = %s", count, sum)}, nil
}

// logSpec is example.logs's parameters.
type logSpec struct {
	PerSecond float64 `json:"perSecond"`
	Seconds   float64 `json:"seconds"`
	DelayMs   int64   `json:"delayMs"`
}

// logLines writes log lines at a steady rate, for the log benchmark:
// parameters {"perSecond": 20, "seconds": 10, "delayMs": 1000} (defaults
// 10, 5 and 0). Each line is "bench-log <n> <unix nanoseconds>", the time
// it was written, so whoever receives it (a subscriber of the instance's
// log) can tell how long it took. The delay lets subscribers attach first.
func logLines(ctx worker.TaskContext) (worker.Result, error) {
	spec := logSpec{PerSecond: 10, Seconds: 5}
	if p := params(ctx); p != "" {
		if err := json.Unmarshal([]byte(p), &spec); err != nil {
			return worker.Result{}, fmt.Errorf(`example.logs: parameters %q are not JSON such as {"perSecond": 20, "seconds": 10, "delayMs": 1000}: %w`, p, err)
		}
	}
	switch {
	case spec.PerSecond <= 0 || spec.PerSecond > 100000:
		return worker.Result{}, fmt.Errorf("example.logs: perSecond %g must be above 0 and at most 100000", spec.PerSecond)
	case spec.Seconds < 0 || spec.Seconds > 86400:
		return worker.Result{}, fmt.Errorf("example.logs: seconds %g must be from 0 to 86400", spec.Seconds)
	case spec.DelayMs < 0 || spec.DelayMs > 3600000:
		return worker.Result{}, fmt.Errorf("example.logs: delayMs %d must be from 0 to 3600000", spec.DelayMs)
	}
	total := int(spec.PerSecond * spec.Seconds)
	interval := time.Duration(float64(time.Second) / spec.PerSecond)
	// Paced from one start time, not by sleeping an interval after each
	// line, so the rate holds however long writing a line takes.
	start := time.Now().Add(time.Duration(spec.DelayMs) * time.Millisecond)
	timer := time.NewTimer(0)
	defer timer.Stop()
	log := ctx.Logger()
	for i := 0; i < total; i++ {
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return worker.Result{}, ctx.Err()
			}
		}
		log.Info("bench-log " + strconv.Itoa(i) + " " + strconv.FormatInt(time.Now().UnixNano(), 10))
	}
	return worker.Result{Message: fmt.Sprintf("wrote %d lines", total)}, nil
}

// fanout is a MAP job of up to maxFanout no-op subtasks in two levels,
// for the task benchmark at sizes one Map call (and a REDUCE task's
// results) cannot hold: the root maps ranges of fanoutRange, each range
// task maps its leaves, and the leaves do nothing. Parameters: the number
// of leaves (default 10).
type fanout struct{}

const (
	maxFanout   = 10000000
	fanoutRange = 10000
)

// fanoutRangeSpec is a range task's payload: leaves [From, To).
type fanoutRangeSpec struct {
	From int `json:"from"`
	To   int `json:"to"`
}

func (fanout) Process(ctx worker.TaskContext) (worker.Result, error) {
	switch ctx.TaskName() {
	case "leaf":
		return worker.Result{}, nil
	case "range":
		var r fanoutRangeSpec
		if err := ctx.DecodePayload(&r); err != nil {
			return worker.Result{}, err
		}
		if r.From < 0 || r.To < r.From || r.To-r.From > fanoutRange {
			return worker.Result{}, fmt.Errorf("example.fanout: range [%d, %d) is not 0 to %d leaves", r.From, r.To, fanoutRange)
		}
		leaves := make([]any, 0, r.To-r.From)
		for i := r.From; i < r.To; i++ {
			leaves = append(leaves, i)
		}
		if err := ctx.Map(leaves, "leaf"); err != nil {
			return worker.Result{}, err
		}
		return worker.Result{Message: fmt.Sprintf("mapped %d leaves", len(leaves))}, nil
	}
	if !ctx.IsRoot() {
		return worker.Result{}, fmt.Errorf("example.fanout: unknown subtask %q", ctx.TaskName())
	}
	n := 10
	if p := params(ctx); p != "" {
		var err error
		if n, err = strconv.Atoi(p); err != nil || n < 1 || n > maxFanout {
			return worker.Result{}, fmt.Errorf("example.fanout: parameters %q must be a number of subtasks from 1 to %d", p, maxFanout)
		}
	}
	var ranges []any
	for from := 0; from < n; from += fanoutRange {
		ranges = append(ranges, fanoutRangeSpec{From: from, To: min(from+fanoutRange, n)})
	}
	if err := ctx.Map(ranges, "range"); err != nil {
		return worker.Result{}, err
	}
	return worker.Result{Message: fmt.Sprintf("mapped %d ranges of up to %d leaves", len(ranges), fanoutRange)}, nil
}
