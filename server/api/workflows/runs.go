package workflows

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
	"unicode"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/tracing"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// Limits on runs.
const (
	// MaxContextBytes bounds an instance's initial context, as JSON.
	MaxContextBytes = 1 << 20
	// MaxDelay bounds runWorkflow's delay.
	MaxDelay = 365 * 24 * time.Hour
	// IdempotencyWindow is how long an idempotency key names its instance.
	IdempotencyWindow = 24 * time.Hour
	// MaxKeyChars bounds an idempotency key.
	MaxKeyChars = 128
	// MaxCommentChars bounds an approval's comment.
	MaxCommentChars = 2000
)

// ErrNoEngine is what the instance operations fail with on a server built
// without the workflow engine (RunOps nil): an internal error, since every
// server is meant to have one.
var ErrNoEngine = errors.New("workflow instance operations are not available: this server has no workflow engine wired")

// Run records an instance of a workflow, due now or after delay, with an initial
// context (a JSON object; nil is {}). It is WAITING until the app's owner
// starts it; it runs the workflow's current version (its graph and
// failFast are copied into the instance). With an idempotency key, a second
// call with the same key within IdempotencyWindow returns the instance the
// first one recorded and records nothing. Disabled workflows run too: only
// their schedule is off.
func (s *Service) Run(ctx context.Context, id int64, context any, delay time.Duration, key *string) (*db.WorkflowInstance, error) {
	w, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	runCtx, err := contextObject(context)
	if err != nil {
		return nil, err
	}
	if delay < 0 || delay > MaxDelay {
		return nil, fault.BadInput("delayMs", "must be between 0 and %d", MaxDelay.Milliseconds())
	}
	if key != nil {
		switch {
		case *key == "":
			return nil, fault.BadInput("idempotencyKey", "must not be empty (leave it out for none)")
		case utf8.RuneCountInString(*key) > MaxKeyChars:
			return nil, fault.BadInput("idempotencyKey", "must be at most %d characters", MaxKeyChars)
		case !utf8.ValidString(*key) || slices.ContainsFunc([]rune(*key), unicode.IsControl):
			return nil, fault.BadInput("idempotencyKey", "must be one line of text without control characters")
		}
	}
	now := s.now()
	r := &db.WorkflowInstance{AppID: w.AppID, WorkflowID: w.ID, Version: w.Version, Status: db.WorkflowWaiting,
		TriggerType: db.TriggerAPI, TriggerAt: now.Add(delay), Graph: w.Graph, FailFast: w.FailFast, Context: runCtx,
		IdempotencyKey: key}
	if trace.SpanContextFromContext(ctx).IsSampled() {
		// A traced API call: the instance's span will be its child.
		r.TraceParent = tracing.Traceparent(ctx)
	}
	if key != nil {
		got, created, err := s.store.WorkflowInstanceCreateIdempotent(ctx, r, now.Add(-IdempotencyWindow))
		if err != nil {
			return nil, err
		}
		if !created {
			return got, nil
		}
	} else if _, err := s.store.WorkflowInstanceCreate(ctx, r); err != nil {
		return nil, err
	}
	s.notify.InstancesChanged(w.AppID)
	s.feed.WorkflowInstancesChanged(w.AppID, []int64{r.ID})
	return r, nil
}

// contextObject checks an instance's initial context: a JSON object within
// MaxContextBytes. It is returned as JSON decodes it (numbers float64),
// as it will read back from the database.
func contextObject(v any) (map[string]any, error) {
	if v == nil {
		return map[string]any{}, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fault.BadInput("context", "is not JSON: %v", err)
	}
	if len(raw) > MaxContextBytes {
		return nil, fault.BadInput("context", "is %d bytes of JSON; at most %d", len(raw), MaxContextBytes)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil || out == nil {
		return nil, fault.BadInput("context", "must be a JSON object, e.g. {\"region\": \"eu\"}")
	}
	return out, nil
}

// GetRun returns an instance if the caller holds at least role on its app.
func (s *Service) GetRun(ctx context.Context, id int64, role db.Role) (*db.WorkflowInstance, error) {
	return auth.ReadInApp(ctx, s.auth, runName(id), role,
		func(ctx context.Context) (*db.WorkflowInstance, error) { return s.store.WorkflowInstanceGet(ctx, id) },
		func(r *db.WorkflowInstance) int64 { return r.AppID })
}

func runName(id int64) string { return fmt.Sprintf("workflow run %d", id) }

// RunsMany returns the instances among ids the caller may see, by id.
func (s *Service) RunsMany(ctx context.Context, ids []int64) (map[int64]*db.WorkflowInstance, error) {
	list, err := s.store.WorkflowInstanceListByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*db.WorkflowInstance, len(list))
	may := s.mayer(ctx, db.RoleViewer)
	for i := range list {
		ok, err := may(list[i].AppID)
		if err != nil {
			return nil, err
		}
		if ok {
			out[list[i].ID] = &list[i]
		}
	}
	return out, nil
}

// RunFilter narrows a listing of runs.
type RunFilter struct {
	WorkflowID int64 // 0: every workflow of the app
	Statuses   []string
	BeforeID   int64
	Limit      int
}

// runFilter checks f for an app and returns the database's filter. An
// app-wide listing has the top-level runs only (nested instances are reached
// through their parent's node); a workflow's listing has every instance of it,
// the nested ones included.
func (s *Service) runFilter(ctx context.Context, appName string, f RunFilter) (db.WorkflowInstanceFilter, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return db.WorkflowInstanceFilter{}, err
	}
	if f.WorkflowID != 0 {
		w, err := s.store.WorkflowGet(ctx, f.WorkflowID)
		if errors.Is(err, db.ErrNotFound) || (err == nil && w.AppID != app.ID) {
			return db.WorkflowInstanceFilter{}, fault.BadInput("workflowId", "app %q has no workflow %d", appName, f.WorkflowID)
		}
		if err != nil {
			return db.WorkflowInstanceFilter{}, err
		}
	}
	return db.WorkflowInstanceFilter{AppID: app.ID, WorkflowID: f.WorkflowID, Statuses: f.Statuses, TopLevel: f.WorkflowID == 0,
		BeforeID: f.BeforeID, Limit: f.Limit}, nil
}

// ListRuns returns a page of an app's runs, newest first, and whether
// more follow.
func (s *Service) ListRuns(ctx context.Context, appName string, f RunFilter) ([]db.WorkflowInstance, bool, error) {
	df, err := s.runFilter(ctx, appName, f)
	if err != nil {
		return nil, false, err
	}
	return s.store.WorkflowInstanceList(ctx, df)
}

// CountRuns counts the instances a listing's filter matches, on every page.
func (s *Service) CountRuns(ctx context.Context, appName string, f RunFilter) (int, error) {
	df, err := s.runFilter(ctx, appName, f)
	if err != nil {
		return 0, err
	}
	return s.store.WorkflowInstanceCount(ctx, df)
}

// NodeRowsMany returns the node rows of runs the caller already read, by
// run (an instance not started yet has none).
func (s *Service) NodeRowsMany(ctx context.Context, wiIDs []int64) (map[int64][]db.WorkflowNodeRun, error) {
	list, err := s.store.WorkflowNodeRunListByInstances(ctx, wiIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[int64][]db.WorkflowNodeRun, len(wiIDs))
	for _, n := range list {
		out[n.WorkflowInstanceID] = append(out[n.WorkflowInstanceID], n)
	}
	return out, nil
}

// InstancesMany returns the job instances of runs the caller already
// read, by run.
func (s *Service) InstancesMany(ctx context.Context, wiIDs []int64) (map[int64][]db.Instance, error) {
	list, err := s.store.InstanceListByWorkflowInstances(ctx, wiIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[int64][]db.Instance, len(wiIDs))
	for _, in := range list {
		out[*in.WorkflowInstanceID] = append(out[*in.WorkflowInstanceID], in)
	}
	return out, nil
}

// NodesOf is an instance's nodes as the API shows them: one per node of the
// graph it runs, in the graph's order; a node the instance has not reached
// (or an instance not started yet) is WAITING.
func NodesOf(r *db.WorkflowInstance, rows []db.WorkflowNodeRun) []db.WorkflowNodeRun {
	byKey := make(map[string]*db.WorkflowNodeRun, len(rows))
	for i := range rows {
		byKey[rows[i].NodeKey] = &rows[i]
	}
	out := make([]db.WorkflowNodeRun, 0, len(r.Graph.Nodes))
	for _, n := range r.Graph.Nodes {
		if row := byKey[n.Key]; row != nil {
			out = append(out, *row)
			delete(byKey, n.Key)
			continue
		}
		out = append(out, db.WorkflowNodeRun{WorkflowInstanceID: r.ID, NodeKey: n.Key, NodeType: n.Type, Status: db.NodeWaiting,
			Generation: 1, UpdatedAt: r.UpdatedAt})
	}
	for i := range rows { // rows of nodes not in the graph: never expected, never hidden
		if byKey[rows[i].NodeKey] != nil {
			out = append(out, rows[i])
		}
	}
	return out
}

// NodeInstances returns a node's job instances of its current generation
// among an instance's, in element order (FOREACH) and then as created.
func NodeInstances(node *db.WorkflowNodeRun, all []db.Instance) []db.Instance {
	var out []db.Instance
	for _, in := range all {
		if in.WorkflowNodeID != nil && *in.WorkflowNodeID == node.NodeKey &&
			(in.WorkflowGeneration == nil || *in.WorkflowGeneration == node.Generation) {
			out = append(out, in)
		}
	}
	slices.SortStableFunc(out, func(a, b db.Instance) int {
		if c := cmp.Compare(deref(a.WorkflowItem, -1), deref(b.WorkflowItem, -1)); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// ---- the instance operations (the engine's, behind the rights checks) ----

// Stop stops an instance: its running nodes, nested instances included.
func (s *Service) Stop(ctx context.Context, wiID int64) (*db.WorkflowInstance, error) {
	return s.op(ctx, wiID, nil, func(ops RunOps, by string) error { return ops.Stop(ctx, wiID, by) })
}

// Retry runs an instance's failed and stopped nodes again, keeping those that
// succeeded.
func (s *Service) Retry(ctx context.Context, wiID int64) (*db.WorkflowInstance, error) {
	return s.op(ctx, wiID, nil, func(ops RunOps, by string) error { return ops.Retry(ctx, wiID, by) })
}

// MarkSucceeded marks a node of an instance succeeded by hand.
func (s *Service) MarkSucceeded(ctx context.Context, wiID int64, node string) (*db.WorkflowInstance, error) {
	return s.op(ctx, wiID, &node, func(ops RunOps, by string) error { return ops.MarkSucceeded(ctx, wiID, node, by) })
}

// Rerun runs a node of an instance again, alone or with everything downstream.
func (s *Service) Rerun(ctx context.Context, wiID int64, node string, downstream bool) (*db.WorkflowInstance, error) {
	return s.op(ctx, wiID, &node, func(ops RunOps, by string) error { return ops.Rerun(ctx, wiID, node, downstream, by) })
}

// Pause stops nodes from starting in an instance; running ones go on.
func (s *Service) Pause(ctx context.Context, wiID int64) (*db.WorkflowInstance, error) {
	return s.op(ctx, wiID, nil, func(ops RunOps, by string) error { return ops.Pause(ctx, wiID, by) })
}

// Resume lets a paused instance start nodes again.
func (s *Service) Resume(ctx context.Context, wiID int64) (*db.WorkflowInstance, error) {
	return s.op(ctx, wiID, nil, func(ops RunOps, by string) error { return ops.Resume(ctx, wiID, by) })
}

// Approve approves or rejects an APPROVAL node of an instance.
func (s *Service) Approve(ctx context.Context, wiID int64, node string, approve bool, comment string) (*db.WorkflowInstance, error) {
	if utf8.RuneCountInString(comment) > MaxCommentChars {
		return nil, fault.BadInput("comment", "must be at most %d characters", MaxCommentChars)
	}
	return s.op(ctx, wiID, &node, func(ops RunOps, by string) error { return ops.Approve(ctx, wiID, node, approve, comment, by) })
}

// op checks the caller may change the instance (EDITOR on its app; an instance of
// another app is NOT_FOUND) and that node, if any, is a node of it, then
// has the engine apply fn, and returns the instance as it is after.
func (s *Service) op(ctx context.Context, wiID int64, node *string, fn func(ops RunOps, by string) error) (*db.WorkflowInstance, error) {
	r, err := s.GetRun(ctx, wiID, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	if node != nil && r.Graph.Node(*node) == nil {
		return nil, fault.NotFound(fmt.Sprintf("node %q of %s", *node, runName(wiID)))
	}
	if s.ops == nil {
		return nil, ErrNoEngine
	}
	if err := fn(s.ops, by(ctx)); err != nil {
		return nil, err
	}
	s.feed.WorkflowInstancesChanged(r.AppID, []int64{wiID})
	return s.GetRun(ctx, wiID, db.RoleViewer)
}

// Clash is a context key two nodes of an instance both wrote without one
// following the other: which value the context holds depends on which
// finished last (issue 26, item 13). Nodes are the writers, in the order
// they finished; the last one's value is in the context.
type Clash struct {
	Key   string
	Nodes []string
}

// ClashesOf are an instance's context clashes, by key. Nodes that follow
// one another (an ancestor and its descendant) writing a key is an
// override, not a clash; a NESTED node writes what its nested instance
// added.
func ClashesOf(r *db.WorkflowInstance, rows []db.WorkflowNodeRun) []Clash {
	next := map[string][]string{}
	for _, e := range r.Graph.Edges {
		next[e.From] = append(next[e.From], e.To)
	}
	reach := func(from, to string) bool {
		seen := map[string]bool{}
		queue := []string{from}
		for len(queue) > 0 {
			k := queue[0]
			queue = queue[1:]
			for _, m := range next[k] {
				if m == to {
					return true
				}
				if !seen[m] {
					seen[m] = true
					queue = append(queue, m)
				}
			}
		}
		return false
	}
	writers := map[string][]*db.WorkflowNodeRun{}
	for i := range rows {
		n := &rows[i]
		if n.Status != db.NodeSucceeded {
			continue
		}
		for k := range n.Output {
			writers[k] = append(writers[k], n)
		}
	}
	var out []Clash
	for key, ws := range writers {
		if len(ws) < 2 {
			continue
		}
		slices.SortFunc(ws, func(a, b *db.WorkflowNodeRun) int { return cmp.Compare(a.FinishSeq, b.FinishSeq) })
		clashing := map[string]bool{}
		for i, a := range ws {
			for _, b := range ws[i+1:] {
				if !reach(a.NodeKey, b.NodeKey) && !reach(b.NodeKey, a.NodeKey) {
					clashing[a.NodeKey], clashing[b.NodeKey] = true, true
				}
			}
		}
		if len(clashing) == 0 {
			continue
		}
		c := Clash{Key: key}
		for _, w := range ws {
			if clashing[w.NodeKey] {
				c.Nodes = append(c.Nodes, w.NodeKey)
			}
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Clash) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

// InstanceInput is what a workflow node's job instance was given, whole: a
// FOREACH element's context and upstream results are stored once on its
// node and filled in here. Nil for an instance no workflow ran.
func (s *Service) InstanceInput(ctx context.Context, in *db.Instance) (*db.WorkflowTaskInput, error) {
	if in.WorkflowInput == nil || !in.WorkflowInput.FromNode {
		return in.WorkflowInput, nil
	}
	one := []db.Instance{*in}
	v := *in.WorkflowInput
	one[0].WorkflowInput = &v
	if err := s.store.InstanceHydrate(ctx, one); err != nil {
		return nil, err
	}
	v.FromNode = false
	return &v, nil
}
