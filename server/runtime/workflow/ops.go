package workflow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// HintTopic is the bus topic that tells an instance's owner to look at it after
// an operation changed it on any server; the data is "<app id>:<run id>".
const HintTopic = "workflow.runs"

// ParseHint reads a HintTopic hint.
func ParseHint(data string) (appID, wiID int64, ok bool) {
	var a, r int64
	if _, err := fmt.Sscanf(data, "%d:%d", &a, &r); err != nil {
		return 0, 0, false
	}
	return a, r, true
}

// Hints publishes hints to every server (package bus).
type Hints interface {
	Publish(topic, data string)
}

// Owners hears that an app's instances changed through the API, so its
// owner re-reads them at once (the stopped ones stop on their workers).
type Owners interface {
	InstancesChanged(appID int64)
}

// Ops are the operations on runs the API offers, on any server. Each is one
// transaction of compare-and-set writes; the instance's owner is then told to
// look at the instance, and it starts whatever may now run. The caller has
// checked the caller's rights.
type Ops struct {
	store  Store
	hints  Hints
	owners Owners
	notify Notifier
	clock  clock.Clock
}

// NewOps returns the operations.
func NewOps(store Store, hints Hints, owners Owners, notify Notifier, clk clock.Clock) *Ops {
	return &Ops{store: store, hints: hints, owners: owners, notify: notify, clock: clock.OrSystem(clk)}
}

// do runs op on the instance in a transaction, then tells the owner. The
// transaction locks the instance's tree first, as the engine's decisions
// do (db.WorkflowInstanceLock); should PostgreSQL still end it for a
// deadlock with another transaction (the execution actor moving the same
// job instances), it is run again.
func (o *Ops) do(ctx context.Context, wiID int64, op func(ctx context.Context, tx *opTx, r *db.WorkflowInstance, nodes []db.WorkflowNodeRun, now time.Time) error) error {
	var app int64
	var err error
	var also []int64
	for attempt := 1; ; attempt++ {
		now := db.Stamp(o.clock.Now())
		also = nil
		err = o.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
			r, _, err := tx.WorkflowInstanceLock(ctx, wiID)
			if errors.Is(err, db.ErrNotFound) {
				return fault.NotFound("workflow instance " + strconv.FormatInt(wiID, 10))
			}
			if err != nil {
				return err
			}
			app = r.AppID
			nodes, err := tx.WorkflowNodeRunListByInstances(ctx, []int64{wiID})
			if err != nil {
				return err
			}
			return op(ctx, &opTx{Store: tx, touched: &also}, r, nodes, now)
		})
		if !db.IsRetryable(err) || attempt == maxOpAttempts {
			break
		}
	}
	if err != nil {
		return err
	}
	o.tell(app, wiID)
	for _, id := range also {
		o.tell(app, id)
	}
	return nil
}

// opTx is an operation's transaction, with the other instances it changed
// (nested ones), which their owner is told of too.
type opTx struct {
	*db.Store
	touched *[]int64
}

func (tx *opTx) touch(ids ...int64) { *tx.touched = append(*tx.touched, ids...) }

// maxOpAttempts bounds the runs of an operation's transaction that
// PostgreSQL ends for a deadlock.
const maxOpAttempts = 5

func (o *Ops) tell(appID, wiID int64) {
	if o.owners != nil {
		o.owners.InstancesChanged(appID)
	}
	if o.hints != nil {
		o.hints.Publish(HintTopic, fmt.Sprintf("%d:%d", appID, wiID))
	}
	if o.notify != nil {
		o.notify.WorkflowInstancesChanged(appID, []int64{wiID})
	}
}

// topLevel refuses an operation on a nested instance (issue 26, item 2):
// it would leave its parent out of step (a child retried alone ended
// SUCCEEDED under a parent still FAILED). Its parent's operations reach
// it: stop, pause and resume the whole tree, retry retries failed nested
// instances in place.
func topLevel(r *db.WorkflowInstance, what string) error {
	if r.ParentInstanceID == nil {
		return nil
	}
	return fault.Conflict("run %d is nested in run %d (its node %q); %s run %d instead, whose operations reach its nested runs",
		r.ID, *r.ParentInstanceID, deref(r.ParentNodeKey), what, *r.ParentInstanceID)
}

// Stop ends an instance STOPPED: its running nodes' instances and nested instances
// stop, and no node starts any more.
func (o *Ops) Stop(ctx context.Context, wiID int64, by string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *opTx, r *db.WorkflowInstance, _ []db.WorkflowNodeRun, now time.Time) error {
		if err := topLevel(r, "stop"); err != nil {
			return err
		}
		if db.IsWorkflowInstanceFinal(r.Status) {
			return fault.Conflict("run %d has ended (%s); there is nothing to stop", r.ID, r.Status)
		}
		return stopWorkflowInstance(ctx, tx.Store, r.ID, "stopped by "+by, now)
	})
}

// Pause keeps any new node from starting, in the instance and every
// instance nested in it (issue 26, item 11: Argo's suspend holds the whole
// tree); running ones go on.
func (o *Ops) Pause(ctx context.Context, wiID int64, _ string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *opTx, r *db.WorkflowInstance, _ []db.WorkflowNodeRun, _ time.Time) error {
		if err := topLevel(r, "pause"); err != nil {
			return err
		}
		return o.moveTree(ctx, tx, r, db.WorkflowRunning, db.WorkflowPaused, "pause it: only a RUNNING run pauses")
	})
}

// Resume lets a paused instance, and the instances nested in it, start
// nodes again.
func (o *Ops) Resume(ctx context.Context, wiID int64, _ string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *opTx, r *db.WorkflowInstance, _ []db.WorkflowNodeRun, _ time.Time) error {
		if err := topLevel(r, "resume"); err != nil {
			return err
		}
		return o.moveTree(ctx, tx, r, db.WorkflowPaused, db.WorkflowRunning, "resume it: only a PAUSED run resumes")
	})
}

// moveTree moves an instance from one status to another, and the
// instances nested in it that are in from.
func (o *Ops) moveTree(ctx context.Context, tx *opTx, r *db.WorkflowInstance, from, to, what string) error {
	if err := o.moveWorkflowInstance(ctx, tx, r, []string{from}, to, what); err != nil {
		return err
	}
	tree, err := tx.WorkflowInstanceListSubtree(ctx, r.ID)
	if err != nil {
		return err
	}
	moved, err := tx.WorkflowInstanceMoveMany(ctx, tree[1:], from, to)
	if err != nil {
		return err
	}
	tx.touch(moved...)
	return nil
}

func (o *Ops) moveWorkflowInstance(ctx context.Context, tx *opTx, r *db.WorkflowInstance, from []string, to, what string) error {
	ok, err := tx.WorkflowInstanceTransition(ctx, db.WorkflowInstanceTransition{ID: r.ID, From: from, To: to})
	if err != nil {
		return err
	}
	if !ok {
		return fault.Conflict("run %d is %s; cannot %s", r.ID, r.Status, what)
	}
	return nil
}

// retryable are the node ends a retry runs again: failures and stops, and
// the nodes they kept from running.
func retryable(n *db.WorkflowNodeRun) bool {
	switch n.Status {
	case db.NodeFailed, db.NodeStopped:
		return true
	case db.NodeSkipped:
		switch n.Reason {
		case db.NodeReasonUpstreamFailed, db.NodeReasonFailFast, db.NodeReasonTriggerRule:
			return true
		}
	}
	return false
}

// Retry runs an instance's failed and stopped nodes again, with the nodes their
// failures kept from running; succeeded nodes keep their results. It
// repairs at the right grain (issue 26, item 10): a FOREACH runs again only
// its elements that did not succeed, a NESTED node's instance is retried in
// place (its succeeded nodes are not run again).
func (o *Ops) Retry(ctx context.Context, wiID int64, _ string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *opTx, r *db.WorkflowInstance, nodes []db.WorkflowNodeRun, now time.Time) error {
		if err := topLevel(r, "retry"); err != nil {
			return err
		}
		if r.Status != db.WorkflowFailed && r.Status != db.WorkflowStopped {
			return fault.Conflict("run %d is %s; only a FAILED or STOPPED run is retried", r.ID, r.Status)
		}
		n, err := retryTree(ctx, tx, r, nodes, now)
		if err != nil {
			return err
		}
		if n == 0 {
			return fault.Conflict("run %d has no failed or stopped node to retry", r.ID)
		}
		return nil
	})
}

// retryTree retries an ended instance's retryable nodes, and reopens it; it
// returns how many nodes it retried.
func retryTree(ctx context.Context, tx *opTx, r *db.WorkflowInstance, nodes []db.WorkflowNodeRun, now time.Time) (int, error) {
	var reset []*db.WorkflowNodeRun
	count := 0
	for i := range nodes {
		n := &nodes[i]
		if !retryable(n) {
			continue
		}
		count++
		done, err := retryInPlace(ctx, tx, r, n, now)
		if err != nil {
			return 0, err
		}
		if !done {
			reset = append(reset, n)
		}
	}
	if count == 0 {
		return 0, nil
	}
	if err := resetNodes(ctx, tx.Store, reset); err != nil {
		return 0, err
	}
	return count, reopen(ctx, tx.Store, r, now)
}

// retryInPlace retries a failed or stopped FOREACH or NESTED node without
// undoing what succeeded in it; false if the node has nothing to keep (it
// is then reset as any node).
func retryInPlace(ctx context.Context, tx *opTx, r *db.WorkflowInstance, n *db.WorkflowNodeRun, now time.Time) (bool, error) {
	if n.Status != db.NodeFailed && n.Status != db.NodeStopped {
		return false, nil
	}
	switch {
	case n.NodeType == db.NodeNested && n.ChildInstanceID != nil:
		child, _, err := tx.WorkflowInstanceLock(ctx, *n.ChildInstanceID)
		if errors.Is(err, db.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if child.Status != db.WorkflowFailed && child.Status != db.WorkflowStopped {
			return false, nil
		}
		childNodes, err := tx.WorkflowNodeRunListByInstances(ctx, []int64{child.ID})
		if err != nil {
			return false, err
		}
		if k, err := retryTree(ctx, tx, child, childNodes, now); err != nil || k == 0 {
			return false, err
		}
		tx.touch(child.ID)
		var deadline *time.Time
		if node := r.Graph.Node(n.NodeKey); node != nil && node.TimeoutMs != nil && *node.TimeoutMs > 0 {
			deadline = new(now.Add(time.Duration(*node.TimeoutMs) * time.Millisecond))
		}
		return true, resumeNode(ctx, tx.Store, n, n.Generation, deadline)
	case n.NodeType == db.NodeForeach && n.Items > 0:
		// Its succeeded elements' instances move to the next generation
		// with the elements; the engine makes the others again. Over a
		// workflow, its element runs that failed are retried in place and
		// every run moves to the next generation.
		next := n.Generation + 1
		copied, err := tx.WorkflowElementCopy(ctx, n.ID, n.Generation, next)
		if err != nil || copied == 0 {
			return false, err // elements made before they were stored: run it all again
		}
		if node := r.Graph.Node(n.NodeKey); node != nil && node.WorkflowID != 0 {
			runs, err := tx.WorkflowInstanceListElements(ctx, r.ID, n.NodeKey, n.Generation)
			if err != nil {
				return false, err
			}
			for i := range runs {
				run := &runs[i]
				if run.Status != db.WorkflowFailed && run.Status != db.WorkflowStopped {
					continue
				}
				runNodes, err := tx.WorkflowNodeRunListByInstances(ctx, []int64{run.ID})
				if err != nil {
					return false, err
				}
				if _, err := retryTree(ctx, tx, run, runNodes, now); err != nil {
					return false, err
				}
				tx.touch(run.ID)
			}
			if err := tx.WorkflowInstanceAdoptElements(ctx, r.ID, n.NodeKey, n.Generation, next); err != nil {
				return false, err
			}
		} else if err := tx.InstanceAdoptSucceeded(ctx, r.ID, n.NodeKey, n.Generation, next); err != nil {
			return false, err
		}
		return true, resumeNode(ctx, tx.Store, n, next, nil)
	}
	return false, nil
}

// resumeNode makes a failed or stopped node RUNNING again under generation
// gen, keeping what it started (its nested instance, its elements).
func resumeNode(ctx context.Context, tx *db.Store, n *db.WorkflowNodeRun, gen int, deadline *time.Time) error {
	ok, err := tx.WorkflowNodeRunTransition(ctx, db.WorkflowNodeRunTransition{ID: n.ID, From: []string{n.Status}, Generation: n.Generation,
		To: db.NodeRunning, NextGeneration: &gen, Resume: true, Deadline: deadline}, nil)
	if err != nil {
		return err
	}
	if !ok {
		return fault.Conflict("node %q changed meanwhile; look again", n.NodeKey)
	}
	return nil
}

// failureDependents are the nodes after key whose run depended on key's
// failure (a ONE_FAILED or ALL_FAILED node that ran, and every node after
// such a node): when key is repaired alone they are decided again (issue
// 26, item 1). Nodes its failure skipped are decided again by the engine
// itself once key succeeds (decide.go, reconsider).
func failureDependents(r *db.WorkflowInstance, nodes []db.WorkflowNodeRun, key string) []*db.WorkflowNodeRun {
	desc := descendants(&r.Graph, key)
	stale := map[string]bool{}
	for k := range desc {
		if n := r.Graph.Node(k); n != nil && (n.Rule() == db.RuleOneFailed || n.Rule() == db.RuleAllFailed) {
			stale[k] = true
			for d := range descendants(&r.Graph, k) {
				stale[d] = true
			}
		}
	}
	var out []*db.WorkflowNodeRun
	for i := range nodes {
		if d := &nodes[i]; stale[d.NodeKey] && d.Status != db.NodeWaiting {
			out = append(out, d)
		}
	}
	return out
}

// MarkSucceeded makes a failed, stopped or blocked node count as succeeded
// (its result and additions stay as they were), so its successors run, and
// what ran because it failed is decided again.
func (o *Ops) MarkSucceeded(ctx context.Context, wiID int64, key, by string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *opTx, r *db.WorkflowInstance, nodes []db.WorkflowNodeRun, now time.Time) error {
		if err := topLevel(r, "mark nodes of"); err != nil {
			return err
		}
		n, err := nodeOf(r, nodes, key)
		if err != nil {
			return err
		}
		if !retryable(n) {
			return fault.Conflict("node %q is %s; only a FAILED, STOPPED or blocked node is marked succeeded", key, n.Status)
		}
		if r.Status == db.WorkflowCanceled || r.Status == db.WorkflowWaiting {
			return fault.Conflict("run %d is %s", r.ID, r.Status)
		}
		dependents := failureDependents(r, nodes, key)
		if err := mustHaveEnded(dependents); err != nil {
			return err
		}
		seq, err := tx.WorkflowNodeRunNextFinishSeq(ctx, r.ID)
		if err != nil {
			return err
		}
		msg := "marked succeeded by " + by
		ok, err := tx.WorkflowNodeRunTransition(ctx, db.WorkflowNodeRunTransition{ID: n.ID, From: []string{n.Status}, Generation: n.Generation,
			To: db.NodeSucceeded, Reason: new(""), Message: &msg, DecidedBy: &by, FinishSeq: &seq, FinishedAt: &now}, nil)
		if err != nil {
			return err
		}
		if !ok {
			return fault.Conflict("node %q changed meanwhile; look again", key)
		}
		// What its failure blocked may run now.
		blocked := dependents
		desc := descendants(&r.Graph, key)
		for i := range nodes {
			d := &nodes[i]
			if d.Status == db.NodeSkipped && desc[d.NodeKey] && retryable(d) && !slices.Contains(blocked, d) {
				blocked = append(blocked, d)
			}
		}
		if err := resetNodes(ctx, tx.Store, blocked); err != nil {
			return err
		}
		if db.IsWorkflowInstanceFinal(r.Status) {
			return reopen(ctx, tx.Store, r, now)
		}
		return nil
	})
}

// Rerun runs a finished node again, alone or with every node after it.
// Alone, what ran because it failed is decided again, and what its failure
// skipped is decided once it ends (issue 26, item 1): a run never ends
// SUCCEEDED with a node skipped for a failure since repaired.
func (o *Ops) Rerun(ctx context.Context, wiID int64, key string, downstream bool, _ string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *opTx, r *db.WorkflowInstance, nodes []db.WorkflowNodeRun, now time.Time) error {
		if err := topLevel(r, "rerun nodes of"); err != nil {
			return err
		}
		n, err := nodeOf(r, nodes, key)
		if err != nil {
			return err
		}
		if r.Status == db.WorkflowWaiting || r.Status == db.WorkflowCanceled {
			return fault.Conflict("run %d is %s", r.ID, r.Status)
		}
		reset := []*db.WorkflowNodeRun{n}
		if downstream {
			desc := descendants(&r.Graph, key)
			for i := range nodes {
				if d := &nodes[i]; desc[d.NodeKey] && d.Status != db.NodeWaiting {
					reset = append(reset, d)
				}
			}
		} else {
			reset = append(reset, failureDependents(r, nodes, key)...)
		}
		if err := mustHaveEnded(reset); err != nil {
			return err
		}
		if err := resetNodes(ctx, tx.Store, reset); err != nil {
			return err
		}
		if db.IsWorkflowInstanceFinal(r.Status) {
			return reopen(ctx, tx.Store, r, now)
		}
		return nil
	})
}

func mustHaveEnded(list []*db.WorkflowNodeRun) error {
	for _, x := range list {
		if !db.IsNodeFinal(x.Status) {
			return fault.Conflict("node %q is %s; a node reruns only once it has ended", x.NodeKey, x.Status)
		}
	}
	return nil
}

// Approve decides a node awaiting approval: approved, it succeeds and its
// successors run; rejected, it fails with REJECTED.
func (o *Ops) Approve(ctx context.Context, wiID int64, key string, approve bool, comment, by string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *opTx, r *db.WorkflowInstance, nodes []db.WorkflowNodeRun, now time.Time) error {
		n, err := nodeOf(r, nodes, key)
		if err != nil {
			return err
		}
		if n.Status != db.NodeAwaitingApproval {
			return fault.Conflict("node %q is %s, not AWAITING_APPROVAL", key, n.Status)
		}
		seq, err := tx.WorkflowNodeRunNextFinishSeq(ctx, r.ID)
		if err != nil {
			return err
		}
		t := db.WorkflowNodeRunTransition{ID: n.ID, From: []string{db.NodeAwaitingApproval}, Generation: n.Generation,
			DecidedBy: &by, Comment: &comment, FinishSeq: &seq, FinishedAt: &now, ClearDeadline: true}
		if approve {
			t.To, t.Result, t.Message = db.NodeSucceeded, new("approved"), new("approved by "+by)
		} else {
			node := r.Graph.Node(key)
			t.To, t.Reason, t.Message = db.NodeFailed, new(db.NodeReasonRejected), new("rejected by "+by)
			t.FailureIgnored = new(node != nil && node.SkipWhenFailed)
		}
		ok, err := tx.WorkflowNodeRunTransition(ctx, t, nil)
		if err != nil {
			return err
		}
		if !ok {
			return fault.Conflict("node %q changed meanwhile; look again", key)
		}
		return nil
	})
}

func nodeOf(r *db.WorkflowInstance, nodes []db.WorkflowNodeRun, key string) (*db.WorkflowNodeRun, error) {
	for i := range nodes {
		if nodes[i].NodeKey == key {
			return &nodes[i], nil
		}
	}
	return nil, fault.NotFound(fmt.Sprintf("node %q of run %d", key, r.ID))
}

// resetNodes puts nodes back to WAITING under their next generation: what
// an older generation's instances or nested instances do no longer moves them.
func resetNodes(ctx context.Context, tx *db.Store, list []*db.WorkflowNodeRun) error {
	for _, n := range list {
		next := n.Generation + 1
		ok, err := tx.WorkflowNodeRunTransition(ctx, db.WorkflowNodeRunTransition{ID: n.ID, From: []string{n.Status}, Generation: n.Generation,
			To: db.NodeWaiting, NextGeneration: &next, Reset: true}, nil)
		if err != nil {
			return err
		}
		if !ok {
			return fault.Conflict("node %q changed meanwhile; look again", n.NodeKey)
		}
	}
	return nil
}

// reopen makes a finished instance RUNNING again; a timeout runs again
// from now.
func reopen(ctx context.Context, tx *db.Store, r *db.WorkflowInstance, now time.Time) error {
	t := db.WorkflowInstanceTransition{ID: r.ID, From: []string{r.Status}, To: db.WorkflowRunning,
		Reason: new(""), Result: new(""), Reopen: true}
	if r.TimeoutMs != nil && *r.TimeoutMs > 0 {
		t.Deadline = new(now.Add(time.Duration(*r.TimeoutMs) * time.Millisecond))
	}
	ok, err := tx.WorkflowInstanceTransition(ctx, t)
	if err != nil {
		return err
	}
	if !ok {
		return fault.Conflict("run %d changed meanwhile; look again", r.ID)
	}
	return nil
}

// descendants are the nodes reachable from key.
func descendants(g *db.WorkflowGraph, key string) map[string]bool {
	out := map[string]bool{}
	next := map[string][]string{}
	for _, e := range g.Edges {
		next[e.From] = append(next[e.From], e.To)
	}
	queue := slices.Clone(next[key])
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		if out[k] {
			continue
		}
		out[k] = true
		queue = append(queue, next[k]...)
	}
	return out
}
