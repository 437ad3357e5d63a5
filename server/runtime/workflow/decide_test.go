package workflow

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/runtime/workflow/wfexpr"
)

// These tests drive decide alone: an instance's rows in memory, no database.

var t0 = time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)

type sim struct {
	t      *testing.T
	v      *view
	nextID int64
	// elements are the FOREACH lists stored, by node row.
	elements map[int64][]any
}

// newSim makes a RUNNING run of the graph with every node WAITING.
func newSim(t *testing.T, g db.WorkflowGraph, ctx map[string]any) *sim {
	wi := &db.WorkflowInstance{ID: 1, AppID: 1, WorkflowID: 1, Status: db.WorkflowRunning, Graph: g, Context: ctx}
	v := &view{wi: wi, nodes: map[string]*db.WorkflowNodeRun{}, instances: map[string][]db.Instance{},
		children: map[string]*childInstance{}, jobs: map[int64]*db.Job{7: {ID: 7, AppID: 1}}, targets: map[int64]*db.Workflow{}}
	for i, n := range g.Nodes {
		v.nodes[n.Key] = &db.WorkflowNodeRun{ID: int64(i + 1), WorkflowInstanceID: 1, NodeKey: n.Key, NodeType: n.Type,
			Status: db.NodeWaiting, Generation: 1}
	}
	return &sim{t: t, v: v, nextID: 100, elements: map[int64][]any{}}
}

// step decides and applies the plan to the rows, as the engine's
// transaction would; the expressions it asks for are evaluated at once and
// their outcomes applied by the next decision, as the engine does, and
// the plans of both are returned as one.
func (m *sim) step() *plan {
	p := m.once()
	for len(p.evaluate) > 0 {
		if m.v.evals == nil {
			m.v.evals = map[int64]evalOutcome{}
		}
		for _, r := range p.evaluate {
			v, err := wfexpr.Eval(context.Background(), r.text, r.env, wfexpr.Limits{})
			o := outcomeOf(r.nodeType, v, err)
			o.gen = r.gen
			m.v.evals[r.node] = o
		}
		next := m.once()
		for _, id := range next.consumed {
			delete(m.v.evals, id)
		}
		next.moves = append(p.moves, next.moves...)
		next.creates = append(p.creates, next.creates...)
		next.stop = append(p.stop, next.stop...)
		p = next
	}
	return p
}

func (m *sim) once() *plan {
	// The FOREACH elements still to make, as the engine reads them.
	m.v.elements = map[string][]db.WorkflowElement{}
	for key, n := range m.v.nodes {
		node := m.v.wi.Graph.Node(key)
		if n.NodeType != db.NodeForeach || n.Status != db.NodeRunning {
			continue
		}
		for i := len(m.v.instances[key]); i < len(m.elements[n.ID]) && i < len(m.v.instances[key])+max(node.Parallelism, 1); i++ {
			m.v.elements[key] = append(m.v.elements[key], db.WorkflowElement{Item: i, Element: m.elements[n.ID][i]})
		}
	}
	p := decide(m.v, t0, 3)
	for _, el := range p.elements {
		m.elements[el.node] = el.items
	}
	for _, c := range p.creates {
		m.nextID++
		c.instance.ID = m.nextID
		m.v.instances[c.node] = append(m.v.instances[c.node], c.instance)
	}
	if p.runMove != nil {
		m.v.wi.Status = p.runMove.To
		m.v.wi.Result = *p.runMove.Result
	}
	for _, id := range p.release {
		for k, list := range m.v.instances {
			for i := range list {
				if list[i].ID == id {
					m.v.instances[k][i].TriggerAt = t0
				}
			}
		}
	}
	return p
}

func (m *sim) status(key string) string { return m.v.nodes[key].Status }

// end ends the latest instance of a node (the element item of a FOREACH).
func (m *sim) end(key string, item int, status, result string, out map[string]any) {
	list := m.v.instances[key]
	for i := range list {
		if item < 0 || deref(list[i].WorkflowItem) == item {
			list[i].Status, list[i].Result, list[i].WorkflowOutput = status, result, out
			if item >= 0 {
				return
			}
		}
	}
}

func node(key, typ string, mutate ...func(*db.WorkflowNode)) db.WorkflowNode {
	n := db.WorkflowNode{Key: key, Type: typ, JobID: 7, Enabled: true}
	for _, f := range mutate {
		f(&n)
	}
	return n
}

func edge(from, to string, label ...string) db.WorkflowEdge {
	e := db.WorkflowEdge{From: from, To: to}
	if len(label) > 0 {
		e.Label = label[0]
	}
	return e
}

func TestChainRunsInOrderAndPassesData(t *testing.T) {
	m := newSim(t, db.WorkflowGraph{Nodes: []db.WorkflowNode{node("a", db.NodeJob), node("b", db.NodeJob)},
		Edges: []db.WorkflowEdge{edge("a", "b")}}, map[string]any{"region": "eu"})
	p := m.step()
	if m.status("a") != db.NodeRunning || m.status("b") != db.NodeWaiting || len(p.creates) != 1 {
		t.Fatalf("first step: a %s, b %s, %d instances; want a running alone", m.status("a"), m.status("b"), len(p.creates))
	}
	in := m.v.instances["a"][0]
	if in.WorkflowInput.Context["region"] != "eu" || in.TriggerType != db.TriggerWorkflow || *in.WorkflowGeneration != 1 {
		t.Fatalf("a's instance %+v; want the context and the generation", in)
	}
	m.end("a", -1, db.StatusSucceeded, "10 rows", map[string]any{"rows": 10})
	m.step()
	if m.status("a") != db.NodeSucceeded || m.status("b") != db.NodeRunning {
		t.Fatalf("after a: a %s, b %s", m.status("a"), m.status("b"))
	}
	b := m.v.instances["b"][0]
	if b.WorkflowInput.Context["rows"] != 10 || b.WorkflowInput.Upstream["a"] != "10 rows" {
		t.Fatalf("b saw %+v; want a's addition and result", b.WorkflowInput)
	}
	m.end("b", -1, db.StatusSucceeded, "ok", nil)
	p = m.step()
	if !p.ended || p.runMove.To != db.WorkflowSucceeded {
		t.Fatalf("after b: %+v; want the run SUCCEEDED", p.runMove)
	}
}

func TestDecisionSkipsTheBranchNotTaken(t *testing.T) {
	m := newSim(t, db.WorkflowGraph{Nodes: []db.WorkflowNode{
		node("check", db.NodeDecision, func(n *db.WorkflowNode) { n.Expression = `context.rows > 5` }),
		node("big", db.NodeJob), node("small", db.NodeJob), node("after-small", db.NodeJob),
	}, Edges: []db.WorkflowEdge{edge("check", "big", "true"), edge("check", "small", "false"), edge("small", "after-small")}},
		map[string]any{"rows": 10})
	m.step()
	if m.status("check") != db.NodeSucceeded || m.v.nodes["check"].Result != "true" {
		t.Fatalf("decision: %s %q", m.status("check"), m.v.nodes["check"].Result)
	}
	if m.status("big") != db.NodeRunning {
		t.Fatalf("big %s; want running", m.status("big"))
	}
	if n := m.v.nodes["small"]; n.Status != db.NodeSkipped || n.Reason != db.NodeReasonBranchNotTaken {
		t.Fatalf("small %s %s; want SKIPPED BRANCH_NOT_TAKEN", n.Status, n.Reason)
	}
	if n := m.v.nodes["after-small"]; n.Status != db.NodeSkipped || n.Reason != db.NodeReasonUpstreamSkipped {
		t.Fatalf("after-small %s %s; want SKIPPED UPSTREAM_SKIPPED", n.Status, n.Reason)
	}
	m.end("big", -1, db.StatusSucceeded, "", nil)
	if p := m.step(); p.runMove == nil || p.runMove.To != db.WorkflowSucceeded {
		t.Fatalf("run %+v; want SUCCEEDED with the untaken branch skipped", p.runMove)
	}
}

// A failure blocks only its descendants: the independent branch finishes,
// then the instance ends FAILED.
func TestFailureBlocksOnlyDescendants(t *testing.T) {
	m := newSim(t, db.WorkflowGraph{Nodes: []db.WorkflowNode{
		node("a", db.NodeJob), node("a2", db.NodeJob), node("b", db.NodeJob), node("b2", db.NodeJob),
		node("cleanup", db.NodeJob, func(n *db.WorkflowNode) { n.TriggerRule = db.RuleAllDone }),
	}, Edges: []db.WorkflowEdge{edge("a", "a2"), edge("b", "b2"), edge("a2", "cleanup"), edge("b2", "cleanup")}}, nil)
	m.step()
	m.end("a", -1, db.StatusFailed, "exit status 1", nil)
	m.step()
	if n := m.v.nodes["a2"]; n.Status != db.NodeSkipped || n.Reason != db.NodeReasonUpstreamFailed {
		t.Fatalf("a2 %s %s; want blocked (UPSTREAM_FAILED)", n.Status, n.Reason)
	}
	if m.status("b") != db.NodeRunning || m.status("cleanup") != db.NodeWaiting {
		t.Fatalf("b %s cleanup %s; want the other branch going on", m.status("b"), m.status("cleanup"))
	}
	m.end("b", -1, db.StatusSucceeded, "", nil)
	m.step()
	m.end("b2", -1, db.StatusSucceeded, "", nil)
	m.step()
	if m.status("cleanup") != db.NodeRunning {
		t.Fatalf("cleanup %s; want ALL_DONE to run it", m.status("cleanup"))
	}
	m.end("cleanup", -1, db.StatusSucceeded, "", nil)
	p := m.step()
	if p.runMove == nil || p.runMove.To != db.WorkflowFailed || !strings.Contains(*p.runMove.Result, "1 failed") {
		t.Fatalf("run %+v; want FAILED, saying one failed", p.runMove)
	}
}

func TestSkipWhenFailedLetsTheRunSucceed(t *testing.T) {
	m := newSim(t, db.WorkflowGraph{Nodes: []db.WorkflowNode{
		node("flaky", db.NodeJob, func(n *db.WorkflowNode) { n.SkipWhenFailed = true }), node("next", db.NodeJob),
	}, Edges: []db.WorkflowEdge{edge("flaky", "next")}}, nil)
	m.step()
	m.end("flaky", -1, db.StatusFailed, "boom", nil)
	m.step()
	if n := m.v.nodes["flaky"]; n.Status != db.NodeFailed || !n.FailureIgnored || m.status("next") != db.NodeRunning {
		t.Fatalf("flaky %s ignored=%v, next %s", n.Status, n.FailureIgnored, m.status("next"))
	}
	m.end("next", -1, db.StatusSucceeded, "", nil)
	if p := m.step(); p.runMove == nil || p.runMove.To != db.WorkflowSucceeded {
		t.Fatalf("run %+v; want SUCCEEDED", p.runMove)
	}
}

func TestFailFastStopsTheRest(t *testing.T) {
	m := newSim(t, db.WorkflowGraph{Nodes: []db.WorkflowNode{node("a", db.NodeJob), node("b", db.NodeJob), node("c", db.NodeJob)},
		Edges: []db.WorkflowEdge{edge("b", "c")}}, nil)
	m.v.wi.FailFast = true
	m.step()
	m.end("a", -1, db.StatusFailed, "boom", nil)
	p := m.step()
	if m.status("b") != db.NodeStopped || m.status("c") != db.NodeSkipped || len(p.stop) != 1 {
		t.Fatalf("b %s c %s stops %v; want b stopped (its instance too), c skipped", m.status("b"), m.status("c"), p.stop)
	}
	if p.runMove == nil || p.runMove.To != db.WorkflowFailed {
		t.Fatalf("run %+v; want FAILED at once", p.runMove)
	}
}

func TestForeachRespectsParallelismAndKeepsOrder(t *testing.T) {
	m := newSim(t, db.WorkflowGraph{Nodes: []db.WorkflowNode{node("each", db.NodeForeach, func(n *db.WorkflowNode) {
		n.Expression = `fromJSON(context.list)`
		n.Parallelism = 2
	})}}, map[string]any{"list": `["x","y","z"]`})
	p := m.step()
	if len(p.creates) != 2 || m.v.nodes["each"].Items != 3 || len(p.elements) != 1 || len(p.elements[0].items) != 3 {
		t.Fatalf("%d element instances made, items %d, elements stored %+v; want the 3 elements stored and 2 made (parallelism 2)",
			len(p.creates), m.v.nodes["each"].Items, p.elements)
	}
	m.end("each", 1, db.StatusSucceeded, "Y", nil)
	p = m.step()
	if len(p.creates) != 1 {
		t.Fatalf("made %d; want the third element made once a place freed", len(p.creates))
	}
	if in := m.v.instances["each"][2]; in.Params != "z" || in.WorkflowInput.Element != "z" {
		t.Fatalf("third element's instance: params %q element %v", in.Params, in.WorkflowInput.Element)
	}
	m.end("each", 0, db.StatusSucceeded, "X", nil)
	m.end("each", 2, db.StatusSucceeded, `{"n":3}`, nil)
	m.step()
	if n := m.v.nodes["each"]; n.Status != db.NodeSucceeded || n.Result != `["X","Y",{"n":3}]` {
		t.Fatalf("foreach %s %s; want the results as a list, in element order", n.Status, n.Result)
	}
}

func TestOversizedAdditionFailsTheNodeNamingTheLimit(t *testing.T) {
	m := newSim(t, db.WorkflowGraph{Nodes: []db.WorkflowNode{node("a", db.NodeJob)}}, nil)
	m.step()
	m.end("a", -1, db.StatusSucceeded, "", map[string]any{"blob": strings.Repeat("x", MaxContextBytes)})
	m.step()
	n := m.v.nodes["a"]
	if n.Status != db.NodeFailed || n.Reason != db.NodeReasonContextTooLarge {
		t.Fatalf("a %s %s; want FAILED CONTEXT_TOO_LARGE", n.Status, n.Reason)
	}
	if !strings.Contains(n.Message, "1 MiB") {
		t.Fatalf("message %q does not name the limit", n.Message)
	}
}

func TestTriggerRules(t *testing.T) {
	for _, c := range []struct {
		rule string
		ins  []outcome
		want action
	}{
		{db.RuleAllSucceeded, []outcome{success, success}, start},
		{db.RuleAllSucceeded, []outcome{success, pending}, wait},
		{db.RuleAllSucceeded, []outcome{failed, pending}, skip},
		{db.RuleAllDone, []outcome{failed, skipped}, start},
		{db.RuleAllDone, []outcome{failed, pending}, wait},
		{db.RuleOneSucceeded, []outcome{success, pending}, start},
		{db.RuleOneSucceeded, []outcome{failed, failed}, skip},
		{db.RuleOneFailed, []outcome{failed, pending}, start},
		{db.RuleOneFailed, []outcome{success, success}, skip},
		{db.RuleNoneFailed, []outcome{success, skipped}, start},
		{db.RuleNoneFailed, []outcome{success, failed}, skip},
		{db.RuleNoneFailed, []outcome{success, pending}, wait},
		// Issue 26, item 6: Airflow's four.
		{db.RuleAllFailed, []outcome{failed, failed}, start},
		{db.RuleAllFailed, []outcome{failed, pending}, wait},
		{db.RuleAllFailed, []outcome{failed, success}, skip},
		{db.RuleAllFailed, []outcome{pending, skipped}, skip},
		{db.RuleNoneFailedMinOneSuccess, []outcome{success, skipped}, start},
		{db.RuleNoneFailedMinOneSuccess, []outcome{skipped, notTaken}, skip},
		{db.RuleNoneFailedMinOneSuccess, []outcome{success, failed}, skip},
		{db.RuleNoneFailedMinOneSuccess, []outcome{success, pending}, wait},
		{db.RuleNoneSkipped, []outcome{success, failed}, start},
		{db.RuleNoneSkipped, []outcome{success, notTaken}, skip},
		{db.RuleNoneSkipped, []outcome{pending, success}, wait},
		{db.RuleAllSkipped, []outcome{skipped, notTaken}, start},
		{db.RuleAllSkipped, []outcome{skipped, pending}, wait},
		{db.RuleAllSkipped, []outcome{skipped, failed}, skip},
	} {
		if got, _ := evalRule(c.rule, c.ins); got != c.want {
			t.Errorf("%s over %v = %v; want %v", c.rule, c.ins, got, c.want)
		}
	}
}

func TestExpressionsAreBounded(t *testing.T) {
	if _, err := evalDecision(strings.Repeat("1+", wfexpr.MaxBytes)+"1", nil, nil); err == nil {
		t.Fatal("an oversized expression ran")
	}
	// A memory bomb is stopped by the budget, not the server.
	if _, err := evalList(`map(1..100000000, {#})`, nil, nil); err == nil {
		t.Fatal("an expression building a huge list ran")
	}
	if got, err := evalDecision(`upstream.a == "ok" ? "go" : "stop"`, nil, map[string]string{"a": "ok"}); err != nil || got != "go" {
		t.Fatalf("decision = %q, %v", got, err)
	}
}
