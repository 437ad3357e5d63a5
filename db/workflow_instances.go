package db

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/uptrace/bun"
)

// WorkflowInstance is one instance of a workflow. Its graph and options are
// those of the version it started with, so editing the workflow does not
// disturb it; each node's progress is a WorkflowNodeRun row.
type WorkflowInstance struct {
	bun.BaseModel `bun:"table:workflow_instances,alias:wi"`

	ID               int64   `bun:"id,pk,autoincrement"`
	AppID            int64   `bun:"app_id,notnull"`
	WorkflowID       int64   `bun:"workflow_id,notnull"`
	Version          int     `bun:"version,notnull"`
	ParentInstanceID *int64  `bun:"parent_instance_id"`
	ParentNodeKey    *string `bun:"parent_node_key"`
	// ParentItem and ParentGeneration: for a run of a FOREACH over a
	// nested workflow, the element it runs and the FOREACH's generation.
	ParentItem       *int `bun:"parent_item"`
	ParentGeneration *int `bun:"parent_generation"`
	// RootInstanceID is the top of a nested instance's tree; nil for a top
	// instance (and for nested ones started before it was recorded).
	RootInstanceID *int64 `bun:"root_instance_id"`
	// Budget and BudgetUsed (a top instance's): the node rows and FOREACH
	// elements its whole tree may create, and has; 0 is no bound (an
	// instance started before budgets).
	Budget     int `bun:"budget,notnull"`
	BudgetUsed int `bun:"budget_used,notnull"`
	// TimeoutMs is its workflow's timeout as it started, Deadline when it
	// runs out (nil: no bound).
	TimeoutMs         *int64         `bun:"timeout_ms"`
	Deadline          *time.Time     `bun:"deadline"`
	Status            string         `bun:"status,notnull"`
	Reason            string         `bun:"reason,notnull"`
	TriggerType       string         `bun:"trigger_type,notnull"`
	ExpectedTriggerAt *time.Time     `bun:"expected_trigger_at"`
	TriggerAt         time.Time      `bun:"trigger_at,notnull"`
	Graph             WorkflowGraph  `bun:"graph,notnull,type:json"`
	FailFast          bool           `bun:"fail_fast,notnull"`
	Context           map[string]any `bun:"context,notnull,type:json"`
	Result            string         `bun:"result,notnull"`
	Epoch             int64          `bun:"epoch,notnull"`
	IdempotencyKey    *string        `bun:"idempotency_key"`
	CreatedAt         time.Time      `bun:"created_at,notnull"`
	StartedAt         *time.Time     `bun:"started_at"`
	FinishedAt        *time.Time     `bun:"finished_at"`
	UpdatedAt         time.Time      `bun:"updated_at,notnull"`
	// TraceParent is the W3C traceparent of the instance's span when it is
	// traced (docs/tracing.md); "" otherwise.
	TraceParent string `bun:"trace_parent,notnull"`
	// BackfillID and LogicalTime: a backfill's run, for the fire time it
	// stands for (unique together; db/backfills.go).
	BackfillID  *int64     `bun:"backfill_id"`
	LogicalTime *time.Time `bun:"logical_time"`
	// UpstreamRunID and UpstreamInstanceID: the upstream workflow run or
	// job instance whose success started it (workflow_links.go; unique per
	// workflow).
	UpstreamRunID      *int64 `bun:"upstream_run_id"`
	UpstreamInstanceID *int64 `bun:"upstream_instance_id"`
}

// WorkflowInstanceSetTraceParent records the span a workflow instance is
// traced under.
func (s *Store) WorkflowInstanceSetTraceParent(ctx context.Context, id int64, traceParent string) error {
	_, err := s.idb.NewUpdate().Model((*WorkflowInstance)(nil)).Set("trace_parent = ?", traceParent).Where("id = ?", id).Exec(ctx)
	return wrap(err, "recording a workflow instance's trace")
}

// IsWorkflowInstanceFinal says whether a workflow instance status is terminal.
func IsWorkflowInstanceFinal(status string) bool {
	switch status {
	case WorkflowSucceeded, WorkflowFailed, WorkflowStopped, WorkflowCanceled:
		return true
	}
	return false
}

// WorkflowTaskInput is what a workflow node's task is given: the instance's
// context as the node starts, and its direct upstream nodes' results.
type WorkflowTaskInput struct {
	Context  map[string]any    `json:"context"`
	Upstream map[string]string `json:"upstream"`
	// Element is the FOREACH element the instance runs, if any.
	Element any `json:"element,omitempty"`
	// FromNode marks a FOREACH element's input as stored: its context and
	// upstream are its node's (WorkflowNodeRun.Input), filled in when the
	// instance is read (InstanceHydrate).
	FromNode bool `json:"fromNode,omitempty"`
}

// ---- workflows ----

// WorkflowInstanceCreate inserts an instance. A scheduled run whose
// (workflow, expected time) exists already is not inserted: created is
// false then.
func (s *Store) WorkflowInstanceCreate(ctx context.Context, r *WorkflowInstance) (created bool, err error) {
	now := Now()
	r.CreatedAt, r.UpdatedAt = now, now
	if r.Context == nil {
		r.Context = map[string]any{}
	}
	res, err := s.idb.NewInsert().Model(r).ExcludeColumn("id").
		On("CONFLICT (workflow_id, expected_trigger_at) DO NOTHING").
		Returning("id").Exec(ctx)
	if err != nil {
		return false, wrap(err, "creating workflow run")
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// WorkflowInstanceGet returns an instance.
func (s *Store) WorkflowInstanceGet(ctx context.Context, id int64) (*WorkflowInstance, error) {
	r := new(WorkflowInstance)
	err := s.idb.NewSelect().Model(r).Where("id = ?", id).Scan(ctx)
	return r, wrap(err, "reading workflow run")
}

// WorkflowInstanceLock reads an instance for a change of its tree: on
// PostgreSQL it locks the tree's top instance first, then the instance
// (FOR UPDATE), so the engine's decisions and the run operations on one
// tree take their locks in one order and never deadlock on each other
// (SQLite has one writer at a time). It returns the instance and its top
// (the same row for a top instance).
func (s *Store) WorkflowInstanceLock(ctx context.Context, id int64) (wi, root *WorkflowInstance, err error) {
	q := s.idb.NewSelect().Model((*WorkflowInstance)(nil))
	wi = new(WorkflowInstance)
	if s.dialect != Postgres {
		if err := q.Model(wi).Where("id = ?", id).Scan(ctx); err != nil {
			return nil, nil, wrap(err, "reading workflow run")
		}
		if wi.RootInstanceID == nil {
			return wi, wi, nil
		}
		root = new(WorkflowInstance)
		err := s.idb.NewSelect().Model(root).Where("id = ?", *wi.RootInstanceID).Scan(ctx)
		return wi, root, wrap(err, "reading workflow run")
	}
	// The top instance is older than the instances under it: locking in id
	// order locks it first.
	var list []WorkflowInstance
	err = s.idb.NewSelect().Model(&list).
		Where("id = ? OR id = (SELECT root_instance_id FROM workflow_instances WHERE id = ?)", id, id).
		OrderExpr("id").For("UPDATE").Scan(ctx)
	if err != nil {
		return nil, nil, wrap(err, "locking workflow run")
	}
	for i := range list {
		if list[i].ID == id {
			wi = &list[i]
		}
	}
	if len(list) == 0 || wi.ID != id {
		return nil, nil, ErrNotFound
	}
	root = wi
	if wi.RootInstanceID != nil && list[0].ID == *wi.RootInstanceID {
		root = &list[0]
	}
	return wi, root, nil
}

// WorkflowInstanceListSubtree returns the ids of an instance and every
// unfinished instance nested under it, at any depth, parents first.
func (s *Store) WorkflowInstanceListSubtree(ctx context.Context, id int64) ([]int64, error) {
	out := []int64{id}
	frontier := []int64{id}
	for depth := 0; len(frontier) > 0 && depth < 64; depth++ {
		var next []int64
		err := s.idb.NewSelect().Model((*WorkflowInstance)(nil)).Column("id").
			Where("parent_instance_id IN (?) AND status IN (?)", bun.List(frontier),
				bun.List([]string{WorkflowWaiting, WorkflowRunning, WorkflowPaused})).OrderExpr("id").Scan(ctx, &next)
		if err != nil {
			return nil, wrap(err, "reading nested workflow runs")
		}
		out = append(out, next...)
		frontier = next
	}
	return out, nil
}

// WorkflowInstanceStopMany ends unfinished instances STOPPED in one
// statement; it returns the ids that moved.
func (s *Store) WorkflowInstanceStopMany(ctx context.Context, ids []int64, why string, now time.Time) ([]int64, error) {
	var moved []int64
	if len(ids) == 0 {
		return moved, nil
	}
	err := s.idb.NewUpdate().Model((*WorkflowInstance)(nil)).
		Set("status = ?", WorkflowStopped).Set("result = ?", why).Set("finished_at = ?", now).Set("updated_at = ?", Now()).
		Where("id IN (?) AND status IN (?)", bun.List(ids), bun.List([]string{WorkflowWaiting, WorkflowRunning, WorkflowPaused})).
		Returning("id").Scan(ctx, &moved)
	return moved, wrap(err, "stopping workflow runs")
}

// WorkflowInstanceMoveMany moves those of instances in from to to, in one
// statement; it returns the ids that moved.
func (s *Store) WorkflowInstanceMoveMany(ctx context.Context, ids []int64, from, to string) ([]int64, error) {
	var moved []int64
	if len(ids) == 0 {
		return moved, nil
	}
	err := s.idb.NewUpdate().Model((*WorkflowInstance)(nil)).Set("status = ?", to).Set("updated_at = ?", Now()).
		Where("id IN (?) AND status = ?", bun.List(ids), from).Returning("id").Scan(ctx, &moved)
	return moved, wrap(err, "moving workflow runs")
}

// WorkflowInstanceUseBudget adds n to a top instance's budget used, if it
// stays within its budget (0: no bound); false otherwise. The caller holds
// the top instance's lock (WorkflowInstanceLock).
func (s *Store) WorkflowInstanceUseBudget(ctx context.Context, rootID int64, n int) (bool, error) {
	res, err := s.idb.NewUpdate().Model((*WorkflowInstance)(nil)).Set("budget_used = budget_used + ?", n).
		Where("id = ? AND (budget = 0 OR budget_used + ? <= budget)", rootID, n).Exec(ctx)
	if err != nil {
		return false, wrap(err, "using the run's budget")
	}
	k, _ := res.RowsAffected()
	return k == 1, nil
}

// WorkflowInstanceGetByIdempotencyKey returns the instance an earlier call with the
// same key created, if any.
func (s *Store) WorkflowInstanceGetByIdempotencyKey(ctx context.Context, workflowID int64, key string, since time.Time) (*WorkflowInstance, error) {
	r := new(WorkflowInstance)
	err := s.idb.NewSelect().Model(r).
		Where("workflow_id = ? AND idempotency_key = ? AND created_at >= ?", workflowID, key, since).
		OrderExpr("id").Limit(1).Scan(ctx)
	return r, wrap(err, "reading workflow run by idempotency key")
}

// WorkflowInstanceListByIDs returns runs by id.
func (s *Store) WorkflowInstanceListByIDs(ctx context.Context, ids []int64) ([]WorkflowInstance, error) {
	var out []WorkflowInstance
	if len(ids) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("id IN (?)", bun.List(ids)).OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading workflow runs")
}

// WorkflowInstanceListActive returns an app's RUNNING and PAUSED runs.
func (s *Store) WorkflowInstanceListActive(ctx context.Context, appID int64) ([]WorkflowInstance, error) {
	var out []WorkflowInstance
	err := s.idb.NewSelect().Model(&out).
		Where("app_id = ? AND status IN (?)", appID, bun.List([]string{WorkflowRunning, WorkflowPaused})).
		OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading active workflow runs")
}

// WorkflowInstanceListWaitingDue returns an app's WAITING runs due by until,
// oldest first: the trigger loop puts them on the wheel.
func (s *Store) WorkflowInstanceListWaitingDue(ctx context.Context, appID int64, until time.Time, limit int) ([]WorkflowInstance, error) {
	var out []WorkflowInstance
	err := s.idb.NewSelect().Model(&out).
		Column("id", "app_id", "workflow_id", "status", "trigger_at").
		Where("app_id = ? AND status = ? AND trigger_at <= ?", appID, WorkflowWaiting, until).
		OrderExpr("trigger_at, id").Limit(limit).Scan(ctx)
	return out, wrap(err, "reading due workflow runs")
}

// WorkflowInstanceCounts are a workflow's top-level runs that hold a place
// under maxInstances, and the oldest one queued.
type WorkflowInstanceCounts struct {
	Active int // RUNNING or PAUSED
}

// WorkflowCountActive counts a workflow's top-level RUNNING and PAUSED
// runs (nested instances do not count against maxInstances).
func (s *Store) WorkflowCountActive(ctx context.Context, workflowID int64) (int, error) {
	n, err := s.idb.NewSelect().Model((*WorkflowInstance)(nil)).
		Where("workflow_id = ? AND parent_instance_id IS NULL AND status IN (?)", workflowID, bun.List([]string{WorkflowRunning, WorkflowPaused})).
		Count(ctx)
	return n, wrap(err, "counting active workflow runs")
}

// WorkflowInstanceListElements returns the nested runs of a FOREACH over a
// workflow, of one generation, by element.
func (s *Store) WorkflowInstanceListElements(ctx context.Context, parentID int64, key string, generation int) ([]WorkflowInstance, error) {
	var out []WorkflowInstance
	err := s.idb.NewSelect().Model(&out).
		Where("parent_instance_id = ? AND parent_node_key = ? AND parent_generation = ?", parentID, key, generation).
		OrderExpr("parent_item, id").Scan(ctx)
	return out, wrap(err, "reading a FOREACH's nested runs")
}

// WorkflowInstanceAdoptElements moves a FOREACH's nested runs from one
// generation to the next (a retry keeps them: those that failed are
// retried in place).
func (s *Store) WorkflowInstanceAdoptElements(ctx context.Context, parentID int64, key string, from, to int) error {
	_, err := s.idb.NewUpdate().Model((*WorkflowInstance)(nil)).Set("parent_generation = ?", to).
		Where("parent_instance_id = ? AND parent_node_key = ? AND parent_generation = ?", parentID, key, from).Exec(ctx)
	return wrap(err, "keeping a FOREACH's nested runs")
}

// WorkflowInstanceListActiveByWorkflow returns a workflow's top-level
// RUNNING and PAUSED runs, oldest first (the ones a REPLACE policy stops).
func (s *Store) WorkflowInstanceListActiveByWorkflow(ctx context.Context, workflowID int64) ([]WorkflowInstance, error) {
	var out []WorkflowInstance
	err := s.idb.NewSelect().Model(&out).
		Where("workflow_id = ? AND parent_instance_id IS NULL AND status IN (?)", workflowID, bun.List([]string{WorkflowRunning, WorkflowPaused})).
		OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading active workflow runs")
}

// WorkflowInstanceListQueued returns a workflow's top-level WAITING runs due
// by now, oldest first: the ones a QUEUE policy holds.
func (s *Store) WorkflowInstanceListQueued(ctx context.Context, workflowID int64, now time.Time, limit int) ([]WorkflowInstance, error) {
	var out []WorkflowInstance
	err := s.idb.NewSelect().Model(&out).
		Where("workflow_id = ? AND parent_instance_id IS NULL AND status = ? AND trigger_at <= ?", workflowID, WorkflowWaiting, now).
		OrderExpr("trigger_at, id").Limit(limit).Scan(ctx)
	return out, wrap(err, "reading queued workflow runs")
}

// WorkflowInstanceListChildren returns the nested instances an instance started.
func (s *Store) WorkflowInstanceListChildren(ctx context.Context, parentIDs []int64) ([]WorkflowInstance, error) {
	var out []WorkflowInstance
	if len(parentIDs) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("parent_instance_id IN (?)", bun.List(parentIDs)).OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading nested workflow runs")
}

// WorkflowInstanceTransition moves an instance from one status to another and sets the
// fields given (nil fields keep their value).
type WorkflowInstanceTransition struct {
	ID         int64
	From       []string
	To         string
	Reason     *string
	Result     *string
	StartedAt  *time.Time
	FinishedAt *time.Time
	Epoch      *int64
	// BudgetFromApp sets a top instance's budget, as it starts, to its
	// app's workflow budget.
	BudgetFromApp bool
	// TimeoutMs and Deadline set its timeout and deadline; ClearDeadline
	// removes the deadline.
	TimeoutMs     *int64
	Deadline      *time.Time
	ClearDeadline bool
	// Reopen clears finished_at (a finished instance made to run again).
	Reopen bool
}

// WorkflowInstanceTransition applies an instance transition if the instance is still in one
// of From; false if it was not.
func (s *Store) WorkflowInstanceTransition(ctx context.Context, t WorkflowInstanceTransition) (bool, error) {
	q := s.idb.NewUpdate().Model((*WorkflowInstance)(nil)).
		Set("status = ?", t.To).Set("updated_at = ?", Now())
	if t.Reason != nil {
		q = q.Set("reason = ?", *t.Reason)
	}
	if t.Result != nil {
		q = q.Set("result = ?", *t.Result)
	}
	if t.StartedAt != nil {
		q = q.Set("started_at = COALESCE(started_at, ?)", *t.StartedAt)
	}
	if t.FinishedAt != nil {
		q = q.Set("finished_at = ?", *t.FinishedAt)
	}
	if t.Reopen {
		q = q.Set("finished_at = NULL")
	}
	if t.Epoch != nil {
		q = q.Set("epoch = ?", *t.Epoch)
	}
	if t.TimeoutMs != nil {
		q = q.Set("timeout_ms = ?", *t.TimeoutMs)
	}
	if t.Deadline != nil {
		q = q.Set("deadline = ?", *t.Deadline)
	} else if t.ClearDeadline {
		q = q.Set("deadline = NULL")
	}
	if t.BudgetFromApp {
		q = q.Set("budget = (SELECT workflow_budget FROM apps WHERE apps.id = app_id)").Set("budget_used = 0")
	}
	res, err := q.Where("id = ? AND status IN (?)", t.ID, bun.List(t.From)).Exec(ctx)
	if err != nil {
		return false, wrap(err, "moving workflow run")
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// WorkflowInstanceFilter narrows an instance listing.
type WorkflowInstanceFilter struct {
	AppID      int64
	WorkflowID int64
	Statuses   []string
	// TopLevel leaves out nested instances.
	TopLevel bool
	BeforeID int64
	Limit    int
}

func (f WorkflowInstanceFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	q = q.Where("app_id = ?", f.AppID)
	if f.WorkflowID > 0 {
		q = q.Where("workflow_id = ?", f.WorkflowID)
	}
	if len(f.Statuses) > 0 {
		q = q.Where("status IN (?)", bun.List(f.Statuses))
	}
	if f.TopLevel {
		q = q.Where("parent_instance_id IS NULL")
	}
	return q
}

// WorkflowInstanceList returns a page of runs, newest first, and whether
// more follow.
func (s *Store) WorkflowInstanceList(ctx context.Context, f WorkflowInstanceFilter) ([]WorkflowInstance, bool, error) {
	var out []WorkflowInstance
	q := f.apply(s.idb.NewSelect().Model(&out))
	if f.BeforeID > 0 {
		q = q.Where("id < ?", f.BeforeID)
	}
	err := q.OrderExpr("id DESC").Limit(f.Limit + 1).Scan(ctx)
	more := len(out) > f.Limit
	if more {
		out = out[:f.Limit]
	}
	return out, more, wrap(err, "listing workflow runs")
}

// WorkflowInstanceCount counts the instances matching a filter.
func (s *Store) WorkflowInstanceCount(ctx context.Context, f WorkflowInstanceFilter) (int, error) {
	n, err := f.apply(s.idb.NewSelect().Model((*WorkflowInstance)(nil))).Count(ctx)
	return n, wrap(err, "counting workflow runs")
}

// WorkflowInstanceListLast returns each workflow's newest top-level run.
func (s *Store) WorkflowInstanceListLast(ctx context.Context, workflowIDs []int64) (map[int64]*WorkflowInstance, error) {
	out := make(map[int64]*WorkflowInstance, len(workflowIDs))
	if len(workflowIDs) == 0 {
		return out, nil
	}
	var rows []WorkflowInstance
	err := s.idb.NewSelect().Model(&rows).
		Where("wi.id IN (SELECT MAX(id) FROM workflow_instances WHERE workflow_id IN (?) AND parent_instance_id IS NULL AND status <> ? GROUP BY workflow_id)",
			bun.List(workflowIDs), WorkflowWaiting).
		Scan(ctx)
	for i := range rows {
		out[rows[i].WorkflowID] = &rows[i]
	}
	return out, wrap(err, "reading workflows' last runs")
}

// ---- node runs ----

// ContextWith is the instance's context as its nodes see it now: the initial
// context with the additions of its finished nodes applied in the order
// they finished (a later addition of a key replaces an earlier one).
func (r *WorkflowInstance) ContextWith(nodes []WorkflowNodeRun) map[string]any {
	out := make(map[string]any, len(r.Context))
	for k, v := range r.Context {
		out[k] = v
	}
	done := make([]*WorkflowNodeRun, 0, len(nodes))
	for i := range nodes {
		if n := &nodes[i]; n.WorkflowInstanceID == r.ID && n.FinishSeq > 0 && len(n.Output) > 0 {
			done = append(done, n)
		}
	}
	slices.SortFunc(done, func(a, b *WorkflowNodeRun) int { return cmp.Compare(a.FinishSeq, b.FinishSeq) })
	for _, n := range done {
		for k, v := range n.Output {
			out[k] = v
		}
	}
	return out
}

// WorkflowInstanceDeleteFutureScheduled deletes a workflow's scheduled
// runs recorded ahead and not yet due (after `after`): a changed or
// disabled schedule records its own.
func (s *Store) WorkflowInstanceDeleteFutureScheduled(ctx context.Context, workflowID int64, after time.Time) error {
	_, err := s.idb.NewDelete().Model((*WorkflowInstance)(nil)).
		Where("workflow_id = ? AND parent_instance_id IS NULL AND status = ? AND trigger_type = ? AND trigger_at > ?",
			workflowID, WorkflowWaiting, TriggerSchedule, after).
		Exec(ctx)
	return wrap(err, "deleting workflow runs recorded ahead")
}

// ErrKeyContended says an idempotent insert kept finding its key taken and
// released: it does not happen unless something keeps deleting runs.
var ErrKeyContended = errors.New("the idempotency key kept changing hands; try again")

// WorkflowInstanceCreateIdempotent inserts an instance carrying an idempotency key,
// unless an instance of the same workflow created at or after since carries the
// key already: then that instance is returned and created is false. A run
// older than since keeps its key no longer: it is released (set NULL) and
// the new instance inserted. The unique index on (workflow_id,
// idempotency_key) makes concurrent calls with one key create one instance.
func (s *Store) WorkflowInstanceCreateIdempotent(ctx context.Context, r *WorkflowInstance, since time.Time) (_ *WorkflowInstance, created bool, err error) {
	if r.IdempotencyKey == nil {
		return nil, false, errors.New("creating workflow instance: no idempotency key")
	}
	key := *r.IdempotencyKey
	if r.Context == nil {
		r.Context = map[string]any{}
	}
	for range 3 {
		now := Now()
		r.CreatedAt, r.UpdatedAt = now, now
		res, err := s.idb.NewInsert().Model(r).ExcludeColumn("id").
			On("CONFLICT (workflow_id, idempotency_key) DO NOTHING").
			Returning("id").Exec(ctx)
		if err != nil {
			return nil, false, wrap(err, "creating workflow run")
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return r, true, nil
		}
		old := new(WorkflowInstance)
		err = s.idb.NewSelect().Model(old).Where("workflow_id = ? AND idempotency_key = ?", r.WorkflowID, key).Scan(ctx)
		switch {
		case errors.Is(wrap(err, ""), ErrNotFound):
			continue // deleted meanwhile: insert again
		case err != nil:
			return nil, false, wrap(err, "reading workflow run by idempotency key")
		case !old.CreatedAt.Before(since):
			return old, false, nil
		}
		_, err = s.idb.NewUpdate().Model((*WorkflowInstance)(nil)).Set("idempotency_key = NULL").
			Where("id = ? AND idempotency_key = ?", old.ID, key).Exec(ctx)
		if err != nil {
			return nil, false, wrap(err, "releasing an expired idempotency key")
		}
	}
	return nil, false, wrap(ErrKeyContended, "creating workflow run")
}
