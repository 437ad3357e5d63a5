package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/e2e/harness"
)

// Generous bounds on "this happens at all"; never assertions about speed.
const (
	settle  = 60 * time.Second
	connect = 30 * time.Second
)

// cluster is a server with an app and agents, the fixture most tests share.
type cluster struct {
	srv    *harness.Server
	c      *harness.Client
	app    string
	secret string
	agents []*harness.Process
	names  []string // of agents, in the same order
}

func newCluster(t *testing.T, dbURL string, agents int) *cluster {
	t.Helper()
	return newClusterWith(t, harness.ServerOptions{DatabaseURL: dbURL}, agents)
}

// newClusterWith is newCluster with the server's options.
func newClusterWith(t *testing.T, opts harness.ServerOptions, agents int) *cluster {
	t.Helper()
	srv := harness.StartServer(t, opts)
	c := srv.Client()
	_, secret, err := c.CreateApp("orders")
	if err != nil {
		t.Fatal(err)
	}
	cl := &cluster{srv: srv, c: c, app: "orders", secret: secret}
	for i := 0; i < agents; i++ {
		cl.addAgent(t, fmt.Sprintf("agent%d", i+1))
	}
	if _, err := c.WaitWorkers("orders", agents, connect); err != nil {
		t.Fatalf("%v\nserver output:\n%s", err, srv.Output())
	}
	return cl
}

func (cl *cluster) addAgent(t *testing.T, name string) *harness.Process {
	t.Helper()
	a := harness.StartAgent(t, harness.AgentOptions{Servers: []string{cl.srv.URL}, App: cl.app, Secret: cl.secret, Name: name})
	cl.agents = append(cl.agents, a)
	cl.names = append(cl.names, name)
	return a
}

func (cl *cluster) job(t *testing.T, input map[string]any) string {
	t.Helper()
	input["app"] = cl.app
	if _, ok := input["scheduleType"]; !ok {
		input["scheduleType"] = "API"
	}
	id, err := cl.c.CreateJob(input)
	if err != nil {
		t.Fatalf("createJob %v: %v", input["name"], err)
	}
	return id
}

func (cl *cluster) run(t *testing.T, jobID string) string {
	t.Helper()
	id, err := cl.c.RunJob(jobID, "")
	if err != nil {
		t.Fatalf("runJob: %v", err)
	}
	return id
}

func (cl *cluster) wait(t *testing.T, instanceID string, want ...string) *harness.Instance {
	t.Helper()
	in, err := cl.c.WaitInstance(instanceID, settle, want...)
	if err != nil {
		t.Fatalf("%v\nserver output (tail):\n%s", err, tail(cl.srv.Output(), 60))
	}
	return in
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func texts(in *harness.Instance) []string {
	out := make([]string, len(in.Logs.Lines))
	for i, l := range in.Logs.Lines {
		out[i] = l.Text
	}
	return out
}

// TestProcessors: a real server and two real agents run SHELL, PYTHON and
// HTTP jobs; output lines are stored in order; a failing script fails with
// its exit code; a broadcast runs once per agent with pre and post once.
func TestProcessors(t *testing.T) {
	t.Parallel()
	dialects(t, func(t *testing.T, dbURL string) {
		cl := newCluster(t, dbURL, 2)
		web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Token") != "t0k" {
				http.Error(w, "no token", http.StatusUnauthorized)
				return
			}
			w.WriteHeader(http.StatusAccepted)
			fmt.Fprint(w, "queued report 7")
		}))
		t.Cleanup(web.Close)

		shell := cl.job(t, map[string]any{"name": "shell", "processorType": "SHELL",
			"processor": "echo line-1\necho line-2 >&2\nsleep 1\necho line-3"})
		python := cl.job(t, map[string]any{"name": "python", "processorType": "PYTHON",
			"processor": "import sys\nprint('sum', sum(range(10)))\nsys.stdout.flush()"})
		httpJob := cl.job(t, map[string]any{"name": "http", "processorType": "HTTP",
			"processor": fmt.Sprintf(`{"method":"POST","url":%q,"headers":{"X-Token":"t0k"},"body":"{}","expectStatus":202}`, web.URL)})
		failing := cl.job(t, map[string]any{"name": "failing", "processorType": "SHELL", "processor": "echo about to fail\nexit 3"})
		broadcast := cl.job(t, map[string]any{"name": "broadcast", "processorType": "SHELL", "executionMode": "BROADCAST",
			"processor": "echo \"hello from $JOBWHEEL_TASK_ID\""})

		ids := map[string]string{}
		for name, job := range map[string]string{"shell": shell, "python": python, "http": httpJob, "failing": failing, "broadcast": broadcast} {
			ids[name] = cl.run(t, job)
		}

		in := cl.wait(t, ids["shell"], "SUCCEEDED")
		got := texts(in)
		if strings.Join(got, "|") != "line-1|line-2|line-3" {
			t.Errorf("shell log lines = %q; want line-1, line-2, line-3 in order", got)
		}
		for i, l := range in.Logs.Lines {
			if l.Seq != int64(i+1) || l.Worker == nil {
				t.Errorf("line %d: seq %d worker %v; want seq %d from a worker", i, l.Seq, l.Worker, i+1)
			}
		}
		if in.Logs.Lines[1].Level != "ERROR" {
			t.Errorf("stderr line level = %s; want ERROR", in.Logs.Lines[1].Level)
		}
		if in.Worker == nil || len(in.Attempts) != 1 || in.Attempts[0].Status != "SUCCEEDED" || in.StartedTime == nil || in.FinishedTime == nil {
			t.Errorf("shell instance = %+v", in)
		}

		in = cl.wait(t, ids["python"], "SUCCEEDED")
		if !strings.Contains(strings.Join(texts(in), "\n"), "sum 45") {
			t.Errorf("python log = %q; want 'sum 45'", texts(in))
		}

		in = cl.wait(t, ids["http"], "SUCCEEDED")
		if !strings.Contains(in.Result, "202") || !strings.Contains(in.Result, "queued report 7") {
			t.Errorf("http result = %q; want the status and body", in.Result)
		}

		in = cl.wait(t, ids["failing"], "FAILED")
		if !strings.Contains(in.Result, "exit status 3") || in.Reason != "FAILED" {
			t.Errorf("failing instance: result %q reason %q; want exit status 3", in.Result, in.Reason)
		}

		in = cl.wait(t, ids["broadcast"], "SUCCEEDED")
		// PRE once, one BROADCAST task per agent, POST once.
		if in.Tasks.Total != 4 || in.Tasks.Succeeded != 4 {
			t.Errorf("broadcast tasks = %+v; want 4 succeeded (pre, 2 broadcast, post)", in.Tasks)
		}
		workers := map[string]bool{}
		for _, l := range in.Logs.Lines {
			if strings.HasPrefix(l.Text, "hello from") && l.Worker != nil {
				workers[*l.Worker] = true
			}
		}
		if len(workers) != 2 {
			t.Errorf("broadcast ran on %d workers (%v); want both agents", len(workers), workers)
		}

		// The dashboard's numbers add up.
		var stats struct {
			AppStats struct {
				Jobs, Succeeded, Failed, Running, WorkersAlive int
				Outcomes                                       []struct{ Succeeded, Failed int }
			}
		}
		if err := cl.c.Do(`query($a: String!) { appStats(app: $a) { jobs succeeded failed running workersAlive outcomes { succeeded failed } } }`,
			map[string]any{"a": cl.app}, &stats); err != nil {
			t.Fatal(err)
		}
		st := stats.AppStats
		if st.Jobs != 5 || st.Succeeded != 4 || st.Failed != 1 || st.Running != 0 || st.WorkersAlive != 2 || len(st.Outcomes) == 0 {
			t.Errorf("appStats = %+v; want 5 jobs, 4 succeeded, 1 failed, 2 workers", st)
		}
	})
}

// TestWrongSecret: an agent with a wrong secret is refused with a clear
// message, exits, and is never listed.
func TestWrongSecret(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, "", 0)
	a := harness.StartAgent(t, harness.AgentOptions{Servers: []string{cl.srv.URL}, App: cl.app, Secret: "jwa_wrong", Name: "intruder"})
	err, ok := a.Wait(connect)
	if !ok {
		t.Fatalf("agent with a wrong secret is still running:\n%s", a.Output())
	}
	if err == nil {
		t.Fatalf("agent with a wrong secret exited 0:\n%s", a.Output())
	}
	if !strings.Contains(strings.ToLower(a.Output()), "secret") {
		t.Fatalf("agent output does not say the secret is wrong:\n%s", a.Output())
	}
	ws, err := cl.c.Workers(cl.app)
	if err != nil || len(ws) != 0 {
		t.Fatalf("workers after a refused agent = %+v, %v; want none", ws, err)
	}
	if !strings.Contains(cl.srv.Output(), "worker refused") {
		t.Fatalf("server did not log the refusal:\n%s", cl.srv.Output())
	}
}

// TestAgentKilledMidTask: kill -9 the agent running a task; the instance
// does not stay RUNNING: it fails as WORKER_LOST.
func TestAgentKilledMidTask(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, "", 1)
	job := cl.job(t, map[string]any{"name": "long", "processorType": "SHELL", "processor": "echo started\nsleep 120"})
	id := cl.run(t, job)
	cl.wait(t, id, "RUNNING")
	cl.agents[0].Kill()
	in := cl.wait(t, id, "FAILED")
	if in.Reason != "WORKER_LOST" || !strings.Contains(in.Result, "disconnected") {
		t.Fatalf("instance after its worker was killed: reason %q result %q; want WORKER_LOST", in.Reason, in.Result)
	}
}

// TestServerRestartMidTask: the server restarts while an agent runs a task
// that logs; the agent reconnects by itself, the task's outcome arrives,
// and every log line is stored exactly once.
func TestServerRestartMidTask(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, "", 1)
	job := cl.job(t, map[string]any{"name": "ticker", "processorType": "SHELL",
		"processor": "for i in 1 2 3 4 5 6 7 8; do echo tick-$i; sleep 0.5; done"})
	id := cl.run(t, job)
	cl.wait(t, id, "RUNNING")
	if err := cl.srv.Stop(harness.StopTimeout); err != nil {
		t.Fatal(err)
	}
	harness.Elapse(t, time.Second, "the task ticking while the server is away")
	cl.srv.Restart()
	in := cl.wait(t, id, "SUCCEEDED")
	want := []string{}
	for i := 1; i <= 8; i++ {
		want = append(want, fmt.Sprintf("tick-%d", i))
	}
	got := texts(in)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("log lines across a server restart = %q; want each tick once, in order", got)
	}
	if !regexp.MustCompile(`(?i)connect`).MatchString(cl.agents[0].Output()) {
		t.Fatalf("agent output shows no reconnect:\n%s", cl.agents[0].Output())
	}
	cl.agents[0].Signal(syscall.SIGTERM)
}

// TestJobInputErrors: every invalid job definition is refused with a
// BAD_INPUT error naming the field, and nothing is written.
func TestJobInputErrors(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, "", 0)
	base := func() map[string]any {
		return map[string]any{"app": cl.app, "name": "job", "scheduleType": "CRON", "scheduleExpression": "0 * * * * ?",
			"processorType": "SHELL", "processor": "true"}
	}
	cases := []struct {
		name  string
		set   map[string]any
		field string
	}{
		{"bad cron", map[string]any{"scheduleExpression": "* * * *"}, "scheduleExpression"},
		{"cron field out of range", map[string]any{"scheduleExpression": "0 0 25 * * ?"}, "scheduleExpression"},
		{"interval under 1s", map[string]any{"scheduleType": "FIXED_RATE", "scheduleExpression": "500ms"}, "scheduleExpression"},
		{"unknown time zone", map[string]any{"timeZone": "Mars/Olympus"}, "timeZone"},
		{"unknown processor type", map[string]any{"processorType": "PERL"}, "processorType"},
		{"negative retries", map[string]any{"instanceRetries": -1}, "instanceRetries"},
		{"zero max instances", map[string]any{"maxInstances": 0}, "maxInstances"},
		{"negative timeout", map[string]any{"timeoutMs": -5}, "timeoutMs"},
		{"empty name", map[string]any{"name": ""}, "name"},
		{"empty script", map[string]any{"processor": "  "}, "processor"},
		{"bad http processor", map[string]any{"processorType": "HTTP", "processor": `{"url":"ftp://x"}`}, "processor"},
		{"map with a script", map[string]any{"executionMode": "MAP"}, "executionMode"},
		{"unknown app", map[string]any{"app": "nope"}, "app"},
		{"negative max workers", map[string]any{"workerFilter": map[string]any{"maxWorkers": -1}}, "workerFilter.maxWorkers"},
	}
	for _, c := range cases {
		in := base()
		for k, v := range c.set {
			in[k] = v
		}
		_, err := cl.c.CreateJob(in)
		errs, ok := errors.AsType[harness.Errors](err)
		if !ok || errs.Code() != "BAD_INPUT" || errs[0].Field() != c.field {
			t.Errorf("%s: got %v (field %q); want BAD_INPUT on %s", c.name, err, fieldOf(err), c.field)
		}
	}
	var out struct{ Jobs struct{ Edges []any } }
	if err := cl.c.Do(`query($a: String!) { jobs(app: $a) { edges { cursor } } }`, map[string]any{"a": cl.app}, &out); err != nil || len(out.Jobs.Edges) != 0 {
		t.Fatalf("jobs after only bad inputs: %v, %v; want none", out.Jobs.Edges, err)
	}
}

func fieldOf(err error) string {
	if errs, ok := errors.AsType[harness.Errors](err); ok && len(errs) > 0 {
		return errs[0].Field()
	}
	return ""
}

// TestAlarms: a failing job's webhook receives the failure as JSON, once
// per silence window; a timeout is its own event.
func TestAlarms(t *testing.T) {
	t.Parallel()
	type alarm struct {
		Event      string
		App        string
		Job        struct{ Name string }
		InstanceID int64
		Reason     string
		Result     string
	}
	got := make(chan alarm, 10)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var a alarm
		if err := json.NewDecoder(r.Body).Decode(&a); err != nil {
			t.Errorf("alarm body: %v", err)
		}
		got <- a
	}))
	t.Cleanup(hook.Close)
	// The receiver is on loopback, which webhooks may reach only when the
	// configuration allows it.
	cl := newClusterWith(t, harness.ServerOptions{Env: []string{"JOBWHEEL_ALARM_ALLOW_NETWORKS=127.0.0.1/32"}}, 1)
	failing := cl.job(t, map[string]any{"name": "failing", "processorType": "SHELL", "processor": "echo no; exit 4",
		"alarm": map[string]any{"onFailure": true, "webhooks": []string{hook.URL}, "silenceSec": 3600}})
	first := cl.run(t, failing)
	cl.wait(t, first, "FAILED")
	select {
	case a := <-got:
		if a.Event != "instance.failed" || a.App != cl.app || a.Job.Name != "failing" || !strings.Contains(a.Result, "exit status 4") {
			t.Fatalf("alarm = %+v", a)
		}
	case <-time.After(settle):
		t.Fatal("no alarm arrived")
	}
	// Within the silence window: no second alarm for the same job.
	second := cl.run(t, failing)
	cl.wait(t, second, "FAILED")
	slow := cl.job(t, map[string]any{"name": "slow", "processorType": "SHELL", "processor": "sleep 30", "timeoutMs": 500,
		"alarm": map[string]any{"onTimeout": true, "webhooks": []string{hook.URL}}})
	cl.wait(t, cl.run(t, slow), "FAILED")
	select {
	case a := <-got:
		if a.Event != "instance.timeout" || a.Job.Name != "slow" || a.Reason != "TIMEOUT" {
			t.Fatalf("second alarm = %+v; want the timeout (the failing job is silenced)", a)
		}
	case <-time.After(settle):
		t.Fatal("no timeout alarm arrived")
	}
}
