package e2e

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// TestPythonWorker: a real server and the Python SDK's example worker
// (worker/python/examples/worker.py) run GO jobs whose processors the
// Python worker registered: the log lines and the result arrive, a
// map-reduce runs its subtasks and reduce on it (one of 2,500 subtasks
// reading its results in pages), and a stop from the API
// stops the Python processor. Then the worker stops gracefully on SIGTERM.
func TestPythonWorker(t *testing.T) {
	t.Parallel()
	srv := harness.StartServer(t, harness.ServerOptions{})
	c := srv.Client()
	_, secret, err := c.CreateApp("orders")
	if err != nil {
		t.Fatal(err)
	}
	cl := &cluster{srv: srv, c: c, app: "orders", secret: secret}
	py := harness.StartPythonWorker(t, harness.AgentOptions{Servers: []string{srv.URL}, App: "orders", Secret: secret,
		Name: "py", Tags: []string{"python"}, Slots: 32})
	workers, err := c.WaitWorkers("orders", 1, connect)
	if err != nil {
		t.Fatalf("%v\npython worker output:\n%s", err, py.Output())
	}
	if !strings.HasPrefix(workers[0].ID, "py-") || len(workers[0].Tags) != 1 || workers[0].Tags[0] != "python" {
		t.Errorf("worker listed as %+v; want id py-… with tag python", workers[0])
	}

	// A GO job served by Python: lines, then the result.
	hello := cl.job(t, map[string]any{"name": "hello", "processorType": "GO", "processor": "python.hello"})
	id, err := c.RunJob(hello, "jobwheel")
	if err != nil {
		t.Fatal(err)
	}
	in := cl.wait(t, id, "SUCCEEDED")
	want := []string{}
	for i := 1; i <= 3; i++ {
		want = append(want, fmt.Sprintf("hello, jobwheel line=%d instance=%s", i, id))
	}
	if got := texts(in); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("log lines %q; want %q", got, want)
	}
	for i, l := range in.Logs.Lines {
		if l.Seq != int64(i+1) || l.Worker == nil || *l.Worker != workers[0].ID || l.Level != "INFO" {
			t.Errorf("line %d: seq %d, worker %v, level %s; want seq %d from %s at INFO", i, l.Seq, l.Worker, l.Level, i+1, workers[0].ID)
		}
	}
	if in.Result != "greeted jobwheel three times" || in.Worker == nil || in.Worker.ID != workers[0].ID {
		t.Errorf("instance result %q on worker %+v; want the processor's result from the Python worker", in.Result, in.Worker)
	}

	// MAP_REDUCE: the root maps through the server, the subtasks come
	// back to the worker, and reduce sums them.
	squares := cl.job(t, map[string]any{"name": "squares", "processorType": "GO", "processor": "python.squares",
		"executionMode": "MAP_REDUCE", "params": "4"})
	in = cl.wait(t, cl.run(t, squares), "SUCCEEDED")
	if in.Result != "sum of squares = 30" || in.Tasks.Total != 6 || in.Tasks.Succeeded != 6 {
		t.Errorf("map-reduce: result %q, tasks %+v; want sum 30 over root, 4 subtasks and reduce", in.Result, in.Tasks)
	}

	// More results than fit in a page: the worker named results.paged, so
	// the reduce reads the root's and 2,500 subtasks' results from the
	// server in three pages (docs/protocol.md §11.1) and sums them exactly.
	// 32 tasks at once (the job's default is 5): 2,500 subtasks take the
	// worker about 6 s instead of 25 on a loaded machine.
	const n = 2500
	big := cl.job(t, map[string]any{"name": "squares-paged", "processorType": "GO", "processor": "python.squares",
		"executionMode": "MAP_REDUCE", "params": fmt.Sprint(n), "taskConcurrency": 32})
	start := time.Now()
	id = cl.run(t, big)
	in = cl.wait(t, id, "SUCCEEDED")
	t.Logf("MAP_REDUCE of %d subtasks on the Python worker, paged reduce included: %s", n, time.Since(start).Round(time.Millisecond))
	if want := fmt.Sprintf("sum of squares = %d", n*(n+1)*(2*n+1)/6); in.Result != want || in.Tasks.Total != n+2 || in.Tasks.Succeeded != n+2 {
		t.Errorf("paged map-reduce: result %q, tasks %+v; want %q over root, %d subtasks and reduce", in.Result, in.Tasks, want, n)
	}
	if got, want := texts(in), fmt.Sprintf("summed tasks=%d total=%d", n+1, n*(n+1)*(2*n+1)/6); !slices.Contains(got, want) {
		t.Errorf("paged map-reduce: log lines %q; want %q (the reduce saw every result once)", got, want)
	}
	paged := fmt.Sprintf("(instance %s, REDUCE) read its results from the server in 3 pages", id)
	if !testkit.Poll(settle, func() bool { return strings.Contains(py.Output(), paged) }) {
		t.Errorf("the Python worker did not read the results in pages (%q)\noutput (tail):\n%s", paged, tail(py.Output(), 40))
	}

	// A stop from the API reaches the Python processor.
	sleep := cl.job(t, map[string]any{"name": "sleep", "processorType": "GO", "processor": "python.sleep", "params": "600"})
	id = cl.run(t, sleep)
	cl.wait(t, id, "RUNNING")
	if !testkit.Poll(settle, func() bool {
		in, err := c.Instance(id)
		return err == nil && len(in.Logs.Lines) > 0
	}) {
		t.Fatalf("python.sleep logged nothing\npython worker output:\n%s", py.Output())
	}
	if err := c.Do(`mutation($id: ID!) { stopInstance(id: $id) { status } }`, map[string]any{"id": id}, nil); err != nil {
		t.Fatal(err)
	}
	cl.wait(t, id, "STOPPED")
	ended := fmt.Sprintf("(instance %s, ROOT) ended STOPPED", id)
	if !testkit.Poll(settle, func() bool { return strings.Contains(py.Output(), ended) }) {
		t.Fatalf("the Python worker never ended the stopped task (%q)\noutput:\n%s", ended, py.Output())
	}

	py.Signal(syscall.SIGTERM)
	if err, ok := py.Wait(connect); !ok || err != nil {
		t.Fatalf("python worker after SIGTERM: exited %t, %v\noutput:\n%s", ok, err, py.Output())
	}
	if !strings.Contains(py.Output(), "worker stopped") {
		t.Errorf("the Python worker did not say it stopped:\n%s", py.Output())
	}
}
