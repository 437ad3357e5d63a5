// Command soak is jobwheel's chaos soak (`make soak`, issue 19): three
// servers and six agents on PostgreSQL run a mix of work — every-second
// CRON jobs (FIRE_ALL, so every second must fire exactly once), FIXED_RATE
// and FIXED_DELAY jobs, API bursts, BROADCAST and MAP_REDUCE — while a
// fault injector, on a seeded random schedule, kill -9s and
// SIGSTOP/SIGCONTs servers and agents and black-holes and drops the
// network between agents and servers and between servers and PostgreSQL
// (the e2e proxy). Then every fault is healed, the schedules are disabled,
// and an auditor checks, from the database, the API and each agent's own
// record of the tasks it started (a file per agent, written by the task's
// script):
//
//   - every expected every-second fire exists exactly once;
//   - no task ran twice, and no instance succeeded twice in one attempt;
//   - every instance is terminal;
//   - every succeeded MAP_REDUCE instance's sum is exact;
//   - every succeeded first-attempt script instance stored its three log
//     lines exactly once and in order.
//
// It prints one JSON line — faults (total and by kind), fires, instances,
// violations (with examples) — and exits 1 on any violation.
//
// With -db patroni (make soak SOAK_DB=patroni, issue 30) the database is an
// HA PostgreSQL — Patroni with a primary and a synchronous standby, reached
// through HAProxy's check of Patroni's /primary (e2e/harness/patroni.go) —
// and the injector adds the database's own faults: the primary killed -9
// (Patroni promotes the standby; the old primary then rejoins as a
// standby) and a planned switchover. The report then gives, per kill, the
// time from the primary's death to the first fire read back from the new
// one.
//
// Usage: go run ./e2e/soak [-duration 3m] [-seed N] [-db postgres|patroni]
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

const (
	servers = 3
	agents  = 6
	app     = "soak"
	// script records the task it runs in the agent's file, then writes
	// three lines.
	script = `echo "$JOBWHEEL_INSTANCE_ID $JOBWHEEL_TASK_ID $JOBWHEEL_ATTEMPT" >> "$SOAK_RECORD"; for i in 1 2 3; do echo "line $i"; done`
	// mapSize subtasks square 1..mapSize; the reduce sums them.
	mapSize = 20
)

func main() {
	duration := flag.Duration("duration", 3*time.Minute, "how long faults are injected (SOAK_DURATION in make soak)")
	seed := flag.Uint64("seed", 0, "the fault schedule's seed (0: random, printed in the report)")
	dbKind := flag.String("db", "postgres", "the database: postgres (the test PostgreSQL) or patroni (an HA pair, with the database faults; SOAK_DB in make soak)")
	flag.Parse()
	if *dbKind != "postgres" && *dbKind != "patroni" {
		fmt.Fprintf(os.Stderr, "-db: %q is not a database the soak runs on; use postgres or patroni\n", *dbKind)
		os.Exit(2)
	}
	if *seed == 0 {
		n, _ := rand.Int(rand.Reader, big.NewInt(1<<53))
		*seed = n.Uint64() + 1
	}
	s := newSoak(*seed)
	s.patroniOn = *dbKind == "patroni"
	report := s.run(*duration)
	s.Close()
	line, _ := json.Marshal(report)
	fmt.Println(string(line))
	if v, _ := report["violations"].([]violation); len(v) > 0 {
		os.Exit(1)
	}
}

// soak is the run: what it starts is stopped at Close.
type soak struct {
	*harness.Command
	rnd  *mrand.Rand
	seed uint64

	servers  []*harness.Server
	agents   []*harness.Process
	agentOpt []harness.AgentOptions
	dbProxy  []*harness.Proxy // server i → PostgreSQL
	srvProxy []*harness.Proxy // agents → server i
	c        *harness.Client
	d        *db.DB
	appID    int64
	faults   map[string]int
	// patroni is the HA database when patroniOn; failovers are the times
	// from each primary's death to the first fire read from the new one.
	patroniOn bool
	patroni   *harness.Patroni
	failovers []time.Duration
}

func newSoak(seed uint64) *soak {
	c := harness.NewCommand("soak", 2)
	c.Keep = os.Getenv("SOAK_KEEP") != ""
	return &soak{Command: c, seed: seed, rnd: mrand.New(mrand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), faults: map[string]int{}}
}

// viaProxy is a PostgreSQL URL whose host is the proxy.
func viaProxy(raw, addr string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	u.Host = addr
	return u.String()
}

func pgAddr(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	return u.Host
}

func (s *soak) start() {
	var dbURL string
	if s.patroniOn {
		s.patroni = harness.StartPatroni(s)
		dbURL = s.patroni.URL
	} else {
		dbURL = dbtest.NewSchema(s)
	}
	s.d = dbtest.OpenURL(s, dbURL)
	var urls []string
	for i := 0; i < servers; i++ {
		addr := harness.FreeAddr(s)
		dbp := harness.StartProxy(s, pgAddr(dbURL))
		srvp := harness.StartProxy(s, addr)
		s.dbProxy, s.srvProxy = append(s.dbProxy, dbp), append(s.srvProxy, srvp)
		urls = append(urls, "http://"+srvp.Addr())
		s.servers = append(s.servers, harness.StartServer(s, harness.ServerOptions{DatabaseURL: viaProxy(dbURL, dbp.Addr()), Addr: addr,
			Name: fmt.Sprintf("s%d", i+1), Env: []string{fmt.Sprintf("JOBWHEEL_SERVER_ID=s%d", i+1), "JOBWHEEL_LOG_LEVEL=warn",
				"JOBWHEEL_ADVERTISE_URL=http://" + srvp.Addr()}}))
	}
	s.c = s.servers[0].Client()
	a := harness.StartApp(s, s.c, app, agents, time.Minute, func(i int) harness.AgentOptions {
		return harness.AgentOptions{Servers: urls, Name: fmt.Sprintf("a%d", i+1), Slots: 8,
			Env: []string{"SOAK_RECORD=" + s.record(i), "JOBWHEEL_LOG_LEVEL=warn"}}
	})
	s.appID, s.agents, s.agentOpt = a.ID, a.Agents, a.AgentOptions
}

// record is the file in which agent i's tasks write what they ran.
func (s *soak) record(i int) string {
	return filepath.Join(s.Dir(), fmt.Sprintf("a%d.ran", i+1))
}

// job creates a job of the soak's app.
func (s *soak) job(in map[string]any) string {
	in["app"] = app
	if _, ok := in["processorType"]; !ok {
		in["processorType"], in["processor"] = "SHELL", script
	}
	in["maxInstances"] = 1000
	id, err := s.c.CreateJob(in)
	if err != nil {
		s.Fatalf("creating %v: %v", in["name"], err)
	}
	return id
}

type violation struct {
	Kind     string   `json:"kind"`
	Count    int      `json:"count"`
	Examples []string `json:"examples"`
}

func (s *soak) run(duration time.Duration) map[string]any {
	s.start()
	var cronJobs, scheduled []string
	for i := 0; i < 3; i++ {
		id := s.job(map[string]any{"name": fmt.Sprintf("every-second-%d", i), "scheduleType": "CRON", "scheduleExpression": "* * * * * ?",
			"misfirePolicy": "FIRE_ALL", "instanceRetries": 3})
		cronJobs = append(cronJobs, id)
	}
	scheduled = append(scheduled, cronJobs...)
	scheduled = append(scheduled,
		s.job(map[string]any{"name": "rate", "scheduleType": "FIXED_RATE", "scheduleExpression": "2s", "instanceRetries": 3}),
		s.job(map[string]any{"name": "delay", "scheduleType": "FIXED_DELAY", "scheduleExpression": "1s", "instanceRetries": 3}),
		s.job(map[string]any{"name": "broadcast", "scheduleType": "FIXED_RATE", "scheduleExpression": "10s", "executionMode": "BROADCAST"}),
		s.job(map[string]any{"name": "mapreduce", "scheduleType": "FIXED_RATE", "scheduleExpression": "5s", "executionMode": "MAP_REDUCE",
			"processorType": "GO", "processor": "example.mapreduce", "params": strconv.Itoa(mapSize), "instanceRetries": 3}))
	burst := s.job(map[string]any{"name": "burst", "scheduleType": "API", "instanceRetries": 3})
	// Workflows: every 5 s a run of a step, a decision and the branch it
	// takes, which nests another workflow; the other branch is skipped.
	step := s.job(map[string]any{"name": "wf-step", "scheduleType": "WORKFLOW", "instanceRetries": 3})
	inner, err := s.c.CreateWorkflow(map[string]any{"app": app, "name": "inner", "scheduleType": "API", "maxInstances": 1000,
		"overlapPolicy": "QUEUE", "nodes": []any{map[string]any{"key": "s", "type": "JOB", "jobId": step}}, "edges": []any{}})
	if err != nil {
		s.Fatalf("creating the inner workflow: %v", err)
	}
	outer, err := s.c.CreateWorkflow(map[string]any{"app": app, "name": "outer", "scheduleType": "FIXED_RATE", "scheduleExpression": "5s",
		"maxInstances": 1000, "overlapPolicy": "QUEUE", "nodes": []any{
			map[string]any{"key": "a", "type": "JOB", "jobId": step},
			map[string]any{"key": "d", "type": "DECISION", "expression": `upstream.a != nil ? "nest" : "skip"`},
			map[string]any{"key": "n", "type": "NESTED", "workflowId": inner},
			map[string]any{"key": "x", "type": "JOB", "jobId": step},
		}, "edges": []any{
			map[string]any{"from": "a", "to": "d"},
			map[string]any{"from": "d", "to": "n", "label": "nest"},
			map[string]any{"from": "d", "to": "x", "label": "skip"},
		}})
	if err != nil {
		s.Fatalf("creating the outer workflow: %v", err)
	}
	begin := time.Now()

	// Faults, one at a time, each held for a few seconds, with a few
	// seconds of calm between; API bursts every 10 s meanwhile.
	end := begin.Add(duration)
	nextBurst := begin
	for time.Now().Before(end) {
		if time.Now().After(nextBurst) {
			for i := 0; i < 10; i++ {
				if _, err := s.c.RunJob(burst, ""); err != nil {
					s.Logf("runJob during faults: %v", err) // a fault may cut the API off; not a violation
				}
			}
			nextBurst = time.Now().Add(10 * time.Second)
		}
		s.fault()
		time.Sleep(time.Duration(2+s.rnd.IntN(4)) * time.Second)
	}
	s.heal()
	// The schedules stop; what they fired must finish.
	stopAt := time.Now()
	for _, id := range scheduled {
		if err := s.c.Do(`mutation($id: ID!) { setJobEnabled(id: $id, enabled: false) { id } }`, map[string]any{"id": id}, nil); err != nil {
			s.Fatalf("disabling job %s: %v", id, err)
		}
	}
	if err := s.c.Do(`mutation($id: ID!) { setWorkflowEnabled(id: $id, enabled: false) { id } }`, map[string]any{"id": outer}, nil); err != nil {
		s.Fatalf("disabling the workflow: %v", err)
	}
	settled := testkit.Poll(5*time.Minute, func() bool {
		counts, err := s.d.InstanceStatusCounts(context.Background(), s.appID)
		return err == nil && counts[db.StatusWaiting]+counts[db.StatusDispatched]+counts[db.StatusRunning] == 0 &&
			len(s.runs([]string{"WAITING", "RUNNING", "PAUSED"})) == 0
	})
	return s.audit(begin, stopAt, cronJobs, settled)
}

// fault injects one fault and undoes it after a while.
func (s *soak) fault() {
	hold := time.Duration(2+s.rnd.IntN(7)) * time.Second
	srv := s.rnd.IntN(servers)
	ag := s.rnd.IntN(agents)
	kinds := []string{"kill-server", "stop-server", "kill-agent", "stop-agent", "blackhole-agents-server", "drop-agents-server", "blackhole-server-db", "drop-server-db"}
	if s.patroniOn {
		kinds = append(kinds, "kill-primary", "switchover")
	}
	kind := kinds[s.rnd.IntN(len(kinds))]
	s.faults[kind]++
	s.Logf("%s fault %s (server s%d, agent a%d) for %s", time.Now().Format("15:04:05"), kind, srv+1, ag+1, hold)
	switch kind {
	case "kill-server":
		s.servers[srv].Kill()
		time.Sleep(hold)
		s.servers[srv].Restart()
	case "stop-server":
		s.servers[srv].Signal(syscall.SIGSTOP)
		time.Sleep(hold)
		s.servers[srv].Signal(syscall.SIGCONT)
	case "kill-agent":
		s.agents[ag].Kill()
		time.Sleep(hold)
		s.agents[ag] = harness.StartAgent(s, s.agentOpt[ag])
	case "stop-agent":
		s.agents[ag].Signal(syscall.SIGSTOP)
		time.Sleep(hold)
		s.agents[ag].Signal(syscall.SIGCONT)
	case "blackhole-agents-server":
		s.srvProxy[srv].Blackhole()
		time.Sleep(hold)
		s.srvProxy[srv].Heal()
	case "drop-agents-server":
		s.srvProxy[srv].Drop()
		time.Sleep(hold)
		s.srvProxy[srv].Heal()
	case "blackhole-server-db":
		s.dbProxy[srv].Blackhole()
		time.Sleep(hold)
		s.dbProxy[srv].Heal()
	case "drop-server-db":
		s.dbProxy[srv].Drop()
		time.Sleep(hold)
		s.dbProxy[srv].Heal()
	case "kill-primary":
		killedAt := time.Now()
		old := s.patroni.KillPrimary()
		s.failovers = append(s.failovers, s.firstFireAfter(killedAt))
		// The old primary comes back as a standby (rewound or cloned) and
		// becomes the synchronous one again before the next fault.
		s.patroni.Rejoin(old)
		s.patroni.WaitHealthy()
	case "switchover":
		s.patroni.Switchover()
		s.patroni.WaitHealthy()
	}
}

// firstFireAfter waits until a fire dispatched after t can be read (through
// HAProxy, so from the new primary: the old one is dead) and returns how
// long after t that was.
func (s *soak) firstFireAfter(t time.Time) time.Duration {
	var seen time.Duration = -1
	testkit.Poll(2*time.Minute, func() bool {
		recs, err := s.d.FireRecordList(context.Background(), s.appID, t.Add(-time.Minute), time.Now().Add(time.Minute))
		if err != nil {
			return false
		}
		for _, r := range recs {
			if r.ActualTriggerAt != nil && r.ActualTriggerAt.After(t) {
				seen = time.Since(t)
				return true
			}
		}
		return false
	})
	s.Logf("primary killed: first fire read from the new primary after %s", seen.Round(100*time.Millisecond))
	return seen
}

// heal makes sure everything runs and every network path flows.
func (s *soak) heal() {
	for i := range s.servers {
		s.srvProxy[i].Heal()
		s.dbProxy[i].Heal()
		if s.servers[i].Exited() {
			s.servers[i].Restart()
		}
		s.servers[i].Signal(syscall.SIGCONT)
	}
	for i := range s.agents {
		if s.agents[i].Exited() {
			s.agents[i] = harness.StartAgent(s, s.agentOpt[i])
		}
		s.agents[i].Signal(syscall.SIGCONT)
	}
}

func (s *soak) audit(begin, stopAt time.Time, cronJobs []string, settled bool) map[string]any {
	ctx := context.Background()
	var violations []violation
	add := func(kind string, examples []string) {
		if len(examples) == 0 {
			return
		}
		v := violation{Kind: kind, Count: len(examples), Examples: examples}
		if len(v.Examples) > 5 {
			v.Examples = v.Examples[:5]
		}
		violations = append(violations, v)
	}

	// Every second of every CRON job between its first full second and
	// the moment schedules stopped fired exactly once.
	from, to := begin.Truncate(time.Second).Add(2*time.Second), stopAt.Truncate(time.Second).Add(-2*time.Second)
	recs, err := s.d.FireRecordList(ctx, s.appID, from, to)
	if err != nil {
		s.Fatalf("%v", err)
	}
	fires := map[string]int{}
	for _, r := range recs {
		fires[fmt.Sprintf("%d@%s", r.JobID, r.ExpectedTriggerAt.UTC().Format(time.RFC3339))]++
	}
	var missing, twice []string
	expected := 0
	for _, j := range cronJobs {
		for t := from; t.Before(to); t = t.Add(time.Second) {
			expected++
			switch n := fires[j+"@"+t.UTC().Format(time.RFC3339)]; {
			case n == 0:
				missing = append(missing, fmt.Sprintf("job %s at %s", j, t.UTC().Format(time.RFC3339)))
			case n > 1:
				twice = append(twice, fmt.Sprintf("job %s at %s: %d instances", j, t.UTC().Format(time.RFC3339), n))
			}
		}
	}
	add("fire missing", missing)
	add("fire recorded twice", twice)

	// Instances: all terminal; none succeeded twice in one attempt.
	counts, err := s.d.InstanceStatusCounts(ctx, s.appID)
	if err != nil {
		s.Fatalf("%v", err)
	}
	if !settled {
		add("instance not terminal", []string{fmt.Sprintf("%v", counts)})
	}
	if n, err := s.d.InstanceCountRunTwice(ctx, s.appID); err != nil || n > 0 {
		add("instance succeeded twice in one attempt", []string{fmt.Sprintf("%d instances (%v)", n, err)})
	}

	// The agents' own records: no task started twice.
	started := map[string][]string{}
	tasksRun := 0
	for i := 0; i < agents; i++ {
		f, err := os.Open(s.record(i))
		if err != nil {
			continue // an agent that ran no script
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) != 3 {
				continue
			}
			tasksRun++
			started[fields[1]] = append(started[fields[1]], fmt.Sprintf("a%d", i+1))
		}
		_ = f.Close()
	}
	var ranTwice []string
	for task, by := range started {
		if len(by) > 1 {
			ranTwice = append(ranTwice, fmt.Sprintf("task %s started by %v", task, by))
		}
	}
	sort.Strings(ranTwice)
	add("task ran twice", ranTwice)

	// Workflow runs: every one ended, and succeeded.
	runs := map[string]int{}
	var unfinished, failed []string
	for _, r := range s.runs(nil) {
		runs[r.status]++
		switch r.status {
		case "WAITING", "RUNNING", "PAUSED":
			unfinished = append(unfinished, r.id+" "+r.status)
		case "SUCCEEDED":
		default:
			failed = append(failed, fmt.Sprintf("run %s %s: %s", r.id, r.status, r.reason))
		}
	}
	add("workflow run not terminal", unfinished)
	add("workflow run did not succeed", failed)

	// Map-reduce sums and script logs, through the API.
	want := fmt.Sprintf("sum of %d squares = %d", mapSize, mapSize*(mapSize+1)*(2*mapSize+1)/6)
	var badSums, badLogs []string
	checked := 0
	reasons := map[string]int{} // why instances did not succeed
	s.instances(func(job, id, status, result, reason string, attempt int, lines []string) {
		if status != db.StatusSucceeded {
			reasons[job+": "+status+" "+reason]++
		}
		switch {
		case status != db.StatusSucceeded:
		case job == "mapreduce":
			if result != want {
				badSums = append(badSums, fmt.Sprintf("instance %s: %q", id, result))
			}
		case attempt == 1 && job != "broadcast":
			checked++
			if strings.Join(lines, "|") != "line 1|line 2|line 3" {
				badLogs = append(badLogs, fmt.Sprintf("instance %s: %q", id, lines))
			}
		}
	})
	add("map-reduce sum wrong", badSums)
	var noFire []string
	for i, d := range s.failovers {
		if d < 0 {
			noFire = append(noFire, fmt.Sprintf("primary kill %d: no fire read within 2 minutes", i+1))
		}
	}
	add("nothing fired after the primary's death", noFire)
	add("log lines lost, repeated or out of order", badLogs)

	total := 0
	for _, n := range s.faults {
		total += n
	}
	if violations == nil {
		violations = []violation{}
	}
	instances := 0
	for _, n := range counts {
		instances += n
	}
	report := map[string]any{
		"seed":              s.seed,
		"duration":          stopAt.Sub(begin).Round(time.Second).String(),
		"servers":           servers,
		"agents":            agents,
		"faults":            map[string]any{"total": total, "byKind": s.faults},
		"fires":             map[string]any{"expected": expected, "recorded": len(recs), "missing": len(missing), "twice": len(twice)},
		"instances":         map[string]any{"total": instances, "byStatus": counts, "notSucceeded": reasons, "logsChecked": checked},
		"workflowInstances": runs,
		"tasksRun":          tasksRun,
		"violations":        violations,
	}
	if s.patroniOn {
		// -1s: a kill after which no fire was read within two minutes.
		var list []string
		for _, d := range s.failovers {
			list = append(list, d.Round(100*time.Millisecond).String())
		}
		report["database"] = map[string]any{"kind": "patroni", "primaryDeathToFirstFire": list}
	}
	return report
}

// instances calls fn for every instance of the app, with its job's name,
// status, result, attempt and first log lines.
func (s *soak) instances(fn func(job, id, status, result, reason string, attempt int, lines []string)) {
	after := ""
	for {
		var out struct {
			Instances struct {
				Edges []struct {
					Cursor string
					Node   struct {
						ID, Status, Result, Reason string
						Attempt                    int
						Job                        *struct{ Name string }
						Logs                       struct{ Lines []struct{ Text string } }
					}
				}
				PageInfo struct{ HasNextPage bool }
			}
		}
		vars := map[string]any{"app": app}
		if after != "" {
			vars["after"] = after
		}
		if err := s.c.Do(`query($app: String!, $after: String) { instances(app: $app, first: 100, after: $after) {
			edges { cursor node { id status result reason attempt job { name } logs(first: 10) { lines { text } } } } pageInfo { hasNextPage } } }`, vars, &out); err != nil {
			s.Fatalf("reading instances: %v", err)
		}
		for _, e := range out.Instances.Edges {
			job := ""
			if e.Node.Job != nil {
				job = e.Node.Job.Name
			}
			lines := make([]string, len(e.Node.Logs.Lines))
			for i, l := range e.Node.Logs.Lines {
				lines[i] = l.Text
			}
			fn(job, e.Node.ID, e.Node.Status, e.Node.Result, e.Node.Reason, e.Node.Attempt, lines)
			after = e.Cursor
		}
		if !out.Instances.PageInfo.HasNextPage {
			return
		}
	}
}

type run struct{ id, status, reason string }

// runs lists the app's workflow runs (top-level ones, each with its
// nested runs), in the statuses given (nil: all).
func (s *soak) runs(statuses []string) []run {
	var out []run
	after := ""
	for {
		var page struct {
			WorkflowInstances struct {
				Edges []struct {
					Cursor string
					Node   struct {
						ID, Status, Reason string
						Nodes              []struct {
							Child *struct{ ID, Status, Reason string }
						}
					}
				}
				PageInfo struct{ HasNextPage bool }
			}
		}
		vars := map[string]any{"app": app, "status": statuses}
		if after != "" {
			vars["after"] = after
		}
		if err := s.c.Do(`query($app: String!, $status: [WorkflowInstanceStatus!], $after: String) {
			workflowInstances(app: $app, status: $status, first: 200, after: $after) {
			edges { cursor node { id status reason nodes { child { id status reason } } } } pageInfo { hasNextPage } } }`, vars, &page); err != nil {
			s.Logf("reading workflow runs: %v", err)
			return []run{{id: "?", status: "UNREADABLE", reason: err.Error()}}
		}
		for _, e := range page.WorkflowInstances.Edges {
			out = append(out, run{e.Node.ID, e.Node.Status, e.Node.Reason})
			for _, n := range e.Node.Nodes {
				if n.Child != nil {
					out = append(out, run{n.Child.ID, n.Child.Status, n.Child.Reason})
				}
			}
			after = e.Cursor
		}
		if !page.WorkflowInstances.PageInfo.HasNextPage {
			return out
		}
	}
}
