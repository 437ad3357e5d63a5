package graph

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// FuzzWorkflowJSON (issue 19, item 2): any JSON given as an imported
// workflow's definition and as a run's initial context, through the API
// against a real database: each is accepted, or refused with a BAD_INPUT
// naming a field under definition or context (never INTERNAL); an
// imported definition exports and imports again as the same definition.
// `go test -fuzz FuzzWorkflowJSON ./graph/` explores.
func FuzzWorkflowJSON(f *testing.F) {
	for _, seed := range []string{
		`{"name":"w","scheduleType":"API","nodes":[{"key":"a","type":"JOB","job":"extract"}],"edges":[]}`,
		`{"format":"jobwheel.workflow/v1","name":"d","scheduleType":"CRON","scheduleExpression":"0 0 * * * ?","nodes":[{"key":"a","type":"JOB","job":"extract"},{"key":"d","type":"DECISION","expression":"upstream.a == \"x\""},{"key":"b","type":"APPROVAL","timeoutMs":1000}],"edges":[{"from":"a","to":"d"},{"from":"d","to":"b","label":"true"}]}`,
		`{"name":"f","scheduleType":"API","nodes":[{"key":"f","type":"FOREACH","job":"extract","expression":"context.items","parallelism":2}],"edges":[]}`,
		`{"name":"n","scheduleType":"API","nodes":[{"key":"n","type":"NESTED","workflow":"base"}],"edges":[]}`,
		`{"name":"n","scheduleType":"API","nodes":[{"key":"n","type":"NESTED","workflow":"n"}],"edges":[]}`,
		`{"name":"x","scheduleType":"API","nodes":[{"key":"a","type":"JOB","job":"nope"}],"edges":[],"unknown":1}`,
		`{"format":"v9"}`, `[]`, `null`, `"text"`, `{"items":[1,2,3],"region":"eu"}`, `{"deep":{"a":{"b":{"c":[{}]}}}}`,
		`{"name":"p","scheduleType":"API","nodes":[{"key":"a","type":"JOB","job":"extract","params":"\u0000","position":{"x":1e308,"y":-1e308}}],"edges":[{"from":"a","to":"a"}]}`,
	} {
		f.Add([]byte(seed))
	}
	api := newAPI(f, dbtest.Open(f, db.SQLite), apiOptions{})
	admin := api.admin(f)
	api.createApp(f, admin, "orders")
	var job struct{ CreateJob struct{ ID string } }
	api.must(f, admin, `mutation { createJob(input: {app: "orders", name: "extract", scheduleType: API, processorType: SHELL, processor: "true"}) { id } }`, nil, &job)
	var base struct{ CreateWorkflow struct{ ID string } }
	api.must(f, admin, `mutation($job: ID!) { createWorkflow(input: {app: "orders", name: "base", scheduleType: API, nodes: [{key: "a", type: JOB, jobId: $job}], edges: []}) { id } }`,
		map[string]any{"job": job.CreateJob.ID}, &base)
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		checkRefusal := func(what string, r *response, prefix string) bool {
			t.Helper()
			if len(r.Errors) == 0 {
				return true
			}
			e := r.Errors[0]
			if e.code() != CodeBadInput || !strings.HasPrefix(e.field(), prefix) {
				t.Fatalf("%s %s: %+v; want accepted, or BAD_INPUT on %s…", what, data, r.Errors, prefix)
			}
			return false
		}
		// As a run's context.
		r := api.do(t, admin, `mutation($id: ID!, $ctx: JSON) { runWorkflow(id: $id, context: $ctx, delayMs: 3600000) { id initialContext } }`,
			map[string]any{"id": base.CreateWorkflow.ID, "ctx": v}, nil)
		checkRefusal("context", r, "context")
		// As a definition, imported over whatever has its name (null is
		// refused by GraphQL itself, on the variable).
		if v == nil {
			return
		}
		var imported struct{ ImportWorkflow struct{ ID string } }
		r = api.do(t, admin, `mutation($def: JSON!) { importWorkflow(app: "orders", definition: $def, replace: true) { id } }`,
			map[string]any{"def": v}, &imported)
		if !checkRefusal("definition", r, "definition") {
			return
		}
		var exported struct{ ExportWorkflow json.RawMessage }
		api.must(t, admin, `query($id: ID!) { exportWorkflow(id: $id) }`, map[string]any{"id": imported.ImportWorkflow.ID}, &exported)
		var def any
		_ = json.Unmarshal(exported.ExportWorkflow, &def)
		var again struct{ ImportWorkflow struct{ ID string } }
		r = api.do(t, admin, `mutation($def: JSON!) { importWorkflow(app: "orders", definition: $def, replace: true) { id } }`,
			map[string]any{"def": def}, &again)
		if len(r.Errors) > 0 || again.ImportWorkflow.ID != imported.ImportWorkflow.ID {
			t.Fatalf("the export of %s does not import again over it: %+v", data, r.Errors)
		}
		var second struct{ ExportWorkflow json.RawMessage }
		api.must(t, admin, `query($id: ID!) { exportWorkflow(id: $id) }`, map[string]any{"id": imported.ImportWorkflow.ID}, &second)
		if string(second.ExportWorkflow) != string(exported.ExportWorkflow) {
			t.Fatalf("import of an export changed it:\n%s\n%s", exported.ExportWorkflow, second.ExportWorkflow)
		}
	})
}
