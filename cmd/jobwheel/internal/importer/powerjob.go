package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/cmd/jobwheel/internal/manifest"
)

// PowerJob's enums (tech.powerjob.common.enums).
const (
	pjStatusEnabled = 1
	pjStatusDeleted = 99

	pjNodeJob      = 1
	pjNodeDecision = 2
	pjNodeNested   = 3
)

var pjTimeTypes = map[int64]string{1: "API", 2: "CRON", 3: "FIXED_RATE", 4: "FIXED_DELAY", 5: "WORKFLOW", 11: "DAILY_TIME_INTERVAL"}

var pjExecuteTypes = map[int64]string{1: "STANDALONE", 2: "BROADCAST", 3: "MAP_REDUCE", 4: "MAP"}

// PowerJob's official processors (powerjob-official-processors) that
// jobwheel has built in: their script or request is the job's params.
const (
	pjOfficial      = "tech.powerjob.official.processors.impl."
	pjShellOfficial = pjOfficial + "script.ShellProcessor"
	pjPyOfficial    = pjOfficial + "script.PythonProcessor"
	pjHTTPOfficial  = pjOfficial + "HttpProcessor"
)

// Chinese week days, as PowerJob's DAILY_TIME_INTERVAL counts them.
var pjWeekdays = map[int]string{1: "MONDAY", 2: "TUESDAY", 3: "WEDNESDAY", 4: "THURSDAY", 5: "FRIDAY", 6: "SATURDAY", 7: "SUNDAY"}

var pjJobColumns = []string{"id", "app_id", "job_name", "job_description", "job_params", "time_expression_type", "time_expression",
	"execute_type", "processor_type", "processor_info", "concurrency", "max_instance_num", "instance_retry_num", "task_retry_num",
	"instance_time_limit", "dispatch_strategy", "dispatch_strategy_config", "designated_workers", "max_worker_count", "min_cpu_cores",
	"min_memory_space", "min_disk_space", "tag", "lifecycle", "alarm_config", "notify_user_ids", "log_config",
	"advanced_runtime_config", "status", "extra"}

var pjWorkflowColumns = []string{"id", "app_id", "wf_name", "wf_description", "time_expression_type", "time_expression",
	"max_wf_instance_num", "pedag", "status", "lifecycle", "notify_user_ids", "extra"}

var pjNodeColumns = []string{"id", "app_id", "workflow_id", "job_id", "node_name", "node_params", "type", "enable", "skip_when_failed", "extra"}

// powerJob reads PowerJob's apps, jobs and workflows.
func (s *source) powerJob(ctx context.Context, want []string) ([]*App, error) {
	rows, err := s.query(ctx, "app_info", []string{"id", "app_name", "title", "namespace_id", "tags", "extra", "password"}, "", "id")
	if err != nil {
		return nil, err
	}
	users, err := s.pjUsers(ctx)
	if err != nil {
		return nil, err
	}
	found := map[string]bool{}
	taken := map[string]bool{}
	var apps []*App
	for _, r := range rows {
		id, _ := r.int64("id")
		name := r.str("app_name")
		found[name] = true
		if len(want) > 0 && !slices.Contains(want, name) {
			continue
		}
		a := &App{SourceName: name, Source: fmt.Sprintf("app_info %d %q", id, name), Name: appName(name, id), Description: r.str("title")}
		if taken[a.Name] {
			a.Name = appName(fmt.Sprintf("%s-%d", a.Name, id), id)
		}
		taken[a.Name] = true
		if a.Name != name {
			a.approx("named %q: jobwheel app names are lower-case letters, digits, '-', '_' and '.'", a.Name)
		}
		a.approx("PowerJob's app password is not carried over: workers authenticate with the app's secret (shown when the import creates the app)")
		if r.has("namespace_id") || r.has("tags") {
			a.approx("PowerJob's namespace (%s) and tags (%s) of the app have no counterpart: jobwheel's apps are not grouped", r.str("namespace_id"), r.str("tags"))
		}
		if err := s.pjApp(ctx, a, id, users); err != nil {
			return nil, err
		}
		apps = append(apps, a)
	}
	if err := missingApps(want, found, PowerJob); err != nil {
		return nil, err
	}
	return apps, nil
}

// pjUsers are PowerJob's users by id (notify_user_ids name them); nil if
// the database has no user_info.
func (s *source) pjUsers(ctx context.Context) (map[int64]row, error) {
	cols, err := s.columns(ctx, "user_info")
	if err != nil || len(cols) == 0 {
		return nil, err
	}
	rows, err := s.query(ctx, "user_info", []string{"id", "username", "email", "phone", "web_hook"}, "", "id")
	if err != nil {
		return nil, err
	}
	out := map[int64]row{}
	for _, r := range rows {
		id, _ := r.int64("id")
		out[id] = r
	}
	return out, nil
}

func (s *source) pjApp(ctx context.Context, a *App, appID int64, users map[int64]row) error {
	jobs, err := s.query(ctx, "job_info", pjJobColumns, "app_id = ?", "id", appID)
	if err != nil {
		return err
	}
	jobName := map[int64]string{}
	jobObj := map[int64]*Object{}
	var named1 []named
	deleted := 0
	for _, r := range jobs {
		id, _ := r.int64("id")
		if st, _ := r.int64("status"); st == pjStatusDeleted {
			deleted++
			continue
		}
		o := s.pjJob(r, users)
		a.Objects = append(a.Objects, o)
		named1 = append(named1, named{o, r.str("job_name"), id})
	}
	uniqueNames(named1, "job")
	for _, n := range named1 {
		jobName[n.id], jobObj[n.id] = n.obj.Name, n.obj
	}
	if deleted > 0 {
		a.approx("%d job(s) deleted in PowerJob (status 99) are not imported", deleted)
	}

	wfs, err := s.query(ctx, "workflow_info", pjWorkflowColumns, "app_id = ?", "id", appID)
	if err != nil {
		return err
	}
	nodes := map[int64]row{}
	if cols, err := s.columns(ctx, "workflow_node_info"); err != nil {
		return err
	} else if len(cols) > 0 {
		rows, err := s.query(ctx, "workflow_node_info", pjNodeColumns, "app_id = ?", "id", appID)
		if err != nil {
			return err
		}
		for _, r := range rows {
			id, _ := r.int64("id")
			nodes[id] = r
		}
	}
	wfName := map[int64]string{}
	var named2 []named
	var live []row
	deleted = 0
	for _, r := range wfs {
		id, _ := r.int64("id")
		if st, _ := r.int64("status"); st == pjStatusDeleted {
			deleted++
			continue
		}
		o := &Object{Kind: manifest.KindWorkflow, Source: fmt.Sprintf("workflow_info %d", id)}
		a.Objects = append(a.Objects, o)
		named2 = append(named2, named{o, r.str("wf_name"), id})
		live = append(live, r)
	}
	uniqueNames(named2, "workflow")
	for _, n := range named2 {
		wfName[n.id] = n.obj.Name
	}
	if deleted > 0 {
		a.approx("%d workflow(s) deleted in PowerJob (status 99) are not imported", deleted)
	}
	for i, r := range live {
		s.pjWorkflow(named2[i].obj, r, nodes, jobObj, wfName, users)
	}
	return nil
}

// pjJob maps one job_info row.
func (s *source) pjJob(r row, users map[int64]row) *Object {
	id, _ := r.int64("id")
	st, _ := r.int64("status")
	o := &Object{Kind: manifest.KindJob, Source: fmt.Sprintf("job_info %d", id), SourceEnabled: st == pjStatusEnabled}
	spec := &manifest.JobSpec{TimeZone: new(s.loc.String())}
	o.Spec = spec

	desc := r.str("job_description")
	if tag := r.str("tag"); tag != "" {
		desc = strings.TrimSpace(desc + "\ntag: " + tag)
		o.approx("PowerJob's job tag %q is kept in the description: jobwheel jobs have no tags", tag)
	}
	spec.Description = o.description(desc)

	// Schedule.
	typ, _ := r.int64("time_expression_type")
	expr := r.str("time_expression")
	switch name := pjTimeTypes[typ]; name {
	case "API", "WORKFLOW":
		spec.ScheduleType = name
	case "CRON":
		spec.ScheduleType, spec.ScheduleExpression = "CRON", &expr
	case "FIXED_RATE", "FIXED_DELAY":
		ms, err := strconv.ParseInt(expr, 10, 64)
		if err != nil {
			o.block("time_expression %q of a %s job is not milliseconds: imported as an API job; give it a schedule", expr, name)
			spec.ScheduleType = "API"
			break
		}
		spec.ScheduleType, spec.ScheduleExpression = name, new(o.interval(time.Duration(ms)*time.Millisecond, name+" "+expr+" ms"))
	case "DAILY_TIME_INTERVAL":
		s.pjDaily(o, spec, expr)
	default:
		o.block("time_expression_type %d is not one PowerJob documents: imported as an API job; give it a schedule", typ)
		spec.ScheduleType = "API"
	}
	if spec.ScheduleType != "CRON" && spec.ScheduleType != "FIXED_RATE" {
		spec.TimeZone = nil
	}
	if lc := r.str("lifecycle"); lc != "" && lc != "{}" {
		var l struct{ Start, End int64 }
		if err := json.Unmarshal([]byte(lc), &l); err != nil {
			o.person("lifecycle %q is not PowerJob's JSON {start, end}: imported without one", lc)
		} else {
			spec.Lifecycle = lifecycle(l.Start, l.End)
		}
	}

	// How it runs.
	et, _ := r.int64("execute_type")
	mode, ok := pjExecuteTypes[et]
	if !ok {
		o.block("execute_type %d is not one PowerJob documents: imported as STANDALONE", et)
		mode = "STANDALONE"
	}
	if mode != "STANDALONE" {
		spec.ExecutionMode = &mode
	}
	s.pjProcessor(o, spec, r, mode)

	if n := r.int("max_instance_num"); n <= 0 {
		// PowerJob: 0 is no limit.
		spec.MaxInstances = new(maxConcurrency)
		o.approx("max_instance_num 0 (no limit) is %d instances at once, jobwheel's most", maxConcurrency)
	} else if n != 1 {
		spec.MaxInstances = new(o.clamp(n, 1, maxConcurrency, "maxInstances", "max_instance_num"))
	}
	if n := r.int("concurrency"); n > 0 && n != 5 {
		spec.TaskConcurrency = new(o.clamp(n, 1, maxConcurrency, "taskConcurrency", "concurrency"))
	}
	if n := r.int("instance_retry_num"); n != 0 {
		spec.InstanceRetries = new(o.clamp(n, 0, maxRetries, "instanceRetries", "instance_retry_num"))
	}
	if n := r.int("task_retry_num"); n != 0 {
		spec.TaskRetries = new(o.clamp(n, 0, maxRetries, "taskRetries", "task_retry_num"))
	}
	if ms, _ := r.int64("instance_time_limit"); ms > 0 {
		spec.TimeoutMs = o.timeoutMs(ms, "instance_time_limit")
	}

	// Where it runs.
	wf := &manifest.WorkerFilter{}
	s.pjWorkers(o, spec, wf, r, mode)
	if n := r.int("max_worker_count"); n > 0 {
		wf.MaxWorkers = new(o.clamp(n, 0, maxConcurrency, "workerFilter.maxWorkers", "max_worker_count"))
	}
	if c := r.float("min_cpu_cores"); c > 0 {
		n := int(math.Ceil(c))
		if float64(n) != c {
			o.approx("min_cpu_cores %g is %d: jobwheel counts whole cores", c, n)
		}
		wf.MinCPUCores = &n
	}
	// PowerJob's memory and disk minimums are in GB, jobwheel's in MB.
	if g := r.float("min_memory_space"); g > 0 {
		wf.MinMemoryMB = new(int(math.Round(g * 1024)))
	}
	if g := r.float("min_disk_space"); g > 0 {
		wf.MinDiskMB = new(int(math.Round(g * 1024)))
	}
	if !reflect.DeepEqual(*wf, manifest.WorkerFilter{}) {
		spec.WorkerFilter = wf
	}

	spec.Alarm = pjAlarm(o, r.str("notify_user_ids"), r.str("alarm_config"), users)

	// What has no counterpart.
	if lc := r.str("log_config"); lc != "" && lc != "{}" && lc != "null" {
		var l struct {
			Type, Level *int
			LoggerName  string
		}
		if json.Unmarshal([]byte(lc), &l) == nil && (l.Type != nil && *l.Type != 1 || l.LoggerName != "") {
			o.approx("log_config %s has no counterpart: jobwheel ships every line a task logs to the console", lc)
		}
	}
	if ac := r.str("advanced_runtime_config"); ac != "" && ac != "{}" && ac != "null" {
		var c struct{ TaskTrackerBehavior *int }
		if json.Unmarshal([]byte(ac), &c) == nil && c.TaskTrackerBehavior != nil && *c.TaskTrackerBehavior != 1 {
			o.approx("advanced_runtime_config %s has no counterpart: jobwheel's server, not a worker, tracks a map's tasks", ac)
		}
	}
	if x := r.str("extra"); x != "" {
		o.approx("extra %q is not carried over: jobwheel jobs have no free-form field", x)
	}
	o.Summary = jobSummary(spec)
	return o
}

// pjDaily maps a DAILY_TIME_INTERVAL: {interval, intervalUnit,
// startTimeOfDay, endTimeOfDay, daysOfWeek} onto a FIXED_RATE with a
// daily window.
func (s *source) pjDaily(o *Object, spec *manifest.JobSpec, expr string) {
	var d struct {
		Interval       int64  `json:"interval"`
		IntervalUnit   string `json:"intervalUnit"`
		StartTimeOfDay string `json:"startTimeOfDay"`
		EndTimeOfDay   string `json:"endTimeOfDay"`
		DaysOfWeek     []int  `json:"daysOfWeek"`
	}
	if err := json.Unmarshal([]byte(expr), &d); err != nil || d.Interval <= 0 {
		o.block("DAILY_TIME_INTERVAL %q is not PowerJob's JSON {interval, startTimeOfDay, endTimeOfDay, …}: imported as an API job; give it a schedule", expr)
		spec.ScheduleType = "API"
		return
	}
	unit := map[string]time.Duration{"": time.Second, "NANOSECONDS": time.Nanosecond, "MICROSECONDS": time.Microsecond,
		"MILLISECONDS": time.Millisecond, "SECONDS": time.Second, "MINUTES": time.Minute, "HOURS": time.Hour, "DAYS": 24 * time.Hour}
	u, ok := unit[strings.ToUpper(d.IntervalUnit)]
	if !ok {
		o.block("DAILY_TIME_INTERVAL's intervalUnit %q is not a Java TimeUnit: imported as an API job; give it a schedule", d.IntervalUnit)
		spec.ScheduleType = "API"
		return
	}
	spec.ScheduleType = "FIXED_RATE"
	spec.ScheduleExpression = new(o.interval(time.Duration(d.Interval)*u, "DAILY_TIME_INTERVAL's interval"))
	w := &manifest.ScheduleWindow{Start: d.StartTimeOfDay, End: d.EndTimeOfDay}
	if w.Start == "" {
		w.Start = "00:00:00"
	}
	if w.End == "" {
		w.End = "23:59:59"
	}
	if len(d.DaysOfWeek) > 0 && len(d.DaysOfWeek) < 7 {
		days := slices.Clone(d.DaysOfWeek)
		slices.Sort(days)
		for _, n := range slices.Compact(days) {
			if day, ok := pjWeekdays[n]; ok {
				w.Days = append(w.Days, day)
			}
		}
	}
	spec.ScheduleWindow = w
	o.approx("DAILY_TIME_INTERVAL is a FIXED_RATE in a daily window: PowerJob counted the interval from the previous fire, jobwheel fires on a grid from the window's start")
}

// pjProcessor maps processor_type and processor_info.
func (s *source) pjProcessor(o *Object, spec *manifest.JobSpec, r row, mode string) {
	info := r.str("processor_info")
	params := r.raw("job_params")
	if params != "" {
		spec.Params = &params
	}
	pt, _ := r.int64("processor_type")
	script := mode == "STANDALONE" || mode == "BROADCAST"
	switch pt {
	case 1: // BUILT_IN: a processor class (or a Spring bean's name)
		switch {
		case script && (info == pjShellOfficial || info == pjPyOfficial):
			typ, cmd, file := "SHELL", "/bin/sh", "script.sh"
			if info == pjPyOfficial {
				typ, cmd, file = "PYTHON", "python3", "script.py"
			}
			spec.ProcessorType, spec.Params, o.paramsRun = typ, nil, true
			if isURL(params) {
				spec.ProcessorType, spec.Processor = "SHELL", download(params, cmd, file)
				o.person("the script is downloaded from %s at every run, as PowerJob did: keep it in the job instead", strings.TrimSpace(params))
			} else {
				spec.Processor = params
			}
			o.approx("PowerJob's official %s ran the job's params as the script (a manual run's params replaced it); the script is the job's processor now", info[len(pjOfficial):])
			if strings.TrimSpace(spec.Processor) == "" {
				o.block("the job's params held no script to run")
				spec.Processor = "exit 1"
			}
		case info == pjHTTPOfficial && script:
			pjHTTP(o, spec, params)
		default:
			spec.ProcessorType, spec.Processor = "GO", goName(o, info, "processor_info")
			if strings.HasPrefix(info, pjOfficial) {
				o.block("%s is one of PowerJob's official processors, which jobwheel's Java SDK does not carry: port it to a processor registered as %q, or use a SHELL or HTTP job", info, info)
			} else if !strings.Contains(info, ".") {
				o.approx("%q looks like a Spring bean's name, not a class: register the processor under it, w.register(%q, processor)", info, info)
			}
		}
	case 2, 3: // SHELL, PYTHON (deprecated): the script, or a URL to fetch it from
		typ, cmd, file := "SHELL", "/bin/sh", "script.sh"
		if pt == 3 {
			typ, cmd, file = "PYTHON", "python3", "script.py"
			o.approx("PowerJob ran the script with `python`; jobwheel runs `python3 -u`")
		}
		raw := r.raw("processor_info")
		if isURL(raw) {
			spec.ProcessorType, spec.Processor = "SHELL", download(raw, cmd, file)
			o.person("the script is downloaded from %s at every run, as PowerJob did: keep it in the job instead", info)
		} else {
			spec.ProcessorType, spec.Processor = typ, raw
		}
		if !script {
			o.block("a %s script cannot run as %s (jobwheel's MAP and MAP_REDUCE need a processor that calls map()): imported as STANDALONE", typ, mode)
			spec.ExecutionMode = nil
		}
	case 4: // EXTERNAL: a processor in a container PowerJob loaded at run time
		class := info
		if _, after, ok := strings.Cut(info, "#"); ok {
			class = after
		}
		spec.ProcessorType, spec.Processor = "GO", goName(o, class, "processor_info")
		o.block("PowerJob's containers (EXTERNAL processors loaded at run time) have no counterpart: deploy %s in a Java worker, registered as %q", class, spec.Processor)
	default:
		spec.ProcessorType, spec.Processor = "GO", goName(o, info, "processor_info")
		o.block("processor_type %d is not one PowerJob documents: imported as a GO processor named %q", pt, spec.Processor)
	}
}

// goName is a processor name as a GO processor's: no spaces, at most 255
// characters.
func goName(o *Object, name, field string) string {
	n := strings.Join(strings.Fields(name), "")
	if n == "" {
		o.block("%s is empty: imported as processor %q; register the job's processor under it, or change the job", field, "unnamed")
		return "unnamed"
	}
	if len(n) > 255 {
		n = n[:255]
	}
	if n != name {
		o.approx("%s %q is the processor name %q (no spaces, at most 255 characters)", field, name, n)
	}
	return n
}

// pjHTTP maps PowerJob's official HttpProcessor params onto an HTTP job.
func pjHTTP(o *Object, spec *manifest.JobSpec, params string) {
	var p struct {
		Method, URL, MediaType, Body string
		Headers                      map[string]string
		Timeout                      *int
	}
	if err := json.Unmarshal([]byte(params), &p); err != nil || strings.TrimSpace(p.URL) == "" {
		spec.ProcessorType, spec.Processor = "GO", pjHTTPOfficial
		o.block("the HttpProcessor's params are not its JSON {method, url, …}: imported as a GO processor; make it an HTTP job by hand")
		return
	}
	u := strings.TrimSpace(p.URL)
	if !strings.HasPrefix(u, "http") {
		u = "http://" + u // as HttpProcessor does
	}
	req := map[string]any{"method": strings.ToUpper(p.Method), "url": u, "expectStatus": 200}
	if req["method"] == "" {
		req["method"] = "GET"
	}
	headers := map[string]string{}
	for k, v := range p.Headers {
		headers[k] = v
	}
	if req["method"] != "GET" {
		body := p.Body
		if body == "" {
			body = "{}"
		}
		req["body"] = body
		if p.MediaType == "" && json.Valid([]byte(body)) {
			p.MediaType = "application/json"
		}
		if p.MediaType != "" {
			headers["Content-Type"] = p.MediaType
		}
	}
	if len(headers) > 0 {
		req["headers"] = headers
	}
	timeout := 60 // HttpProcessor's default, in seconds
	if p.Timeout != nil {
		timeout = *p.Timeout
	}
	req["timeoutMs"] = timeout * 1000
	b, _ := json.Marshal(req)
	spec.ProcessorType, spec.Processor, spec.Params, o.paramsRun = "HTTP", string(b), nil, true
	o.approx("PowerJob's official HttpProcessor is jobwheel's HTTP processor: the request is the job's now (a manual run's params no longer replace it); a status other than 200 fails, as it did")
}

// pjWorkers maps designated_workers and the SPECIFY dispatch strategy.
func (s *source) pjWorkers(o *Object, spec *manifest.JobSpec, wf *manifest.WorkerFilter, r row, mode string) {
	ds, _ := r.int64("dispatch_strategy")
	switch ds {
	case 0, 1:
	case 2:
		spec.DispatchStrategy = new("RANDOM")
	case 11: // SPECIFY: which worker leads the instance
		cfg := r.str("dispatch_strategy_config")
		switch {
		case cfg == "":
		case mode == "STANDALONE" && strings.HasPrefix(cfg, "tagEquals:"):
			wf.Tags = append(wf.Tags, strings.TrimPrefix(cfg, "tagEquals:"))
			o.approx("dispatch SPECIFY %q is the worker tag %q: a STANDALONE job's one task runs on a worker with it", cfg, wf.Tags[len(wf.Tags)-1])
		case mode == "STANDALONE" && strings.HasPrefix(cfg, "tagIn:"):
			wf.Tags = append(wf.Tags, strings.TrimPrefix(cfg, "tagIn:"))
			o.approx("dispatch SPECIFY %q is the worker tag %q: jobwheel matches a worker's tags one by one, PowerJob matched within its tag text", cfg, wf.Tags[len(wf.Tags)-1])
		default:
			o.block("dispatch SPECIFY %q chose the worker that leads each instance; jobwheel has no leader to choose: set the job's workers (workerFilter) by hand", cfg)
		}
	default:
		o.person("dispatch_strategy %d is not one PowerJob documents: HEALTH_FIRST", ds)
	}
	list := splitList(r.str("designated_workers"))
	if len(list) == 0 {
		return
	}
	var hosts, tags []string
	for _, w := range list {
		if host, _, err := net.SplitHostPort(w); err == nil {
			hosts = append(hosts, host)
		} else if net.ParseIP(w) != nil {
			hosts = append(hosts, w)
		} else {
			tags = append(tags, w)
		}
	}
	switch {
	case len(tags) == 0:
		wf.Designated = hosts
		o.person("designated_workers %q are PowerJob worker addresses: jobwheel designates workers by id or host (jobwheel workers lists them); check that %s are the hosts the Java workers report", strings.Join(list, ","), strings.Join(hosts, ", "))
	case len(hosts) == 0 && len(tags) == 1:
		wf.Tags = append(wf.Tags, tags[0])
	default:
		o.block("designated_workers %q took a worker matching any one of them (tag or address); jobwheel requires every tag and any designated host: set the job's workers (workerFilter) by hand", strings.Join(list, ","))
	}
}

// pjAlarm maps notify_user_ids (users' emails and webhooks) and
// alarm_config ({alertThreshold, statisticWindowLen, silenceWindowLen}).
func pjAlarm(o *Object, ids, config string, users map[int64]row) *manifest.Alarm {
	list := splitList(ids)
	if len(list) == 0 {
		return nil
	}
	a := &manifest.Alarm{}
	for _, s := range list {
		id, err := strconv.ParseInt(s, 10, 64)
		u, ok := users[id]
		switch {
		case err != nil || users == nil || !ok:
			o.person("alarm user %s is not in PowerJob's user_info: add whom to alarm by hand", s)
			continue
		}
		who := u.str("username")
		before := len(a.Channels)
		if e := u.str("email"); e != "" {
			if ch, ok := emailChannel(o, e, "alarm user "+who+"'s email"); ok {
				a.Channels = append(a.Channels, ch)
			}
		}
		if h := u.str("web_hook"); h != "" {
			if ch, ok := channelOf(h); ok {
				a.Channels = append(a.Channels, ch)
			} else {
				o.person("alarm user %s's webhook %q is not an http(s) URL: not carried over", who, h)
			}
		}
		if u.has("phone") {
			o.approx("alarm user %s's phone (SMS, calls) has no counterpart: jobwheel alarms by email, webhook and IM robots", who)
		}
		if len(a.Channels) == before && !u.has("phone") {
			o.person("alarm user %s has no email or webhook in PowerJob: add whom to alarm by hand", who)
		}
	}
	slices.SortStableFunc(a.Channels, func(x, y manifest.AlarmChannel) int { return strings.Compare(x.Type+x.Target, y.Type+y.Target) })
	a.Channels = slices.Compact(a.Channels)
	var c struct {
		AlertThreshold     *int `json:"alertThreshold"`
		StatisticWindowLen *int `json:"statisticWindowLen"`
		SilenceWindowLen   *int `json:"silenceWindowLen"`
	}
	_ = json.Unmarshal([]byte(config), &c)
	rule := manifest.AlarmRule{Type: "FAILURE"}
	if c.AlertThreshold != nil && *c.AlertThreshold > 1 {
		rule = manifest.AlarmRule{Type: "CONSECUTIVE_FAILURES", Threshold: new(min(*c.AlertThreshold, 1000))}
		o.approx("alarm_config alarms after %d failures: PowerJob counted them within a window of %d s, jobwheel counts failures in a row", *c.AlertThreshold, deref(c.StatisticWindowLen))
	}
	if c.SilenceWindowLen != nil && *c.SilenceWindowLen > 0 {
		rule.SilenceSec = new(min(*c.SilenceWindowLen, 30*24*3600))
	}
	a.Rules = []manifest.AlarmRule{rule}
	if len(a.Channels) == 0 {
		return nil
	}
	return a
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// pedag is PowerJob's workflow DAG (PEWorkflowDAG). Since 4.0 its nodes
// keep only their id, workflow_node_info the rest; older ones carry it
// all.
type pedag struct {
	Nodes []struct {
		NodeID         int64   `json:"nodeId"`
		NodeType       *int64  `json:"nodeType"`
		JobID          *int64  `json:"jobId"`
		NodeName       string  `json:"nodeName"`
		NodeParams     *string `json:"nodeParams"`
		Enable         *bool   `json:"enable"`
		SkipWhenFailed *bool   `json:"skipWhenFailed"`
	} `json:"nodes"`
	Edges []struct {
		From     int64   `json:"from"`
		To       int64   `json:"to"`
		Property *string `json:"property"`
	} `json:"edges"`
}

// pjWorkflow maps one workflow_info row and its DAG.
func (s *source) pjWorkflow(o *Object, r row, nodes map[int64]row, jobObj map[int64]*Object, wfName map[int64]string, users map[int64]row) {
	st, _ := r.int64("status")
	o.SourceEnabled = st == pjStatusEnabled
	spec := &manifest.WorkflowSpec{TimeZone: new(s.loc.String())}
	o.Spec = spec
	spec.Description = o.description(r.str("wf_description"))

	typ, _ := r.int64("time_expression_type")
	expr := r.str("time_expression")
	switch name := pjTimeTypes[typ]; name {
	case "API":
		spec.ScheduleType = "API"
	case "CRON":
		spec.ScheduleType, spec.ScheduleExpression = "CRON", &expr
	case "FIXED_RATE", "FIXED_DELAY", "DAILY_TIME_INTERVAL":
		ms, err := strconv.ParseInt(expr, 10, 64)
		if name == "FIXED_RATE" && err == nil {
			spec.ScheduleType, spec.ScheduleExpression = "FIXED_RATE", new(o.interval(time.Duration(ms)*time.Millisecond, "FIXED_RATE "+expr+" ms"))
			break
		}
		spec.ScheduleType = "API"
		o.block("a %s workflow schedule (%s) has no counterpart: jobwheel's workflows run on CRON, FIXED_RATE or API; imported as API", name, expr)
	default:
		spec.ScheduleType = "API"
		o.block("time_expression_type %d is not a workflow schedule: imported as API", typ)
	}
	if spec.ScheduleType == "API" {
		spec.TimeZone = nil
	}
	if n := r.int("max_wf_instance_num"); n <= 0 {
		spec.MaxInstances = new(maxConcurrency)
	} else if n != 1 {
		spec.MaxInstances = new(o.clamp(n, 1, maxConcurrency, "maxInstances", "max_wf_instance_num"))
	}
	if lc := r.str("lifecycle"); lc != "" && lc != "{}" && lc != "null" {
		var l struct{ Start, End *int64 }
		if json.Unmarshal([]byte(lc), &l) == nil && (l.Start != nil || l.End != nil) {
			o.person("lifecycle %s has no counterpart on jobwheel's workflows: it runs on its schedule without bounds; enable and disable it by hand", lc)
		}
	}
	if a := pjAlarm(o, r.str("notify_user_ids"), "", users); a != nil {
		spec.Alarm = a
	}

	var dag pedag
	if err := json.Unmarshal([]byte(r.raw("pedag")), &dag); err != nil || len(dag.Nodes) == 0 {
		o.Skip = "its DAG (pedag) is empty or not PowerJob's JSON"
		o.Summary = "not imported"
		return
	}
	key := func(id int64) string { return fmt.Sprintf("n%d", id) }
	types := map[int64]int64{}
	for _, n := range dag.Nodes {
		info := nodes[n.NodeID]
		node := manifest.WorkflowNode{Key: key(n.NodeID)}
		t := int64(pjNodeJob)
		switch {
		case info != nil && info.has("type"):
			t, _ = info.int64("type")
		case n.NodeType != nil:
			t = *n.NodeType
		}
		types[n.NodeID] = t
		var target int64
		switch {
		case info != nil && info.has("job_id"):
			target, _ = info.int64("job_id")
		case n.JobID != nil:
			target = *n.JobID
		}
		name, params := n.NodeName, n.NodeParams
		enabled, skip := n.Enable == nil || *n.Enable, n.SkipWhenFailed != nil && *n.SkipWhenFailed
		if info != nil {
			name = info.str("node_name")
			switch {
			case info.has("node_params"):
				params = new(info.raw("node_params"))
			case t == pjNodeDecision && info.has("extra"):
				// PowerJob keeps a decision's script in node_params; some
				// versions' consoles left it in extra.
				params = new(info.raw("extra"))
			default:
				params = nil
			}
			if target == 0 && t == pjNodeNested {
				target, _ = info.int64("extra")
			}
			enabled, skip = info.bool("enable"), info.bool("skip_when_failed")
		}
		if nn := nodeName(name); nn != "" {
			node.Name = &nn
		}
		if !enabled {
			node.Enabled = new(false)
		}
		if skip {
			node.SkipWhenFailed = new(true)
		}
		switch t {
		case pjNodeJob:
			node.Type = "JOB"
			job, ok := jobObj[target]
			if !ok {
				o.Skip = fmt.Sprintf("node %d runs job %d, which is not among the app's imported jobs (deleted?)", n.NodeID, target)
				return
			}
			node.Job = &job.Name
			if params != nil && strings.TrimSpace(*params) != "" {
				node.Params = params
				if job.paramsRun {
					o.person("node %s's params were what PowerJob's official processor ran (the script, the request) in place of job %q's; jobwheel runs the job's own and passes the node's params to it: make the node's a job of its own", node.Key, job.Name)
				}
			}
		case pjNodeDecision:
			node.Type = "DECISION"
			groovy := ""
			if params != nil {
				groovy = *params
			}
			expr, exact, translated := decision(groovy)
			node.Expression = &expr
			switch {
			case exact:
			case translated:
				o.person("decision node %s: Groovy %q is translated to expr-lang %q; check it: PowerJob's context held strings, jobwheel's holds the JSON values workers append", node.Key, strings.TrimSpace(groovy), expr)
			default:
				o.block("decision node %s: Groovy %q has no translation: rewrite it in expr-lang (its Groovy is kept as comments; until then the node fails)", node.Key, strings.TrimSpace(groovy))
			}
		case pjNodeNested:
			node.Type = "NESTED"
			wf, ok := wfName[target]
			if !ok {
				o.Skip = fmt.Sprintf("node %d nests workflow %d, which is not among the app's imported workflows (deleted?)", n.NodeID, target)
				return
			}
			node.Workflow = &wf
		default:
			o.Skip = fmt.Sprintf("node %d is of type %d, which PowerJob does not document", n.NodeID, t)
			return
		}
		spec.Nodes = append(spec.Nodes, node)
	}
	known := map[string]bool{}
	for _, n := range spec.Nodes {
		known[n.Key] = true
	}
	for _, e := range dag.Edges {
		edge := manifest.WorkflowEdge{From: key(e.From), To: key(e.To)}
		if !known[edge.From] || !known[edge.To] {
			o.person("edge %d → %d names a node the DAG does not have: left out", e.From, e.To)
			continue
		}
		if types[e.From] == pjNodeDecision {
			// PowerJob took an edge whose property parses as the
			// decision's boolean; no property parses as false.
			label := "false"
			if e.Property != nil && strings.EqualFold(strings.TrimSpace(*e.Property), "true") {
				label = "true"
			}
			edge.Label = &label
		}
		spec.Edges = append(spec.Edges, edge)
	}
	o.Summary = workflowSummary(spec)
}
