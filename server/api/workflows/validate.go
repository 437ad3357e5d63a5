package workflows

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/jobs"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/text"
	"github.com/jobwheel/jobwheel/server/runtime/workflow/wfexpr"
	"github.com/jobwheel/jobwheel/server/schedule"
)

// Limits on workflow definitions.
const (
	MaxNodes       = 500
	MaxEdges       = 2000
	MaxNameChars   = 128
	MaxDescription = 2000
	MaxParamsBytes = 64 << 10
	MaxRetries     = 100
	MaxParallelism = 1000
	MaxInstances   = 10000
	MaxTimeoutMs   = int64(365 * 24 * 3600 * 1000)
	// MaxBudget bounds an app's workflow budget.
	MaxBudget         = 10_000_000
	maxPositionCoords = 1e7
)

// ScheduleTypes are the schedules a workflow may have: FIXED_DELAY
// (after the previous run ended) and WORKFLOW (only as a node) are job
// schedules.
var ScheduleTypes = []string{db.ScheduleCron, db.ScheduleFixedRate, db.ScheduleAPI}

var keyPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Input is a workflow definition as the API receives it. Nil pointers
// take the defaults.
type Input struct {
	App                string
	Name               string
	Description        *string
	Enabled            *bool
	ScheduleType       string
	ScheduleExpression *string
	TimeZone           *string
	MaxInstances       *int
	OverlapPolicy      *string
	MisfirePolicy      *string
	FailFast           *bool
	// Alarm is whom to tell when runs fail or recover; nil keeps the
	// workflow's (none for a new one).
	Alarm *db.Alarm
	Nodes []NodeInput
	Edges []EdgeInput
}

// NodeInput is one node of an Input. Fields that do not apply to the
// node's type must be left out (an empty expression counts as left out).
type NodeInput struct {
	Key        string
	Type       string
	Name       *string
	JobID      *int64
	WorkflowID *int64
	// JobName and WorkflowName name the job or nested workflow instead of
	// JobID and WorkflowID (files stay portable across environments);
	// check resolves them in the saving transaction.
	JobName        *string
	WorkflowName   *string
	Expression     *string
	Params         *string
	Enabled        *bool
	SkipWhenFailed *bool
	TriggerRule    *string
	Parallelism    *int
	TimeoutMs      *int64
	Retries        *int
	Position       *db.NodePosition
	// Pool names the app's pool the node's instances take PoolSlots of in
	// place of their job's (JOB, FOREACH).
	Pool      *string
	PoolSlots *int
}

// EdgeInput is one edge of an Input, by node keys.
type EdgeInput struct {
	From  string
	To    string
	Label *string
}

// catalog is what validation looks up, read in the saving transaction.
type catalog struct {
	appID int64
	// self is the workflow being saved; 0 for a new one.
	self int64
	// jobs are the jobs the nodes name, of whatever app (checked here).
	jobs map[int64]*db.Job
	// workflows are every workflow of the app: nesting cycles are looked
	// for across all of them.
	workflows map[int64]*db.Workflow
	// pools are the app's pools, by name.
	pools map[string]*db.Pool
	// budget is the app's workflow budget (0: none).
	budget int
}

// validate checks in against cat and returns the spec it defines, or a
// *fault.Input naming the first field at fault. It does no I/O (so it can
// be fuzzed) and never panics on any input.
func validate(in Input, cat *catalog) (*db.WorkflowSpec, *schedule.Schedule, error) {
	spec := &db.WorkflowSpec{Name: strings.TrimSpace(in.Name), Description: deref(in.Description, ""),
		Enabled: deref(in.Enabled, true), ScheduleType: in.ScheduleType,
		ScheduleExpression: strings.TrimSpace(deref(in.ScheduleExpression, "")), TimeZone: deref(in.TimeZone, "UTC"),
		MaxInstances: deref(in.MaxInstances, 1), OverlapPolicy: deref(in.OverlapPolicy, db.OverlapCancel),
		MisfirePolicy: deref(in.MisfirePolicy, db.MisfireFireOnce), FailFast: deref(in.FailFast, false)}
	if spec.TimeZone == "" {
		spec.TimeZone = "UTC"
	}
	if err := checkName("name", spec.Name, true); err != nil {
		return nil, nil, err
	}
	if utf8.RuneCountInString(spec.Description) > MaxDescription {
		return nil, nil, fault.BadInput("description", "must be at most %d characters", MaxDescription)
	}
	if strings.ContainsFunc(spec.Description, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' }) {
		return nil, nil, fault.BadInput("description", "must not contain control characters other than line breaks and tabs")
	}
	if !slices.Contains(ScheduleTypes, spec.ScheduleType) {
		return nil, nil, fault.BadInput("scheduleType", "%q is not a workflow schedule; use %s", spec.ScheduleType, strings.Join(ScheduleTypes, ", "))
	}
	if spec.ScheduleType == db.ScheduleAPI && spec.ScheduleExpression != "" {
		return nil, nil, fault.BadInput("scheduleExpression", "must be empty for API workflows, which instance only through runWorkflow")
	}
	sch, err := schedule.Parse(schedule.Spec{Type: spec.ScheduleType, Expression: spec.ScheduleExpression, TimeZone: spec.TimeZone})
	if err != nil {
		return nil, nil, err
	}
	if spec.MaxInstances < 1 || spec.MaxInstances > MaxInstances {
		return nil, nil, fault.BadInput("maxInstances", "%d is out of range 1 to %d (runs of the workflow at once)", spec.MaxInstances, MaxInstances)
	}
	if !slices.Contains(db.OverlapPolicies, spec.OverlapPolicy) {
		return nil, nil, fault.BadInput("overlapPolicy", "%q is not one of %s", spec.OverlapPolicy, strings.Join(db.OverlapPolicies, ", "))
	}
	if !slices.Contains(db.MisfirePolicies, spec.MisfirePolicy) {
		return nil, nil, fault.BadInput("misfirePolicy", "%q is not one of %s", spec.MisfirePolicy, strings.Join(db.MisfirePolicies, ", "))
	}
	switch {
	case len(in.Nodes) == 0:
		return nil, nil, fault.BadInput("nodes", "a workflow needs at least one node")
	case len(in.Nodes) > MaxNodes:
		return nil, nil, fault.BadInput("nodes", "%d nodes; at most %d", len(in.Nodes), MaxNodes)
	case len(in.Edges) > MaxEdges:
		return nil, nil, fault.BadInput("edges", "%d edges; at most %d", len(in.Edges), MaxEdges)
	}
	index := make(map[string]int, len(in.Nodes))
	spec.Graph.Nodes = make([]db.WorkflowNode, len(in.Nodes))
	for i, n := range in.Nodes {
		f := fmt.Sprintf("nodes[%d]", i)
		if !keyPattern.MatchString(n.Key) {
			return nil, nil, fault.BadInput(f+".key", "%q is not a node key: 1 to 64 letters, digits, '_' or '-'", n.Key)
		}
		if j, dup := index[n.Key]; dup {
			return nil, nil, fault.BadInput(f+".key", "%q is the key of nodes[%d] already; keys are unique", n.Key, j)
		}
		index[n.Key] = i
		node, err := validateNode(f, n, cat)
		if err != nil {
			return nil, nil, err
		}
		spec.Graph.Nodes[i] = node
	}
	spec.Graph.Edges = make([]db.WorkflowEdge, len(in.Edges))
	seen := make(map[[2]string]int, len(in.Edges))
	for j, e := range in.Edges {
		f := fmt.Sprintf("edges[%d]", j)
		from, ok := index[e.From]
		if !ok {
			return nil, nil, fault.BadInput(f+".from", "%q names no node", e.From)
		}
		if _, ok := index[e.To]; !ok {
			return nil, nil, fault.BadInput(f+".to", "%q names no node", e.To)
		}
		if e.From == e.To {
			return nil, nil, fault.BadInput(f, "connects node %q to itself", e.From)
		}
		if k, dup := seen[[2]string{e.From, e.To}]; dup {
			return nil, nil, fault.BadInput(f, "connects %q to %q as edges[%d] does already", e.From, e.To, k)
		}
		seen[[2]string{e.From, e.To}] = j
		label := deref(e.Label, "")
		if spec.Graph.Nodes[from].Type == db.NodeDecision {
			if err := checkName(f+".label", label, false); err != nil {
				return nil, nil, err
			}
			if label == "" {
				return nil, nil, fault.BadInput(f+".label", "an edge out of DECISION node %q needs the label its value must equal to take it (\"true\" or \"false\" for a boolean)", e.From)
			}
		} else if label != "" {
			return nil, nil, fault.BadInput(f+".label", "only edges out of a DECISION carry a label; %q is a %s node", e.From, spec.Graph.Nodes[from].Type)
		}
		spec.Graph.Edges[j] = db.WorkflowEdge{From: e.From, To: e.To, Label: label}
	}
	if err := checkUpstreamRefs(spec.Graph); err != nil {
		return nil, nil, err
	}
	if j, cycle := findCycle(spec.Graph); j >= 0 {
		return nil, nil, fault.BadInput(fmt.Sprintf("edges[%d]", j), "closes a cycle: %s; a workflow is acyclic", strings.Join(cycle, " → "))
	}
	if err := checkNesting(spec.Graph, cat); err != nil {
		return nil, nil, err
	}
	if cost := staticCost(spec.Graph, cat); cat.budget > 0 && cost > cat.budget {
		return nil, nil, fault.BadInput("nodes", "an instance of it would make at least %d node rows and FOREACH elements across its nested workflows; the app's budget per instance is %d (setAppWorkflowBudget)",
			cost, cat.budget)
	}
	return spec, sch, nil
}

// checkUpstreamRefs refuses an expression that reads upstream.X where X is
// neither the key nor the name of one of the node's direct upstream nodes
// (issue 26, item 3): it would read nothing and silently take the false
// branch.
func checkUpstreamRefs(g db.WorkflowGraph) error {
	preds := map[string][]*db.WorkflowNode{}
	for _, e := range g.Edges {
		preds[e.To] = append(preds[e.To], g.Node(e.From))
	}
	for i, n := range g.Nodes {
		if n.Expression == "" {
			continue
		}
		for _, ref := range wfexpr.UpstreamRefs(n.Expression) {
			found := false
			var names []string
			for _, p := range preds[n.Key] {
				if p.Key == ref || (p.Name != "" && p.Name == ref) {
					found = true
				}
				if p.Name != "" && p.Name != p.Key {
					names = append(names, fmt.Sprintf("%s (%q)", p.Key, p.Name))
				} else {
					names = append(names, p.Key)
				}
			}
			if found {
				continue
			}
			if len(names) == 0 {
				return fault.BadInput(fmt.Sprintf("nodes[%d].expression", i), "reads upstream.%s, but node %q has no upstream node", ref, n.Key)
			}
			return fault.BadInput(fmt.Sprintf("nodes[%d].expression", i), "reads upstream.%s, which is none of node %q's direct upstream nodes: %s (by key, or by name)",
				ref, n.Key, strings.Join(names, ", "))
		}
	}
	return nil
}

// staticCost is what an instance of g makes whatever happens: its node rows,
// its nested workflows' (at every depth, as they are saved now) and the
// elements of FOREACH lists known before running (a constant range or
// list). It stops counting past the budget (nesting multiplies).
func staticCost(g db.WorkflowGraph, cat *catalog) int {
	limit := cat.budget + 1
	if cat.budget <= 0 {
		limit = math.MaxInt32
	}
	memo := map[int64]int{}
	var cost func(g db.WorkflowGraph, depth int) int
	cost = func(g db.WorkflowGraph, depth int) int {
		total := len(g.Nodes)
		for _, n := range g.Nodes {
			switch {
			case n.Type == db.NodeForeach:
				if k, ok := wfexpr.StaticLen(n.Expression); ok {
					total += k
				}
			case n.Type == db.NodeNested && depth < 32:
				c, ok := memo[n.WorkflowID]
				if !ok {
					if w := cat.workflows[n.WorkflowID]; w != nil && w.ID != cat.self {
						c = cost(w.Graph, depth+1)
					}
					memo[n.WorkflowID] = c
				}
				total += c
			}
			if total >= limit {
				return limit
			}
		}
		return total
	}
	return cost(g, 0)
}

// validateNode checks one node (all but its edges and nesting cycles).
func validateNode(f string, n NodeInput, cat *catalog) (db.WorkflowNode, error) {
	node := db.WorkflowNode{Key: n.Key, Type: n.Type, Name: strings.TrimSpace(deref(n.Name, "")),
		Expression: strings.TrimSpace(deref(n.Expression, "")), Params: n.Params, Enabled: deref(n.Enabled, true),
		SkipWhenFailed: deref(n.SkipWhenFailed, false), TriggerRule: deref(n.TriggerRule, ""),
		TimeoutMs: n.TimeoutMs, Retries: n.Retries, Position: n.Position}
	if !slices.Contains(db.NodeTypes, n.Type) {
		return node, fault.BadInput(f+".type", "%q is not one of %s", n.Type, strings.Join(db.NodeTypes, ", "))
	}
	if err := checkName(f+".name", node.Name, false); err != nil {
		return node, err
	}
	runsJob := n.Type == db.NodeJob || n.Type == db.NodeForeach
	// Fields that belong to other node types are refused rather than
	// ignored: a value the engine would not use is a mistake worth naming.
	only := func(field string, set bool, ok bool, types string) error {
		if set && !ok {
			return fault.BadInput(f+"."+field, "applies to %s only; this node is %s", types, n.Type)
		}
		return nil
	}
	for _, c := range []struct {
		field   string
		set, ok bool
		types   string
	}{
		{"jobId", n.JobID != nil, runsJob, "JOB and FOREACH nodes"},
		{"workflowId", n.WorkflowID != nil, n.Type == db.NodeNested, "NESTED nodes"},
		{"expression", node.Expression != "", n.Type == db.NodeDecision || n.Type == db.NodeForeach, "DECISION and FOREACH nodes"},
		{"params", n.Params != nil, n.Type == db.NodeJob, "JOB nodes (a FOREACH gives each instance its element)"},
		{"parallelism", n.Parallelism != nil, n.Type == db.NodeForeach, "FOREACH nodes"},
		{"timeoutMs", n.TimeoutMs != nil, runsJob || n.Type == db.NodeApproval, "JOB, FOREACH and APPROVAL nodes"},
		{"retries", n.Retries != nil, runsJob, "JOB and FOREACH nodes"},
		{"pool", n.Pool != nil, runsJob, "JOB and FOREACH nodes"},
		{"poolSlots", n.PoolSlots != nil, runsJob, "JOB and FOREACH nodes"},
	} {
		if err := only(c.field, c.set, c.ok, c.types); err != nil {
			return node, err
		}
	}
	switch {
	case runsJob && n.JobID == nil:
		return node, fault.BadInput(f+".jobId", "a %s node needs the job it runs", n.Type)
	case runsJob:
		j := cat.jobs[*n.JobID]
		if j == nil || j.AppID != cat.appID {
			return node, fault.BadInput(f+".jobId", "the app has no job %d", *n.JobID)
		}
		node.JobID = j.ID
	case n.Type == db.NodeNested && n.WorkflowID == nil:
		return node, fault.BadInput(f+".workflowId", "a NESTED node needs the workflow it runs")
	case n.Type == db.NodeNested:
		w := cat.workflows[*n.WorkflowID]
		if w == nil || w.AppID != cat.appID {
			return node, fault.BadInput(f+".workflowId", "the app has no workflow %d", *n.WorkflowID)
		}
		if w.ID == cat.self {
			return node, fault.BadInput(f+".workflowId", "a workflow cannot nest itself")
		}
		node.WorkflowID = w.ID
	}
	switch n.Type {
	case db.NodeDecision, db.NodeForeach:
		if node.Expression == "" {
			what := "the expression whose value picks the outgoing edges with that label"
			if n.Type == db.NodeForeach {
				what = "the expression that yields the list to run the job over, e.g. context.items"
			}
			return node, fault.BadInput(f+".expression", "a %s node needs %s", n.Type, what)
		}
		compile := wfexpr.Compile
		if n.Type == db.NodeForeach {
			compile = wfexpr.CompileList
		}
		if _, err := compile(node.Expression); err != nil {
			return node, fault.BadInput(f+".expression", "%v (variables: context, upstream)", err)
		}
	}
	if n.Params != nil && len(*n.Params) > MaxParamsBytes {
		return node, fault.BadInput(f+".params", "must be at most %d bytes", MaxParamsBytes)
	}
	if node.TriggerRule != "" && !slices.Contains(db.TriggerRules, node.TriggerRule) {
		return node, fault.BadInput(f+".triggerRule", "%q is not one of %s", node.TriggerRule, strings.Join(db.TriggerRules, ", "))
	}
	if n.Type == db.NodeForeach {
		node.Parallelism = deref(n.Parallelism, 1)
		if node.Parallelism < 1 || node.Parallelism > MaxParallelism {
			return node, fault.BadInput(f+".parallelism", "%d is out of range 1 to %d (elements running at once)", node.Parallelism, MaxParallelism)
		}
	}
	if t := n.TimeoutMs; t != nil && (*t < 0 || *t > MaxTimeoutMs) {
		return node, fault.BadInput(f+".timeoutMs", "%d is out of range 0 to %d", *t, MaxTimeoutMs)
	}
	if r := n.Retries; r != nil && (*r < 0 || *r > MaxRetries) {
		return node, fault.BadInput(f+".retries", "%d is out of range 0 to %d", *r, MaxRetries)
	}
	if err := validateNodePool(f, n, &node, cat); err != nil {
		return node, err
	}
	if p := n.Position; p != nil && !(finite(p.X) && finite(p.Y)) {
		return node, fault.BadInput(f+".position", "x and y must be numbers within ±%g", maxPositionCoords)
	}
	return node, nil
}

// validateNodePool checks the pool a node names in place of its job's
// (docs/design.md §5.9): one of the app's, with the slots the node takes.
func validateNodePool(f string, n NodeInput, node *db.WorkflowNode, cat *catalog) error {
	node.Pool = strings.TrimSpace(deref(n.Pool, ""))
	if node.Pool == "" {
		if n.PoolSlots != nil {
			return fault.BadInput(f+".poolSlots", "applies with a pool only; name the pool the node takes slots of")
		}
		return nil
	}
	node.PoolSlots = deref(n.PoolSlots, 1)
	if err := jobs.CheckPoolRef(f+".poolSlots", node.PoolSlots); err != nil {
		return err
	}
	p := cat.pools[node.Pool]
	if p == nil {
		return fault.BadInput(f+".pool", "the app has no pool named %q (create it first: createPool)", node.Pool)
	}
	if node.PoolSlots > p.Slots {
		return fault.BadInput(f+".poolSlots", "takes %d slots of pool %q, which has %d; an instance could never start", node.PoolSlots, node.Pool, p.Slots)
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && math.Abs(v) <= maxPositionCoords }

// checkName checks a single-line name: trimmed already, at most
// MaxNameChars (edge labels too), no control
// characters; required says whether it may be empty.
func checkName(field, s string, required bool) error {
	switch {
	case s == "" && required:
		return fault.BadInput(field, "must not be empty")
	case utf8.RuneCountInString(s) > MaxNameChars:
		return fault.BadInput(field, "must be at most %d characters", MaxNameChars)
	case !utf8.ValidString(s):
		return fault.BadInput(field, "must be valid UTF-8")
	}
	// One line: no control characters, line separators or bidirectional
	// overrides, as for every single-line field (package text).
	return text.Line(field, s)
}

// findCycle returns the index of an edge that closes a cycle and the
// cycle's node keys (first repeated last), or -1.
func findCycle(g db.WorkflowGraph) (int, []string) {
	out := make(map[string][]int, len(g.Nodes)) // node → indexes of its out-edges
	for j, e := range g.Edges {
		out[e.From] = append(out[e.From], j)
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := make(map[string]int, len(g.Nodes))
	var path []string
	var visit func(key string) (int, []string)
	visit = func(key string) (int, []string) {
		state[key] = onPath
		path = append(path, key)
		for _, j := range out[key] {
			next := g.Edges[j].To
			switch state[next] {
			case onPath:
				start := slices.Index(path, next)
				return j, append(slices.Clone(path[start:]), next)
			case unseen:
				if j, c := visit(next); j >= 0 {
					return j, c
				}
			}
		}
		path = path[:len(path)-1]
		state[key] = done
		return -1, nil
	}
	for _, n := range g.Nodes {
		if state[n.Key] == unseen {
			if j, c := visit(n.Key); j >= 0 {
				return j, c
			}
		}
	}
	return -1, nil
}

// checkNesting refuses a NESTED node whose workflow nests, at any depth,
// the workflow being saved: runs would nest without end.
func checkNesting(g db.WorkflowGraph, cat *catalog) error {
	if cat.self == 0 {
		return nil // nobody can nest a workflow that does not exist yet
	}
	nests := func(w *db.Workflow) []int64 {
		var ids []int64
		for _, n := range w.Graph.Nodes {
			if n.Type == db.NodeNested && n.WorkflowID != 0 {
				ids = append(ids, n.WorkflowID)
			}
		}
		return ids
	}
	for i, n := range g.Nodes {
		if n.Type != db.NodeNested {
			continue
		}
		// Depth-first from the nested workflow, looking for self.
		seen := map[int64]bool{}
		var walk func(id int64, path []int64) []int64
		walk = func(id int64, path []int64) []int64 {
			path = append(path, id)
			if id == cat.self {
				return path
			}
			if seen[id] {
				return nil
			}
			seen[id] = true
			w := cat.workflows[id]
			if w == nil {
				return nil
			}
			for _, next := range nests(w) {
				if p := walk(next, path); p != nil {
					return p
				}
			}
			return nil
		}
		if p := walk(n.WorkflowID, []int64{cat.self}); p != nil {
			names := make([]string, len(p))
			for k, id := range p {
				names[k] = fmt.Sprintf("%q", cat.name(id))
			}
			return fault.BadInput(fmt.Sprintf("nodes[%d].workflowId", i), "nesting it makes a cycle of workflows: %s", strings.Join(names, " → "))
		}
	}
	return nil
}

func (c *catalog) name(id int64) string {
	if w := c.workflows[id]; w != nil {
		return w.Name
	}
	return fmt.Sprint(id)
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
