package e2e

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// TestJavaWorker: a real server and two processes of the Java SDK's example
// worker (worker/java/examples) run jobs written for PowerJob and for
// xxl-job, changed only in their imports: the jobs the workers declare in
// code appear in the app; a PowerJob BasicProcessor's lines and result
// arrive; a BroadcastProcessor runs on both workers, each with its shard,
// with its pre- and post-process once; a MapReduceProcessor maps 2,500
// subtask objects through the server and reduces their results, read in
// pages; xxl-job @XxlJob methods (xxl-job's SampleXxlJob, its imports
// changed) read their parameter and shard through XxlJobHelper, run their
// init before and their destroy after, and succeed or fail the way they
// say; a stop from the API interrupts a handler. Then both workers stop
// gracefully on SIGTERM.
// A worker given a wrong secret stops at once (exit status 1) instead of
// retrying.
func TestJavaWorker(t *testing.T) {
	t.Parallel()
	srv := harness.StartServer(t, harness.ServerOptions{})
	c := srv.Client()
	_, secret, err := c.CreateApp("orders")
	if err != nil {
		t.Fatal(err)
	}
	cl := &cluster{srv: srv, c: c, app: "orders", secret: secret}

	wrong := harness.StartJavaWorker(t, harness.AgentOptions{Servers: []string{srv.URL}, App: "orders", Secret: "jwa_wrong", Name: "wrong"})
	err, exited := wrong.Wait(connect)
	var exit *exec.ExitError
	if !exited || !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(wrong.Output(), "refused the app secret") {
		t.Fatalf("a Java worker with a wrong secret: exited %t, %v; want exit status 1 saying the secret was refused\noutput:\n%s",
			exited, err, tail(wrong.Output(), 20))
	}

	var workers []*harness.Process
	for _, name := range []string{"java1", "java2"} {
		workers = append(workers, harness.StartJavaWorker(t, harness.AgentOptions{Servers: []string{srv.URL}, App: "orders",
			Secret: secret, Name: name, Tags: []string{"java"}, Slots: 32}))
	}
	output := func() string {
		var b strings.Builder
		for _, w := range workers {
			fmt.Fprintf(&b, "--- %s:\n%s\n", w.Name, tail(w.Output(), 40))
		}
		return b.String()
	}
	list, err := c.WaitWorkers("orders", 2, connect)
	if err != nil {
		t.Fatalf("%v\n%s", err, output())
	}
	for _, w := range list {
		if !strings.HasPrefix(w.ID, "java") || !slices.Equal(w.Tags, []string{"java"}) {
			t.Errorf("worker listed as %+v; want id java…-… with tag java", w)
		}
	}

	// The jobs the example declares in code (set java-examples).
	jobs := map[string]string{}
	var out struct {
		Jobs struct {
			Edges []struct {
				Node struct{ ID, Name, ManagedBy, Processor string }
			}
		}
	}
	if err := c.Do(`query($a: String!) { jobs(app: $a) { edges { node { id name managedBy processor } } } }`,
		map[string]any{"a": "orders"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, e := range out.Jobs.Edges {
		if e.Node.ManagedBy != "java-examples" {
			t.Errorf("job %s managed by %q; want the set java-examples", e.Node.Name, e.Node.ManagedBy)
		}
		jobs[e.Node.Name] = e.Node.ID
	}
	for _, name := range []string{"java-hello", "java-broadcast", "java-sum-of-squares", "xxl-demo", "xxl-lifecycle", "xxl-sharding"} {
		if jobs[name] == "" {
			t.Fatalf("the worker did not declare job %s (jobs: %v)\n%s", name, jobs, output())
		}
	}

	// A PowerJob-style BasicProcessor, registered under its class name.
	id, err := c.RunJob(jobs["java-hello"], "jobwheel")
	if err != nil {
		t.Fatal(err)
	}
	in := cl.wait(t, id, "SUCCEEDED")
	var want []string
	for i := 1; i <= 3; i++ {
		want = append(want, fmt.Sprintf("hello, jobwheel line=%d instance=%s", i, id))
	}
	if got := texts(in); !slices.Equal(got, want) {
		t.Errorf("log lines %q; want %q", got, want)
	}
	for i, l := range in.Logs.Lines {
		if l.Seq != int64(i+1) || l.Level != "INFO" || l.Worker == nil || in.Worker == nil || *l.Worker != in.Worker.ID {
			t.Errorf("line %d: seq %d, level %s, worker %v; want seq %d at INFO from the instance's worker", i, l.Seq, l.Level, l.Worker, i+1)
		}
	}
	if in.Result != "greeted jobwheel three times" {
		t.Errorf("result %q; want the processor's", in.Result)
	}

	// A PowerJob-style BroadcastProcessor: pre once, a shard on each worker, post once.
	in = cl.wait(t, cl.run(t, jobs["java-broadcast"]), "SUCCEEDED")
	if in.Tasks.Total != 4 || in.Tasks.Succeeded != 4 || in.Result != "2 of 2 shards succeeded" {
		t.Errorf("broadcast: result %q, tasks %+v; want pre, 2 shards and post, all succeeded", in.Result, in.Tasks)
	}
	shards := shardLines(texts(in), "shard %d of %d on worker ")
	if !slices.Equal(shards, []string{"0/2", "1/2"}) {
		t.Errorf("broadcast shards %q; want 0/2 and 1/2 (lines %q)", shards, texts(in))
	}
	if got := texts(in); !slices.Contains(got, "preparing the broadcast") || !slices.Contains(got, "2 of 2 shards succeeded") {
		t.Errorf("broadcast lines %q; want the pre- and post-process's", got)
	}

	// A PowerJob-style MapReduceProcessor: 2,500 chunks as subtask objects,
	// their 2,501 results read by the reduce in pages of 1,000.
	const n = 250000
	big := cl.job(t, map[string]any{"name": "sum-of-squares-paged", "processorType": "GO",
		"processor": "io.jobwheel.examples.SumOfSquares", "executionMode": "MAP_REDUCE", "params": fmt.Sprint(n), "taskConcurrency": 32})
	start := time.Now()
	id = cl.run(t, big)
	in = cl.waitLong(t, id, "SUCCEEDED")
	t.Logf("MAP_REDUCE of 2,500 subtasks on two Java workers, paged reduce included: %s", time.Since(start).Round(time.Millisecond))
	if want := fmt.Sprintf("sum of squares = %d", int64(n)*(n+1)*(2*n+1)/6); in.Result != want || in.Tasks.Total != 2502 || in.Tasks.Succeeded != 2502 {
		t.Errorf("map-reduce: result %q, tasks %+v; want %q over root, 2,500 subtasks and reduce", in.Result, in.Tasks, want)
	}
	if got := texts(in); !slices.Contains(got, fmt.Sprintf("summed chunks=2500 total=%d", int64(n)*(n+1)*(2*n+1)/6)) {
		t.Errorf("map-reduce lines %q; want the reduce's sum over every chunk", got)
	}
	paged := fmt.Sprintf("(instance %s, REDUCE) read its results from the server in 3 pages", id)
	if !testkit.Poll(settle, func() bool {
		return strings.Contains(workers[0].Output(), paged) || strings.Contains(workers[1].Output(), paged)
	}) {
		t.Errorf("no Java worker read the results in pages (%q)\n%s", paged, output())
	}

	// xxl-job handlers (@XxlJob, XxlJobHelper): the parameter, the shards,
	// init and destroy, success and failure.
	id, err = c.RunJob(jobs["xxl-demo"], "e2e")
	if err != nil {
		t.Fatal(err)
	}
	in = cl.wait(t, id, "SUCCEEDED")
	if got, want := texts(in), []string{"XXL-JOB, Hello World. param=e2e", "beat at:0", "beat at:1", "beat at:2"}; !slices.Equal(got, want) {
		t.Errorf("xxl-demo: lines %q; want %q", got, want)
	}
	id, err = c.RunJob(jobs["xxl-lifecycle"], "e2e")
	if err != nil {
		t.Fatal(err)
	}
	in = cl.wait(t, id, "SUCCEEDED")
	if got := texts(in); in.Result != "hello e2e" || !slices.Equal(got, []string{"XXL-JOB, Hello World. ready=true"}) {
		t.Errorf("xxl-lifecycle: result %q, lines %q; want hello e2e after the handler's init", in.Result, got)
	}
	lifecycleWorker := -1
	for i := range workers { // java1, java2
		if in.Worker != nil && strings.HasPrefix(in.Worker.ID, fmt.Sprintf("java%d-", i+1)) {
			lifecycleWorker = i
		}
	}
	if lifecycleWorker < 0 || !testkit.Poll(settle, func() bool {
		return strings.Contains(workers[lifecycleWorker].Output(), "demoJobHandler2 init")
	}) {
		t.Errorf("the worker that ran xxl-lifecycle (%v) did not run its init\n%s", in.Worker, output())
	}
	in = cl.wait(t, cl.run(t, jobs["xxl-sharding"]), "SUCCEEDED")
	if shards := shardLines(texts(in), "sharding: index=%d total=%d"); !slices.Equal(shards, []string{"0/2", "1/2"}) {
		t.Errorf("xxl-sharding shards %q; want 0/2 and 1/2 (lines %q)", shards, texts(in))
	}
	for _, l := range []string{"shard 0: mine, processing", "shard 1: mine, processing", "shard 0: skipped", "shard 1: skipped"} {
		if !slices.Contains(texts(in), l) {
			t.Errorf("xxl-sharding lines %q; want %q among them", texts(in), l)
		}
	}
	failing := cl.job(t, map[string]any{"name": "xxl-failing", "processorType": "GO", "processor": "failingJobHandler"})
	in = cl.wait(t, cl.run(t, failing), "FAILED")
	if in.Result != "no orders to sync" || !slices.Contains(texts(in), "about to fail") {
		t.Errorf("xxl-failing: result %q, lines %q; want the handler's handleFail message", in.Result, texts(in))
	}

	// A stop from the API interrupts a handler's sleep.
	sleep := cl.job(t, map[string]any{"name": "xxl-sleep", "processorType": "GO", "processor": "sleepJobHandler", "params": "600"})
	id = cl.run(t, sleep)
	cl.wait(t, id, "RUNNING")
	if !testkit.Poll(settle, func() bool {
		in, err := c.Instance(id)
		return err == nil && slices.Contains(texts(in), "sleeping 600s")
	}) {
		t.Fatalf("sleepJobHandler logged nothing\n%s", output())
	}
	if err := c.Do(`mutation($id: ID!) { stopInstance(id: $id) { status } }`, map[string]any{"id": id}, nil); err != nil {
		t.Fatal(err)
	}
	cl.wait(t, id, "STOPPED")
	ended := fmt.Sprintf("(instance %s, ROOT) ended STOPPED", id)
	if !testkit.Poll(settle, func() bool {
		return strings.Contains(workers[0].Output(), ended) || strings.Contains(workers[1].Output(), ended)
	}) {
		t.Fatalf("no Java worker ended the stopped task (%q)\n%s", ended, output())
	}

	for _, w := range workers {
		w.Signal(syscall.SIGTERM)
	}
	for i, w := range workers {
		if err, ok := w.Wait(connect); !ok || err != nil {
			t.Fatalf("%s after SIGTERM: exited %t, %v\noutput:\n%s", w.Name, ok, err, tail(w.Output(), 40))
		}
		if !strings.Contains(w.Output(), "worker stopped") {
			t.Errorf("%s did not say it stopped:\n%s", w.Name, tail(w.Output(), 20))
		}
		if i == lifecycleWorker && !strings.Contains(w.Output(), "demoJobHandler2 destroy") {
			t.Errorf("%s ran demoJobHandler2's init but not its destroy on stopping:\n%s", w.Name, tail(w.Output(), 20))
		}
	}
}

// shardLines finds the lines of format (two %d: index and total) and
// returns "index/total" of each, sorted.
func shardLines(lines []string, format string) []string {
	var out []string
	for _, l := range lines {
		var i, n int
		if _, err := fmt.Sscanf(l, format, &i, &n); err == nil {
			out = append(out, fmt.Sprintf("%d/%d", i, n))
		}
	}
	slices.Sort(out)
	return out
}
