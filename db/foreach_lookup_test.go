package db_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
)

// The attacker probe (docs/security.md, "Attacker probe"): a FOREACH of
// 10,000 elements looks up, each time it makes more instances, which
// elements have one yet. Indexed by run alone, PostgreSQL answered by
// scanning the run's instances once per element (rows removed by its join
// filter: elements × instances), minutes per batch on a busy server with
// the run's lock held, so stopping the run timed out. The lookup must cost
// in proportion to the elements, not their square: what PostgreSQL reads
// and throws away is counted by EXPLAIN ANALYZE, not timed.
func TestForeachLookupsAreIndexed(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.Postgres)
	ctx := context.Background()
	const n = 1500
	app := newApp(t, d)
	job := newJob(t, d, app.ID, "element", nil)
	wf := testfactory.Workflow(t, d, app.ID, nil)
	wi := &db.WorkflowInstance{AppID: app.ID, WorkflowID: wf.ID, Version: 1, Status: db.WorkflowRunning,
		TriggerType: "API", TriggerAt: db.Now()}
	if _, err := d.WorkflowInstanceCreate(ctx, wi); err != nil {
		t.Fatal(err)
	}
	if err := d.WorkflowNodeRunCreateMany(ctx, []db.WorkflowNodeRun{{WorkflowInstanceID: wi.ID, NodeKey: "each",
		NodeType: db.NodeForeach, Status: db.NodeRunning, Generation: 1}}); err != nil {
		t.Fatal(err)
	}
	nr, err := d.WorkflowNodeRunGet(ctx, wi.ID, "each")
	if err != nil {
		t.Fatal(err)
	}
	items := make([]any, n)
	for i := range items {
		items[i] = i
	}
	if err := d.WorkflowElementCreateMany(ctx, nr.ID, 1, items); err != nil {
		t.Fatal(err)
	}
	// Every element but the last has its instance, and its nested run.
	if _, err := d.Bun().NewRaw(`INSERT INTO instances (app_id, job_id, status, trigger_type, trigger_at, created_at, updated_at,
		workflow_instance_id, workflow_node_id, workflow_generation, workflow_item)
		SELECT ?, ?, 'RUNNING', 'WORKFLOW', now(), now(), now(), ?, 'each', 1, g FROM generate_series(0, ?) AS g`,
		app.ID, job.ID, wi.ID, n-2).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Bun().NewRaw(`INSERT INTO workflow_instances (app_id, workflow_id, version, status, trigger_type, trigger_at,
		graph, context, created_at, updated_at, parent_instance_id, parent_node_key, parent_generation, parent_item, root_instance_id)
		SELECT ?, ?, 1, 'RUNNING', 'WORKFLOW', now(), '{}', '{}', now(), now(), ?, 'each', 1, g, ? FROM generate_series(0, ?) AS g`,
		app.ID, wf.ID, wi.ID, wi.ID, n-2).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	// Every query the lookups make is run again under EXPLAIN ANALYZE.
	var queries []string
	d.Bun().AddQueryHook(&recordQueries{out: &queries})
	for name, lookup := range map[string]func() ([]db.WorkflowElement, error){
		"unmade": func() ([]db.WorkflowElement, error) { return d.WorkflowElementListUnmade(ctx, nr, 1000) },
		"unrun":  func() ([]db.WorkflowElement, error) { return d.WorkflowElementListUnrun(ctx, nr, 1000) },
	} {
		queries = queries[:0]
		got, err := lookup()
		if err != nil || len(got) != 1 || got[0].Item != n-1 {
			t.Fatalf("%s = %+v, %v; want element %d alone", name, got, err, n-1)
		}
		removed := 0
		for _, q := range slices.Clone(queries) {
			var plan string
			if err := d.Bun().NewRaw("EXPLAIN (ANALYZE, FORMAT JSON) "+q).Scan(ctx, &plan); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var nodes []map[string]any
			if err := json.Unmarshal([]byte(plan), &nodes); err != nil {
				t.Fatal(err)
			}
			removed += removedRows(nodes[0]["Plan"].(map[string]any))
		}
		if removed > 2*n {
			t.Errorf("%s: finding the element without an instance among %d threw away %d rows; want at most %d (%q)",
				name, n, removed, 2*n, queries)
		}
	}
}

// recordQueries records the SELECTs run on a database.
type recordQueries struct{ out *[]string }

func (r *recordQueries) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (r *recordQueries) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if strings.HasPrefix(e.Query, "SELECT") && !strings.Contains(e.Query, "EXPLAIN") {
		*r.out = append(*r.out, e.Query)
	}
}

// removedRows sums what the plan's nodes read and threw away, loops
// included.
func removedRows(p map[string]any) int {
	loops, _ := p["Actual Loops"].(float64)
	total := 0
	for _, k := range []string{"Rows Removed by Filter", "Rows Removed by Join Filter", "Rows Removed by Index Recheck"} {
		if v, ok := p[k].(float64); ok {
			total += int(v * max(loops, 1))
		}
	}
	if kids, ok := p["Plans"].([]any); ok {
		for _, k := range kids {
			total += removedRows(k.(map[string]any))
		}
	}
	return total
}
