package main

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/worker"
	"github.com/jobwheel/jobwheel/worker/protocol"
	"github.com/jobwheel/jobwheel/worker/workertest"
)

func root(params string) protocol.Task {
	return protocol.Task{TaskID: 1, InstanceID: 2, Kind: protocol.KindRoot, Name: "ROOT", Attempt: 1, ExecutionMode: "MAP_REDUCE", Params: params}
}

func TestNoop(t *testing.T) {
	tc := workertest.New(t.Context(), root(""))
	lines := 0
	tc.OnLine = func(workertest.Line) { lines++ }
	if res, err := noop(tc); err != nil || res.Message != "" || lines != 0 {
		t.Errorf("noop = %q, %v with %d log lines; want nothing at all", res.Message, err, lines)
	}
}

func TestSleep(t *testing.T) {
	res, err := sleep(workertest.New(t.Context(), root("20ms")))
	if err != nil || res.Message != "slept 20ms" {
		t.Errorf("%q %v", res.Message, err)
	}
	if _, err := sleep(workertest.New(t.Context(), root("soon"))); err == nil {
		t.Error("bad duration accepted")
	}
	// Stopped: returns at once with the context's error.
	ctx, cancel := context.WithCancel(t.Context())
	tc := workertest.New(ctx, root("1h"))
	tc.OnLine = func(l workertest.Line) {
		if strings.HasPrefix(l.Text, "going to sleep") {
			cancel()
		}
	}
	if _, err := sleep(tc); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v", err)
	}
}

func TestFail(t *testing.T) {
	if _, err := fail(workertest.New(t.Context(), root("x"))); err == nil || !strings.Contains(err.Error(), "on purpose") {
		t.Errorf("error %v", err)
	}
}

func TestBroadcast(t *testing.T) {
	var p worker.BroadcastProcessor = broadcast{}
	res, err := p.PostProcess(workertest.New(t.Context(), root("")), []worker.TaskResult{
		{Success: true, Result: "b"}, {Success: true, Result: "a"}, {Success: false, Result: "boom"}})
	if err != nil || res.Message != "3 workers: 2 succeeded, 1 failed; hosts: a, b" {
		t.Errorf("%q %v", res.Message, err)
	}
}

func TestMapReduce(t *testing.T) {
	var p worker.StreamReducer = mapReduce{}
	ctx := workertest.New(t.Context(), root("4"))
	if _, err := p.Process(ctx); err != nil {
		t.Fatal(err)
	}
	maps := ctx.Maps()
	if len(maps) != 1 || maps[0].Name != "square" || strings.Join(maps[0].Payloads, ",") != "1,2,3,4" {
		t.Fatalf("maps %+v", maps)
	}
	var results []worker.TaskResult
	for i, payload := range maps[0].Payloads {
		sub := root("")
		sub.Kind, sub.Name, sub.TaskID, sub.Payload = protocol.KindMap, "square", int64(10+i), payload
		res, err := p.Process(workertest.New(t.Context(), sub))
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, worker.TaskResult{TaskID: sub.TaskID, Name: "square", Success: true, Result: res.Message})
	}
	results = append(results, worker.TaskResult{TaskID: 1, Name: "ROOT", Success: true, Result: "mapped 4 subtasks"})
	res, err := p.ReduceStream(workertest.New(t.Context(), root("")), worker.ResultsFrom(results))
	if err != nil || res.Message != "sum of 4 squares = 30" {
		t.Errorf("%q %v", res.Message, err)
	}
	if _, err := p.Process(workertest.New(t.Context(), root("0"))); err == nil {
		t.Error("0 subtasks accepted")
	}
}

func TestLogLines(t *testing.T) {
	ctx := workertest.New(t.Context(), root(`{"perSecond": 1000, "seconds": 0.01}`))
	var lines []string
	ctx.OnLine = func(l workertest.Line) { lines = append(lines, l.Text) }
	before := time.Now().UnixNano()
	res, err := logLines(ctx)
	if err != nil || res.Message != "wrote 10 lines" || len(lines) != 10 {
		t.Fatalf("%q %v, lines %q", res.Message, err, lines)
	}
	// Each line carries its number and the time it was written.
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) != 3 || f[0] != "bench-log" || f[1] != strconv.Itoa(i) {
			t.Fatalf("line %d is %q", i, l)
		}
		if at, err := strconv.ParseInt(f[2], 10, 64); err != nil || at < before || at > time.Now().UnixNano() {
			t.Errorf("line %d: time %q is not when it was written", i, f[2])
		}
	}
	for _, bad := range []string{`{"perSecond": 0}`, `{"seconds": -1}`, `{"delayMs": -5}`, `fast`} {
		if _, err := logLines(workertest.New(t.Context(), root(bad))); err == nil || !strings.Contains(err.Error(), "example.logs") {
			t.Errorf("%s: error %v", bad, err)
		}
	}
	// Stopped while waiting for its first line: returns the context's error.
	stopped, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := logLines(workertest.New(stopped, root(`{"delayMs": 3600000}`))); !errors.Is(err, context.Canceled) {
		t.Errorf("stopped: %v", err)
	}
}

func TestFanout(t *testing.T) {
	var p worker.Processor = fanout{}
	ctx := workertest.New(t.Context(), root("25001"))
	if _, err := p.Process(ctx); err != nil {
		t.Fatal(err)
	}
	maps := ctx.Maps()
	if len(maps) != 1 || maps[0].Name != "range" ||
		strings.Join(maps[0].Payloads, " ") != `{"from":0,"to":10000} {"from":10000,"to":20000} {"from":20000,"to":25001}` {
		t.Fatalf("root maps %+v", maps)
	}
	sub := root("")
	sub.Kind, sub.Name, sub.TaskID, sub.Payload = protocol.KindMap, "range", 5, maps[0].Payloads[2]
	rangeCtx := workertest.New(t.Context(), sub)
	if _, err := p.Process(rangeCtx); err != nil {
		t.Fatal(err)
	}
	leaves := rangeCtx.Maps()
	if len(leaves) != 1 || leaves[0].Name != "leaf" || len(leaves[0].Payloads) != 5001 || leaves[0].Payloads[0] != "20000" {
		t.Fatalf("range maps %d", len(leaves))
	}
	sub.Name, sub.Payload = "leaf", "20000"
	if res, err := p.Process(workertest.New(t.Context(), sub)); err != nil || res.Message != "" {
		t.Errorf("leaf %q %v", res.Message, err)
	}
	for _, bad := range []string{"0", "10000001", "many"} {
		if _, err := p.Process(workertest.New(t.Context(), root(bad))); err == nil {
			t.Errorf("%s subtasks accepted", bad)
		}
	}
	sub.Name, sub.Payload = "range", `{"from":0,"to":10001}`
	if _, err := p.Process(workertest.New(t.Context(), sub)); err == nil {
		t.Error("a range of 10,001 leaves accepted")
	}
}
