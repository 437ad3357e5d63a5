package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// recordedOps stands in for the workflow engine's run operations (package
// workflow, the lead's): it records what the API hands on, and answers err.
type recordedOps struct {
	mu    sync.Mutex
	calls []string
	err   error
}

func (o *recordedOps) record(format string, args ...any) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, fmt.Sprintf(format, args...))
	return o.err
}

func (o *recordedOps) taken() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.calls
	o.calls = nil
	return out
}

func (o *recordedOps) fail(err error) {
	o.mu.Lock()
	o.err = err
	o.mu.Unlock()
}

func (o *recordedOps) Stop(_ context.Context, wi int64, by string) error {
	return o.record("stop %d by %s", wi, by)
}
func (o *recordedOps) Retry(_ context.Context, wi int64, by string) error {
	return o.record("retry %d by %s", wi, by)
}
func (o *recordedOps) MarkSucceeded(_ context.Context, wi int64, node, by string) error {
	return o.record("mark %d %s by %s", wi, node, by)
}
func (o *recordedOps) Rerun(_ context.Context, wi int64, node string, downstream bool, by string) error {
	return o.record("rerun %d %s downstream=%v by %s", wi, node, downstream, by)
}
func (o *recordedOps) Pause(_ context.Context, wi int64, by string) error {
	return o.record("pause %d by %s", wi, by)
}
func (o *recordedOps) Resume(_ context.Context, wi int64, by string) error {
	return o.record("resume %d by %s", wi, by)
}
func (o *recordedOps) Approve(_ context.Context, wi int64, node string, approve bool, comment, by string) error {
	return o.record("approve %d %s %v %q by %s", wi, node, approve, comment, by)
}

const workflowFields = `id name description enabled scheduleType scheduleExpression timeZone maxInstances overlapPolicy
	misfirePolicy failFast version nextTriggerTime
	nodes { key type name jobId job { name } workflowId workflow { name } expression params enabled skipWhenFailed
		triggerRule parallelism timeoutMs retries position { x y } }
	edges { from to label }`

type wfNode struct {
	Key, Type, Name    string
	JobID, WorkflowID  *string
	Job, Workflow      *struct{ Name string }
	Expression, Params *string
	Enabled            bool
	SkipWhenFailed     bool
	TriggerRule        string
	Parallelism        *int
	TimeoutMs, Retries *int
	Position           *struct{ X, Y float64 }
}

type wfEdge struct {
	From, To string
	Label    *string
}

type workflowOut struct {
	ID, Name, Description            string
	Enabled                          bool
	ScheduleType, ScheduleExpression string
	TimeZone                         string
	MaxInstances                     int
	OverlapPolicy, MisfirePolicy     string
	FailFast                         bool
	Version                          int
	NextTriggerTime                  *string
	Nodes                            []wfNode
	Edges                            []wfEdge
}

// pipeline is a valid 3-node workflow input: extract, then a decision on
// what extract found, then load on "true".
func pipeline(app, name, extract, load string) map[string]any {
	return map[string]any{"app": app, "name": name, "scheduleType": "API",
		"nodes": []any{
			map[string]any{"key": "extract", "type": "JOB", "jobId": extract, "retries": 2},
			map[string]any{"key": "check", "type": "DECISION", "expression": `upstream.extract != ""`},
			map[string]any{"key": "load", "type": "JOB", "jobId": load, "params": "mode=full", "position": map[string]any{"x": 10, "y": 20}},
		},
		"edges": []any{
			map[string]any{"from": "extract", "to": "check"},
			map[string]any{"from": "check", "to": "load", "label": "true"},
		}}
}

func (a *testAPI) createWorkflow(t *testing.T, token string, input map[string]any) workflowOut {
	t.Helper()
	var out struct{ CreateWorkflow workflowOut }
	a.must(t, token, `mutation($in: WorkflowInput!) { createWorkflow(input: $in) { `+workflowFields+` } }`, map[string]any{"in": input}, &out)
	return out.CreateWorkflow
}

func (a *testAPI) runWorkflow(t *testing.T, token, id string, vars map[string]any) string {
	t.Helper()
	if vars == nil {
		vars = map[string]any{}
	}
	vars["id"] = id
	var out struct{ RunWorkflow struct{ ID string } }
	a.must(t, token, `mutation($id: ID!, $ctx: JSON, $key: String) { runWorkflow(id: $id, context: $ctx, idempotencyKey: $key) { id } }`, vars, &out)
	return out.RunWorkflow.ID
}

// TestWorkflowLifecycle: create, read, update (each save a version, a
// stale expectedVersion refused), restore, enable, export and import into
// another app, delete.
func TestWorkflowLifecycle(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		extract, load := api.createJob(t, admin, "orders", "extract"), api.createJob(t, admin, "orders", "load")
		w := api.createWorkflow(t, admin, pipeline("orders", "nightly", extract, load))
		if w.Version != 1 || len(w.Nodes) != 3 || w.Nodes[0].Job.Name != "extract" || *w.Nodes[0].Retries != 2 ||
			w.Nodes[1].Expression == nil || w.Nodes[1].JobID != nil || w.Nodes[2].Position.Y != 20 || *w.Nodes[2].Params != "mode=full" ||
			w.Nodes[0].TriggerRule != "ALL_SUCCEEDED" || !w.Nodes[0].Enabled || w.OverlapPolicy != "CANCEL" || w.MaxInstances != 1 ||
			w.Edges[1].Label == nil || *w.Edges[1].Label != "true" || w.Edges[0].Label != nil || w.NextTriggerTime != nil {
			t.Fatalf("created: %+v", w)
		}

		// Update to a cron schedule, with the version it was read at.
		in := pipeline("orders", "nightly", extract, load)
		in["scheduleType"], in["scheduleExpression"], in["description"] = "CRON", "0 0 3 * * ?", "v2"
		var up struct{ UpdateWorkflow workflowOut }
		api.must(t, admin, `mutation($id: ID!, $in: WorkflowInput!, $v: Int) { updateWorkflow(id: $id, input: $in, expectedVersion: $v) { `+workflowFields+` } }`,
			map[string]any{"id": w.ID, "in": in, "v": 1}, &up)
		if up.UpdateWorkflow.Version != 2 || up.UpdateWorkflow.NextTriggerTime == nil || up.UpdateWorkflow.Description != "v2" {
			t.Fatalf("updated: %+v", up.UpdateWorkflow)
		}
		// Issue 26, item 5: saving it unchanged makes no new version.
		api.must(t, admin, `mutation($id: ID!, $in: WorkflowInput!, $v: Int) { updateWorkflow(id: $id, input: $in, expectedVersion: $v) { `+workflowFields+` } }`,
			map[string]any{"id": w.ID, "in": in, "v": 2}, &up)
		if up.UpdateWorkflow.Version != 2 {
			t.Fatalf("an unchanged save made version %d; want 2 kept", up.UpdateWorkflow.Version)
		}
		// Someone saving over version 1 again is told it moved on.
		r := api.do(t, admin, `mutation($id: ID!, $in: WorkflowInput!, $v: Int) { updateWorkflow(id: $id, input: $in, expectedVersion: $v) { id } }`,
			map[string]any{"id": w.ID, "in": in, "v": 1}, nil)
		if r.code() != CodeConflict || !strings.Contains(r.Errors[0].Message, "version 2") {
			t.Fatalf("stale save: %+v", r.Errors)
		}

		// Versions, newest first, each with its definition.
		type version struct {
			Version    int
			CreatedBy  string
			Definition map[string]any
		}
		var vs struct {
			Workflow struct{ Versions []version }
		}
		api.must(t, admin, `query($id: ID!) { workflow(id: $id) { versions { version createdBy definition } } }`, map[string]any{"id": w.ID}, &vs)
		if v := vs.Workflow.Versions; len(v) != 2 || v[0].Version != 2 || v[1].CreatedBy != "admin" || v[1].Definition["scheduleType"] != "API" ||
			v[0].Definition["scheduleExpression"] != "0 0 3 * * ?" {
			t.Fatalf("versions: %+v", vs.Workflow.Versions)
		}
		if nodes, _ := vs.Workflow.Versions[1].Definition["nodes"].([]any); len(nodes) != 3 || nodes[0].(map[string]any)["jobId"] != extract {
			t.Fatalf("version 1's nodes: %+v", vs.Workflow.Versions[1].Definition["nodes"])
		}

		// Disable (no new version), then restore version 1: the definition
		// comes back as version 3; enabled stays off.
		var en struct{ SetWorkflowEnabled workflowOut }
		api.must(t, admin, `mutation($id: ID!) { setWorkflowEnabled(id: $id, enabled: false) { `+workflowFields+` } }`, map[string]any{"id": w.ID}, &en)
		if en.SetWorkflowEnabled.Enabled || en.SetWorkflowEnabled.NextTriggerTime != nil || en.SetWorkflowEnabled.Version != 2 {
			t.Fatalf("disabled: %+v", en.SetWorkflowEnabled)
		}
		var rs struct{ RestoreWorkflowVersion workflowOut }
		api.must(t, admin, `mutation($id: ID!) { restoreWorkflowVersion(id: $id, version: 1) { `+workflowFields+` } }`, map[string]any{"id": w.ID}, &rs)
		got := rs.RestoreWorkflowVersion
		if got.Version != 3 || got.ScheduleType != "API" || got.Description != "" || got.Enabled || !reflect.DeepEqual(got.Nodes, w.Nodes) {
			t.Fatalf("restored: %+v", got)
		}
		if r := api.do(t, admin, `mutation($id: ID!) { restoreWorkflowVersion(id: $id, version: 9) { id } }`, map[string]any{"id": w.ID}, nil); r.code() != CodeBadInput || r.Errors[0].field() != "version" {
			t.Fatalf("restoring a version that does not exist: %+v", r.Errors)
		}

		// Listing and search.
		api.createWorkflow(t, admin, pipeline("orders", "hourly", extract, load))
		var list struct {
			Workflows struct {
				TotalCount int
				Edges      []struct{ Node struct{ Name string } }
			}
		}
		api.must(t, admin, `{ workflows(app: "orders", search: "NIGHT") { totalCount edges { node { name } } } }`, nil, &list)
		if list.Workflows.TotalCount != 1 || len(list.Workflows.Edges) != 1 || list.Workflows.Edges[0].Node.Name != "nightly" {
			t.Fatalf("search: %+v", list.Workflows)
		}

		// Export, and import into another app whose jobs have the same names.
		var ex struct{ ExportWorkflow map[string]any }
		api.must(t, admin, `query($id: ID!) { exportWorkflow(id: $id) }`, map[string]any{"id": w.ID}, &ex)
		def := ex.ExportWorkflow
		if def["format"] != "jobwheel.workflow/v1" || def["nodes"].([]any)[0].(map[string]any)["job"] != "extract" {
			t.Fatalf("export: %+v", def)
		}
		if _, hasID := def["nodes"].([]any)[0].(map[string]any)["jobId"]; hasID {
			t.Fatalf("export names jobs by id: %+v", def)
		}
		api.createApp(t, admin, "staging")
		importQ := `mutation($app: String!, $def: JSON!, $replace: Boolean) { importWorkflow(app: $app, definition: $def, replace: $replace) { ` + workflowFields + ` } }`
		r = api.do(t, admin, importQ, map[string]any{"app": "staging", "def": def}, nil)
		if r.code() != CodeBadInput || r.Errors[0].field() != "definition.nodes[0].job" {
			t.Fatalf("import with no such job: %+v", r.Errors)
		}
		api.createJob(t, admin, "staging", "extract")
		api.createJob(t, admin, "staging", "load")
		var im struct{ ImportWorkflow workflowOut }
		api.must(t, admin, importQ, map[string]any{"app": "staging", "def": def}, &im)
		if im.ImportWorkflow.Version != 1 || im.ImportWorkflow.Nodes[2].Job.Name != "load" || *im.ImportWorkflow.Nodes[2].JobID == load {
			t.Fatalf("imported: %+v", im.ImportWorkflow)
		}
		var back struct{ ExportWorkflow map[string]any }
		api.must(t, admin, `query($id: ID!) { exportWorkflow(id: $id) }`, map[string]any{"id": im.ImportWorkflow.ID}, &back)
		if !reflect.DeepEqual(back.ExportWorkflow, def) {
			t.Fatalf("the import exports as\n%v\nnot as\n%v", back.ExportWorkflow, def)
		}
		r = api.do(t, admin, importQ, map[string]any{"app": "staging", "def": def}, nil)
		if r.code() != CodeBadInput || r.Errors[0].field() != "definition.name" {
			t.Fatalf("importing over an existing name without replace: %+v", r.Errors)
		}
		// Replacing it with the same definition is no change: no version
		// (issue 26, item 5); with a change, the next version.
		api.must(t, admin, importQ, map[string]any{"app": "staging", "def": def, "replace": true}, &im)
		if im.ImportWorkflow.Version != 1 {
			t.Fatalf("import with replace, unchanged: version %d; want 1", im.ImportWorkflow.Version)
		}
		changed := maps.Clone(def)
		changed["description"] = "changed"
		api.must(t, admin, importQ, map[string]any{"app": "staging", "def": changed, "replace": true}, &im)
		if im.ImportWorkflow.Version != 2 {
			t.Fatalf("import with replace: version %d; want 2", im.ImportWorkflow.Version)
		}
		bad := map[string]any{"name": "x", "scheduleType": "API", "nodes": []any{}, "edges": []any{}, "surprise": 1}
		if r := api.do(t, admin, importQ, map[string]any{"app": "staging", "def": bad}, nil); r.code() != CodeBadInput || r.Errors[0].field() != "definition" {
			t.Fatalf("a definition with an unknown field: %+v", r.Errors)
		}

		// Delete: refused while nested, or while an instance is running.
		outer := pipeline("orders", "outer", extract, load)
		outer["nodes"] = append(outer["nodes"].([]any), map[string]any{"key": "sub", "type": "NESTED", "workflowId": w.ID})
		o := api.createWorkflow(t, admin, outer)
		del := `mutation($id: ID!) { deleteWorkflow(id: $id) }`
		if r := api.do(t, admin, del, map[string]any{"id": w.ID}, nil); r.code() != CodeConflict || !strings.Contains(r.Errors[0].Message, `"outer" (node "sub")`) {
			t.Fatalf("deleting a nested workflow: %+v", r.Errors)
		}
		api.must(t, admin, del, map[string]any{"id": o.ID}, nil)
		wi := mustInt(t, api.runWorkflow(t, admin, w.ID, nil))
		if ok, err := d.WorkflowInstanceTransition(context.Background(), db.WorkflowInstanceTransition{ID: wi, From: []string{db.WorkflowWaiting}, To: db.WorkflowRunning}); !ok || err != nil {
			t.Fatalf("start: %v %v", ok, err)
		}
		if r := api.do(t, admin, del, map[string]any{"id": w.ID}, nil); r.code() != CodeConflict || !strings.Contains(r.Errors[0].Message, "stop them first") {
			t.Fatalf("deleting a workflow with a running run: %+v", r.Errors)
		}
		if ok, err := d.WorkflowInstanceTransition(context.Background(), db.WorkflowInstanceTransition{ID: wi, From: []string{db.WorkflowRunning}, To: db.WorkflowStopped}); !ok || err != nil {
			t.Fatalf("stop: %v %v", ok, err)
		}
		api.must(t, admin, del, map[string]any{"id": w.ID}, nil)
		if r := api.do(t, admin, `query($id: ID!) { workflow(id: $id) { id } }`, map[string]any{"id": w.ID}, nil); r.code() != CodeNotFound {
			t.Fatalf("the deleted workflow: %+v", r.Errors)
		}
		if r := api.do(t, admin, `query($id: ID!) { workflowInstance(id: $id) { id } }`, map[string]any{"id": wi}, nil); r.code() != CodeNotFound {
			t.Fatalf("the deleted workflow's run: %+v", r.Errors)
		}
	})
}

// TestWorkflowValidation: each invalid definition is BAD_INPUT naming the
// exact field at fault, and nothing is saved.
func TestWorkflowValidation(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		api.createApp(t, admin, "billing")
		extract, load := api.createJob(t, admin, "orders", "extract"), api.createJob(t, admin, "orders", "load")
		foreign := api.createJob(t, admin, "billing", "charge")
		leaf := api.createWorkflow(t, admin, pipeline("orders", "leaf", extract, load))
		// mid nests leaf; "self" will be updated to nest mid, so a cycle
		// self → mid → self is one step away.
		self := api.createWorkflow(t, admin, pipeline("orders", "self", extract, load))
		mid := pipeline("orders", "mid", extract, load)
		mid["nodes"] = append(mid["nodes"].([]any), map[string]any{"key": "sub", "type": "NESTED", "workflowId": self.ID})
		api.createWorkflow(t, admin, mid)
		midID := func() string {
			var out struct {
				Workflows struct {
					Edges []struct{ Node struct{ ID string } }
				}
			}
			api.must(t, admin, `{ workflows(app: "orders", search: "mid") { edges { node { id } } } }`, nil, &out)
			return out.Workflows.Edges[0].Node.ID
		}()

		node := func(i int) func(in map[string]any) map[string]any { // the i-th node of the input
			return func(in map[string]any) map[string]any { return in["nodes"].([]any)[i].(map[string]any) }
		}
		set := func(m map[string]any, kv ...any) {
			for i := 0; i < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
		}
		addNode := func(in map[string]any, n map[string]any) { in["nodes"] = append(in["nodes"].([]any), n) }
		addEdge := func(in map[string]any, e map[string]any) { in["edges"] = append(in["edges"].([]any), e) }
		for _, tc := range []struct {
			name   string
			field  string
			update bool // saved as an update of "self" (else created as "new")
			change func(in map[string]any)
		}{
			{"empty name", "name", false, func(in map[string]any) { in["name"] = "  " }},
			{"name with a newline", "name", false, func(in map[string]any) { in["name"] = "a\nb" }},
			{"name taken", "name", false, func(in map[string]any) { in["name"] = "leaf" }},
			{"long description", "description", false, func(in map[string]any) { in["description"] = strings.Repeat("x", 2001) }},
			{"FIXED_DELAY", "scheduleType", false, func(in map[string]any) { set(in, "scheduleType", "FIXED_DELAY", "scheduleExpression", "1m") }},
			{"WORKFLOW schedule", "scheduleType", false, func(in map[string]any) { in["scheduleType"] = "WORKFLOW" }},
			{"bad cron", "scheduleExpression", false, func(in map[string]any) { set(in, "scheduleType", "CRON", "scheduleExpression", "every day") }},
			{"API with an expression", "scheduleExpression", false, func(in map[string]any) { in["scheduleExpression"] = "1m" }},
			{"short fixed rate", "scheduleExpression", false, func(in map[string]any) { set(in, "scheduleType", "FIXED_RATE", "scheduleExpression", "10ms") }},
			{"bad time zone", "timeZone", false, func(in map[string]any) {
				set(in, "scheduleType", "CRON", "scheduleExpression", "0 0 * * * ?", "timeZone", "Mars/Base")
			}},
			{"maxInstances 0", "maxInstances", false, func(in map[string]any) { in["maxInstances"] = 0 }},
			{"no nodes", "nodes", false, func(in map[string]any) { in["nodes"], in["edges"] = []any{}, []any{} }},
			{"empty key", "nodes[0].key", false, func(in map[string]any) { node(0)(in)["key"] = "" }},
			{"key with a space", "nodes[1].key", false, func(in map[string]any) { node(1)(in)["key"] = "check it" }},
			{"long key", "nodes[2].key", false, func(in map[string]any) { node(2)(in)["key"] = strings.Repeat("k", 65) }},
			{"duplicate key", "nodes[2].key", false, func(in map[string]any) { node(2)(in)["key"] = "extract" }},
			{"node name with a tab", "nodes[0].name", false, func(in map[string]any) { node(0)(in)["name"] = "a\tb" }},
			{"JOB without a job", "nodes[0].jobId", false, func(in map[string]any) { delete(node(0)(in), "jobId") }},
			{"malformed job id", "nodes[0].jobId", false, func(in map[string]any) { node(0)(in)["jobId"] = "x" }},
			{"job of another app", "nodes[0].jobId", false, func(in map[string]any) { node(0)(in)["jobId"] = foreign }},
			{"job that does not exist", "nodes[2].jobId", false, func(in map[string]any) { node(2)(in)["jobId"] = "999999" }},
			{"DECISION with a job", "nodes[1].jobId", false, func(in map[string]any) { node(1)(in)["jobId"] = extract }},
			{"DECISION without an expression", "nodes[1].expression", false, func(in map[string]any) { delete(node(1)(in), "expression") }},
			{"expression that does not parse", "nodes[1].expression", false, func(in map[string]any) { node(1)(in)["expression"] = "context." }},
			{"expression with an unknown name", "nodes[1].expression", false, func(in map[string]any) { node(1)(in)["expression"] = `region == "eu"` }},
			{"expression over 2 KiB", "nodes[1].expression", false, func(in map[string]any) { node(1)(in)["expression"] = strings.Repeat("1+", 1100) + "1" }},
			{"JOB with an expression", "nodes[0].expression", false, func(in map[string]any) { node(0)(in)["expression"] = "true" }},
			{"FOREACH over a number", "nodes[3].expression", false, func(in map[string]any) {
				addNode(in, map[string]any{"key": "each", "type": "FOREACH", "jobId": load, "expression": "1 + 1"})
			}},
			{"FOREACH parallelism 0", "nodes[3].parallelism", false, func(in map[string]any) {
				addNode(in, map[string]any{"key": "each", "type": "FOREACH", "jobId": load, "expression": "context.items", "parallelism": 0})
			}},
			{"FOREACH parallelism 1001", "nodes[3].parallelism", false, func(in map[string]any) {
				addNode(in, map[string]any{"key": "each", "type": "FOREACH", "jobId": load, "expression": "context.items", "parallelism": 1001})
			}},
			{"FOREACH with params", "nodes[3].params", false, func(in map[string]any) {
				addNode(in, map[string]any{"key": "each", "type": "FOREACH", "jobId": load, "expression": "context.items", "params": "x"})
			}},
			{"JOB with parallelism", "nodes[0].parallelism", false, func(in map[string]any) { node(0)(in)["parallelism"] = 2 }},
			{"params over 64 KiB", "nodes[2].params", false, func(in map[string]any) { node(2)(in)["params"] = strings.Repeat("p", 64<<10+1) }},
			{"negative timeout", "nodes[0].timeoutMs", false, func(in map[string]any) { node(0)(in)["timeoutMs"] = -1 }},
			{"retries 101", "nodes[0].retries", false, func(in map[string]any) { node(0)(in)["retries"] = 101 }},
			{"APPROVAL with retries", "nodes[3].retries", false, func(in map[string]any) {
				addNode(in, map[string]any{"key": "ok", "type": "APPROVAL", "retries": 1})
			}},
			{"DECISION with a timeout", "nodes[1].timeoutMs", false, func(in map[string]any) { node(1)(in)["timeoutMs"] = 5 }},
			{"position far away", "nodes[2].position", false, func(in map[string]any) { node(2)(in)["position"] = map[string]any{"x": 1e8, "y": 0} }},
			{"NESTED without a workflow", "nodes[3].workflowId", false, func(in map[string]any) {
				addNode(in, map[string]any{"key": "sub", "type": "NESTED"})
			}},
			{"NESTED workflow that does not exist", "nodes[3].workflowId", false, func(in map[string]any) {
				addNode(in, map[string]any{"key": "sub", "type": "NESTED", "workflowId": "999999"})
			}},
			{"NESTED itself", "nodes[3].workflowId", true, func(in map[string]any) {
				addNode(in, map[string]any{"key": "sub", "type": "NESTED", "workflowId": self.ID})
			}},
			{"NESTED cycle across workflows", "nodes[3].workflowId", true, func(in map[string]any) {
				addNode(in, map[string]any{"key": "sub", "type": "NESTED", "workflowId": midID})
			}},
			{"edge from nowhere", "edges[2].from", false, func(in map[string]any) { addEdge(in, map[string]any{"from": "nope", "to": "load"}) }},
			{"edge to nowhere", "edges[2].to", false, func(in map[string]any) { addEdge(in, map[string]any{"from": "load", "to": "nope"}) }},
			{"self edge", "edges[2]", false, func(in map[string]any) { addEdge(in, map[string]any{"from": "load", "to": "load"}) }},
			{"duplicate edge", "edges[2]", false, func(in map[string]any) { addEdge(in, map[string]any{"from": "extract", "to": "check"}) }},
			{"cycle", "edges[2]", false, func(in map[string]any) { addEdge(in, map[string]any{"from": "load", "to": "extract"}) }},
			{"decision edge without a label", "edges[1].label", false, func(in map[string]any) { delete(in["edges"].([]any)[1].(map[string]any), "label") }},
			{"label on a job's edge", "edges[0].label", false, func(in map[string]any) { in["edges"].([]any)[0].(map[string]any)["label"] = "yes" }},
			{"edge label with a newline", "edges[1].label", false, func(in map[string]any) { in["edges"].([]any)[1].(map[string]any)["label"] = "a\nb" }},
			{"moving to another app", "app", true, func(in map[string]any) { in["app"] = "billing" }},
			{"app that does not exist", "app", false, func(in map[string]any) { in["app"] = "nope" }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				in := pipeline("orders", "new", extract, load)
				if tc.update {
					in["name"] = "self"
				}
				tc.change(in)
				var r *response
				if tc.update {
					r = api.do(t, admin, `mutation($id: ID!, $in: WorkflowInput!) { updateWorkflow(id: $id, input: $in) { id } }`,
						map[string]any{"id": self.ID, "in": in}, nil)
				} else {
					r = api.do(t, admin, `mutation($in: WorkflowInput!) { createWorkflow(input: $in) { id } }`, map[string]any{"in": in}, nil)
				}
				if r.code() != CodeBadInput || r.Errors[0].field() != tc.field {
					t.Fatalf("got %+v; want BAD_INPUT on %s", r.Errors, tc.field)
				}
				t.Logf("%s: %s", tc.field, r.Errors[0].Message)
			})
		}
		// Nothing was saved: three workflows, and self still at version 1.
		var out struct {
			Workflows struct{ TotalCount int }
			Workflow  struct{ Version int }
		}
		api.must(t, admin, `query($id: ID!) { workflows(app: "orders") { totalCount } workflow(id: $id) { version } }`, map[string]any{"id": self.ID}, &out)
		if out.Workflows.TotalCount != 3 || out.Workflow.Version != 1 {
			t.Fatalf("after the refused saves: %d workflows, self at version %d; want 3 and 1", out.Workflows.TotalCount, out.Workflow.Version)
		}
		_ = leaf
	})
}

// TestWorkflowRights: a VIEWER reads workflows and runs and may not change
// or run them; someone without a role on the app is told they do not
// exist; an EDITOR's run operations reach the engine named after them.
func TestWorkflowRights(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		api.createApp(t, admin, "billing")
		viewer, editor, stranger := api.createUser(t, admin, "viewer"), api.createUser(t, admin, "editor"), api.createUser(t, admin, "stranger")
		api.setRole(t, admin, "orders", "viewer", "VIEWER")
		api.setRole(t, admin, "orders", "editor", "EDITOR")
		api.setRole(t, admin, "billing", "stranger", "EDITOR")
		extract, load := api.createJob(t, admin, "orders", "extract"), api.createJob(t, admin, "orders", "load")
		w := api.createWorkflow(t, admin, pipeline("orders", "nightly", extract, load))
		wi := api.runWorkflow(t, admin, w.ID, nil)
		def := func() map[string]any {
			var ex struct{ ExportWorkflow map[string]any }
			api.must(t, admin, `query($id: ID!) { exportWorkflow(id: $id) }`, map[string]any{"id": w.ID}, &ex)
			ex.ExportWorkflow["name"] = "copy"
			return ex.ExportWorkflow
		}()
		vars := map[string]any{"id": w.ID, "run": wi, "in": pipeline("orders", "other", extract, load), "def": def}
		reads := []string{
			`query($id: ID!) { workflow(id: $id) { id nodes { job { name } } versions { version } lastRun { id } } }`,
			`query($id: ID!) { exportWorkflow(id: $id) }`,
			`query($run: ID!) { workflowInstance(id: $run) { id nodes { key } workflow { name } } }`,
		}
		appReads := []string{
			`{ workflows(app: "orders") { totalCount edges { node { id } } } }`,
			`{ workflowInstances(app: "orders") { totalCount edges { node { id } } } }`,
		}
		writes := []string{
			`mutation($id: ID!, $in: WorkflowInput!) { updateWorkflow(id: $id, input: $in) { id } }`,
			`mutation($id: ID!) { setWorkflowEnabled(id: $id, enabled: false) { id } }`,
			`mutation($id: ID!) { restoreWorkflowVersion(id: $id, version: 1) { id } }`,
			`mutation($id: ID!) { runWorkflow(id: $id) { id } }`,
			`mutation($id: ID!) { deleteWorkflow(id: $id) }`,
			`mutation($run: ID!) { stopWorkflowInstance(id: $run) { id } }`,
			`mutation($run: ID!) { retryWorkflowInstance(id: $run) { id } }`,
			`mutation($run: ID!) { pauseWorkflowInstance(id: $run) { id } }`,
			`mutation($run: ID!) { resumeWorkflowInstance(id: $run) { id } }`,
			`mutation($run: ID!) { markWorkflowNodeSucceeded(workflowInstanceId: $run, node: "extract") { id } }`,
			`mutation($run: ID!) { rerunWorkflowNode(workflowInstanceId: $run, node: "extract", downstream: true) { id } }`,
			`mutation($run: ID!) { approveWorkflowNode(workflowInstanceId: $run, node: "check", approve: true) { id } }`,
		}
		appWrites := []string{ // refused on the app argument, as createJob is
			`mutation($in: WorkflowInput!) { createWorkflow(input: $in) { id } }`,
			`mutation($def: JSON!) { importWorkflow(app: "orders", definition: $def) { id } }`,
		}
		for _, q := range append(reads, appReads...) {
			if r := api.do(t, viewer, q, vars, nil); len(r.Errors) > 0 {
				t.Errorf("viewer reads %s: %+v", q, r.Errors)
			}
			if r := api.do(t, stranger, q, vars, nil); r.code() != CodeNotFound {
				t.Errorf("stranger reads %s: %+v; want NOT_FOUND", q, r.Errors)
			}
		}
		for _, q := range append(writes, appWrites...) {
			if r := api.do(t, viewer, q, vars, nil); r.code() != CodeForbidden {
				t.Errorf("viewer: %s: %+v; want FORBIDDEN", q, r.Errors)
			}
		}
		for _, q := range writes {
			if r := api.do(t, stranger, q, vars, nil); r.code() != CodeNotFound {
				t.Errorf("stranger: %s: %+v; want NOT_FOUND", q, r.Errors)
			}
		}
		for _, q := range appWrites {
			if r := api.do(t, stranger, q, vars, nil); r.code() != CodeBadInput || r.Errors[0].field() != "app" {
				t.Errorf("stranger: %s: %+v; want BAD_INPUT on app", q, r.Errors)
			}
		}
		if calls := api.ops.taken(); len(calls) > 0 {
			t.Fatalf("refused operations reached the engine: %v", calls)
		}

		// An editor's operations reach the engine, in their name; the instance
		// comes back.
		for q, want := range map[string]string{
			writes[5]:  "stop " + wi + " by editor",
			writes[6]:  "retry " + wi + " by editor",
			writes[7]:  "pause " + wi + " by editor",
			writes[8]:  "resume " + wi + " by editor",
			writes[9]:  "mark " + wi + " extract by editor",
			writes[10]: "rerun " + wi + " extract downstream=true by editor",
			`mutation($run: ID!) { approveWorkflowNode(workflowInstanceId: $run, node: "check", approve: false, comment: "not today") { id } }`: "approve " + wi + ` check false "not today" by editor`,
		} {
			var out map[string]struct{ ID string }
			api.must(t, editor, q, vars, &out)
			for _, v := range out {
				if v.ID != wi {
					t.Errorf("%s answered run %s", q, v.ID)
				}
			}
			if calls := api.ops.taken(); len(calls) != 1 || calls[0] != want {
				t.Errorf("%s: the engine got %v; want %q", q, calls, want)
			}
		}
		// A node the instance does not have is NOT_FOUND before the engine is asked.
		r := api.do(t, editor, `mutation($run: ID!) { rerunWorkflowNode(workflowInstanceId: $run, node: "nope", downstream: false) { id } }`, vars, nil)
		if r.code() != CodeNotFound || len(api.ops.taken()) != 0 {
			t.Fatalf("rerun of an unknown node: %+v", r.Errors)
		}
		// The engine's CONFLICT comes back as it is.
		api.ops.fail(fault.Conflict("workflow instance %s is not FAILED or STOPPED", wi))
		if r := api.do(t, editor, writes[6], vars, nil); r.code() != CodeConflict || !strings.Contains(r.Errors[0].Message, "not FAILED") {
			t.Fatalf("the engine's conflict: %+v", r.Errors)
		}
		api.ops.taken()
		api.ops.fail(nil)
		for _, q := range []string{writes[0], writes[1], writes[2], writes[3], appWrites[0], appWrites[1]} {
			if r := api.do(t, editor, q, vars, nil); len(r.Errors) > 0 {
				t.Errorf("editor: %s: %+v", q, r.Errors)
			}
		}
	})
}

// TestRunOperationsWithoutEngine: a server without the engine wired says
// so as an internal error rather than pretending to have done anything.
func TestRunOperationsWithoutEngine(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{noEngine: true})
	admin := api.admin(t)
	api.createApp(t, admin, "orders")
	w := api.createWorkflow(t, admin, pipeline("orders", "nightly", api.createJob(t, admin, "orders", "a"), api.createJob(t, admin, "orders", "b")))
	wi := api.runWorkflow(t, admin, w.ID, nil)
	if r := api.do(t, admin, `mutation($id: ID!) { stopWorkflowInstance(id: $id) { id } }`, map[string]any{"id": wi}, nil); r.code() != CodeInternal {
		t.Fatalf("stop without an engine: %+v", r.Errors)
	}
}

// TestRunWorkflow: an instance is recorded WAITING with its context and the
// workflow's version, its nodes shown WAITING until the engine starts it;
// bad arguments are BAD_INPUT naming them; 20 concurrent calls with one
// idempotency key record one instance.
func TestRunWorkflow(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		w := api.createWorkflow(t, admin, pipeline("orders", "nightly", api.createJob(t, admin, "orders", "a"), api.createJob(t, admin, "orders", "b")))
		id := api.runWorkflow(t, admin, w.ID, map[string]any{"ctx": map[string]any{"region": "eu", "n": 3}})
		var out struct {
			WorkflowInstance struct {
				Status, TriggerType     string
				Version                 int
				Context, InitialContext map[string]any
				Workflow                struct{ Name string }
				Nodes                   []struct{ Key, Status, Type string }
				Edges                   []wfEdge
			}
		}
		api.must(t, admin, `query($id: ID!) { workflowInstance(id: $id) { status triggerType version context initialContext workflow { name }
			nodes { key status type } edges { from to label } } }`, map[string]any{"id": id}, &out)
		got := out.WorkflowInstance
		if got.Status != "WAITING" || got.TriggerType != "API" || got.Version != 1 || got.Context["region"] != "eu" || got.InitialContext["n"] != 3.0 ||
			got.Workflow.Name != "nightly" || len(got.Nodes) != 3 || got.Nodes[1].Key != "check" || got.Nodes[1].Status != "WAITING" ||
			got.Nodes[1].Type != "DECISION" || len(got.Edges) != 2 {
			t.Fatalf("run: %+v", got)
		}
		runQ := `mutation($id: ID!, $ctx: JSON, $delay: Int, $key: String) { runWorkflow(id: $id, context: $ctx, delayMs: $delay, idempotencyKey: $key) { id } }`
		for _, tc := range []struct {
			vars  map[string]any
			field string
		}{
			{map[string]any{"ctx": []any{1, 2}}, "context"},
			{map[string]any{"ctx": "text"}, "context"},
			{map[string]any{"delay": -1}, "delayMs"},
			{map[string]any{"key": ""}, "idempotencyKey"},
			{map[string]any{"key": strings.Repeat("k", 129)}, "idempotencyKey"},
			{map[string]any{"key": "a\nb"}, "idempotencyKey"},
		} {
			tc.vars["id"] = w.ID
			if r := api.do(t, admin, runQ, tc.vars, nil); r.code() != CodeBadInput || r.Errors[0].field() != tc.field {
				t.Errorf("%v: %+v; want BAD_INPUT on %s", tc.vars, r.Errors, tc.field)
			}
		}

		const callers = 20
		ids := make([]string, callers)
		var wg sync.WaitGroup
		for i := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var out struct{ RunWorkflow struct{ ID string } }
				if r := api.do(t, admin, runQ, map[string]any{"id": w.ID, "key": "deploy-7"}, &out); len(r.Errors) > 0 {
					t.Errorf("caller %d: %+v", i, r.Errors)
				}
				ids[i] = out.RunWorkflow.ID
			}()
		}
		wg.Wait()
		for i := range callers {
			if ids[i] != ids[0] || ids[i] == "" {
				t.Fatalf("caller %d got run %q, caller 0 %q", i, ids[i], ids[0])
			}
		}
		var count struct {
			WorkflowInstances struct{ TotalCount int }
		}
		api.must(t, admin, `query($w: ID) { workflowInstances(app: "orders", workflowId: $w) { totalCount } }`, map[string]any{"w": w.ID}, &count)
		if count.WorkflowInstances.TotalCount != 2 {
			t.Fatalf("%d runs; want 2 (the first, and one for the 20 keyed calls)", count.WorkflowInstances.TotalCount)
		}
		if again := api.runWorkflow(t, admin, w.ID, map[string]any{"key": "deploy-8"}); again == ids[0] {
			t.Fatal("another key returned the same run")
		}
	})
}

// TestWorkflowInstancesListing: without a workflow, the app's top-level
// runs; with one, every instance of it, nested ones included; status filters
// and pages.
func TestWorkflowInstancesListing(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		appID := api.createApp(t, admin, "orders")
		a, b := api.createJob(t, admin, "orders", "a"), api.createJob(t, admin, "orders", "b")
		child := api.createWorkflow(t, admin, pipeline("orders", "child", a, b))
		parentIn := pipeline("orders", "parent", a, b)
		parentIn["nodes"] = append(parentIn["nodes"].([]any), map[string]any{"key": "sub", "type": "NESTED", "workflowId": child.ID})
		parent := api.createWorkflow(t, admin, parentIn)
		top := mustInt(t, api.runWorkflow(t, admin, parent.ID, nil))
		ctx := context.Background()
		topInstance, err := d.WorkflowInstanceGet(ctx, top)
		if err != nil {
			t.Fatal(err)
		}
		// The engine's part, by hand: the parent starts its NESTED node's run.
		nested := &db.WorkflowInstance{AppID: appID, WorkflowID: mustInt(t, child.ID), Version: 1, ParentInstanceID: &top, ParentNodeKey: ptrTo("sub"),
			Status: db.WorkflowRunning, TriggerType: db.TriggerWorkflow, TriggerAt: db.Now(), Graph: topInstance.Graph}
		if _, err := d.WorkflowInstanceCreate(ctx, nested); err != nil {
			t.Fatal(err)
		}
		if err := d.WorkflowNodeRunCreateMany(ctx, []db.WorkflowNodeRun{{WorkflowInstanceID: top, NodeKey: "sub", NodeType: db.NodeNested, Status: db.NodeRunning,
			ChildInstanceID: &nested.ID}}); err != nil {
			t.Fatal(err)
		}
		api.runWorkflow(t, admin, child.ID, nil)
		type listing struct {
			WorkflowInstances struct {
				TotalCount int
				PageInfo   struct{ HasNextPage bool }
				Edges      []struct {
					Node struct {
						ID, Status    string
						Parent        *struct{ ID string }
						ParentNodeKey *string
						Workflow      struct{ Name string }
						Nodes         []struct {
							Key   string
							Child *struct{ ID, Status string }
						}
					}
				}
			}
		}
		q := `query($w: ID, $s: [WorkflowInstanceStatus!], $n: Int) { workflowInstances(app: "orders", workflowId: $w, status: $s, first: $n) {
			totalCount pageInfo { hasNextPage } edges { node { id status parent { id } parentNodeKey workflow { name } nodes { key child { id status } } } } } }`
		var all listing
		api.must(t, admin, q, nil, &all)
		if all.WorkflowInstances.TotalCount != 2 || len(all.WorkflowInstances.Edges) != 2 {
			t.Fatalf("app-wide: %+v; want the 2 top-level runs", all.WorkflowInstances)
		}
		p := all.WorkflowInstances.Edges[1].Node
		if p.Workflow.Name != "parent" || p.Nodes[3].Key != "sub" || p.Nodes[3].Child == nil || p.Nodes[3].Child.ID != fmt.Sprint(nested.ID) {
			t.Fatalf("the parent run and its nested run: %+v", p)
		}
		var ofChild listing
		api.must(t, admin, q, map[string]any{"w": child.ID}, &ofChild)
		if ofChild.WorkflowInstances.TotalCount != 2 {
			t.Fatalf("child's runs: %+v; want its own and the nested one", ofChild.WorkflowInstances)
		}
		n := ofChild.WorkflowInstances.Edges[1].Node
		if n.Parent == nil || n.Parent.ID != fmt.Sprint(top) || *n.ParentNodeKey != "sub" {
			t.Fatalf("the nested run: %+v", n)
		}
		var running listing
		api.must(t, admin, q, map[string]any{"w": child.ID, "s": []string{"RUNNING"}, "n": 1}, &running)
		if running.WorkflowInstances.TotalCount != 1 || running.WorkflowInstances.PageInfo.HasNextPage {
			t.Fatalf("running: %+v", running.WorkflowInstances)
		}
		api.createApp(t, admin, "billing")
		other := api.createWorkflow(t, admin, pipeline("billing", "x", api.createJob(t, admin, "billing", "a"), api.createJob(t, admin, "billing", "b")))
		if r := api.do(t, admin, q, map[string]any{"w": other.ID}, nil); r.code() != CodeBadInput || r.Errors[0].field() != "workflowId" {
			t.Fatalf("another app's workflow: %+v", r.Errors)
		}
	})
}

func ptrTo[T any](v T) *T { return &v }

var _ = json.Marshal

// TestInstanceWorkflowInputNull: an instance no workflow ran has a null
// workflowInput (not an empty object), so the console shows nothing for it.
func TestInstanceWorkflowInputNull(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		job := api.createJob(t, admin, "orders", "plain")
		var wi struct{ RunJob struct{ ID string } }
		api.must(t, admin, `mutation($id: ID!) { runJob(id: $id) { id } }`, map[string]any{"id": job}, &wi)
		var out struct {
			Instance map[string]any
		}
		api.must(t, admin, `query($id: ID!) { instance(id: $id) { workflowInput } }`, map[string]any{"id": wi.RunJob.ID}, &out)
		if v, ok := out.Instance["workflowInput"]; !ok || v != nil {
			t.Fatalf("workflowInput = %#v (present %v); want null", v, ok)
		}
	})
}

// Issue 25, item 3: an app's workflow budget is set by its OWNER and read
// on the app; a workflow over it whatever happens is refused at save,
// naming the budget.
func TestAppWorkflowBudget(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		job := api.createJob(t, admin, "orders", "each")
		var app struct{ SetAppWorkflowBudget struct{ WorkflowBudget int } }
		api.must(t, admin, `mutation { setAppWorkflowBudget(app: "orders", budget: 50) { workflowBudget } }`, nil, &app)
		if app.SetAppWorkflowBudget.WorkflowBudget != 50 {
			t.Fatalf("budget %d; want 50", app.SetAppWorkflowBudget.WorkflowBudget)
		}
		if r := api.do(t, admin, `mutation { setAppWorkflowBudget(app: "orders", budget: 0) { workflowBudget } }`, nil, nil); r.code() != CodeBadInput || r.Errors[0].field() != "budget" {
			t.Fatalf("budget 0: %+v; want BAD_INPUT on budget", r.Errors)
		}
		in := func(expr string) map[string]any {
			return map[string]any{"app": "orders", "name": "each", "scheduleType": "API", "edges": []any{},
				"nodes": []any{map[string]any{"key": "each", "type": "FOREACH", "jobId": job, "expression": expr}}}
		}
		r := api.do(t, admin, `mutation($in: WorkflowInput!) { createWorkflow(input: $in) { id } }`, map[string]any{"in": in("1..60")}, nil)
		if r.code() != CodeBadInput || r.Errors[0].field() != "nodes" || !strings.Contains(r.Errors[0].Message, "budget per instance is 50") {
			t.Fatalf("a FOREACH over 60 with a budget of 50: %+v; want BAD_INPUT on nodes naming the budget", r.Errors)
		}
		api.createWorkflow(t, admin, in("1..40"))
	})
}
