package importer

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/cmd/jobwheel/internal/manifest"
)

// xxl-job's columns, 2.x's and 3.x's: 3.x names a job `name` and a group
// `name`, 2.x `job_desc` and `title`; before 2.3 a job had only
// `job_cron`, no schedule_type.
var xxlJobColumns = []string{"id", "job_group", "name", "job_desc", "author", "alarm_email", "schedule_type", "schedule_conf", "job_cron",
	"misfire_strategy", "executor_route_strategy", "executor_handler", "executor_param", "executor_block_strategy",
	"executor_timeout", "executor_fail_retry_count", "glue_type", "glue_source", "glue_remark", "glue_updatetime",
	"child_jobid", "trigger_status"}

var xxlGroupColumns = []string{"id", "app_name", "name", "title", "address_type", "address_list", "access_token"}

var xxlGlueColumns = []string{"id", "job_id", "glue_type", "glue_source", "glue_remark", "add_time"}

// xxlRoutes maps executor_route_strategy onto a dispatch strategy, with
// how it differs ("" exact).
var xxlRoutes = map[string]struct{ strategy, note string }{
	"FIRST":                 {"HEALTH_FIRST", "route FIRST took the first executor of xxl-job's list; jobwheel keeps no order of workers: HEALTH_FIRST takes the healthiest (designate a worker to pin it)"},
	"LAST":                  {"HEALTH_FIRST", "route LAST took the last executor of xxl-job's list; jobwheel keeps no order of workers: HEALTH_FIRST takes the healthiest (designate a worker to pin it)"},
	"ROUND":                 {"ROUND_ROBIN", ""},
	"RANDOM":                {"RANDOM", ""},
	"CONSISTENT_HASH":       {"CONSISTENT_HASH", "route CONSISTENT_HASH kept a job on one executor by its id; jobwheel's CONSISTENT_HASH does the same by the job (or a run's params' key)"},
	"LEAST_FREQUENTLY_USED": {"LEAST_RECENTLY_USED", "route LEAST_FREQUENTLY_USED has no counterpart: LEAST_RECENTLY_USED, the worker picked longest ago, spreads runs alike"},
	"LEAST_RECENTLY_USED":   {"LEAST_RECENTLY_USED", ""},
	"FAILOVER":              {"HEALTH_FIRST", "route FAILOVER probed executors until one answered; jobwheel dispatches only to workers that are connected and healthy (HEALTH_FIRST)"},
	"BUSYOVER":              {"HEALTH_FIRST", "route BUSYOVER skipped busy executors; HEALTH_FIRST takes the worker with the most free slots"},
	"SHARDING_BROADCAST":    {"HEALTH_FIRST", ""},
}

// xxlBlocks maps executor_block_strategy onto an overlap policy.
var xxlBlocks = map[string]string{"SERIAL_EXECUTION": "QUEUE", "DISCARD_LATER": "CANCEL", "COVER_EARLY": "REPLACE"}

// xxlJob reads xxl-job's executor groups (apps), jobs and GLUE history.
func (s *source) xxlJob(ctx context.Context, want []string) ([]*App, error) {
	groups, err := s.query(ctx, "xxl_job_group", xxlGroupColumns, "", "id")
	if err != nil {
		return nil, err
	}
	jobs, err := s.query(ctx, "xxl_job_info", xxlJobColumns, "", "id")
	if err != nil {
		return nil, err
	}
	history := map[int64][]row{}
	if cols, err := s.columns(ctx, "xxl_job_logglue"); err != nil {
		return nil, err
	} else if len(cols) > 0 {
		rows, err := s.query(ctx, "xxl_job_logglue", xxlGlueColumns, "", "job_id, id")
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			id, _ := r.int64("job_id")
			history[id] = append(history[id], r)
		}
	}
	groupOf := map[int64]int64{}
	byGroup := map[int64][]row{}
	for _, j := range jobs {
		id, _ := j.int64("id")
		g, _ := j.int64("job_group")
		groupOf[id] = g
		byGroup[g] = append(byGroup[g], j)
	}
	groupName := map[int64]string{}
	for _, g := range groups {
		id, _ := g.int64("id")
		groupName[id] = g.str("app_name")
	}

	found, taken := map[string]bool{}, map[string]bool{}
	var apps []*App
	for _, g := range groups {
		id, _ := g.int64("id")
		name := g.str("app_name")
		found[name] = true
		if len(want) > 0 && !slices.Contains(want, name) {
			continue
		}
		title := g.str("name")
		if title == "" {
			title = g.str("title")
		}
		a := &App{SourceName: name, Source: fmt.Sprintf("xxl_job_group %d %q", id, name), Name: appName(name, id), Description: title}
		if taken[a.Name] {
			a.Name = appName(fmt.Sprintf("%s-%d", a.Name, id), id)
		}
		taken[a.Name] = true
		if a.Name != name {
			a.approx("named %q: jobwheel app names are lower-case letters, digits, '-', '_' and '.'", a.Name)
		}
		if g.int("address_type") == 1 && g.has("address_list") {
			a.approx("the executors' addresses entered by hand (%s) are not needed: jobwheel's workers connect to the server themselves", g.str("address_list"))
		}
		if g.has("access_token") {
			a.approx("the executors' access token is not carried over: workers authenticate with the app's secret (shown when the import creates the app)")
		}
		s.xxlGroup(a, id, byGroup[id], history, groupOf, groupName)
		apps = append(apps, a)
	}
	if err := missingApps(want, found, XXLJob); err != nil {
		return nil, err
	}
	return apps, nil
}

// xxlGroup maps a group's jobs, and their child jobs onto workflows.
func (s *source) xxlGroup(a *App, groupID int64, jobs []row, history map[int64][]row, groupOf map[int64]int64, groupName map[int64]string) {
	byID := map[int64]*Object{}
	var list []named
	var order []int64
	for _, r := range jobs {
		id, _ := r.int64("id")
		o := s.xxlJobObject(r, history[id])
		a.Objects = append(a.Objects, o)
		byID[id] = o
		name := r.str("name")
		if name == "" {
			name = r.str("job_desc")
		}
		list = append(list, named{o, name, id})
		order = append(order, id)
	}
	uniqueNames(list, "job")

	// Child jobs: xxl-job triggered them once their parent succeeded.
	children := map[int64][]int64{}
	for _, r := range jobs {
		id, _ := r.int64("id")
		o := byID[id]
		for _, c := range splitList(r.str("child_jobid")) {
			cid, err := strconv.ParseInt(c, 10, 64)
			switch g, ok := groupOf[cid]; {
			case err != nil || !ok:
				o.person("child job %s does not exist in xxl-job: not chained", c)
			case g != groupID:
				o.person("child job %d belongs to another executor (%s): a jobwheel workflow runs one app's jobs, so it is not chained; trigger it from that app", cid, groupName[g])
			case cid == id:
				o.person("the job is its own child job (xxl-job ran it again after every success): not chained")
			case !slices.Contains(children[id], cid):
				children[id] = append(children[id], cid)
			}
		}
	}
	for _, id := range order {
		if len(children[id]) > 0 {
			a.Objects = append(a.Objects, chain(id, byID, children))
		}
	}
}

// chain is the workflow that runs a job with children as xxl-job did: the
// job, then each child once it succeeded, and so on down; the job's
// schedule moves to the workflow.
func chain(root int64, byID map[int64]*Object, children map[int64][]int64) *Object {
	p := byID[root]
	ps := p.Spec.(*manifest.JobSpec)
	const suffix = " (chain)"
	w := &Object{Kind: manifest.KindWorkflow, Name: truncate(p.Name, maxObjectName-len(suffix)) + suffix,
		Source: fmt.Sprintf("xxl_job_info %d's child jobs", root), SourceEnabled: p.SourceEnabled}
	spec := &manifest.WorkflowSpec{ScheduleType: ps.ScheduleType, ScheduleExpression: ps.ScheduleExpression, TimeZone: ps.TimeZone,
		MisfirePolicy: ps.MisfirePolicy}
	if ps.Alarm != nil {
		// Its own copy: the import may leave a channel out of one of them.
		spec.Alarm = &manifest.Alarm{Rules: slices.Clone(ps.Alarm.Rules), Channels: slices.Clone(ps.Alarm.Channels)}
	}
	w.Spec = spec
	if ps.ScheduleType == "FIXED_DELAY" {
		spec.ScheduleType = "FIXED_RATE"
		w.approx("FIXED_DELAY is FIXED_RATE: jobwheel's workflows have no FIXED_DELAY")
	}
	switch deref2(ps.OverlapPolicy) {
	case "QUEUE":
		spec.OverlapPolicy = new("QUEUE")
	case "REPLACE":
		w.approx("the job's block strategy COVER_EARLY has no counterpart on workflows: a run due while one runs is CANCELED")
	}
	spec.Description = w.description(fmt.Sprintf("Runs %s, then its child jobs, as xxl-job did.", p.Name))
	key := func(id int64) string { return fmt.Sprintf("job-%d", id) }
	seen := map[int64]bool{}
	onPath := map[int64]bool{}
	var visit func(id int64)
	visit = func(id int64) {
		seen[id], onPath[id] = true, true
		o := byID[id]
		spec.Nodes = append(spec.Nodes, manifest.WorkflowNode{Key: key(id), Type: "JOB", Name: new(nodeName(o.Name)), Job: new(o.Name)})
		for _, c := range children[id] {
			if onPath[c] {
				w.person("the child jobs loop (%s → %s): xxl-job ran them round without end; the edge back is left out", o.Name, byID[c].Name)
				continue
			}
			spec.Edges = append(spec.Edges, manifest.WorkflowEdge{From: key(id), To: key(c)})
			if !seen[c] {
				visit(c)
			}
		}
		onPath[id] = false
	}
	visit(root)

	// The job itself runs through the workflow now.
	if ps.ScheduleType != "API" {
		p.approx("its schedule (%s) moved to workflow %q, which runs it and then its child jobs: run the workflow to run the chain (the job alone runs no child)", scheduleSummary(ps), w.Name)
	} else {
		p.approx("workflow %q runs it and then its child jobs: run the workflow to run the chain (the job alone runs no child)", w.Name)
	}
	ps.ScheduleType, ps.ScheduleExpression, ps.TimeZone, ps.MisfirePolicy = "API", nil, nil, nil
	p.Summary = jobSummary(ps)
	w.Summary = workflowSummary(spec)
	return w
}

func deref2(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// xxlJobObject maps one xxl_job_info row, with its GLUE history.
func (s *source) xxlJobObject(r row, history []row) *Object {
	id, _ := r.int64("id")
	o := &Object{Kind: manifest.KindJob, Source: fmt.Sprintf("xxl_job_info %d", id), SourceEnabled: r.int("trigger_status") == 1}
	spec := &manifest.JobSpec{TimeZone: new(s.loc.String())}
	o.Spec = spec
	author := r.str("author")
	if author != "" {
		spec.Description = o.description("author: " + author)
	}
	if r.has("name") && r.has("job_desc") && r.str("name") != r.str("job_desc") {
		spec.Description = o.description(strings.TrimSpace(r.str("job_desc") + "\n" + deref2(spec.Description)))
	}

	// Schedule.
	typ, conf := r.str("schedule_type"), r.str("schedule_conf")
	if typ == "" && r.has("job_cron") {
		typ, conf = "CRON", r.str("job_cron")
	}
	switch typ {
	case "NONE", "":
		spec.ScheduleType = "API"
	case "CRON":
		spec.ScheduleType, spec.ScheduleExpression = "CRON", &conf
	case "FIX_RATE":
		sec, err := strconv.ParseInt(conf, 10, 64)
		if err != nil {
			o.block("FIX_RATE %q is not seconds: imported as an API job; give it a schedule", conf)
			spec.ScheduleType = "API"
			break
		}
		spec.ScheduleType, spec.ScheduleExpression = "FIXED_RATE", new(o.interval(time.Duration(sec)*time.Second, "FIX_RATE "+conf+" s"))
	case "FIX_DELAY":
		sec, err := strconv.ParseInt(conf, 10, 64)
		if err != nil {
			o.block("FIX_DELAY %q is not seconds: imported as an API job; give it a schedule", conf)
			spec.ScheduleType = "API"
			break
		}
		spec.ScheduleType, spec.ScheduleExpression = "FIXED_DELAY", new(o.interval(time.Duration(sec)*time.Second, "FIX_DELAY "+conf+" s"))
	default:
		o.block("schedule_type %q is not one xxl-job documents: imported as an API job; give it a schedule", typ)
		spec.ScheduleType = "API"
	}
	if spec.ScheduleType != "CRON" && spec.ScheduleType != "FIXED_RATE" {
		spec.TimeZone = nil
	}
	if spec.ScheduleType != "API" {
		switch m := r.str("misfire_strategy"); m {
		case "", "DO_NOTHING":
			spec.MisfirePolicy = new("SKIP")
		case "FIRE_ONCE_NOW":
		default:
			o.person("misfire_strategy %q is not one xxl-job documents: FIRE_ONCE", m)
		}
	}

	// Route and blocking.
	route := r.str("executor_route_strategy")
	rt, ok := xxlRoutes[route]
	if !ok {
		rt = xxlRoutes["FIRST"]
		rt.note = ""
		o.person("route %q is not one xxl-job documents: HEALTH_FIRST", route)
	}
	if rt.strategy != "HEALTH_FIRST" {
		spec.DispatchStrategy = new(rt.strategy)
	}
	if rt.note != "" {
		o.approx("%s", rt.note)
	}
	if route == "SHARDING_BROADCAST" {
		spec.ExecutionMode = new("BROADCAST")
	}
	block := r.str("executor_block_strategy")
	policy, ok := xxlBlocks[block]
	if !ok {
		if block != "" {
			o.person("block strategy %q is not one xxl-job documents: QUEUE, as SERIAL_EXECUTION", block)
		}
		policy = "QUEUE"
	}
	if policy != "CANCEL" {
		spec.OverlapPolicy = &policy
	}
	if policy == "QUEUE" {
		// xxl-job's queue had no bound.
		spec.MaxQueued = new(maxQueued)
	}
	if sec, _ := r.int64("executor_timeout"); sec > 0 {
		spec.TimeoutMs = o.timeoutMs(sec*1000, "executor_timeout")
	}
	if n := r.int("executor_fail_retry_count"); n != 0 {
		spec.InstanceRetries = new(o.clamp(n, 0, maxRetries, "instanceRetries", "executor_fail_retry_count"))
	}
	if p := r.raw("executor_param"); p != "" {
		spec.Params = &p
	}

	// Alarm.
	if emails := splitList(r.str("alarm_email")); len(emails) > 0 {
		a := &manifest.Alarm{Rules: []manifest.AlarmRule{{Type: "FAILURE"}}}
		for _, e := range emails {
			if ch, ok := emailChannel(o, e, "alarm_email"); ok && !slices.Contains(a.Channels, ch) {
				a.Channels = append(a.Channels, ch)
			}
		}
		if len(a.Channels) > 0 {
			spec.Alarm = a
		}
	}

	// What runs.
	glueType := r.str("glue_type")
	switch glueType {
	case "BEAN", "":
		spec.ProcessorType, spec.Processor = "GO", goName(o, r.str("executor_handler"), "executor_handler")
	case "GLUE_GROOVY":
		spec.ProcessorType, spec.Processor = "GO", fmt.Sprintf("glue-groovy-%d", id)
		o.block("a GLUE(Java) job's Groovy source cannot run in jobwheel: port it (xxl_job_info %d's glue_source) to a Java processor registered as %q", id, spec.Processor)
	default:
		pt, p, ok := glueScript(glueType, r.raw("glue_source"))
		if !ok {
			spec.ProcessorType, spec.Processor = "GO", fmt.Sprintf("glue-%d", id)
			o.block("glue_type %q is not one xxl-job documents: imported as a GO processor named %q", glueType, spec.Processor)
			break
		}
		spec.ProcessorType, spec.Processor = pt, p
		g := glueTypes[glueType]
		if pt == "SHELL" {
			o.approx("a %s script runs with `%s` on the worker, as xxl-job ran it (the job writes it to a file and runs %s on it)", glueType, g.cmd, g.cmd)
		} else {
			o.approx("a %s script is a PYTHON job: two lines in front give it the sys.argv xxl-job gave (param, shard index, shard total)", glueType)
		}
		if strings.TrimSpace(r.raw("glue_source")) == "" {
			o.block("the GLUE script is empty")
		}
		o.Versions = s.xxlVersions(o, glueType, r.raw("glue_source"), history)
		o.Summary = strings.Replace(jobSummary(spec), scriptSummary(pt, p),
			strings.Replace(scriptSummary(glueType, r.raw("glue_source")), " script", " script run by "+g.cmd, 1)+" as a "+pt+" job", 1)
		return o
	}
	o.Summary = jobSummary(spec)
	return o
}

// xxlVersions are a GLUE job's earlier scripts from xxl_job_logglue,
// oldest first. xxl-job logs each script as it is saved, the current one
// too; that one (and any save that changed nothing) is not a version of
// its own.
func (s *source) xxlVersions(o *Object, curType, curSource string, history []row) []Version {
	var out []Version
	last := ""
	skipped := 0
	for i, h := range history {
		typ := h.str("glue_type")
		if typ == "" {
			typ = curType
		}
		src := h.raw("glue_source")
		if i == len(history)-1 && typ == curType && src == curSource {
			break
		}
		if typ+"\x00"+src == last {
			continue
		}
		last = typ + "\x00" + src
		pt, p, ok := glueScript(typ, src)
		if !ok || strings.TrimSpace(src) == "" {
			skipped++
			continue
		}
		v := Version{ProcessorType: pt, Processor: p, Remark: h.str("glue_remark"), CreatedAt: s.time(h, "add_time")}
		v.Author = truncate(strings.TrimSpace("xxl-job: "+v.Remark), 64)
		out = append(out, v)
	}
	if skipped > 0 {
		o.approx("%d earlier GLUE version(s) that were no script (or empty) are not kept", skipped)
	}
	return out
}
