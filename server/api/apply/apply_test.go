package apply

import (
	"slices"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/workflows"
)

// TestWorkflowOrder: a workflow nesting another of the same apply (by
// name, in the same app) is saved after it, whatever the files' order; a
// name in another app or outside the apply does not reorder, and a cycle
// still yields every workflow once (validation names the cycle).
func TestWorkflowOrder(t *testing.T) {
	nests := func(app, name string, nested ...string) workflows.Input {
		in := workflows.Input{App: app, Name: name}
		for _, n := range nested {
			in.Nodes = append(in.Nodes, workflows.NodeInput{WorkflowName: &n})
		}
		return in
	}
	for _, tc := range []struct {
		list []workflows.Input
		want []int
	}{
		{[]workflows.Input{nests("a", "outer", "inner"), nests("a", "inner")}, []int{1, 0}},
		{[]workflows.Input{nests("a", "top", "mid"), nests("a", "mid", "low"), nests("a", "low")}, []int{2, 1, 0}},
		{[]workflows.Input{nests("a", "outer", "inner"), nests("b", "inner")}, []int{0, 1}},
		{[]workflows.Input{nests("a", "x", "y"), nests("a", "y", "x")}, []int{1, 0}},
	} {
		if got := workflowOrder(tc.list); !slices.Equal(got, tc.want) {
			t.Errorf("order %v; want %v", got, tc.want)
		}
	}
}

// TestSpecDifferences: fields are named as WorkflowInput names them, the
// graph as nodes and edges, and an empty list equals none.
func TestSpecDifferences(t *testing.T) {
	a := db.WorkflowSpec{Name: "w", ScheduleType: "API", Graph: db.WorkflowGraph{Nodes: []db.WorkflowNode{{Key: "a", Type: "JOB", JobID: 1}}}}
	b := a
	b.Graph.Edges = []db.WorkflowEdge{}
	b.Alarm = db.Alarm{Rules: []db.AlarmRule{}}
	if got := specDifferences(a, b); len(got) != 0 {
		t.Fatalf("empty lists differ from none: %v", got)
	}
	b.TimeZone, b.Graph.Nodes = "Asia/Shanghai", []db.WorkflowNode{{Key: "a", Type: "JOB", JobID: 2}}
	if got := specDifferences(a, b); !slices.Equal(got, []string{"timeZone", "nodes"}) {
		t.Fatalf("differences %v; want timeZone, nodes", got)
	}
}
