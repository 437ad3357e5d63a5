package workflows

import (
	"errors"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// A instance's initial context is a JSON object of at most MaxContextBytes;
// anything else is BAD_INPUT on context. (The API's 1 MiB request limit
// is met first over HTTP, so the bound is checked here.)
func TestContextObject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		v    any
		ok   bool
	}{
		{"none", nil, true},
		{"object", map[string]any{"region": "eu", "n": 3}, true},
		{"list", []any{1, 2}, false},
		{"string", "eu", false},
		{"null inside is fine", map[string]any{"x": nil}, true},
		{"too large", map[string]any{"blob": strings.Repeat("x", MaxContextBytes)}, false},
	} {
		got, err := contextObject(tc.v)
		var bad *fault.Input
		switch {
		case tc.ok && (err != nil || got == nil):
			t.Errorf("%s: %v", tc.name, err)
		case !tc.ok && (!errors.As(err, &bad) || bad.Field != "context"):
			t.Errorf("%s: %v; want BAD_INPUT on context", tc.name, err)
		}
	}
	got, _ := contextObject(map[string]any{"n": 3})
	if got["n"] != 3.0 {
		t.Fatalf("numbers read back as JSON decodes them: %#v", got["n"])
	}
}

// A instance's nodes as shown: one per node of its graph in the graph's order,
// WAITING for those without a row yet; a node's instances are those of
// its current generation, FOREACH elements in element order.
func TestNodesAndTheirInstances(t *testing.T) {
	t.Parallel()
	r := &db.WorkflowInstance{ID: 7, Graph: db.WorkflowGraph{Nodes: []db.WorkflowNode{
		{Key: "a", Type: db.NodeJob}, {Key: "each", Type: db.NodeForeach}, {Key: "c", Type: db.NodeApproval}}}}
	rows := []db.WorkflowNodeRun{
		{WorkflowInstanceID: 7, NodeKey: "each", NodeType: db.NodeForeach, Status: db.NodeRunning, Generation: 2},
		{WorkflowInstanceID: 7, NodeKey: "a", NodeType: db.NodeJob, Status: db.NodeSucceeded, Generation: 1},
	}
	nodes := NodesOf(r, rows)
	if len(nodes) != 3 || nodes[0].NodeKey != "a" || nodes[0].Status != db.NodeSucceeded || nodes[1].Generation != 2 ||
		nodes[2].NodeKey != "c" || nodes[2].Status != db.NodeWaiting || nodes[2].NodeType != db.NodeApproval {
		t.Fatalf("nodes: %+v", nodes)
	}
	in := func(id int64, node string, gen, item int) db.Instance {
		return db.Instance{ID: id, WorkflowNodeID: &node, WorkflowGeneration: &gen, WorkflowItem: &item}
	}
	all := []db.Instance{in(1, "each", 1, 0), in(2, "each", 2, 2), in(3, "each", 2, 0), in(4, "a", 1, 0), in(5, "each", 2, 1)}
	got := NodeInstances(&nodes[1], all)
	if len(got) != 3 || got[0].ID != 3 || got[1].ID != 5 || got[2].ID != 2 {
		t.Fatalf("FOREACH instances: %+v; want 3, 5, 2 (generation 2, by element)", got)
	}
}
