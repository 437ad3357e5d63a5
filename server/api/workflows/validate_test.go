package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// testCatalog is app 1 with jobs 1 and 2 (job 3 is another app's), and
// workflows 10 (the one being saved), 11 → 12 → 10 (nesting) and 13.
func testCatalog() *catalog {
	nests := func(id int64, name string, target int64) *db.Workflow {
		w := &db.Workflow{ID: id, AppID: 1, Name: name}
		if target != 0 {
			w.Graph.Nodes = []db.WorkflowNode{{Key: "n", Type: db.NodeNested, WorkflowID: target}}
		}
		return w
	}
	return &catalog{appID: 1, self: 10,
		jobs: map[int64]*db.Job{1: {ID: 1, AppID: 1, Name: "extract"}, 2: {ID: 2, AppID: 1, Name: "load"}, 3: {ID: 3, AppID: 2, Name: "other"}},
		workflows: map[int64]*db.Workflow{10: nests(10, "self", 0), 11: nests(11, "outer", 12), 12: nests(12, "inner", 10),
			13: nests(13, "leaf", 0)}}
}

// Nesting a workflow that nests this one, at any depth, is refused with
// the cycle named; nesting one that does not is accepted.
func TestNestingCycles(t *testing.T) {
	t.Parallel()
	in := func(target int64) Input {
		return Input{Name: "self", ScheduleType: db.ScheduleAPI, Nodes: []NodeInput{{Key: "a", Type: db.NodeNested, WorkflowID: &target}}}
	}
	_, _, err := validate(in(11), testCatalog())
	var bad *fault.Input
	if !errors.As(err, &bad) || bad.Field != "nodes[0].workflowId" || !strings.Contains(bad.Reason, `"self" → "outer" → "inner" → "self"`) {
		t.Fatalf("nesting outer: %v; want the cycle self → outer → inner → self on nodes[0].workflowId", err)
	}
	if _, _, err := validate(in(13), testCatalog()); err != nil {
		t.Fatalf("nesting leaf: %v", err)
	}
	// A new workflow cannot be part of a cycle: nobody nests it yet.
	cat := testCatalog()
	cat.self = 0
	if _, _, err := validate(in(11), cat); err != nil {
		t.Fatalf("a new workflow nesting outer: %v", err)
	}
}

// What a saved definition reads back as saves again unchanged.
func TestSpecRoundTrip(t *testing.T) {
	t.Parallel()
	job, wf := int64(1), int64(13)
	in := Input{Name: "etl", ScheduleType: db.ScheduleCron, ScheduleExpression: new("0 0 * * * ?"), TimeZone: new("Europe/Berlin"),
		Nodes: []NodeInput{
			{Key: "a", Type: db.NodeJob, JobID: &job, Params: new("x=1"), Retries: new(2), TimeoutMs: new(int64(500))},
			{Key: "d", Type: db.NodeDecision, Expression: new(`upstream.a == "ok"`)},
			{Key: "f", Type: db.NodeForeach, JobID: &job, Expression: new("context.items"), Parallelism: new(4)},
			{Key: "n", Type: db.NodeNested, WorkflowID: &wf, Position: &db.NodePosition{X: 1.5, Y: -2}},
			{Key: "ok", Type: db.NodeApproval, TimeoutMs: new(int64(60000)), TriggerRule: new(db.RuleOneSucceeded)},
		},
		Edges: []EdgeInput{{From: "a", To: "d"}, {From: "d", To: "f", Label: new("true")}, {From: "d", To: "n", Label: new("false")},
			{From: "f", To: "ok"}, {From: "n", To: "ok"}}}
	spec, _, err := validate(in, testCatalog())
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := validate(inputOf(*spec), testCatalog())
	if err != nil || !reflect.DeepEqual(spec, again) {
		t.Fatalf("saved again: %+v, %v\nwant %+v", again, err, spec)
	}
	if spec.Graph.Nodes[2].Parallelism != 4 || !spec.Graph.Nodes[0].Enabled || spec.MaxInstances != 1 || spec.OverlapPolicy != db.OverlapCancel {
		t.Fatalf("defaults: %+v", spec)
	}
}

// FuzzValidate: whatever definition arrives, validation never panics and
// either accepts it — as an acyclic graph of unique keys whose edges name
// nodes, which validates again to the same spec — or refuses it with a
// BAD_INPUT naming a field.
func FuzzValidate(f *testing.F) {
	for _, seed := range []string{
		`{"name":"etl","scheduleType":"API","nodes":[{"key":"a","type":"JOB","jobId":1}],"edges":[]}`,
		`{"name":"etl","scheduleType":"CRON","scheduleExpression":"0 0 * * * ?","nodes":[{"key":"a","type":"JOB","jobId":1},{"key":"b","type":"JOB","jobId":2}],"edges":[{"from":"a","to":"b"}]}`,
		`{"name":"d","scheduleType":"API","nodes":[{"key":"d","type":"DECISION","expression":"context.x > 1"},{"key":"y","type":"APPROVAL"},{"key":"n","type":"APPROVAL","timeoutMs":5}],"edges":[{"from":"d","to":"y","label":"true"},{"from":"d","to":"n","label":"false"}]}`,
		`{"name":"f","scheduleType":"API","nodes":[{"key":"f","type":"FOREACH","jobId":1,"expression":"context.items","parallelism":3}],"edges":[]}`,
		`{"name":"c","scheduleType":"API","nodes":[{"key":"a","type":"JOB","jobId":1},{"key":"b","type":"JOB","jobId":1}],"edges":[{"from":"a","to":"b"},{"from":"b","to":"a"}]}`,
		`{"name":"n","scheduleType":"API","nodes":[{"key":"n","type":"NESTED","workflowId":11}],"edges":[]}`,
		`{"name":"n","scheduleType":"API","nodes":[{"key":"n","type":"NESTED","workflowId":13},{"key":"x","type":"DECISION","expression":"upstream.n"}],"edges":[{"from":"n","to":"x"},{"from":"x","to":"x","label":"a"}]}`,
		`{"name":"bad","scheduleType":"FIXED_DELAY","nodes":[]}`,
		`{"name":"\u0007","scheduleType":"API","nodes":[{"key":"a b","type":"JOB"}]}`,
		`{"name":"x","scheduleType":"FIXED_RATE","scheduleExpression":"1s","maxInstances":0,"nodes":[{"key":"a","type":"FOREACH","jobId":3,"expression":"1+1"}]}`,
		`{"name":"x","scheduleType":"API","nodes":[{"key":"a","type":"JOB","jobId":1,"position":{"x":1e300,"y":0}}],"edges":[{"from":"a","to":"zz"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in Input
		if json.Unmarshal(data, &in) != nil {
			return
		}
		spec, _, err := validate(in, testCatalog())
		if err != nil {
			var bad *fault.Input
			if !errors.As(err, &bad) || bad.Field == "" || bad.Reason == "" {
				t.Fatalf("refused with %v (%T); want a BAD_INPUT naming a field", err, err)
			}
			return
		}
		keys := map[string]bool{}
		for _, n := range spec.Graph.Nodes {
			if keys[n.Key] || !keyPattern.MatchString(n.Key) {
				t.Fatalf("accepted node key %q twice or malformed", n.Key)
			}
			keys[n.Key] = true
		}
		for _, e := range spec.Graph.Edges {
			if !keys[e.From] || !keys[e.To] || e.From == e.To {
				t.Fatalf("accepted edge %+v", e)
			}
		}
		if !topological(spec.Graph) {
			t.Fatalf("accepted a cycle: %+v", spec.Graph.Edges)
		}
		again, _, err := validate(inputOf(*spec), testCatalog())
		if err != nil || !reflect.DeepEqual(spec, again) {
			t.Fatalf("an accepted spec saved again: %+v, %v\nwant %+v", again, err, spec)
		}
	})
}

// topological says whether g's nodes can all be ordered before their
// successors (Kahn's algorithm): an acyclicity check independent of
// findCycle's.
func topological(g db.WorkflowGraph) bool {
	in := map[string]int{}
	for _, e := range g.Edges {
		in[e.To]++
	}
	var ready []string
	for _, n := range g.Nodes {
		if in[n.Key] == 0 {
			ready = append(ready, n.Key)
		}
	}
	done := 0
	for len(ready) > 0 {
		k := ready[0]
		ready = ready[1:]
		done++
		for _, e := range g.Edges {
			if e.From == k {
				if in[e.To]--; in[e.To] == 0 {
					ready = append(ready, e.To)
				}
			}
		}
	}
	return done == len(g.Nodes)
}

// TestNamesAreOneLine (issue 11, items 7 and 11): a workflow's name, a
// node's name and an edge's label refuse what would break the line they
// are shown or mailed in (control characters, line separators,
// bidirectional overrides), naming the field; nothing is saved.
func TestNamesAreOneLine(t *testing.T) {
	t.Parallel()
	job := int64(1)
	// A DECISION's edge, which carries a label.
	ok := func() Input {
		return Input{Name: "etl", ScheduleType: db.ScheduleAPI,
			Nodes: []NodeInput{{Key: "a", Type: db.NodeDecision, Expression: new("context.x > 1")}, {Key: "b", Type: db.NodeJob, JobID: &job}},
			Edges: []EdgeInput{{From: "a", To: "b", Label: new("true")}}}
	}
	if _, _, err := validate(ok(), testCatalog()); err != nil {
		t.Fatalf("the plain workflow: %v", err)
	}
	for _, bad := range []string{"fail\r\nBcc: victim@example.com", "a\u0000b", "a\u2028b", "\u202eevil", "a\u0085b"} {
		for field, in := range map[string]Input{
			"name": func() Input { in := ok(); in.Name = bad; return in }(),
			"nodes[0].name": func() Input {
				in := ok()
				in.Nodes[0].Name = new(bad)
				return in
			}(),
			"edges[0].label": func() Input {
				in := ok()
				in.Edges[0].Label = new(bad)
				return in
			}(),
		} {
			_, _, err := validate(in, testCatalog())
			var fi *fault.Input
			if !errors.As(err, &fi) || fi.Field != field {
				t.Errorf("%s = %q: %v, want BAD_INPUT on %s", field, bad, err, field)
			}
		}
	}
}

// Issue 25, item 3: a workflow whose instance would make more node rows
// and FOREACH elements than the app's budget, whatever happens (its
// nesting, constant lists), is refused at save naming the budget.
func TestSaveRefusesWhatIsOverTheBudget(t *testing.T) {
	t.Parallel()
	cat := testCatalog()
	cat.budget = 100
	var leafNodes []db.WorkflowNode
	for i := range 30 {
		leafNodes = append(leafNodes, db.WorkflowNode{Key: fmt.Sprintf("n%d", i), Type: db.NodeJob, JobID: 1})
	}
	cat.workflows[20] = &db.Workflow{ID: 20, AppID: 1, Name: "leaf", Graph: db.WorkflowGraph{Nodes: leafNodes}}
	nested := func(key string) NodeInput {
		id := int64(20)
		return NodeInput{Key: key, Type: db.NodeNested, WorkflowID: &id}
	}
	foreach := func(expr string) NodeInput {
		job := int64(1)
		return NodeInput{Key: "each", Type: db.NodeForeach, JobID: &job, Expression: &expr}
	}
	for _, tc := range []struct {
		nodes  []NodeInput
		refuse bool
	}{
		{nodes: []NodeInput{nested("a"), nested("b")}},                                         // 2 + 60
		{nodes: []NodeInput{nested("a"), nested("b"), nested("c"), nested("d")}, refuse: true}, // 4 + 120
		{nodes: []NodeInput{foreach(`1..99`)}},                                                 // 1 + 99
		{nodes: []NodeInput{foreach(`1..100`)}, refuse: true},                                  // 1 + 100
		{nodes: []NodeInput{foreach(`context.items`)}},                                         // unknown until it runs
	} {
		_, _, err := validate(Input{Name: "self", ScheduleType: db.ScheduleAPI, Nodes: tc.nodes}, cat)
		var bad *fault.Input
		switch {
		case !tc.refuse && err != nil:
			t.Errorf("%d nodes: %v", len(tc.nodes), err)
		case tc.refuse && (!errors.As(err, &bad) || bad.Field != "nodes" || !strings.Contains(bad.Reason, "budget per instance is 100")):
			t.Errorf("%d nodes: %v; want BAD_INPUT on nodes naming the budget", len(tc.nodes), err)
		}
	}
}

// Issue 26, item 3: a DECISION reading upstream.X where X is not one of
// its direct upstream nodes is refused at save, naming them; a node's name
// is accepted as well as its key.
func TestUpstreamRefsAreDirectPredecessors(t *testing.T) {
	t.Parallel()
	job := int64(1)
	in := func(expr string) Input {
		return Input{Name: "self", ScheduleType: db.ScheduleAPI,
			Nodes: []NodeInput{{Key: "job_1", Name: new("extract"), Type: db.NodeJob, JobID: &job}, {Key: "other", Type: db.NodeJob, JobID: &job},
				{Key: "check", Type: db.NodeDecision, Expression: &expr}, {Key: "done", Type: db.NodeJob, JobID: &job}},
			Edges: []EdgeInput{{From: "job_1", To: "check"}, {From: "other", To: "done"}, {From: "check", To: "done", Label: new("true")}}}
	}
	for _, tc := range []struct {
		expr   string
		refuse bool
	}{
		{expr: `upstream.job_1 contains "done"`},
		{expr: `upstream.extract contains "done"`},
		{expr: `upstream["extract"] != ""`},
		{expr: `upstream.other == ""`, refuse: true},
		{expr: `upstream.nothing == ""`, refuse: true},
		{expr: `upstream[context.k] == ""`},
	} {
		_, _, err := validate(in(tc.expr), testCatalog())
		var bad *fault.Input
		switch {
		case !tc.refuse && err != nil:
			t.Errorf("%s: %v", tc.expr, err)
		case tc.refuse && (!errors.As(err, &bad) || bad.Field != "nodes[2].expression" || !strings.Contains(bad.Reason, `job_1 ("extract")`)):
			t.Errorf("%s: %v; want BAD_INPUT on nodes[2].expression naming job_1 (\"extract\")", tc.expr, err)
		}
	}
}
