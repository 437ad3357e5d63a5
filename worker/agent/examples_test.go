package main

import (
	"context"
	"errors"
	"strings"
	"testing"

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
