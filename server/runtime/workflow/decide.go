package workflow

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// MaxContextBytes bounds an instance's context (the initial context with every
// node's additions), as JSON. A node whose additions would take it over
// fails with CONTEXT_TOO_LARGE: nothing is dropped silently.
const MaxContextBytes = 1 << 20

// maxDepth bounds nesting at run time; saving already refuses cycles.
const maxDepth = 32

// holdUntil is the trigger time of a FOREACH element waiting for a place
// under the node's parallelism: the trigger loop never loads it, and the
// engine releases it (trigger time now) when a place frees.
var holdUntil = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// view is one instance as read at the start of its decision.
type view struct {
	wi    *db.WorkflowInstance
	depth int
	nodes map[string]*db.WorkflowNodeRun
	// instances are the job instances of each node's current generation,
	// oldest first (FOREACH: one per element, by element).
	instances map[string][]db.Instance
	// children are the current nested instance of each NESTED node, with its
	// node rows.
	children map[string]*childInstance
	// jobs are the jobs JOB and FOREACH nodes run; a missing one was deleted.
	jobs map[int64]*db.Job
	// targets are the workflows NESTED nodes start (current versions).
	targets map[int64]*db.Workflow
	// evals are the outcomes of expressions evaluated for RUNNING DECISION
	// and FOREACH nodes, by node row id, not yet applied; pending are the
	// node rows whose evaluation is under way (the engine's memory: after
	// a restart neither holds anything, and the nodes are evaluated again).
	evals   map[int64]evalOutcome
	pending map[int64]bool
	// elements are, for each RUNNING FOREACH with elements still to make,
	// the next ones (as many as its parallelism).
	elements map[string][]db.WorkflowElement
	// runs are, for each RUNNING FOREACH over a nested workflow, its
	// element runs of the current generation, by element; their node rows
	// are read only once every one has ended (for what they added).
	runs map[string][]*childInstance
	// rootID is the top instance of the tree, budget and budgetUsed its
	// budget (0: none) and what the tree has used of it.
	rootID             int64
	budget, budgetUsed int
}

type childInstance struct {
	wi    *db.WorkflowInstance
	nodes []db.WorkflowNodeRun
}

// plan is what one decision on one instance does, applied in one transaction.
type plan struct {
	// downstream are the runs of workflows linked downstream that the
	// run's success started (apply fills it in).
	downstream []int64
	moves      []db.WorkflowNodeRunTransition
	// creates are job instances to create for nodes; a JOB node's move to
	// RUNNING takes the id of its instance (linkTo).
	creates []create
	// release are FOREACH elements whose hold ends: their trigger time
	// becomes now and they are fired.
	release []int64
	// children are nested instances to create, running, with their node rows.
	children []newChild
	runMove  *db.WorkflowInstanceTransition
	// stop are job instances to stop (failFast); stopWorkflowInstances nested instances.
	stop                  []int64
	stopWorkflowInstances []int64
	// evaluate are the expressions to evaluate once the plan is committed;
	// consumed the evaluation outcomes the plan applied.
	evaluate []evalRequest
	consumed []int64
	// budgetUse is what the plan adds to the top instance's budget used;
	// elements the FOREACH lists to store.
	budgetUse int
	elements  []newElements
	// ended says the instance ended in this decision.
	ended bool
}

type newElements struct {
	node  int64
	gen   int
	items []any
}

// empty says the plan changes nothing (no transaction needs to write it).
func (p *plan) empty() bool {
	return len(p.moves) == 0 && len(p.creates) == 0 && len(p.release) == 0 && len(p.children) == 0 &&
		len(p.stop) == 0 && len(p.stopWorkflowInstances) == 0 && len(p.elements) == 0 && p.runMove == nil
}

// evalRequest asks for a node's expression to be evaluated.
type evalRequest struct {
	wi       int64
	node     int64
	gen      int
	key      string
	nodeType string
	text     string
	env      map[string]any
}

// maxEvalAttempts bounds the evaluations begun for one node generation
// that never finish (the server stopping during each): then the node fails.
const maxEvalAttempts = 3

type create struct {
	node     string
	instance db.Instance
	// link is the index in moves of the node move that takes the id.
	link int
	// held elements are created but not fired yet.
	held bool
}

type newChild struct {
	node string
	wi   db.WorkflowInstance
	link int
}

// outcome is how an upstream node ended, for its successors' trigger rules.
type outcome int

const (
	pending outcome = iota
	success
	failed
	skipped
	notTaken // skipped: a decision chose another branch
)

// decider decides one instance. It works on copies of the node rows, updating
// them as it decides, so a node settled early in a decision is seen as
// settled by the nodes after it.
type decider struct {
	v     *view
	now   time.Time
	epoch int64
	p     *plan
	seq   int64 // the next finish sequence
	// failedNow says a node failed (not ignored) in this decision.
	failedNow bool
	// byKey are the graph's nodes by key; in the incoming edges by target.
	byKey map[string]*db.WorkflowNode
	in    map[string][]db.WorkflowEdge
	order []string // keys in topological order
}

// decide settles what finished, starts what may start and ends the instance
// when nothing more can run. It is pure: everything it needs is in v.
func decide(v *view, now time.Time, epoch int64) *plan {
	d := &decider{v: v, now: now, epoch: epoch, p: &plan{}, byKey: map[string]*db.WorkflowNode{}, in: map[string][]db.WorkflowEdge{}}
	g := &v.wi.Graph
	for i := range g.Nodes {
		d.byKey[g.Nodes[i].Key] = &g.Nodes[i]
	}
	for _, e := range g.Edges {
		d.in[e.To] = append(d.in[e.To], e)
	}
	d.order = topo(g)
	for _, n := range v.nodes {
		d.seq = max(d.seq, n.FinishSeq)
	}
	d.seq++
	if db.IsWorkflowInstanceFinal(v.wi.Status) || v.wi.Status == db.WorkflowWaiting {
		return d.p
	}
	for _, key := range d.order {
		if n := v.nodes[key]; n != nil && (n.Status == db.NodeRunning || n.Status == db.NodeAwaitingApproval) {
			d.settle(key, n)
		}
	}
	if dl := v.wi.Deadline; dl != nil && !d.now.Before(*dl) {
		d.timeout()
		return d.p
	}
	if v.wi.Status == db.WorkflowRunning {
		// A decision settles at once and may let more nodes start: go
		// round until nothing changes.
		for changed := true; changed && !d.failFast(); {
			changed = false
			for _, key := range d.order {
				n := v.nodes[key]
				switch {
				case n == nil:
				case n.Status == db.NodeWaiting && d.consider(key, n):
					changed = true
				case n.Status == db.NodeSkipped && d.reconsider(key, n):
					changed = true
				}
			}
		}
	}
	if d.failFast() {
		d.abort()
	}
	d.complete()
	return d.p
}

func (d *decider) failFast() bool { return d.v.wi.FailFast && d.failedNow }

// use takes n of the tree's budget; false (and nothing taken) if that would
// take it over.
func (d *decider) use(n int) bool {
	if d.v.budget > 0 && d.v.budgetUsed+d.p.budgetUse+n > d.v.budget {
		return false
	}
	d.p.budgetUse += n
	return true
}

// overBudget fails a node whose creations would take the tree over its
// budget.
func (d *decider) overBudget(key string, n *db.WorkflowNodeRun, want int, what string) {
	d.fail(key, n, db.NodeReasonBudget, fmt.Sprintf("%s would make %d more; the instance has used %d of its budget of %d (nodes and FOREACH elements across nested instances; the app's workflowBudget)",
		what, want, d.v.budgetUsed+d.p.budgetUse, d.v.budget))
}

// ---- settling running nodes ----

func (d *decider) settle(key string, n *db.WorkflowNodeRun) {
	switch n.NodeType {
	case db.NodeJob:
		list := d.v.instances[key]
		if len(list) == 0 {
			return
		}
		in := list[len(list)-1]
		if !db.IsFinal(in.Status) {
			return
		}
		switch in.Status {
		case db.StatusSucceeded:
			d.succeed(key, n, in.Result, in.WorkflowOutput)
		case db.StatusStopped:
			d.stopped(n, "its job instance "+itoa(in.ID)+" was stopped")
		default:
			d.fail(key, n, db.NodeReasonJobFailed, fmt.Sprintf("job instance %d ended %s: %s", in.ID, in.Status, firstLine(in.Result)))
		}
	case db.NodeDecision:
		d.settleEval(key, n)
	case db.NodeForeach:
		if n.Items == 0 {
			d.settleEval(key, n) // evaluating its expression
			return
		}
		d.settleForeach(key, n)
	case db.NodeNested:
		c := d.v.children[key]
		if (c == nil || !db.IsWorkflowInstanceFinal(c.wi.Status)) && n.Deadline != nil && !d.now.Before(*n.Deadline) {
			// Its timeout passed (issue 26, item 7): the nested run stops.
			if c != nil {
				d.p.stopWorkflowInstances = append(d.p.stopWorkflowInstances, c.wi.ID)
			}
			d.fail(key, n, db.NodeReasonTimeout, fmt.Sprintf("its nested run did not end within its timeout of %v", msDuration(d.byKey[key].TimeoutMs)))
			return
		}
		if c == nil || !db.IsWorkflowInstanceFinal(c.wi.Status) {
			return
		}
		switch c.wi.Status {
		case db.WorkflowSucceeded:
			d.succeed(key, n, c.wi.Result, additions(c))
		case db.WorkflowStopped:
			d.stopped(n, "its nested run "+itoa(c.wi.ID)+" was stopped")
		default:
			d.fail(key, n, db.NodeReasonNestedFailed, fmt.Sprintf("nested run %d ended %s: %s", c.wi.ID, c.wi.Status, c.wi.Result))
		}
	case db.NodeApproval:
		if n.Deadline != nil && !d.now.Before(*n.Deadline) {
			d.fail(key, n, db.NodeReasonTimeout, "not approved by "+n.Deadline.UTC().Format(time.RFC3339))
		}
	}
}

// settleForeach ends a FOREACH once every element ended, and releases held
// elements while places are free and none failed.
func (d *decider) settleForeach(key string, n *db.WorkflowNodeRun) {
	node := d.byKey[key]
	if node.WorkflowID != 0 {
		d.settleForeachRuns(key, n, node)
		return
	}
	list := d.v.instances[key]
	par := max(node.Parallelism, 1)
	running, done := 0, 0
	var failedEl *db.Instance
	var held []db.Instance
	for i := range list {
		in := &list[i]
		switch {
		case db.IsFinal(in.Status):
			done++
			if in.Status != db.StatusSucceeded && failedEl == nil {
				failedEl = in
			}
		case in.Status == db.StatusWaiting && in.TriggerAt.Equal(holdUntil):
			held = append(held, *in)
		default:
			running++
		}
	}
	if failedEl != nil {
		if running == 0 {
			// Held elements stay unrun: they end with the node.
			for _, h := range held {
				d.p.stop = append(d.p.stop, h.ID)
			}
			d.fail(key, n, db.NodeReasonJobFailed, fmt.Sprintf("element %d (instance %d) ended %s: %s",
				deref(failedEl.WorkflowItem), failedEl.ID, failedEl.Status, firstLine(failedEl.Result)))
		}
		return
	}
	if done == n.Items && done == len(list) {
		slices.SortFunc(list, func(a, b db.Instance) int { return deref(a.WorkflowItem) - deref(b.WorkflowItem) })
		results := make([]any, len(list))
		out := map[string]any{}
		for i, in := range list {
			results[i] = jsonOrString(in.Result)
			for k, v := range in.WorkflowOutput {
				out[k] = v
			}
		}
		b, _ := json.Marshal(results)
		d.succeed(key, n, string(b), out)
		return
	}
	// Elements held by a server before batches (all made at once, those
	// past the parallelism held) are released as places free.
	slices.SortFunc(held, func(a, b db.Instance) int { return deref(a.WorkflowItem) - deref(b.WorkflowItem) })
	for i := 0; i < len(held) && running < par; i++ {
		d.p.release = append(d.p.release, held[i].ID)
		running++
	}
	if free := par - running; free > 0 && len(list) < n.Items {
		els := d.v.elements[key]
		d.makeElements(key, n, node, els[:min(free, len(els))])
	}
}

// settleForeachRuns is settleForeach for a FOREACH over a nested
// workflow (issue 26, item 9): one nested run per element, at most its
// parallelism at once; its result is the list of what each run added to
// its context, in element order, and those additions flow into the
// parent's context as the runs' of a NESTED node do.
func (d *decider) settleForeachRuns(key string, n *db.WorkflowNodeRun, node *db.WorkflowNode) {
	list := d.v.runs[key]
	par := max(node.Parallelism, 1)
	running, done := 0, 0
	var failedRun *childInstance
	for _, c := range list {
		switch {
		case db.IsWorkflowInstanceFinal(c.wi.Status):
			done++
			if c.wi.Status != db.WorkflowSucceeded && failedRun == nil {
				failedRun = c
			}
		default:
			running++
		}
	}
	if failedRun != nil {
		if running == 0 {
			d.fail(key, n, db.NodeReasonNestedFailed, fmt.Sprintf("element %d (nested run %d) ended %s: %s",
				deref(failedRun.wi.ParentItem), failedRun.wi.ID, failedRun.wi.Status, firstLine(failedRun.wi.Result)))
		}
		return
	}
	if done == n.Items && done == len(list) {
		results := make([]any, len(list))
		out := map[string]any{}
		for i, c := range list {
			add := additions(c)
			results[i] = add
			for k, v := range add {
				out[k] = v
			}
		}
		b, _ := json.Marshal(results)
		d.succeed(key, n, string(b), out)
		return
	}
	if free := par - running; free > 0 && len(list) < n.Items {
		els := d.v.elements[key]
		d.makeRuns(key, n, node, els[:min(free, len(els))])
	}
}

// makeRuns creates the nested runs of a FOREACH over a workflow, one per
// element; a run's context is the FOREACH's with the element as
// context.element.
func (d *decider) makeRuns(key string, n *db.WorkflowNodeRun, node *db.WorkflowNode, els []db.WorkflowElement) {
	target := d.v.targets[node.WorkflowID]
	if target == nil || len(els) == 0 {
		return
	}
	base := d.contextNow()
	for _, el := range els {
		ctx := make(map[string]any, len(base)+1)
		for k, v := range base {
			ctx[k] = v
		}
		ctx["element"] = el.Element
		child := d.nestedRun(target, key, ctx)
		child.ParentItem, child.ParentGeneration = new(el.Item), new(n.Generation)
		d.p.children = append(d.p.children, newChild{node: key, wi: child, link: -1})
	}
}

// nestedRun is a nested run of target for the node key, running, with ctx.
func (d *decider) nestedRun(target *db.Workflow, key string, ctx map[string]any) db.WorkflowInstance {
	wi := d.v.wi
	child := db.WorkflowInstance{AppID: wi.AppID, WorkflowID: target.ID, Version: target.Version, ParentInstanceID: &wi.ID,
		RootInstanceID: new(d.v.rootID),
		ParentNodeKey:  new(key), Status: db.WorkflowRunning, TriggerType: db.TriggerWorkflow, TriggerAt: d.now, Graph: target.Graph,
		FailFast: target.FailFast, Context: ctx, Epoch: d.epoch, StartedAt: new(d.now)}
	if t := target.TimeoutMs; t != nil && *t > 0 {
		child.TimeoutMs, child.Deadline = t, new(d.now.Add(time.Duration(*t)*time.Millisecond))
	}
	return child
}

// ---- starting waiting nodes ----

// consider evaluates a WAITING node's trigger rule and starts or skips it;
// true if it moved.
func (d *decider) consider(key string, n *db.WorkflowNodeRun) bool {
	node := d.byKey[key]
	act, reason := evalRule(node.Rule(), d.inputs(key))
	switch act {
	case wait:
		return false
	case skip:
		d.skip(n, reason, skipMessage(reason))
		return true
	}
	if !node.Enabled {
		d.skip(n, db.NodeReasonDisabled, "the node is disabled")
		return true
	}
	d.start(key, n, node)
	return true
}

// reconsider re-decides a node its trigger rule skipped: a repair upstream
// (a node rerun alone or marked succeeded, issue 26 item 1) may have
// changed what it was skipped for. Under an instance's own progress a
// skip never turns back (inputs only settle), so this moves a node only
// after a repair: back to WAITING, under its next generation, to be
// decided with the rest. Skips that are not its rule's (disabled, fail
// fast) stay.
func (d *decider) reconsider(key string, n *db.WorkflowNodeRun) bool {
	switch n.Reason {
	case db.NodeReasonUpstreamFailed, db.NodeReasonUpstreamSkipped, db.NodeReasonBranchNotTaken, db.NodeReasonTriggerRule:
	default:
		return false
	}
	if act, _ := evalRule(d.byKey[key].Rule(), d.inputs(key)); act == skip {
		return false
	}
	d.move(n, db.WorkflowNodeRunTransition{To: db.NodeWaiting, NextGeneration: new(n.Generation + 1), Reset: true})
	return true
}

func (d *decider) inputs(key string) []outcome {
	out := make([]outcome, 0, len(d.in[key]))
	for _, e := range d.in[key] {
		out = append(out, d.edgeOutcome(e))
	}
	return out
}

func (d *decider) edgeOutcome(e db.WorkflowEdge) outcome {
	from := d.v.nodes[e.From]
	if from == nil {
		return pending
	}
	o := nodeOutcome(from)
	if o == success && from.NodeType == db.NodeDecision && from.Status == db.NodeSucceeded && e.Label != from.Result {
		return notTaken
	}
	return o
}

func nodeOutcome(n *db.WorkflowNodeRun) outcome {
	switch n.Status {
	case db.NodeSucceeded:
		return success
	case db.NodeFailed:
		if n.FailureIgnored {
			return success
		}
		return failed
	case db.NodeStopped:
		return failed
	case db.NodeSkipped:
		switch n.Reason {
		case db.NodeReasonDisabled:
			return success
		case db.NodeReasonUpstreamFailed, db.NodeReasonFailFast:
			return failed
		}
		return skipped
	}
	return pending
}

type action int

const (
	wait action = iota
	start
	skip
)

// evalRule decides a node from its inputs' outcomes (docs/design.md §6).
func evalRule(rule string, ins []outcome) (action, string) {
	var pend, succ, fail, skips, notTakens int
	for _, o := range ins {
		switch o {
		case pending:
			pend++
		case success:
			succ++
		case failed:
			fail++
		case skipped:
			skips++
		case notTaken:
			notTakens++
		}
	}
	if len(ins) == 0 {
		return start, ""
	}
	skippedReason := db.NodeReasonUpstreamSkipped
	if notTakens > 0 && skips == 0 {
		skippedReason = db.NodeReasonBranchNotTaken
	}
	switch rule {
	case db.RuleAllDone:
		if pend > 0 {
			return wait, ""
		}
		return start, ""
	case db.RuleOneSucceeded:
		if succ > 0 {
			return start, ""
		}
		if pend > 0 {
			return wait, ""
		}
		if fail > 0 {
			return skip, db.NodeReasonUpstreamFailed
		}
		return skip, skippedReason
	case db.RuleOneFailed:
		if fail > 0 {
			return start, ""
		}
		if pend > 0 {
			return wait, ""
		}
		return skip, db.NodeReasonTriggerRule
	case db.RuleNoneFailed:
		if fail > 0 {
			return skip, db.NodeReasonUpstreamFailed
		}
		if pend > 0 {
			return wait, ""
		}
		return start, ""
	case db.RuleAllFailed:
		if succ+skips+notTakens > 0 {
			return skip, db.NodeReasonTriggerRule
		}
		if pend > 0 {
			return wait, ""
		}
		return start, ""
	case db.RuleNoneFailedMinOneSuccess:
		if fail > 0 {
			return skip, db.NodeReasonUpstreamFailed
		}
		if pend > 0 {
			return wait, ""
		}
		if succ > 0 {
			return start, ""
		}
		return skip, skippedReason
	case db.RuleNoneSkipped:
		if skips+notTakens > 0 {
			return skip, skippedReason
		}
		if pend > 0 {
			return wait, ""
		}
		return start, ""
	case db.RuleAllSkipped:
		if succ+fail > 0 {
			return skip, db.NodeReasonTriggerRule
		}
		if pend > 0 {
			return wait, ""
		}
		return start, ""
	default: // ALL_SUCCEEDED
		if fail > 0 {
			return skip, db.NodeReasonUpstreamFailed
		}
		if pend > 0 {
			return wait, ""
		}
		if skips+notTakens > 0 {
			return skip, skippedReason
		}
		return start, ""
	}
}

func skipMessage(reason string) string {
	switch reason {
	case db.NodeReasonUpstreamFailed:
		return "not run: an upstream node failed"
	case db.NodeReasonUpstreamSkipped:
		return "not run: its upstream was skipped"
	case db.NodeReasonBranchNotTaken:
		return "not run: the decision took another branch"
	case db.NodeReasonTriggerRule:
		return "not run: its trigger rule can no longer be met"
	}
	return ""
}

// start runs a node whose trigger rule holds.
func (d *decider) start(key string, n *db.WorkflowNodeRun, node *db.WorkflowNode) {
	ctx, up := d.contextNow(), d.upstream(key)
	switch node.Type {
	case db.NodeJob:
		if d.v.jobs[node.JobID] == nil {
			d.fail(key, n, db.NodeReasonJobFailed, fmt.Sprintf("job %d no longer exists", node.JobID))
			return
		}
		in := d.instance(key, n, node, ctx, up)
		if node.Params != nil {
			in.Params = *node.Params
		}
		d.p.creates = append(d.p.creates, create{node: key, instance: in, link: len(d.p.moves)})
		d.move(n, db.WorkflowNodeRunTransition{To: db.NodeRunning, StartedAt: new(d.now)})
	case db.NodeDecision:
		d.beginEval(key, n, node)
	case db.NodeForeach:
		if !d.foreachTargetExists(key, n, node) {
			return
		}
		if node.WorkflowID != 0 && d.v.depth >= maxDepth {
			d.fail(key, n, db.NodeReasonNestedFailed, fmt.Sprintf("nested more than %d levels deep", maxDepth))
			return
		}
		d.beginEval(key, n, node)
	case db.NodeNested:
		target := d.v.targets[node.WorkflowID]
		if target == nil {
			d.fail(key, n, db.NodeReasonNestedFailed, fmt.Sprintf("workflow %d no longer exists", node.WorkflowID))
			return
		}
		if d.v.depth >= maxDepth {
			d.fail(key, n, db.NodeReasonNestedFailed, fmt.Sprintf("nested more than %d levels deep", maxDepth))
			return
		}
		if !d.use(len(target.Graph.Nodes)) {
			d.overBudget(key, n, len(target.Graph.Nodes), fmt.Sprintf("its nested instance of %q", target.Name))
			return
		}
		child := d.nestedRun(target, key, ctx)
		d.p.children = append(d.p.children, newChild{node: key, wi: child, link: len(d.p.moves)})
		t := db.WorkflowNodeRunTransition{To: db.NodeRunning, StartedAt: new(d.now)}
		if node.TimeoutMs != nil && *node.TimeoutMs > 0 {
			t.Deadline = new(d.now.Add(time.Duration(*node.TimeoutMs) * time.Millisecond))
		}
		d.move(n, t)
	case db.NodeApproval:
		t := db.WorkflowNodeRunTransition{To: db.NodeAwaitingApproval, StartedAt: new(d.now)}
		if node.TimeoutMs != nil && *node.TimeoutMs > 0 {
			t.Deadline = new(d.now.Add(time.Duration(*node.TimeoutMs) * time.Millisecond))
		}
		d.move(n, t)
	}
}

// beginEval starts a DECISION or FOREACH: it is RUNNING while its
// expression is evaluated, after the plan commits (never inside the
// transaction); the outcome comes back to a later decision (settleEval).
func (d *decider) beginEval(key string, n *db.WorkflowNodeRun, node *db.WorkflowNode) {
	d.move(n, db.WorkflowNodeRunTransition{To: db.NodeRunning, StartedAt: new(d.now), Attempts: new(1)})
	d.request(key, n, node)
}

func (d *decider) request(key string, n *db.WorkflowNodeRun, node *db.WorkflowNode) {
	// An expression may name an upstream node by its name as well as its
	// key (issue 26, item 3); a key wins over another node's name.
	up := d.upstream(key)
	for _, e := range d.in[key] {
		if from := d.byKey[e.From]; from != nil && from.Name != "" {
			if _, taken := up[from.Name]; !taken {
				up[from.Name] = up[e.From]
			}
		}
	}
	d.p.evaluate = append(d.p.evaluate, evalRequest{wi: d.v.wi.ID, node: n.ID, gen: n.Generation, key: key, nodeType: node.Type,
		text: node.Expression, env: exprEnv(d.contextNow(), up)})
}

// settleEval applies the outcome of a RUNNING DECISION's or FOREACH's
// evaluation once it is there. A node RUNNING with no evaluation under way
// lost it (a restart, a new owner): it is begun again, counted, up to
// maxEvalAttempts.
func (d *decider) settleEval(key string, n *db.WorkflowNodeRun) {
	node := d.byKey[key]
	if o, ok := d.v.evals[n.ID]; ok && o.gen == n.Generation {
		d.p.consumed = append(d.p.consumed, n.ID)
		d.applyEval(key, n, node, o)
		return
	}
	if d.v.pending[n.ID] {
		return
	}
	if n.Attempts >= maxEvalAttempts {
		d.fail(key, n, db.NodeReasonExpressionTimeout, fmt.Sprintf(
			"expression evaluation was begun %d times and never finished (the server stopped during each)", n.Attempts))
		return
	}
	d.move(n, db.WorkflowNodeRunTransition{To: db.NodeRunning, Attempts: new(n.Attempts + 1)})
	d.request(key, n, node)
}

// applyEval ends a DECISION with its label, or starts a FOREACH's elements.
func (d *decider) applyEval(key string, n *db.WorkflowNodeRun, node *db.WorkflowNode, o evalOutcome) {
	if o.reason != "" {
		d.fail(key, n, o.reason, o.msg)
		return
	}
	if node.Type == db.NodeDecision {
		d.succeed(key, n, o.label, nil)
		return
	}
	if !d.foreachTargetExists(key, n, node) {
		return
	}
	items := o.items
	if len(items) == 0 {
		d.succeed(key, n, "[]", nil)
		return
	}
	// Each element counts, and over a workflow so do its run's nodes.
	cost := len(items)
	if t := d.v.targets[node.WorkflowID]; node.WorkflowID != 0 && t != nil {
		cost = len(items) * (1 + len(t.Graph.Nodes))
	}
	if !d.use(cost) {
		d.overBudget(key, n, cost, "its list's elements")
		return
	}
	// The elements are stored once; their instances are made as places
	// free, the first ones now.
	d.p.elements = append(d.p.elements, newElements{node: n.ID, gen: n.Generation, items: items})
	first := make([]db.WorkflowElement, min(max(node.Parallelism, 1), len(items)))
	for i := range first {
		first[i] = db.WorkflowElement{Item: i, Element: items[i]}
	}
	if node.WorkflowID != 0 {
		d.makeRuns(key, n, node, first)
	} else {
		d.makeElements(key, n, node, first)
	}
	// What every element is given — the context and upstream results as
	// the FOREACH starts them — is stored once, on the node (issue 26,
	// item 12); an element's instance keeps only its element.
	d.move(n, db.WorkflowNodeRunTransition{To: db.NodeRunning, Items: new(len(items)),
		Input: &db.WorkflowTaskInput{Context: d.contextNow(), Upstream: d.upstream(key)}})
}

// foreachTargetExists fails a FOREACH whose job or workflow was deleted.
func (d *decider) foreachTargetExists(key string, n *db.WorkflowNodeRun, node *db.WorkflowNode) bool {
	switch {
	case node.WorkflowID != 0 && d.v.targets[node.WorkflowID] == nil:
		d.fail(key, n, db.NodeReasonNestedFailed, fmt.Sprintf("workflow %d no longer exists", node.WorkflowID))
		return false
	case node.WorkflowID == 0 && d.v.jobs[node.JobID] == nil:
		d.fail(key, n, db.NodeReasonJobFailed, fmt.Sprintf("job %d no longer exists", node.JobID))
		return false
	}
	return true
}

// makeElements creates the job instances of FOREACH elements; their
// input is their node's (WorkflowTaskInput.FromNode).
func (d *decider) makeElements(key string, n *db.WorkflowNodeRun, node *db.WorkflowNode, els []db.WorkflowElement) {
	for _, el := range els {
		in := d.instance(key, n, node, nil, nil)
		in.WorkflowItem = new(el.Item)
		in.WorkflowInput = &db.WorkflowTaskInput{Element: el.Element, FromNode: true}
		in.Params = elementParams(el.Element)
		d.p.creates = append(d.p.creates, create{node: key, instance: in, link: -1})
	}
}

func (d *decider) instance(key string, n *db.WorkflowNodeRun, node *db.WorkflowNode, ctx map[string]any, up map[string]string) db.Instance {
	wi := d.v.wi
	in := db.Instance{AppID: wi.AppID, JobID: node.JobID, Status: db.StatusWaiting, TriggerType: db.TriggerWorkflow,
		TriggerAt: d.now, WorkflowInstanceID: &wi.ID, WorkflowNodeID: new(key), WorkflowGeneration: new(n.Generation),
		WorkflowInput: &db.WorkflowTaskInput{Context: ctx, Upstream: up}, TimeoutMs: node.TimeoutMs, MaxRetries: node.Retries}
	// wffeat: pools — a node naming its own pool takes it in place of its
	// job's (the execution actor's gate, docs/design.md §5.9).
	if node.Pool != "" {
		in.Pool, in.PoolSlots = new(node.Pool), new(max(node.PoolSlots, 1))
	}
	return in
}

// contextNow is the instance's context as a node starting now sees it.
func (d *decider) contextNow() map[string]any {
	rows := make([]db.WorkflowNodeRun, 0, len(d.v.nodes))
	for _, n := range d.v.nodes {
		rows = append(rows, *n)
	}
	return d.v.wi.ContextWith(rows)
}

// upstream maps a node's direct predecessors to their results.
func (d *decider) upstream(key string) map[string]string {
	out := map[string]string{}
	for _, e := range d.in[key] {
		if from := d.v.nodes[e.From]; from != nil {
			out[e.From] = from.Result
		}
	}
	return out
}

// ---- node ends ----

func (d *decider) succeed(key string, n *db.WorkflowNodeRun, result string, output map[string]any) {
	if len(output) > 0 {
		trial := d.contextNow()
		for k, v := range output {
			trial[k] = v
		}
		if b, err := json.Marshal(trial); err != nil || len(b) > MaxContextBytes {
			size := len(b)
			d.fail(key, n, db.NodeReasonContextTooLarge, fmt.Sprintf(
				"what the node added would make the run's context %d bytes; the limit is %d bytes (1 MiB)", size, MaxContextBytes))
			return
		}
	}
	t := db.WorkflowNodeRunTransition{To: db.NodeSucceeded, Result: new(result), FinishSeq: new(d.seq), FinishedAt: new(d.now), ClearDeadline: true}
	if len(output) > 0 {
		t.Output = output
	}
	if n.StartedAt == nil {
		t.StartedAt = new(d.now)
	}
	d.seq++
	d.move(n, t)
}

func (d *decider) fail(key string, n *db.WorkflowNodeRun, reason, msg string) {
	ignored := d.byKey[key] != nil && d.byKey[key].SkipWhenFailed
	t := db.WorkflowNodeRunTransition{To: db.NodeFailed, Reason: new(reason), Message: new(msg), FailureIgnored: new(ignored),
		FinishSeq: new(d.seq), FinishedAt: new(d.now), ClearDeadline: true}
	if n.StartedAt == nil {
		t.StartedAt = new(d.now)
	}
	d.seq++
	if !ignored {
		d.failedNow = true
	}
	d.move(n, t)
}

func (d *decider) stopped(n *db.WorkflowNodeRun, msg string) {
	d.move(n, db.WorkflowNodeRunTransition{To: db.NodeStopped, Reason: new(db.NodeReasonStopped), Message: new(msg),
		FinishSeq: new(d.seq), FinishedAt: new(d.now), ClearDeadline: true})
	d.seq++
}

func (d *decider) skip(n *db.WorkflowNodeRun, reason, msg string) {
	d.move(n, db.WorkflowNodeRunTransition{To: db.NodeSkipped, Reason: new(reason), Message: new(msg), FinishedAt: new(d.now)})
}

// move records a transition of n from its current status and applies it to
// the copy, so the rest of the decision sees it.
func (d *decider) move(n *db.WorkflowNodeRun, t db.WorkflowNodeRunTransition) {
	t.ID, t.From, t.Generation = n.ID, []string{n.Status}, n.Generation
	d.p.moves = append(d.p.moves, t)
	n.Status = t.To
	if t.NextGeneration != nil {
		n.Generation = *t.NextGeneration
	}
	if t.Reset {
		n.Reason, n.Message, n.Result, n.Output, n.Items, n.Attempts, n.FinishSeq = "", "", "", nil, 0, 0, 0
		n.FailureIgnored, n.InstanceID, n.ChildInstanceID, n.StartedAt, n.FinishedAt, n.Deadline = false, nil, nil, nil, nil, nil
	}
	if t.Reason != nil {
		n.Reason = *t.Reason
	}
	if t.Message != nil {
		n.Message = *t.Message
	}
	if t.Items != nil {
		n.Items = *t.Items
	}
	if t.Attempts != nil {
		n.Attempts = *t.Attempts
	}
	if t.Result != nil {
		n.Result = *t.Result
	}
	if t.Output != nil {
		n.Output = t.Output
	}
	if t.FinishSeq != nil {
		n.FinishSeq = *t.FinishSeq
	}
	if t.FailureIgnored != nil {
		n.FailureIgnored = *t.FailureIgnored
	}
	if t.StartedAt != nil {
		n.StartedAt = t.StartedAt
	}
	if t.Deadline != nil {
		n.Deadline = t.Deadline
	} else if t.ClearDeadline {
		n.Deadline = nil
	}
}

// abort ends a failFast run at its first failure: running nodes stop,
// waiting ones are skipped.
func (d *decider) abort() {
	for _, key := range d.order {
		n := d.v.nodes[key]
		switch n.Status {
		case db.NodeRunning, db.NodeAwaitingApproval:
			for _, in := range d.v.instances[key] {
				if !db.IsFinal(in.Status) {
					d.p.stop = append(d.p.stop, in.ID)
				}
			}
			if c := d.v.children[key]; c != nil && !db.IsWorkflowInstanceFinal(c.wi.Status) {
				d.p.stopWorkflowInstances = append(d.p.stopWorkflowInstances, c.wi.ID)
			}
			for _, c := range d.v.runs[key] {
				if !db.IsWorkflowInstanceFinal(c.wi.Status) {
					d.p.stopWorkflowInstances = append(d.p.stopWorkflowInstances, c.wi.ID)
				}
			}
			d.move(n, db.WorkflowNodeRunTransition{To: db.NodeStopped, Reason: new(db.NodeReasonFailFast),
				Message: new("stopped: another node failed and the workflow fails fast"), FinishedAt: new(d.now), ClearDeadline: true})
		case db.NodeWaiting:
			d.skip(n, db.NodeReasonFailFast, "not run: another node failed and the workflow fails fast")
		}
	}
}

// timeout ends an instance past its deadline (issue 26, item 7): its
// running nodes stop (their job instances and nested instances too), those
// not started are skipped, and it fails with reason TIMEOUT.
func (d *decider) timeout() {
	limit := msDuration(d.v.wi.TimeoutMs)
	for _, key := range d.order {
		n := d.v.nodes[key]
		switch n.Status {
		case db.NodeRunning, db.NodeAwaitingApproval:
			for _, in := range d.v.instances[key] {
				if !db.IsFinal(in.Status) {
					d.p.stop = append(d.p.stop, in.ID)
				}
			}
			if c := d.v.children[key]; c != nil && !db.IsWorkflowInstanceFinal(c.wi.Status) {
				d.p.stopWorkflowInstances = append(d.p.stopWorkflowInstances, c.wi.ID)
			}
			for _, c := range d.v.runs[key] {
				if !db.IsWorkflowInstanceFinal(c.wi.Status) {
					d.p.stopWorkflowInstances = append(d.p.stopWorkflowInstances, c.wi.ID)
				}
			}
			d.move(n, db.WorkflowNodeRunTransition{To: db.NodeStopped, Reason: new(db.NodeReasonTimeout),
				Message: new(fmt.Sprintf("stopped: the run's timeout of %v passed", limit)), FinishSeq: new(d.seq), FinishedAt: new(d.now), ClearDeadline: true})
			d.seq++
		case db.NodeWaiting:
			d.skip(n, db.NodeReasonTimeout, fmt.Sprintf("not run: the run's timeout of %v passed", limit))
		}
	}
	d.complete()
	if d.p.runMove != nil {
		d.p.runMove.To, d.p.runMove.Reason = db.WorkflowFailed, new(db.NodeReasonTimeout)
		d.p.runMove.Result = new(fmt.Sprintf("timed out: still running when its timeout of %v passed; %s", limit, *d.p.runMove.Result))
	}
}

// msDuration is a timeout in ms as a duration, for messages.
func msDuration(ms *int64) time.Duration {
	if ms == nil {
		return 0
	}
	return time.Duration(*ms) * time.Millisecond
}

// complete ends the instance once every node has ended: SUCCEEDED, or FAILED if
// a node failed (a failure skipWhenFailed ignores does not count) or was
// stopped. (stopWorkflowInstance ends the instance STOPPED itself.)
func (d *decider) complete() {
	var succeeded, ignored, failedN, skippedN, stoppedN int
	for _, n := range d.v.nodes {
		switch n.Status {
		case db.NodeSucceeded:
			succeeded++
		case db.NodeFailed:
			if n.FailureIgnored {
				ignored++
			} else {
				failedN++
			}
		case db.NodeStopped:
			stoppedN++
		case db.NodeSkipped:
			skippedN++
		default:
			return // still to run, running or awaiting approval
		}
	}
	status := db.WorkflowSucceeded
	if failedN > 0 || stoppedN > 0 {
		status = db.WorkflowFailed
	}
	parts := []string{fmt.Sprintf("%d of %d nodes succeeded", succeeded, len(d.v.nodes))}
	for _, c := range []struct {
		n    int
		what string
	}{{failedN, "failed"}, {ignored, "failed (ignored)"}, {stoppedN, "stopped"}, {skippedN, "skipped"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	result := strings.Join(parts, ", ")
	d.p.runMove = &db.WorkflowInstanceTransition{ID: d.v.wi.ID, From: []string{db.WorkflowRunning, db.WorkflowPaused}, To: status,
		Result: &result, FinishedAt: new(d.now)}
	d.p.ended = true
}

// ---- helpers ----

// additions are what a nested instance's nodes added to its context, in the
// order they finished: they flow back into the parent instance.
func additions(c *childInstance) map[string]any {
	empty := *c.wi
	empty.Context = nil
	return empty.ContextWith(c.nodes)
}

// topo orders the graph's keys so every node comes after its predecessors
// (saving refuses cycles; a cycle's nodes, should one exist, come last).
func topo(g *db.WorkflowGraph) []string {
	indeg := map[string]int{}
	next := map[string][]string{}
	for _, n := range g.Nodes {
		indeg[n.Key] += 0
	}
	for _, e := range g.Edges {
		indeg[e.To]++
		next[e.From] = append(next[e.From], e.To)
	}
	var queue, out []string
	for _, n := range g.Nodes {
		if indeg[n.Key] == 0 {
			queue = append(queue, n.Key)
		}
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		out = append(out, k)
		for _, m := range next[k] {
			if indeg[m]--; indeg[m] == 0 {
				queue = append(queue, m)
			}
		}
	}
	for _, n := range g.Nodes {
		if !slices.Contains(out, n.Key) {
			out = append(out, n.Key)
		}
	}
	return out
}

// elementParams is a FOREACH element as its instance's parameters: a
// string as it is, anything else as JSON.
func elementParams(el any) string {
	if s, ok := el.(string); ok {
		return s
	}
	b, _ := json.Marshal(el)
	return string(b)
}

// jsonOrString is a result as JSON if it is JSON, else the string.
func jsonOrString(s string) any {
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		return v
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func itoa(n int64) string { return fmt.Sprint(n) }
