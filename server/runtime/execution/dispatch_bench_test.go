package execution

import (
	"context"
	"log/slog"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/runtime/hub"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// The dispatch path's cost per batch of tasks sent, without the database:
// what a fire's tasks cost between the batch's commit and the worker
// channel. Run before and after a change to it:
//
//	go test -run '^$' -bench Dispatch -benchmem ./server/runtime/execution/

type discardSender struct{}

func (discardSender) Send(string, string, any, func(*protocol.Ack, error)) error { return nil }
func (discardSender) Workers() []hub.WorkerInfo                                  { return nil }

// dispatchBench is an actor with one instance and n of its tasks to send.
func dispatchBench(n int, deps Deps) (*Actor, []*task) {
	deps.Log = slog.New(slog.DiscardHandler)
	a := &Actor{deps: deps, log: deps.Log, send: discardSender{}, st: newState(1, 1, Config{}, deps.Log)}
	a.st.name = "orders"
	job := &db.Job{ID: 7, AppID: 1, Name: "settle", ExecutionMode: "MAP", ProcessorType: "SHELL", Processor: "true"}
	it := newInst(db.Instance{ID: 42, AppID: 1, JobID: 7, Attempt: 1, Params: "p"}, job)
	tasks := make([]*task, n)
	for i := range tasks {
		tasks[i] = &task{Task: db.Task{ID: int64(i + 1), InstanceID: 42, Name: "MAP", Kind: protocol.KindMap, Payload: "1"}, inst: it}
	}
	return a, tasks
}

func BenchmarkDispatch(b *testing.B) {
	a, tasks := dispatchBench(64, Deps{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		a.sendDispatch(ctx, "w1", tasks)
	}
}
