package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/e2e/harness"
)

// importFixture is a database of the old scheduler, loaded on the test
// MariaDB server from e2e/testdata/import.
func importFixture(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "import", file))
	if err != nil {
		t.Fatal(err)
	}
	return harness.MariaDBDatabase(t, string(b))
}

// importedJob is a job as the import test reads it back.
type importedJob struct {
	Name, Description, ScheduleType, ScheduleExpression, TimeZone string
	Enabled                                                       bool
	ScheduleWindow                                                *struct {
		Start, End string
		Days       []string
	}
	Lifecycle                                       struct{ Start, End *string }
	ExecutionMode, ProcessorType, Processor, Params string
	MaxInstances, TaskConcurrency, TimeoutMs        int
	InstanceRetries, TaskRetries, MaxQueued         int
	DispatchStrategy, MisfirePolicy, OverlapPolicy  string
	ManagedBy                                       string
	Version                                         int
	WorkerFilter                                    struct {
		Designated, Tags                   []string
		MinCPUCores                        int `json:"minCpuCores"`
		MinMemoryMB, MinDiskMB, MaxWorkers int
	}
	Alarm struct {
		Rules []struct {
			Type       string
			Threshold  *int
			SilenceSec *int
		}
		Channels []struct{ Type, Target string }
	}
	Versions []struct {
		Version                              int
		Change, Author, CreatedAt, Processor string
	}
	UpdatedAt string
}

type importedWorkflow struct {
	Name, ScheduleType, ScheduleExpression, TimeZone, MisfirePolicy, OverlapPolicy string
	Enabled                                                                        bool
	MaxInstances, Version                                                          int
	ManagedBy                                                                      string
	Nodes                                                                          []struct {
		Key, Type               string
		Name                    string
		Job                     *struct{ Name string }
		Workflow                *struct{ Name string }
		Expression, Params      *string
		Enabled, SkipWhenFailed bool
	}
	Edges []struct {
		From, To string
		Label    *string
	}
	UpdatedAt string
}

const importJobFields = `name description enabled scheduleType scheduleExpression timeZone scheduleWindow { start end days }
	lifecycle { start end } executionMode processorType processor params maxInstances taskConcurrency timeoutMs instanceRetries
	taskRetries maxQueued dispatchStrategy misfirePolicy overlapPolicy managedBy version
	workerFilter { designated tags minCpuCores minMemoryMB minDiskMB maxWorkers }
	alarm { rules { type threshold silenceSec } channels { type target } }
	versions(first: 5) { version change author createdAt processor } updatedAt`

const importWorkflowFields = `name scheduleType scheduleExpression timeZone misfirePolicy overlapPolicy enabled maxInstances version managedBy
	nodes { key type name job { name } workflow { name } expression params enabled skipWhenFailed } edges { from to label } updatedAt`

// imported reads an app's jobs and workflows by name, and the whole of
// them as JSON to compare before and after.
func imported(t *testing.T, c *harness.Client, app string) (map[string]importedJob, map[string]importedWorkflow, string) {
	t.Helper()
	var out struct {
		Jobs      struct{ Edges []struct{ Node importedJob } }
		Workflows struct {
			Edges []struct{ Node importedWorkflow }
		}
	}
	if err := c.Do(`query($app: String!) { jobs(app: $app, first: 20) { edges { node { `+importJobFields+` } } }
		workflows(app: $app, first: 10) { edges { node { `+importWorkflowFields+` } } } }`, map[string]any{"app": app}, &out); err != nil {
		t.Fatal(err)
	}
	jobs, wfs := map[string]importedJob{}, map[string]importedWorkflow{}
	for _, e := range out.Jobs.Edges {
		jobs[e.Node.Name] = e.Node
	}
	for _, e := range out.Workflows.Edges {
		wfs[e.Node.Name] = e.Node
	}
	b, _ := json.Marshal(out)
	return jobs, wfs, string(b)
}

func appNames(t *testing.T, c *harness.Client) []string {
	t.Helper()
	var out struct {
		Apps []struct{ Name, Description string }
	}
	if err := c.Do(`{ apps { name description } }`, nil, &out); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range out.Apps {
		names = append(names, a.Name+": "+a.Description)
	}
	slices.Sort(names)
	return names
}

var appSecret = regexp.MustCompile(`JOBWHEEL_APP=(\S+) JOBWHEEL_APP_SECRET=(\S+)`)

// secrets are the app secrets an import printed, by app.
func secrets(stderr string) map[string]string {
	out := map[string]string{}
	for _, m := range appSecret.FindAllStringSubmatch(stderr, -1) {
		out[m[1]] = m[2]
	}
	return out
}

func mustContain(t *testing.T, what, out string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if !strings.Contains(out, l) {
			t.Errorf("%s lacks %q", what, l)
		}
	}
}

// TestImport: `jobwheel import` reads PowerJob's and xxl-job's tables on a
// real MariaDB server (rows covering every enum value of both, a DAG with
// a decision and a nested workflow, GLUE scripts with their history,
// child jobs) and creates the apps, jobs and workflows through a real
// server's API (issue 27). A dry run reports every object and what needs
// a person and changes nothing; one app, then all are imported, the
// server's refusal of one object leaving the rest of its app imported;
// what was created is checked field by field through the API; importing
// again changes nothing, and keeps the enabled state a team set while
// cutting over. Imported GLUE scripts run on an agent with xxl-job's
// arguments, and imported jobs find the processors a Java worker
// registers the PowerJob and xxl-job way.
func TestImport(t *testing.T) {
	t.Parallel()
	pj := importFixture(t, "powerjob.sql")
	xxl := importFixture(t, "xxljob.sql")
	xxl22 := importFixture(t, "xxljob22.sql")
	srv := harness.StartServer(t, harness.ServerOptions{})
	admin := srv.Client()
	cli := harness.NewCLI(t)
	if r := cli.Run(harness.DefaultAdminPassword+"\n", "login", srv.URL, "--username", "admin", "--password-stdin"); r.Code != 0 {
		t.Fatalf("login: %+v", r)
	}
	const zone = "Asia/Shanghai"
	shanghai, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}

	// Usage: the time zone is required, and so is a choice of apps.
	if r := cli.Run("", "import", pj, "--all"); r.Code != 2 || !strings.Contains(r.Stderr, "--time-zone is required") {
		t.Fatalf("import without --time-zone: %+v", r)
	}
	if r := cli.Run("", "import", pj, "--time-zone", zone); r.Code != 2 || !strings.Contains(r.Stderr, "--app APP") {
		t.Fatalf("import without --app or --all: %+v", r)
	}
	if r := cli.Run("", "import", pj, "--app", "nope", "--time-zone", zone); r.Code != 1 || !strings.Contains(r.Stderr, `no app named "nope"`) {
		t.Fatalf("import of an app the source lacks: %+v", r)
	}

	// PowerJob, dry run: every object reported, nothing created.
	r := cli.Run("", "import", pj, "--all", "--time-zone", zone, "--dry-run")
	if r.Code != 1 || !strings.Contains(r.Stderr, "2 object(s) would not be imported") {
		t.Fatalf("dry run: %+v", r)
	}
	mustContain(t, "the dry run's report", r.Stdout,
		"Import from powerjob root@127.0.0.1:3306/",
		"(dry run: nothing is changed)",
		`app order-service (from app_info 1 "order-service", as set import-powerjob-order-service): would be created`,
		`app report_center (from app_info 2 "Report_Center", as set import-powerjob-report_center): would be created`,
		"job sync-orders (from job_info 1): would be created, disabled\n      CRON 0 0/5 * * * ?, processor com.acme.order.SyncOrdersProcessor\n",
		`job audit #11 (from job_info 11): would be created, disabled`,
		`! needs a person: decision node n302: Groovy "def n = Integer.parseInt(context.count); return n > 100" has no translation`,
		`! needs a person: decision node n102: Groovy "context.region == 'cn' && context.get(\"mode\") != \"dry\";" is translated to expr-lang`,
		`! needs a person: PowerJob's containers (EXTERNAL processors loaded at run time) have no counterpart`,
		`~ 1 job(s) deleted in PowerJob (status 99) are not imported`,
		"workflow uses-gone (from workflow_info 4): NOT IMPORTED: node 401 runs job 8, which is not among the app's imported jobs",
		// The app is new, so the server reads only the schedules, and
		// refuses one.
		"job broken-cron (from job_info 21): NOT IMPORTED: the server refuses it: scheduleExpression: expected 6 or 7 fields",
		"2 app(s): 16 object(s) would be imported (16 created, 0 updated, 0 unchanged); 2 not imported; 6 need a person (!)")
	if apps := appNames(t, admin); len(apps) != 0 {
		t.Fatalf("a dry run created apps: %v", apps)
	}
	r = cli.Run("", "import", pj, "--all", "--time-zone", zone, "--dry-run", "-o", "json")
	var rep struct {
		System string
		DryRun bool
		Apps   []struct {
			Name    string
			Objects []struct{ Kind, Name, Action string }
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil || rep.System != "powerjob" || !rep.DryRun || len(rep.Apps) != 2 ||
		len(rep.Apps[0].Objects) != 16 {
		t.Fatalf("dry run as JSON: %v, %+v\n%s", err, rep, r.Stdout)
	}

	// One app.
	r = cli.Run("", "import", pj, "--app", "order-service", "--time-zone", zone)
	if r.Code != 1 || !strings.Contains(r.Stderr, "1 object(s) were not imported (see the report); the rest were") ||
		!strings.Contains(r.Stdout, "job sync-orders (from job_info 1): created, disabled") || strings.Contains(r.Stdout, "report_center") {
		t.Fatalf("import of one app: %+v", r)
	}
	if got := appNames(t, admin); !slices.Equal(got, []string{"order-service: 订单服务"}) {
		t.Fatalf("apps after importing one: %v", got)
	}
	jobs, wfs, _ := imported(t, admin, "order-service")
	if len(jobs) != 11 || len(wfs) != 4 {
		t.Fatalf("order-service has %d jobs and %d workflows; want 11 and 4: %v %v", len(jobs), len(wfs), keys(jobs), keys(wfs))
	}
	for name, j := range jobs {
		if j.Enabled || j.ManagedBy != "import-powerjob-order-service" {
			t.Errorf("job %s: enabled %v, managed by %q; want disabled, import-powerjob-order-service", name, j.Enabled, j.ManagedBy)
		}
	}
	j := jobs["sync-orders"]
	if j.ScheduleType != "CRON" || j.ScheduleExpression != "0 0/5 * * * ?" || j.TimeZone != zone || j.ProcessorType != "GO" ||
		j.Processor != "com.acme.order.SyncOrdersProcessor" || j.Params != `{"batch":500}` || j.InstanceRetries != 2 || j.TaskRetries != 1 ||
		j.TimeoutMs != 600000 || j.Description != "Pulls new orders every five minutes" || j.ExecutionMode != "STANDALONE" ||
		j.Lifecycle.Start == nil || *j.Lifecycle.Start != "2026-01-01T00:00:00Z" || j.Lifecycle.End == nil || *j.Lifecycle.End != "2027-01-01T00:00:00Z" {
		t.Errorf("sync-orders: %+v", j)
	}
	if a := j.Alarm; len(a.Rules) != 1 || a.Rules[0].Type != "CONSECUTIVE_FAILURES" || *a.Rules[0].Threshold != 3 || *a.Rules[0].SilenceSec != 1800 ||
		len(a.Channels) != 3 || a.Channels[0].Type != "DINGTALK" || a.Channels[1].Target != "dev@example.com" || a.Channels[2].Target != "ops@example.com" {
		t.Errorf("sync-orders' alarm: %+v", a)
	}
	j = jobs["refresh-cache"]
	if j.ScheduleType != "FIXED_RATE" || j.ScheduleExpression != "30s" || j.ExecutionMode != "BROADCAST" || j.DispatchStrategy != "RANDOM" ||
		j.WorkerFilter.MinCPUCores != 2 || j.WorkerFilter.MinMemoryMB != 2048 || j.WorkerFilter.MinDiskMB != 10240 || j.WorkerFilter.MaxWorkers != 3 {
		t.Errorf("refresh-cache: %+v", j)
	}
	// Its alarm user's webhook is on a private network, where the
	// server does not send: that channel is left out, the job imported.
	if a := j.Alarm; len(a.Channels) != 1 || a.Channels[0].Target != "intern@example.com" {
		t.Errorf("refresh-cache's alarm channels: %+v", a.Channels)
	}
	mustContain(t, "the import's report", r.Stdout, "job refresh-cache (from job_info 2): created, disabled",
		"! needs a person: an alarm channel is left out: the server refused it (")
	j = jobs["settle"]
	if j.ScheduleType != "FIXED_DELAY" || j.ScheduleExpression != "1m0s" || j.ExecutionMode != "MAP_REDUCE" || j.TaskConcurrency != 20 ||
		j.TaskRetries != 3 || !slices.Equal(j.WorkerFilter.Designated, []string{"10.0.0.5", "10.0.0.6"}) {
		t.Errorf("settle: %+v", j)
	}
	j = jobs["export-orders"]
	if j.ScheduleType != "API" || j.ExecutionMode != "MAP" || j.Processor != "exportProcessor" || j.MaxInstances != 10000 {
		t.Errorf("export-orders: %+v", j)
	}
	j = jobs["cleanup"]
	if j.ScheduleType != "FIXED_RATE" || j.ScheduleExpression != "10m0s" || j.ScheduleWindow == nil || j.ScheduleWindow.Start != "08:00:00" ||
		j.ScheduleWindow.End != "20:00:00" || !slices.Equal(j.ScheduleWindow.Days, []string{"MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"}) ||
		j.ProcessorType != "SHELL" || j.Processor != "echo cleaning\nfind /tmp -name \"*.old\" -mtime +7 -delete" ||
		!slices.Equal(j.WorkerFilter.Tags, []string{"ops-box"}) || j.Description != "Removes old files on weekdays\ntag: ops" {
		t.Errorf("cleanup: %+v", j)
	}
	if j := jobs["daily-report"]; j.ScheduleType != "WORKFLOW" || j.ProcessorType != "PYTHON" || !strings.HasPrefix(j.Processor, "import sys\n") {
		t.Errorf("daily-report: %+v", j)
	}
	if j := jobs["external-loader"]; j.ProcessorType != "GO" || j.Processor != "com.acme.ext.Loader" {
		t.Errorf("external-loader: %+v", j)
	}
	if j := jobs["ping-partner"]; j.ProcessorType != "HTTP" || j.Params != "" ||
		!strings.Contains(j.Processor, `"url":"https://partner.example.com/alive"`) || !strings.Contains(j.Processor, `"method":"POST"`) ||
		!strings.Contains(j.Processor, `"timeoutMs":30000`) || !strings.Contains(j.Processor, `"Content-Type":"application/json"`) {
		t.Errorf("ping-partner: %+v", j)
	}
	if j := jobs["notify"]; j.ProcessorType != "SHELL" || j.Processor != `echo "settlement done"` || j.Params != "" {
		t.Errorf("notify: %+v", j)
	}
	if _, ok := jobs["gone"]; ok {
		t.Error("a job deleted in PowerJob was imported")
	}
	w := wfs["daily-settlement"]
	if w.ScheduleType != "CRON" || w.ScheduleExpression != "0 0 2 * * ?" || w.TimeZone != zone || w.Enabled || len(w.Nodes) != 5 || len(w.Edges) != 4 {
		t.Fatalf("daily-settlement: %+v", w)
	}
	byKey := map[string]int{}
	for i, n := range w.Nodes {
		byKey[n.Key] = i
	}
	n := w.Nodes[byKey["n102"]]
	if n.Type != "DECISION" || n.Name != "region check" || n.Expression == nil || *n.Expression != `context["region"] == "cn" && context["mode"] != "dry"` {
		t.Errorf("the decision node: %+v", n)
	}
	if n := w.Nodes[byKey["n104"]]; n.Type != "NESTED" || n.Workflow == nil || n.Workflow.Name != "reconcile" {
		t.Errorf("the nested node: %+v", n)
	}
	if n := w.Nodes[byKey["n105"]]; n.Type != "JOB" || n.Job == nil || n.Job.Name != "external-loader" || n.Enabled || !n.SkipWhenFailed {
		t.Errorf("the disabled node: %+v", n)
	}
	if n := w.Nodes[byKey["n103"]]; n.Job == nil || n.Job.Name != "notify" || n.Params == nil || *n.Params != `echo "notify from the workflow"` {
		t.Errorf("the node with params: %+v", n)
	}
	labels := map[string]string{}
	for _, e := range w.Edges {
		l := ""
		if e.Label != nil {
			l = *e.Label
		}
		labels[e.From+">"+e.To] = l
	}
	if want := map[string]string{"n101>n102": "", "n102>n103": "true", "n102>n104": "false", "n103>n105": ""}; !mapsEqualString(labels, want) {
		t.Errorf("daily-settlement's edges: %v; want %v", labels, want)
	}
	if w := wfs["reconcile"]; len(w.Nodes) != 1 || w.Nodes[0].Job == nil || w.Nodes[0].Job.Name != "sync-orders" || w.Nodes[0].Name != "sync again" ||
		w.Nodes[0].Params == nil || *w.Nodes[0].Params != `{"batch":50}` {
		t.Errorf("reconcile (a DAG with its nodes inline): %+v", w)
	}
	if w := wfs["big-orders"]; len(w.Nodes) != 3 || w.Nodes[1].Expression == nil || !strings.HasPrefix(*w.Nodes[1].Expression, "// PowerJob's Groovy decision") ||
		!strings.HasSuffix(*w.Nodes[1].Expression, "\nnil") || w.Nodes[2].Job.Name != "audit #11" || w.MaxInstances != 10000 {
		t.Errorf("big-orders: %+v", w)
	}
	if w := wfs["every-minute"]; w.ScheduleType != "API" {
		t.Errorf("every-minute: %+v", w)
	}

	// All apps: the other is created, its bad cron refused and named, and
	// the app imported already is left as it is.
	_, _, before := imported(t, admin, "order-service")
	r = cli.Run("", "import", pj, "--all", "--time-zone", zone)
	pjAll := r
	if r.Code != 1 || !strings.Contains(r.Stdout, "job broken-cron (from job_info 21): NOT IMPORTED: the server refuses it: scheduleExpression:") ||
		!strings.Contains(r.Stdout, "job weekly-digest (from job_info 20): created, disabled") ||
		!strings.Contains(r.Stdout, "2 app(s): 16 object(s) imported (1 created, 0 updated, 15 unchanged); 2 not imported") {
		t.Fatalf("import of all apps: %+v", r)
	}
	if _, _, after := imported(t, admin, "order-service"); after != before {
		t.Fatalf("importing again changed order-service:\nbefore %s\nafter  %s", before, after)
	}
	if jobs, _, _ := imported(t, admin, "report_center"); len(jobs) != 1 || jobs["weekly-digest"].ScheduleExpression != "0 0 9 ? * MON" ||
		jobs["weekly-digest"].Processor != "io.jobwheel.examples.HelloProcessor" {
		t.Fatalf("report_center: %+v", jobs)
	}
	r = cli.Run("", "import", pj, "--all", "--time-zone", zone, "--dry-run")
	if r.Code != 1 || strings.Contains(r.Stdout, "would be created") || strings.Contains(r.Stdout, "would be updated") ||
		!strings.Contains(r.Stdout, "job sync-orders (from job_info 1): unchanged, disabled") {
		t.Fatalf("dry run after the import: %+v", r)
	}

	// xxl-job 3.x, enabled as in the source.
	r = cli.Run("", "import", xxl, "--all", "--time-zone", zone, "--enable")
	if r.Code != 0 {
		t.Fatalf("xxl-job import: %+v", r)
	}
	mustContain(t, "the xxl-job import's report", r.Stdout,
		"Import from xxl-job root@127.0.0.1:3306/",
		"job shell-cleanup (from xxl_job_info 5): created, enabled\n      FIXED_RATE 1h0m0s, GLUE_SHELL script run by bash (4 lines) as a SHELL job\n      with 2 earlier version(s) of its script, oldest first:\n        version 1: 2024-03-02 09:00 SHELL \"first cut\"\n",
		`! needs a person: a GLUE(Java) job's Groovy source cannot run in jobwheel: port it (xxl_job_info 10's glue_source) to a Java processor registered as "glue-groovy-10"`,
		"! needs a person: child job 99 does not exist in xxl-job: not chained",
		"! needs a person: child job 20 belongs to another executor (legacy-executor)",
		`~ its schedule (CRON 0 0/10 * * * ?) moved to workflow "order-sync (chain)"`,
		"~ route LEAST_FREQUENTLY_USED has no counterpart",
		"2 app(s): 15 object(s) imported (15 created, 0 updated, 0 unchanged); 0 not imported; 3 need a person (!)")
	keysOf := secrets(r.Stderr)
	if keysOf["order-executor"] == "" || keysOf["legacy-executor"] == "" {
		t.Fatalf("the import printed no secrets for its new apps:\n%s", r.Stderr)
	}
	jobs, wfs, _ = imported(t, admin, "order-executor")
	if len(jobs) != 12 || len(wfs) != 2 {
		t.Fatalf("order-executor has %d jobs and %d workflows; want 12 and 2: %v %v", len(jobs), len(wfs), keys(jobs), keys(wfs))
	}
	for name, on := range map[string]bool{"shell-cleanup": true, "py-stats": true, "shard-job": true, "node-task": false, "groovy-task": false} {
		if jobs[name].Enabled != on {
			t.Errorf("job %s enabled %v; want %v (trigger_status, and a Groovy job stays off)", name, jobs[name].Enabled, on)
		}
	}
	j = jobs["order-sync"]
	if j.ScheduleType != "API" || j.ProcessorType != "GO" || j.Processor != "orderSyncHandler" || j.OverlapPolicy != "QUEUE" || j.MaxQueued != 1000 ||
		j.TimeoutMs != 300000 || j.InstanceRetries != 2 || j.DispatchStrategy != "HEALTH_FIRST" || j.Description != "author: alice" ||
		len(j.Alarm.Channels) != 2 || j.Alarm.Channels[0].Type != "EMAIL" || j.Alarm.Rules[0].Type != "FAILURE" {
		t.Errorf("order-sync: %+v", j)
	}
	if a := jobs["order-archive"].Alarm; len(a.Channels) != 1 || a.Channels[0].Target != "archive@example.com" {
		t.Errorf("order-archive's alarm: %+v", a)
	}
	mustContain(t, "the xxl-job import's report", r.Stdout, `! needs a person: alarm_email "not-an-address" is not an email address: not carried over`)
	for name, want := range map[string][2]string{"order-archive": {"HEALTH_FIRST", "CANCEL"}, "order-report": {"ROUND_ROBIN", "QUEUE"},
		"order-notify": {"RANDOM", "QUEUE"}, "shell-cleanup": {"CONSISTENT_HASH", "REPLACE"}, "py-stats": {"LEAST_RECENTLY_USED", "QUEUE"},
		"node-task": {"LEAST_RECENTLY_USED", "QUEUE"}, "ps-task": {"HEALTH_FIRST", "QUEUE"}, "php-task": {"HEALTH_FIRST", "QUEUE"}} {
		if j := jobs[name]; j.DispatchStrategy != want[0] || j.OverlapPolicy != want[1] {
			t.Errorf("%s: dispatch %s, overlap %s; want %v", name, j.DispatchStrategy, j.OverlapPolicy, want)
		}
	}
	if j := jobs["shard-job"]; j.ExecutionMode != "BROADCAST" || j.Processor != "shardingJobHandler" || j.Params != "batch=100" || j.MisfirePolicy != "SKIP" {
		t.Errorf("shard-job: %+v", j)
	}
	if j := jobs["groovy-task"]; j.ProcessorType != "GO" || j.Processor != "glue-groovy-10" {
		t.Errorf("groovy-task: %+v", j)
	}
	j = jobs["shell-cleanup"]
	if j.ScheduleType != "FIXED_RATE" || j.ScheduleExpression != "1h0m0s" || j.MisfirePolicy != "FIRE_ONCE" || j.ProcessorType != "SHELL" ||
		!strings.Contains(j.Processor, "exec bash ./glue.sh") || j.Version != 3 || len(j.Versions) != 3 {
		t.Fatalf("shell-cleanup: %+v", j)
	}
	for i, want := range []struct{ change, author, at, script string }{
		{"APPLY", "admin", "", `echo "param=$1 shard=$2/$3"`},
		{"IMPORT", "xxl-job: echo the param", "2024-03-05 18:30", `echo "cleanup v2"`},
		{"IMPORT", "xxl-job: first cut", "2024-03-02 09:00", `echo "cleanup v1"`},
	} {
		v := j.Versions[i]
		if v.Change != want.change || v.Author != want.author || !strings.Contains(v.Processor, want.script) {
			t.Errorf("shell-cleanup's version %d: %+v; want %+v", v.Version, v, want)
		}
		if want.at != "" {
			at, _ := time.ParseInLocation("2006-01-02 15:04", want.at, shanghai)
			if got, err := time.Parse(time.RFC3339, v.CreatedAt); err != nil || !got.Equal(at) {
				t.Errorf("shell-cleanup's version %d made at %s; want %s (%s in Shanghai)", v.Version, v.CreatedAt, at.UTC(), want.at)
			}
		}
	}
	if j := jobs["py-stats"]; j.ProcessorType != "PYTHON" || !strings.HasPrefix(j.Processor, "# -*- coding: utf-8 -*-\nimport os, sys") || len(j.Versions) != 2 {
		t.Errorf("py-stats: %+v", j)
	}
	for name, cmd := range map[string]string{"node-task": "node", "ps-task": "pwsh", "php-task": "php", "py2-task": "python"} {
		if j := jobs[name]; j.ProcessorType != "SHELL" || !strings.Contains(j.Processor, "exec "+cmd+" ./glue.") {
			t.Errorf("%s: %+v", name, j)
		}
	}
	w = wfs["order-sync (chain)"]
	edges := []string{}
	for _, e := range w.Edges {
		edges = append(edges, e.From+">"+e.To)
	}
	slices.Sort(edges)
	if w.ScheduleType != "CRON" || w.ScheduleExpression != "0 0/10 * * * ?" || w.TimeZone != zone || w.MisfirePolicy != "SKIP" || w.OverlapPolicy != "QUEUE" ||
		!w.Enabled || len(w.Nodes) != 4 || !slices.Equal(edges, []string{"job-1>job-2", "job-1>job-3", "job-3>job-4"}) {
		t.Errorf("order-sync (chain): %+v, edges %v", w, edges)
	}
	if w := wfs["order-report (chain)"]; w.ScheduleType != "API" || len(w.Nodes) != 2 {
		t.Errorf("order-report (chain): %+v", w)
	}

	// The GLUE scripts run on an agent as xxl-job ran them.
	harness.StartAgent(t, harness.AgentOptions{Servers: []string{srv.URL}, App: "order-executor", Secret: keysOf["order-executor"]})
	if _, err := admin.WaitWorkers("order-executor", 1, connect); err != nil {
		t.Fatal(err)
	}
	if r := cli.Run("", "run", "shell-cleanup", "--app", "order-executor", "--follow"); r.Code != 0 || r.Stdout != "param=keep=7 shard=0/1\nbash ok\n" {
		t.Errorf("the GLUE_SHELL job: %+v", r)
	}
	if r := cli.Run("", "run", "shell-cleanup", "--app", "order-executor", "--params", "manual", "--follow"); r.Code != 0 || r.Stdout != "param=manual shard=0/1\nbash ok\n" {
		t.Errorf("the GLUE_SHELL job with a run's params: %+v", r)
	}
	if r := cli.Run("", "run", "py-stats", "--app", "order-executor", "--follow"); r.Code != 0 || r.Stdout != "stats day 0 1\n" {
		t.Errorf("the GLUE_PYTHON job: %+v", r)
	}

	// A team cutting over disables one job again in jobwheel; importing
	// again changes nothing, that included.
	if r := cli.Run("", "disable", "py-stats", "--app", "order-executor"); r.Code != 0 {
		t.Fatalf("disable: %+v", r)
	}
	// Another takes one job over, as a file of its own: the import
	// leaves it alone from then on, and says so.
	ours := filepath.Join(t.TempDir(), "ours.yaml")
	if err := os.WriteFile(ours, []byte("apiVersion: jobwheel.io/v1\nkind: Job\nmetadata: {app: order-executor, name: ps-task}\n"+
		"spec: {scheduleType: API, processorType: SHELL, processor: \"echo ported\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := cli.Run("", "apply", "-f", ours, "--set", "ours", "--adopt"); r.Code != 0 {
		t.Fatalf("adopting ps-task: %+v", r)
	}
	_, _, xxlBefore := imported(t, admin, "order-executor")
	r = cli.Run("", "import", xxl, "--all", "--time-zone", zone)
	if r.Code != 0 || !strings.Contains(r.Stdout, "2 app(s): 14 object(s) imported (0 created, 0 updated, 14 unchanged); 1 left to the set that manages it now") ||
		!strings.Contains(r.Stdout, `job ps-task (from xxl_job_info 8): left as it is: job "ps-task" is managed by the file set "ours"`) ||
		!strings.Contains(r.Stdout, "job shell-cleanup (from xxl_job_info 5): unchanged, enabled") || strings.Contains(r.Stdout, "earlier version") {
		t.Fatalf("importing xxl-job again: %+v", r)
	}
	if _, _, after := imported(t, admin, "order-executor"); after != xxlBefore {
		t.Fatalf("importing again changed order-executor:\nbefore %s\nafter  %s", xxlBefore, after)
	}

	// xxl-job 2.2 (job_desc, job_cron, title): its sample job finds the
	// handler the Java worker registers the xxl-job way, and a PowerJob
	// job the processor it registers the PowerJob way.
	r = cli.Run("", "import", xxl22, "--app", "xxl-job-executor-sample", "--time-zone", zone)
	if r.Code != 0 || !strings.Contains(r.Stdout, "job 测试任务1 (from xxl_job_info 1): created, disabled\n      CRON 0 0 0 * * ? *, processor demoJobHandler") {
		t.Fatalf("xxl-job 2.2 import: %+v", r)
	}
	if got := appNames(t, admin); !slices.Contains(got, "xxl-job-executor-sample: 示例执行器") {
		t.Fatalf("apps: %v", got)
	}
	if jobs, _, _ := imported(t, admin, "xxl-job-executor-sample"); jobs["测试任务1"].Description != "author: XXL" {
		t.Errorf("the 2.2 job: %+v", jobs["测试任务1"])
	}
	sample := secrets(r.Stderr)["xxl-job-executor-sample"]
	harness.StartJavaWorker(t, harness.AgentOptions{Servers: []string{srv.URL}, App: "xxl-job-executor-sample", Secret: sample, Name: "java"})
	if _, err := admin.WaitWorkers("xxl-job-executor-sample", 1, connect); err != nil {
		t.Fatal(err)
	}
	if r := cli.Run("", "run", "测试任务1", "--app", "xxl-job-executor-sample", "--follow"); r.Code != 0 ||
		!strings.Contains(r.Stdout, "XXL-JOB, Hello World. param=") {
		t.Errorf("the imported xxl-job BEAN job on the Java worker: %+v", r)
	}
	reports := secrets(pjAll.Stderr)["report_center"]
	harness.StartJavaWorker(t, harness.AgentOptions{Servers: []string{srv.URL}, App: "report_center", Secret: reports, Name: "java-reports"})
	if _, err := admin.WaitWorkers("report_center", 1, connect); err != nil {
		t.Fatal(err)
	}
	if r := cli.Run("", "run", "weekly-digest", "--app", "report_center", "--follow"); r.Code != 0 ||
		!strings.Contains(r.Stdout, "hello, digest line=1") {
		t.Errorf("the imported PowerJob BUILT_IN job on the Java worker: %+v", r)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func mapsEqualString(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
