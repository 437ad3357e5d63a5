package e2e

import (
	"fmt"
	"maps"
	"strings"
	"syscall"
	"testing"

	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// SIGTERM on an agent drains it: the console lists it as DRAINING, its
// running tasks get the drain timeout (5 s here) to finish, and what still
// runs then is handed back and runs on another agent — without failing,
// without an instance retry, and without counting a task retry.
func TestAgentDrainsOnSIGTERM(t *testing.T) {
	t.Parallel()
	cl := newClusterWith(t, harness.ServerOptions{}, 0)
	draining := harness.StartAgent(t, harness.AgentOptions{Servers: []string{cl.srv.URL}, App: cl.app, Secret: cl.secret,
		Name: "draining", Slots: 10, Env: []string{"JOBWHEEL_DRAIN_TIMEOUT=5s"}})
	if _, err := cl.c.WaitWorkers(cl.app, 1, connect); err != nil {
		t.Fatal(err)
	}
	// $2 is the run's parameters: how long it sleeps.
	job := cl.job(t, map[string]any{"name": "sleeper", "processorType": "SHELL", "maxInstances": 10,
		"processor": `sleep "$2"; echo "slept $2 on $JOBWHEEL_WORKER_ID"`})
	short, long := map[string]bool{}, map[string]bool{}
	for i := range 10 {
		secs := "2"
		if i%2 == 1 {
			secs = "12"
		}
		id := cl.runWith(t, job, secs)
		if secs == "2" {
			short[id] = true
		} else {
			long[id] = true
		}
	}
	all := maps.Clone(short)
	maps.Copy(all, long)
	for id := range all {
		cl.wait(t, id, "RUNNING")
	}
	cl.addAgent(t, "other")
	if _, err := cl.c.WaitWorkers(cl.app, 2, connect); err != nil {
		t.Fatal(err)
	}

	draining.Signal(syscall.SIGTERM)
	if !testkit.Poll(settle, func() bool { return cl.health(t, "draining-") == "DRAINING" }) {
		t.Errorf("the stopping agent was never listed as DRAINING")
	}
	for id := range all {
		in := cl.waitLong(t, id, "SUCCEEDED")
		if in.Attempt != 1 || len(in.Attempts) != 1 {
			t.Errorf("instance %s took %d attempts; a drain must not cost one", id, in.Attempt)
		}
		ranOn := "draining-"
		if long[id] {
			ranOn = "other-"
		}
		if !strings.Contains(in.Result, "on "+ranOn) {
			t.Errorf("instance %s: result %q; want it to have ended on %s*", id, in.Result, ranOn)
		}
		if in.Tasks.Total != 1 || in.Tasks.Succeeded != 1 {
			t.Errorf("instance %s tasks %+v; want its one task succeeded", id, in.Tasks)
		}
		finished := 0
		for _, l := range in.Logs.Lines {
			if strings.HasPrefix(l.Text, "slept ") {
				finished++
			}
		}
		if finished != 1 {
			t.Errorf("instance %s finished its script %d times", id, finished)
		}
	}
	if err, ok := draining.Wait(connect); !ok || err != nil {
		t.Errorf("the drained agent did not exit 0: %v (exited: %v)", err, ok)
	}
}

// health is the console's health of the app's worker whose id starts
// with prefix.
func (cl *cluster) health(t *testing.T, prefix string) string {
	t.Helper()
	var out struct{ Workers []struct{ ID, Health string } }
	if err := cl.c.Do(`query($app: String!) { workers(app: $app) { id health } }`, map[string]any{"app": cl.app}, &out); err != nil {
		t.Fatal(err)
	}
	for _, w := range out.Workers {
		if strings.HasPrefix(w.ID, prefix) {
			return w.Health
		}
	}
	return fmt.Sprintf("no worker %s*", prefix)
}

// A run no connected worker qualifies for waits for one (10 s), then
// fails NO_WORKER saying why the workers were ruled out — in its result,
// and worker by worker in the API (Instance.unqualifiedWorkers) and on the
// console's instance page ("Why no worker" table, in Chromium).
func TestNoQualifyingWorkerFailsSayingWhy(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	cl := newCluster(t, "", 1)
	harness.StartAgent(t, harness.AgentOptions{Servers: []string{cl.srv.URL}, App: cl.app, Secret: cl.secret, Name: "ssd", Tags: []string{"ssd"}})
	if _, err := cl.c.WaitWorkers(cl.app, 2, connect); err != nil {
		t.Fatal(err)
	}
	job := cl.job(t, map[string]any{"name": "gpu-only", "processorType": "SHELL", "processor": "true",
		"workerFilter": map[string]any{"tags": []string{"gpu"}}})
	id := cl.run(t, job)
	in := cl.wait(t, id, "FAILED")
	if in.Reason != "NO_WORKER" || !strings.Contains(in.Result, `lacks tag "gpu"`) {
		t.Errorf("reason %s, result %q; want NO_WORKER naming the missing tag gpu", in.Reason, in.Result)
	}

	var out struct {
		Instance struct {
			UnqualifiedAt      *string
			UnqualifiedWorkers []struct{ Worker, Host, Filter, Reason string }
		}
		Workers []struct{ ID, Host string }
	}
	if err := cl.c.Do(`query($id: ID!, $app: String!) {
		instance(id: $id) { unqualifiedAt unqualifiedWorkers { worker host filter reason } }
		workers(app: $app) { id host } }`, map[string]any{"id": id, "app": cl.app}, &out); err != nil {
		t.Fatal(err)
	}
	got := out.Instance.UnqualifiedWorkers
	if out.Instance.UnqualifiedAt == nil || len(got) != 2 || len(out.Workers) != 2 {
		t.Fatalf("unqualifiedAt %v, unqualifiedWorkers %+v, workers %+v; want both connected workers listed", out.Instance.UnqualifiedAt, got, out.Workers)
	}
	hosts := map[string]string{}
	for _, w := range out.Workers {
		hosts[w.ID] = w.Host
	}
	var rows []string
	for _, w := range got {
		if hosts[w.Worker] == "" || w.Host != hosts[w.Worker] || w.Filter != "TAG" || w.Reason != `lacks tag "gpu"` {
			t.Errorf("unqualified worker %+v; want a connected worker (%v) ruled out by TAG: lacks tag \"gpu\"", w, hosts)
		}
		rows = append(rows, w.Worker)
	}
	if !strings.HasPrefix(got[0].Worker, "agent1-") || !strings.HasPrefix(got[1].Worker, "ssd-") {
		t.Errorf("workers %v; want agent1-* then ssd-*, by id", rows)
	}

	runBrowserTest(t, "console-noworker.test.mjs", chromium, cl.srv, "APP="+cl.app, "INSTANCE_ID="+id,
		"WORKERS="+strings.Join(rows, ","))
}
