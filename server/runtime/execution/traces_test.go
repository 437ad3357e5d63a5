package execution

import (
	"context"
	"testing"

	"github.com/jobwheel/jobwheel/internal/tracing"
)

// BenchmarkDispatchTraced is BenchmarkDispatch with tracing on (spans
// recorded and batched for export to a collector that is not there).
func BenchmarkDispatchTraced(b *testing.B) {
	p, err := tracing.New(tracing.Config{Endpoint: "http://127.0.0.1:9", Sample: 1, Service: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Stop()
	a, tasks := dispatchBench(64, Deps{Tracer: p.Tracer("bench")})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		a.sendDispatch(ctx, "w1", tasks)
		for _, t := range tasks {
			t.span.End()
			t.span = nil
		}
	}
}

// TestDispatchAllocatesNothingForTracesWhenOff: with tracing off, sending
// tasks allocates what it did before tracing existed (BenchmarkDispatch's
// figure on the commit before it: 16 allocations for 64 tasks, in two frames), so the
// fire → task path pays nothing for traces nobody records.
func TestDispatchAllocatesNothingForTracesWhenOff(t *testing.T) {
	a, tasks := dispatchBench(64, Deps{})
	ctx := context.Background()
	got := testing.AllocsPerRun(100, func() { a.sendDispatch(ctx, "w1", tasks) })
	if got > dispatchAllocsBefore {
		t.Errorf("sending 64 tasks with tracing off allocates %v times; before traces it was %v", got, dispatchAllocsBefore)
	}
	for _, tk := range tasks {
		if tk.span != nil {
			t.Fatal("a span was started with tracing off")
		}
	}
}
