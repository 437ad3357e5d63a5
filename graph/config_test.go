package graph

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

const applyQ = `mutation($in: ConfigInput!, $dry: Boolean) { applyConfig(input: $in, dryRun: $dry) {
	applied changes { kind app name action fields } } }`

type configChange struct {
	Kind, App, Name, Action string
	Fields                  []string
}

type applyResult struct {
	ApplyConfig struct {
		Applied bool
		Changes []configChange
	}
}

// actions summarises a result as "KIND name ACTION" lines.
func actions(r applyResult) []string {
	var out []string
	for _, c := range r.ApplyConfig.Changes {
		line := c.Kind + " " + c.Name + " " + c.Action
		if len(c.Fields) > 0 {
			line += " " + strings.Join(c.Fields, ",")
		}
		out = append(out, line)
	}
	return out
}

// configSet is a set of files' worth of objects for app orders: a
// calendar, two jobs, and two workflows, the first nesting the second
// (given after it) by name and both running the jobs by name.
func configSet() map[string]any {
	job := func(name, expr string) map[string]any {
		return map[string]any{"app": "orders", "name": name, "scheduleType": "CRON", "scheduleExpression": expr,
			"processorType": "SHELL", "processor": "echo " + name, "calendar": "holidays",
			"workerFilter": map[string]any{"tags": []string{}}}
	}
	return map[string]any{
		"set":       "cfg",
		"apps":      []string{"orders"},
		"calendars": []any{map[string]any{"app": "orders", "name": "holidays", "dates": []string{"2026-12-25"}}},
		"jobs":      []any{job("extract", "0 0 1 * * ?"), job("load", "0 0 2 * * ?")},
		"workflows": []any{
			map[string]any{"app": "orders", "name": "nightly", "scheduleType": "API",
				"nodes": []any{
					map[string]any{"key": "e", "type": "JOB", "job": "extract"},
					map[string]any{"key": "inner", "type": "NESTED", "workflow": "loader"},
				},
				"edges": []any{map[string]any{"from": "e", "to": "inner"}}},
			map[string]any{"app": "orders", "name": "loader", "scheduleType": "API",
				"nodes": []any{map[string]any{"key": "l", "type": "JOB", "job": "load"}}, "edges": []any{}},
		},
	}
}

// TestApplyConfig: a managed set is applied in one transaction — created,
// then unchanged when applied again, updated where it differs, checked
// without change by a dry run; a bad document changes nothing and is named
// by its field; prune deletes only the set's objects no longer declared,
// and refuses one still in use; objects of another file set or declared
// in code are never taken over silently.
func TestApplyConfig(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		ctx := context.Background()

		var res applyResult
		api.must(t, admin, applyQ, map[string]any{"in": configSet()}, &res)
		want := []string{"CALENDAR holidays CREATE", "JOB extract CREATE", "JOB load CREATE", "WORKFLOW nightly CREATE", "WORKFLOW loader CREATE"}
		if got := actions(res); !res.ApplyConfig.Applied || !slices.Equal(got, want) {
			t.Fatalf("first apply: applied %v, %q; want %q", res.ApplyConfig.Applied, got, want)
		}
		extract, err := d.JobGetByName(ctx, mustAppID(t, d, "orders"), "extract")
		if err != nil {
			t.Fatal(err)
		}
		if deref(extract.ManagedBy) != "cfg" || deref(extract.ManagedSource) != db.ManagedFiles || extract.CalendarID == nil {
			t.Fatalf("extract: managed by %v (%v), calendar %v", extract.ManagedBy, extract.ManagedSource, extract.CalendarID)
		}
		var wf struct {
			Workflows struct {
				Edges []struct {
					Node struct {
						Name, ManagedBy, ManagedSource string
						Nodes                          []struct {
							Key      string
							Job      *struct{ Name string }
							Workflow *struct{ Name string }
						}
					}
				}
			}
		}
		api.must(t, admin, `{ workflows(app: "orders") { edges { node { name managedBy managedSource nodes { key job { name } workflow { name } } } } } }`, nil, &wf)
		for _, e := range wf.Workflows.Edges {
			n := e.Node
			if n.ManagedBy != "cfg" || n.ManagedSource != "FILES" {
				t.Errorf("workflow %s managed by %q (%s)", n.Name, n.ManagedBy, n.ManagedSource)
			}
			if n.Name == "nightly" && (n.Nodes[0].Job == nil || n.Nodes[0].Job.Name != "extract" || n.Nodes[1].Workflow == nil || n.Nodes[1].Workflow.Name != "loader") {
				t.Errorf("nightly's nodes name %+v; want extract and loader", n.Nodes)
			}
		}

		// Applied again, nothing is written: no new version.
		api.must(t, admin, applyQ, map[string]any{"in": configSet()}, &res)
		for _, c := range res.ApplyConfig.Changes {
			if c.Action != "UNCHANGED" {
				t.Errorf("second apply: %+v; want UNCHANGED", c)
			}
		}
		if again, _ := d.JobGetByName(ctx, extract.AppID, "extract"); again.Version != extract.Version {
			t.Errorf("an unchanged apply saved extract as version %d (was %d)", again.Version, extract.Version)
		}

		// A dry run says what would change and changes nothing.
		in := configSet()
		in["jobs"].([]any)[0].(map[string]any)["scheduleExpression"] = "0 30 1 * * ?"
		api.must(t, admin, applyQ, map[string]any{"in": in, "dry": true}, &res)
		if got := actions(res); res.ApplyConfig.Applied || !slices.Contains(got, "JOB extract UPDATE scheduleExpression") {
			t.Fatalf("dry run: applied %v, %q", res.ApplyConfig.Applied, got)
		}
		if again, _ := d.JobGetByName(ctx, extract.AppID, "extract"); again.ScheduleExpression != "0 0 1 * * ?" {
			t.Fatalf("a dry run changed the job: %q", again.ScheduleExpression)
		}

		// A bad document among good ones: nothing is applied, and the
		// error names its field.
		bad := configSet()
		bad["jobs"] = append(bad["jobs"].([]any), map[string]any{"app": "orders", "name": "newcomer", "scheduleType": "API",
			"processorType": "SHELL", "processor": "true"})
		bad["workflows"].([]any)[1].(map[string]any)["nodes"] = []any{map[string]any{"key": "l", "type": "JOB", "job": "nope"}}
		r := api.do(t, admin, applyQ, map[string]any{"in": bad}, nil)
		if r.code() != CodeBadInput || r.Errors[0].field() != "workflows[1].nodes[0].job" {
			t.Fatalf("bad workflow: %+v; want BAD_INPUT on workflows[1].nodes[0].job", r.Errors)
		}
		if _, err := d.JobGetByName(ctx, extract.AppID, "newcomer"); err == nil {
			t.Fatal("a failed apply created the job before the bad workflow")
		}
		r = api.do(t, admin, applyQ, map[string]any{"in": map[string]any{"set": "cfg", "apps": []string{"orders"},
			"jobs": []any{map[string]any{"app": "billing", "name": "x", "scheduleType": "API", "processorType": "SHELL", "processor": "true"}}}}, nil)
		if r.code() != CodeBadInput || r.Errors[0].field() != "jobs[0].app" {
			t.Fatalf("a job of an app outside the set: %+v", r.Errors)
		}

		// Prune refuses to delete a job a remaining workflow runs, and
		// deletes what the set no longer declares once nothing uses it.
		in = configSet()
		in["prune"] = true
		in["jobs"] = in["jobs"].([]any)[:1]
		if r := api.do(t, admin, applyQ, map[string]any{"in": in}, nil); r.code() != CodeConflict || !strings.Contains(r.Errors[0].Message, `"loader"`) {
			t.Fatalf("pruning a job a workflow runs: %+v; want CONFLICT naming loader", r.Errors)
		}
		api.createJob(t, admin, "orders", "console-made")
		in["workflows"] = in["workflows"].([]any)[:1]
		in["workflows"].([]any)[0].(map[string]any)["nodes"] = []any{map[string]any{"key": "e", "type": "JOB", "job": "extract"}}
		in["workflows"].([]any)[0].(map[string]any)["edges"] = []any{}
		api.must(t, admin, applyQ, map[string]any{"in": in}, &res)
		got := actions(res)
		for _, w := range []string{"WORKFLOW nightly UPDATE nodes,edges", "WORKFLOW loader DELETE", "JOB load DELETE"} {
			if !slices.Contains(got, w) {
				t.Errorf("prune: %q lacks %q", got, w)
			}
		}
		if slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "console-made") }) {
			t.Errorf("prune touched a job the set does not manage: %q", got)
		}

		// Ownership: a job made in the console joins the set; one of
		// another file set only with adopt; one declared in code never.
		in = configSet()
		in["jobs"] = append(in["jobs"].([]any), map[string]any{"app": "orders", "name": "console-made", "scheduleType": "API",
			"processorType": "SHELL", "processor": "echo hi"})
		in["set"] = "other"
		r = api.do(t, admin, applyQ, map[string]any{"in": in}, nil)
		if r.code() != CodeBadInput || r.Errors[0].field() != "calendars[0].name" || !strings.Contains(r.Errors[0].Message, `file set "cfg"`) {
			t.Fatalf("another set's calendar: %+v", r.Errors)
		}
		in["set"] = "cfg"
		api.must(t, admin, applyQ, map[string]any{"in": in}, &res)
		if got := actions(res); !slices.Contains(got, "JOB console-made UPDATE managedBy") || !slices.Contains(got, "JOB load CREATE") {
			t.Fatalf("adopting: %q", got)
		}
		_, err = api.jobs.Declare(ctx, extract.AppID, "w1", &protocol.Hello{JobSet: "svc", Jobs: []protocol.DeclaredJob{
			{Name: "coded", ScheduleType: "API", Processor: "p"}, {Name: "extract", ScheduleType: "API", Processor: "p"}}})
		if err == nil || !strings.Contains(err.Error(), "jobs[1].name") || !strings.Contains(err.Error(), `file set "cfg"`) {
			t.Fatalf("code declaring a file set's job: %v", err)
		}
		if _, err := api.jobs.Declare(ctx, extract.AppID, "w1", &protocol.Hello{JobSet: "svc", Jobs: []protocol.DeclaredJob{
			{Name: "coded", ScheduleType: "API", Processor: "p"}}}); err != nil {
			t.Fatal(err)
		}
		in["jobs"] = append(in["jobs"].([]any), map[string]any{"app": "orders", "name": "coded", "scheduleType": "API",
			"processorType": "SHELL", "processor": "echo hi"})
		r = api.do(t, admin, applyQ, map[string]any{"in": in, "dry": true}, nil)
		if r.code() != CodeBadInput || r.Errors[0].field() != "jobs[3].name" || !strings.Contains(r.Errors[0].Message, "code") {
			t.Fatalf("a file set taking a job declared in code: %+v", r.Errors)
		}
		in["jobs"] = in["jobs"].([]any)[:3]
		in["set"], in["adopt"] = "other", true
		api.must(t, admin, applyQ, map[string]any{"in": in}, &res)
		if got := actions(res); !slices.Contains(got, "JOB extract UPDATE managedBy") {
			t.Fatalf("adopt: %q", got)
		}

		// A viewer may not apply; an apply is on record, a dry run is not.
		vera := api.createUser(t, admin, "vera")
		api.setRole(t, admin, "orders", "vera", "VIEWER")
		if r := api.do(t, vera, applyQ, map[string]any{"in": configSet(), "dry": true}, nil); r.code() != CodeForbidden {
			t.Fatalf("a viewer applying: %+v", r.Errors)
		}
		var log struct {
			AuditLog struct{ Edges []struct{ Node auditNode } }
		}
		api.must(t, admin, auditQuery, map[string]any{"app": "orders", "first": 200}, &log)
		var ok int
		for _, e := range log.AuditLog.Edges {
			if e.Node.Action != "applyConfig" {
				continue
			}
			if e.Node.ObjectType != "config_set" || (e.Node.ObjectID != "cfg" && e.Node.ObjectID != "other") {
				t.Errorf("entry %+v", e.Node)
			}
			if e.Node.Outcome == "OK" {
				ok++
			}
		}
		// Five applies went through: create, again, prune, adopting the
		// console's job, adopting another set's; dry runs are not recorded.
		if ok != 5 {
			t.Errorf("%d applies on record; want 5: %+v", ok, log.AuditLog.Edges)
		}
	})
}

func mustAppID(t *testing.T, d *db.DB, name string) int64 {
	t.Helper()
	app, err := d.AppGetByName(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return app.ID
}

// TestApplyConfigJobVersions: earlier versions given with a set become a
// new job's first versions, with their authors and times, and the set's
// definition the version after them (what an import of an xxl-job GLUE
// job's history relies on); applying again leaves the history alone; a
// bad version changes nothing and is named by its field.
func TestApplyConfigJobVersions(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		job := map[string]any{"app": "orders", "name": "glue", "scheduleType": "API", "processorType": "SHELL", "processor": "echo three"}
		set := map[string]any{"set": "import", "apps": []string{"orders"}, "jobs": []any{job}, "jobVersions": []any{
			map[string]any{"app": "orders", "name": "glue", "processorType": "PYTHON", "processor": "print('one')",
				"author": "xxl-job: first", "createdAt": "2024-01-02T03:04:05Z"},
			map[string]any{"app": "orders", "name": "glue", "processorType": "SHELL", "processor": "echo two", "createdAt": "2024-02-03T04:05:06Z"},
		}}
		type version struct {
			Version        int
			Change, Author string
			CreatedAt      string
			Processor      string
			Definition     map[string]any
		}
		var out struct {
			Jobs struct {
				Edges []struct {
					Node struct {
						Version  int
						Versions []version
					}
				}
			}
		}
		read := func() []version {
			api.must(t, admin, `{ jobs(app: "orders") { edges { node { version versions { version change author createdAt processor definition } } } } }`, nil, &out)
			if n := len(out.Jobs.Edges); n != 1 {
				t.Fatalf("%d jobs; want 1", n)
			}
			return out.Jobs.Edges[0].Node.Versions
		}

		// A bad version: nothing is created.
		bad := maps.Clone(set)
		bad["jobVersions"] = []any{map[string]any{"app": "orders", "name": "glue", "processorType": "SHELL", "processor": " "}}
		if r := api.do(t, admin, applyQ, map[string]any{"in": bad}, nil); r.code() != CodeBadInput || r.Errors[0].field() != "jobVersions[0].processor" {
			t.Fatalf("an empty script: %+v; want BAD_INPUT on jobVersions[0].processor", r.Errors)
		}
		bad["jobVersions"] = []any{map[string]any{"app": "orders", "name": "other", "processorType": "SHELL", "processor": "true"}}
		if r := api.do(t, admin, applyQ, map[string]any{"in": bad}, nil); r.code() != CodeBadInput || r.Errors[0].field() != "jobVersions[0].name" {
			t.Fatalf("a version of a job outside the set: %+v; want BAD_INPUT on jobVersions[0].name", r.Errors)
		}
		if _, err := d.JobGetByName(context.Background(), mustAppID(t, d, "orders"), "glue"); err == nil {
			t.Fatal("a refused apply created the job")
		}

		var res applyResult
		api.must(t, admin, applyQ, map[string]any{"in": set}, &res)
		if got := actions(res); !slices.Equal(got, []string{"JOB glue CREATE"}) {
			t.Fatalf("apply: %q", got)
		}
		vs := read()
		if out.Jobs.Edges[0].Node.Version != 3 || len(vs) != 3 {
			t.Fatalf("version %d with %d kept; want 3 and 3", out.Jobs.Edges[0].Node.Version, len(vs))
		}
		// Newest first.
		if v := vs[2]; v.Version != 1 || v.Change != "IMPORT" || v.Author != "xxl-job: first" || v.CreatedAt != "2024-01-02T03:04:05Z" ||
			v.Processor != "print('one')" || v.Definition["processorType"] != "PYTHON" {
			t.Errorf("version 1: %+v", v)
		}
		if v := vs[1]; v.Version != 2 || v.Change != "IMPORT" || v.Author != "admin" || v.CreatedAt != "2024-02-03T04:05:06Z" || v.Processor != "echo two" {
			t.Errorf("version 2: %+v", v)
		}
		if v := vs[0]; v.Version != 3 || v.Change != "APPLY" || v.Processor != "echo three" {
			t.Errorf("version 3: %+v", v)
		}

		// Again: the job exists, its history is its own.
		api.must(t, admin, applyQ, map[string]any{"in": set}, &res)
		if got := actions(res); !slices.Equal(got, []string{"JOB glue UNCHANGED"}) {
			t.Fatalf("again: %q", got)
		}
		if vs := read(); len(vs) != 3 {
			t.Fatalf("again: %d versions; want 3", len(vs))
		}
	})
}
