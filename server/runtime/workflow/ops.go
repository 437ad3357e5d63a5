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

// do runs op on the instance in a transaction, then tells the owner.
func (o *Ops) do(ctx context.Context, wiID int64, op func(ctx context.Context, tx *db.Store, r *db.WorkflowInstance, nodes []db.WorkflowNodeRun, now time.Time) error) error {
	now := db.Stamp(o.clock.Now())
	var app int64
	err := o.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		r, err := tx.WorkflowInstanceGet(ctx, wiID)
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
		return op(ctx, tx, r, nodes, now)
	})
	if err != nil {
		return err
	}
	o.tell(app, wiID)
	return nil
}

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

// Stop ends an instance STOPPED: its running nodes' instances and nested instances
// stop, and no node starts any more.
func (o *Ops) Stop(ctx context.Context, wiID int64, by string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *db.Store, r *db.WorkflowInstance, _ []db.WorkflowNodeRun, now time.Time) error {
		if db.IsWorkflowInstanceFinal(r.Status) {
			return fault.Conflict("run %d has ended (%s); there is nothing to stop", r.ID, r.Status)
		}
		return stopWorkflowInstance(ctx, tx, r.ID, "stopped by "+by, now)
	})
}

// Pause keeps any new node from starting; running ones go on.
func (o *Ops) Pause(ctx context.Context, wiID int64, _ string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *db.Store, r *db.WorkflowInstance, _ []db.WorkflowNodeRun, _ time.Time) error {
		return o.moveWorkflowInstance(ctx, tx, r, []string{db.WorkflowRunning}, db.WorkflowPaused, "pause it: only a RUNNING run pauses")
	})
}

// Resume lets a paused instance start nodes again.
func (o *Ops) Resume(ctx context.Context, wiID int64, _ string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *db.Store, r *db.WorkflowInstance, _ []db.WorkflowNodeRun, _ time.Time) error {
		return o.moveWorkflowInstance(ctx, tx, r, []string{db.WorkflowPaused}, db.WorkflowRunning, "resume it: only a PAUSED run resumes")
	})
}

func (o *Ops) moveWorkflowInstance(ctx context.Context, tx *db.Store, r *db.WorkflowInstance, from []string, to, what string) error {
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
// failures kept from running; succeeded nodes keep their results.
func (o *Ops) Retry(ctx context.Context, wiID int64, _ string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *db.Store, r *db.WorkflowInstance, nodes []db.WorkflowNodeRun, _ time.Time) error {
		if r.Status != db.WorkflowFailed && r.Status != db.WorkflowStopped {
			return fault.Conflict("run %d is %s; only a FAILED or STOPPED run is retried", r.ID, r.Status)
		}
		var reset []*db.WorkflowNodeRun
		for i := range nodes {
			if retryable(&nodes[i]) {
				reset = append(reset, &nodes[i])
			}
		}
		if len(reset) == 0 {
			return fault.Conflict("run %d has no failed or stopped node to retry", r.ID)
		}
		if err := resetNodes(ctx, tx, reset); err != nil {
			return err
		}
		return reopen(ctx, tx, r)
	})
}

// MarkSucceeded makes a failed, stopped or blocked node count as succeeded
// (its result and additions stay as they were), so its successors run.
func (o *Ops) MarkSucceeded(ctx context.Context, wiID int64, key, by string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *db.Store, r *db.WorkflowInstance, nodes []db.WorkflowNodeRun, now time.Time) error {
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
		var blocked []*db.WorkflowNodeRun
		desc := descendants(&r.Graph, key)
		for i := range nodes {
			d := &nodes[i]
			if d.Status == db.NodeSkipped && desc[d.NodeKey] && retryable(d) {
				blocked = append(blocked, d)
			}
		}
		if err := resetNodes(ctx, tx, blocked); err != nil {
			return err
		}
		if db.IsWorkflowInstanceFinal(r.Status) {
			return reopen(ctx, tx, r)
		}
		return nil
	})
}

// Rerun runs a finished node again, alone or with every node after it.
func (o *Ops) Rerun(ctx context.Context, wiID int64, key string, downstream bool, _ string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *db.Store, r *db.WorkflowInstance, nodes []db.WorkflowNodeRun, _ time.Time) error {
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
		}
		for _, x := range reset {
			if !db.IsNodeFinal(x.Status) {
				return fault.Conflict("node %q is %s; a node reruns only once it has ended", x.NodeKey, x.Status)
			}
		}
		if err := resetNodes(ctx, tx, reset); err != nil {
			return err
		}
		if db.IsWorkflowInstanceFinal(r.Status) {
			return reopen(ctx, tx, r)
		}
		return nil
	})
}

// Approve decides a node awaiting approval: approved, it succeeds and its
// successors run; rejected, it fails with REJECTED.
func (o *Ops) Approve(ctx context.Context, wiID int64, key string, approve bool, comment, by string) error {
	return o.do(ctx, wiID, func(ctx context.Context, tx *db.Store, r *db.WorkflowInstance, nodes []db.WorkflowNodeRun, now time.Time) error {
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

// reopen makes a finished instance RUNNING again.
func reopen(ctx context.Context, tx *db.Store, r *db.WorkflowInstance) error {
	ok, err := tx.WorkflowInstanceTransition(ctx, db.WorkflowInstanceTransition{ID: r.ID, From: []string{r.Status}, To: db.WorkflowRunning,
		Reason: new(""), Result: new(""), Reopen: true})
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
