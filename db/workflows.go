package db

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/uptrace/bun"
)

// Workflow is a DAG of nodes run as one pipeline (docs/design.md §6). The
// row holds the current version; every version is kept in
// workflow_versions.
type Workflow struct {
	bun.BaseModel `bun:"table:workflows,alias:wf"`

	ID                 int64         `bun:"id,pk,autoincrement"`
	AppID              int64         `bun:"app_id,notnull"`
	Name               string        `bun:"name,notnull"`
	Description        string        `bun:"description,notnull"`
	Enabled            bool          `bun:"enabled,notnull"`
	ScheduleType       string        `bun:"schedule_type,notnull"`
	ScheduleExpression string        `bun:"schedule_expression,notnull"`
	TimeZone           string        `bun:"time_zone,notnull"`
	MaxInstances       int           `bun:"max_instances,notnull"`
	OverlapPolicy      string        `bun:"overlap_policy,notnull"`
	MisfirePolicy      string        `bun:"misfire_policy,notnull"`
	FailFast           bool          `bun:"fail_fast,notnull"`
	Graph              WorkflowGraph `bun:"graph,notnull,type:json"`
	// Alarm is whom to tell when its instances fail, and when they recover.
	Alarm         Alarm      `bun:"alarm,notnull,type:json"`
	Version       int        `bun:"version,notnull"`
	NextTriggerAt *time.Time `bun:"next_trigger_at"`
	CreatedAt     time.Time  `bun:"created_at,notnull"`
	UpdatedAt     time.Time  `bun:"updated_at,notnull"`
}

// WorkflowGraph is a workflow's nodes and edges.
type WorkflowGraph struct {
	Nodes []WorkflowNode `json:"nodes"`
	Edges []WorkflowEdge `json:"edges"`
}

// Node returns the node of a key, or nil.
func (g *WorkflowGraph) Node(key string) *WorkflowNode {
	for i := range g.Nodes {
		if g.Nodes[i].Key == key {
			return &g.Nodes[i]
		}
	}
	return nil
}

// WorkflowNode is one node of a workflow, named by a key stable across
// versions (and environments, through export and import).
type WorkflowNode struct {
	Key  string `json:"key"`
	Type string `json:"type"` // NodeJob, NodeDecision, NodeNested, NodeForeach, NodeApproval
	Name string `json:"name,omitempty"`
	// JobID is the job a JOB or FOREACH node runs.
	JobID int64 `json:"jobId,omitempty"`
	// WorkflowID is the workflow a NESTED node runs.
	WorkflowID int64 `json:"workflowId,omitempty"`
	// Expression is a DECISION's choice, or the list a FOREACH runs over
	// (expr-lang, over context and upstream).
	Expression string `json:"expression,omitempty"`
	// Params overrides the job's parameters (JOB); nil keeps them.
	Params *string `json:"params,omitempty"`
	// Enabled false skips the node; its successors run as if it succeeded.
	Enabled        bool   `json:"enabled"`
	SkipWhenFailed bool   `json:"skipWhenFailed,omitempty"`
	TriggerRule    string `json:"triggerRule,omitempty"` // RuleAllSucceeded if empty
	// Parallelism caps a FOREACH's elements running at once (default 1).
	Parallelism int `json:"parallelism,omitempty"`
	// TimeoutMs overrides the job's timeout (JOB, FOREACH) or bounds the
	// wait (APPROVAL); nil keeps the job's, or waits forever.
	TimeoutMs *int64 `json:"timeoutMs,omitempty"`
	// Retries overrides the job's instanceRetries (JOB, FOREACH).
	Retries *int `json:"retries,omitempty"`
	// Position is where the console's editor draws the node.
	Position *NodePosition `json:"position,omitempty"`
}

// NodePosition is a node's place on the editor's canvas.
type NodePosition struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Rule is the node's trigger rule, defaulted.
func (n *WorkflowNode) Rule() string {
	if n.TriggerRule == "" {
		return RuleAllSucceeded
	}
	return n.TriggerRule
}

// WorkflowEdge connects two nodes by key. An edge out of a DECISION carries
// the label the decision's value must equal for the edge to be taken.
type WorkflowEdge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label,omitempty"`
}

// WorkflowSpec is one version of a workflow as saved: everything but its
// identity, so a version can be viewed, exported and restored.
type WorkflowSpec struct {
	Name               string        `json:"name"`
	Description        string        `json:"description,omitempty"`
	Enabled            bool          `json:"enabled"`
	ScheduleType       string        `json:"scheduleType"`
	ScheduleExpression string        `json:"scheduleExpression,omitempty"`
	TimeZone           string        `json:"timeZone,omitempty"`
	MaxInstances       int           `json:"maxInstances"`
	OverlapPolicy      string        `json:"overlapPolicy"`
	MisfirePolicy      string        `json:"misfirePolicy"`
	FailFast           bool          `json:"failFast,omitempty"`
	Graph              WorkflowGraph `json:"graph"`
	Alarm              Alarm         `json:"alarm"`
}

// Spec returns the workflow's current version as a spec.
func (w *Workflow) Spec() WorkflowSpec {
	return WorkflowSpec{Name: w.Name, Description: w.Description, Enabled: w.Enabled, ScheduleType: w.ScheduleType,
		ScheduleExpression: w.ScheduleExpression, TimeZone: w.TimeZone, MaxInstances: w.MaxInstances,
		OverlapPolicy: w.OverlapPolicy, MisfirePolicy: w.MisfirePolicy, FailFast: w.FailFast, Graph: w.Graph, Alarm: w.Alarm}
}

// Apply sets the workflow's fields from a spec.
func (w *Workflow) Apply(s WorkflowSpec) {
	w.Name, w.Description, w.Enabled = s.Name, s.Description, s.Enabled
	w.ScheduleType, w.ScheduleExpression, w.TimeZone = s.ScheduleType, s.ScheduleExpression, s.TimeZone
	w.MaxInstances, w.OverlapPolicy, w.MisfirePolicy, w.FailFast = s.MaxInstances, s.OverlapPolicy, s.MisfirePolicy, s.FailFast
	w.Graph, w.Alarm = s.Graph, s.Alarm
}

// WorkflowVersion is one saved version of a workflow.
type WorkflowVersion struct {
	bun.BaseModel `bun:"table:workflow_versions,alias:wv"`

	WorkflowID int64        `bun:"workflow_id,pk"`
	Version    int          `bun:"version,pk"`
	Spec       WorkflowSpec `bun:"spec,notnull,type:json"`
	CreatedBy  string       `bun:"created_by,notnull"`
	CreatedAt  time.Time    `bun:"created_at,notnull"`
}

// WorkflowInstance is one instance of a workflow. Its graph and options are
// those of the version it started with, so editing the workflow does not
// disturb it; each node's progress is a WorkflowNodeRun row.
type WorkflowInstance struct {
	bun.BaseModel `bun:"table:workflow_instances,alias:wi"`

	ID                int64          `bun:"id,pk,autoincrement"`
	AppID             int64          `bun:"app_id,notnull"`
	WorkflowID        int64          `bun:"workflow_id,notnull"`
	Version           int            `bun:"version,notnull"`
	ParentInstanceID  *int64         `bun:"parent_instance_id"`
	ParentNodeKey     *string        `bun:"parent_node_key"`
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

// IsNodeFinal says whether a node run status is terminal.
func IsNodeFinal(status string) bool {
	switch status {
	case NodeSucceeded, NodeFailed, NodeSkipped, NodeStopped:
		return true
	}
	return false
}

// WorkflowNodeRun is one node's progress in one instance.
type WorkflowNodeRun struct {
	bun.BaseModel `bun:"table:workflow_node_runs,alias:wn"`

	ID                 int64          `bun:"id,pk,autoincrement"`
	WorkflowInstanceID int64          `bun:"workflow_instance_id,notnull"`
	NodeKey            string         `bun:"node_key,notnull"`
	NodeType           string         `bun:"node_type,notnull"`
	Status             string         `bun:"status,notnull"`
	Reason             string         `bun:"reason,notnull"`
	Message            string         `bun:"message,notnull"`
	Generation         int            `bun:"generation,notnull"`
	InstanceID         *int64         `bun:"instance_id"`
	ChildInstanceID    *int64         `bun:"child_instance_id"`
	Result             string         `bun:"result,notnull"`
	Output             map[string]any `bun:"output,type:json,nullzero"`
	FailureIgnored     bool           `bun:"failure_ignored,notnull"`
	Items              int            `bun:"items,notnull"`
	FinishSeq          int64          `bun:"finish_seq,notnull"`
	DecidedBy          *string        `bun:"decided_by"`
	Comment            string         `bun:"comment,notnull"`
	Deadline           *time.Time     `bun:"deadline"`
	StartedAt          *time.Time     `bun:"started_at"`
	FinishedAt         *time.Time     `bun:"finished_at"`
	UpdatedAt          time.Time      `bun:"updated_at,notnull"`
}

// WorkflowTaskInput is what a workflow node's task is given: the instance's
// context as the node starts, and its direct upstream nodes' results.
type WorkflowTaskInput struct {
	Context  map[string]any    `json:"context"`
	Upstream map[string]string `json:"upstream"`
	// Element is the FOREACH element the instance runs, if any.
	Element any `json:"element,omitempty"`
}

// ---- workflows ----

// WorkflowCreate inserts a workflow as version 1 and records the version.
func (s *Store) WorkflowCreate(ctx context.Context, w *Workflow, createdBy string) error {
	now := Now()
	w.CreatedAt, w.UpdatedAt, w.Version = now, now, 1
	if _, err := s.idb.NewInsert().Model(w).ExcludeColumn("id").Returning("id").Exec(ctx); err != nil {
		return wrap(err, "creating workflow")
	}
	v := &WorkflowVersion{WorkflowID: w.ID, Version: 1, Spec: w.Spec(), CreatedBy: createdBy, CreatedAt: now}
	_, err := s.idb.NewInsert().Model(v).Exec(ctx)
	return wrap(err, "recording workflow version")
}

// WorkflowUpdate saves w as the version after fromVersion, if the workflow
// is still at fromVersion (a concurrent save fails with ErrConflict), and
// records the new version.
func (s *Store) WorkflowUpdate(ctx context.Context, w *Workflow, fromVersion int, createdBy string) error {
	now := Now()
	w.UpdatedAt, w.Version = now, fromVersion+1
	res, err := s.idb.NewUpdate().Model(w).
		Column("name", "description", "enabled", "schedule_type", "schedule_expression", "time_zone", "max_instances",
			"overlap_policy", "misfire_policy", "fail_fast", "graph", "alarm", "version", "next_trigger_at", "updated_at").
		WherePK().Where("version = ?", fromVersion).Exec(ctx)
	if err != nil {
		return wrap(err, "saving workflow")
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return wrap(ErrConflict, "saving workflow: it was saved meanwhile (version "+strconv.Itoa(fromVersion)+" is no longer the latest)")
	}
	v := &WorkflowVersion{WorkflowID: w.ID, Version: w.Version, Spec: w.Spec(), CreatedBy: createdBy, CreatedAt: now}
	_, err = s.idb.NewInsert().Model(v).Exec(ctx)
	return wrap(err, "recording workflow version")
}

// WorkflowGet returns a workflow.
func (s *Store) WorkflowGet(ctx context.Context, id int64) (*Workflow, error) {
	w := new(Workflow)
	err := s.idb.NewSelect().Model(w).Where("id = ?", id).Scan(ctx)
	return w, wrap(err, "reading workflow")
}

// WorkflowsByIDs returns workflows by id, in no particular order.
func (s *Store) WorkflowsByIDs(ctx context.Context, ids []int64) ([]Workflow, error) {
	var out []Workflow
	if len(ids) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("id IN (?)", bun.List(ids)).Scan(ctx)
	return out, wrap(err, "reading workflows")
}

// WorkflowsOfApp returns every workflow of an app, by id (saving one checks
// nesting cycles across all of them).
func (s *Store) WorkflowsOfApp(ctx context.Context, appID int64) ([]Workflow, error) {
	var out []Workflow
	err := s.idb.NewSelect().Model(&out).Where("app_id = ?", appID).OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading the app's workflows")
}

// WorkflowFilter narrows a workflow listing.
type WorkflowFilter struct {
	AppID    int64
	Search   string // part of the name, any case
	BeforeID int64
	Limit    int
}

// WorkflowList returns a page of an app's workflows, newest first, and
// whether more follow.
func (s *Store) WorkflowList(ctx context.Context, f WorkflowFilter) ([]Workflow, bool, error) {
	var out []Workflow
	q := s.idb.NewSelect().Model(&out).Where("app_id = ?", f.AppID)
	if f.Search != "" {
		q = q.Where("LOWER(name) LIKE ?", "%"+escapeLike(f.Search)+"%")
	}
	if f.BeforeID > 0 {
		q = q.Where("id < ?", f.BeforeID)
	}
	err := q.OrderExpr("id DESC").Limit(f.Limit + 1).Scan(ctx)
	more := len(out) > f.Limit
	if more {
		out = out[:f.Limit]
	}
	return out, more, wrap(err, "listing workflows")
}

// WorkflowCount counts an app's workflows matching the filter's search.
func (s *Store) WorkflowCount(ctx context.Context, f WorkflowFilter) (int, error) {
	q := s.idb.NewSelect().Model((*Workflow)(nil)).Where("app_id = ?", f.AppID)
	if f.Search != "" {
		q = q.Where("LOWER(name) LIKE ?", "%"+escapeLike(f.Search)+"%")
	}
	n, err := q.Count(ctx)
	return n, wrap(err, "counting workflows")
}

// WorkflowDelete deletes a workflow with its versions and runs.
func (s *Store) WorkflowDelete(ctx context.Context, id int64) error {
	res, err := s.idb.NewDelete().Model((*Workflow)(nil)).Where("id = ?", id).Exec(ctx)
	return expectOne(res, err, "deleting workflow")
}

// WorkflowSetEnabled turns a workflow's schedule on or off; next is its
// next trigger when turned on (nil: none, or off).
func (s *Store) WorkflowSetEnabled(ctx context.Context, id int64, enabled bool, next *time.Time) error {
	res, err := s.idb.NewUpdate().Model((*Workflow)(nil)).
		Set("enabled = ?", enabled).Set("next_trigger_at = ?", next).Set("updated_at = ?", Now()).
		Where("id = ?", id).Exec(ctx)
	return expectOne(res, err, "enabling workflow")
}

// WorkflowVersions lists a workflow's versions, newest first.
func (s *Store) WorkflowVersions(ctx context.Context, workflowID int64) ([]WorkflowVersion, error) {
	var out []WorkflowVersion
	err := s.idb.NewSelect().Model(&out).Where("workflow_id = ?", workflowID).OrderExpr("version DESC").Scan(ctx)
	return out, wrap(err, "listing workflow versions")
}

// WorkflowVersionGet returns one version of a workflow.
func (s *Store) WorkflowVersionGet(ctx context.Context, workflowID int64, version int) (*WorkflowVersion, error) {
	v := new(WorkflowVersion)
	err := s.idb.NewSelect().Model(v).Where("workflow_id = ? AND version = ?", workflowID, version).Scan(ctx)
	return v, wrap(err, "reading workflow version")
}

// WorkflowsDue returns an app's enabled scheduled workflows whose next
// trigger is at or before until.
func (s *Store) WorkflowsDue(ctx context.Context, appID int64, until time.Time, limit int) ([]Workflow, error) {
	var out []Workflow
	err := s.idb.NewSelect().Model(&out).
		Where("app_id = ? AND enabled AND next_trigger_at IS NOT NULL AND next_trigger_at <= ?", appID, until).
		OrderExpr("next_trigger_at").Limit(limit).Scan(ctx)
	return out, wrap(err, "reading due workflows")
}

// WorkflowAdvance moves a workflow's next trigger from old to next
// (compare-and-set); false if another pass moved it first.
func (s *Store) WorkflowAdvance(ctx context.Context, id int64, old time.Time, next *time.Time) (bool, error) {
	res, err := s.idb.NewUpdate().Model((*Workflow)(nil)).
		Set("next_trigger_at = ?", next).
		Where("id = ? AND next_trigger_at = ?", id, old).Exec(ctx)
	if err != nil {
		return false, wrap(err, "advancing workflow")
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ---- runs ----

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

// WorkflowInstanceByIdempotencyKey returns the instance an earlier call with the
// same key created, if any.
func (s *Store) WorkflowInstanceByIdempotencyKey(ctx context.Context, workflowID int64, key string, since time.Time) (*WorkflowInstance, error) {
	r := new(WorkflowInstance)
	err := s.idb.NewSelect().Model(r).
		Where("workflow_id = ? AND idempotency_key = ? AND created_at >= ?", workflowID, key, since).
		OrderExpr("id").Limit(1).Scan(ctx)
	return r, wrap(err, "reading workflow run by idempotency key")
}

// WorkflowInstancesByIDs returns runs by id.
func (s *Store) WorkflowInstancesByIDs(ctx context.Context, ids []int64) ([]WorkflowInstance, error) {
	var out []WorkflowInstance
	if len(ids) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("id IN (?)", bun.List(ids)).OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading workflow runs")
}

// WorkflowInstancesActive returns an app's RUNNING and PAUSED runs.
func (s *Store) WorkflowInstancesActive(ctx context.Context, appID int64) ([]WorkflowInstance, error) {
	var out []WorkflowInstance
	err := s.idb.NewSelect().Model(&out).
		Where("app_id = ? AND status IN (?)", appID, bun.List([]string{WorkflowRunning, WorkflowPaused})).
		OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading active workflow runs")
}

// WorkflowInstancesWaitingDue returns an app's WAITING runs due by until,
// oldest first: the trigger loop puts them on the wheel.
func (s *Store) WorkflowInstancesWaitingDue(ctx context.Context, appID int64, until time.Time, limit int) ([]WorkflowInstance, error) {
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

// WorkflowActiveCount counts a workflow's top-level RUNNING and PAUSED
// runs (nested instances do not count against maxInstances).
func (s *Store) WorkflowActiveCount(ctx context.Context, workflowID int64) (int, error) {
	n, err := s.idb.NewSelect().Model((*WorkflowInstance)(nil)).
		Where("workflow_id = ? AND parent_instance_id IS NULL AND status IN (?)", workflowID, bun.List([]string{WorkflowRunning, WorkflowPaused})).
		Count(ctx)
	return n, wrap(err, "counting active workflow runs")
}

// WorkflowInstancesQueued returns a workflow's top-level WAITING runs due
// by now, oldest first: the ones a QUEUE policy holds.
func (s *Store) WorkflowInstancesQueued(ctx context.Context, workflowID int64, now time.Time, limit int) ([]WorkflowInstance, error) {
	var out []WorkflowInstance
	err := s.idb.NewSelect().Model(&out).
		Where("workflow_id = ? AND parent_instance_id IS NULL AND status = ? AND trigger_at <= ?", workflowID, WorkflowWaiting, now).
		OrderExpr("trigger_at, id").Limit(limit).Scan(ctx)
	return out, wrap(err, "reading queued workflow runs")
}

// WorkflowInstanceChildren returns the nested instances an instance started.
func (s *Store) WorkflowInstanceChildren(ctx context.Context, parentIDs []int64) ([]WorkflowInstance, error) {
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
	// Reopen clears finished_at (a finished instance made to run again).
	Reopen bool
}

// WorkflowInstanceMove applies an instance transition if the instance is still in one
// of From; false if it was not.
func (s *Store) WorkflowInstanceMove(ctx context.Context, t WorkflowInstanceTransition) (bool, error) {
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

// WorkflowInstanceLastMany returns each workflow's newest top-level run.
func (s *Store) WorkflowInstanceLastMany(ctx context.Context, workflowIDs []int64) (map[int64]*WorkflowInstance, error) {
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

// NodeRunCreateMany inserts an instance's node rows.
func (s *Store) NodeRunCreateMany(ctx context.Context, list []WorkflowNodeRun) error {
	if len(list) == 0 {
		return nil
	}
	now := Now()
	for i := range list {
		list[i].UpdatedAt = now
		if list[i].Generation == 0 {
			list[i].Generation = 1
		}
	}
	_, err := s.idb.NewInsert().Model(&list).ExcludeColumn("id").Returning("id").Exec(ctx)
	return wrap(err, "creating workflow node runs")
}

// NodeRunsOf returns the node rows of runs, by run and key.
func (s *Store) NodeRunsOf(ctx context.Context, wiIDs []int64) ([]WorkflowNodeRun, error) {
	var out []WorkflowNodeRun
	if len(wiIDs) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("workflow_instance_id IN (?)", bun.List(wiIDs)).
		OrderExpr("workflow_instance_id, id").Scan(ctx)
	return out, wrap(err, "reading workflow node runs")
}

// NodeRunGet returns one node of one instance.
func (s *Store) NodeRunGet(ctx context.Context, wiID int64, key string) (*WorkflowNodeRun, error) {
	n := new(WorkflowNodeRun)
	err := s.idb.NewSelect().Model(n).Where("workflow_instance_id = ? AND node_key = ?", wiID, key).Scan(ctx)
	return n, wrap(err, "reading workflow node run")
}

// NodeRunTransition moves one node of an instance. It applies only while the
// node is in one of From at Generation: the compare-and-set that keeps two
// parties (the engine and an API call, an old and a new owner) from both
// moving it.
type NodeRunTransition struct {
	ID         int64
	From       []string
	Generation int
	To         string
	// NextGeneration, if set, replaces the generation (a retry or rerun).
	NextGeneration *int
	Reason         *string
	Message        *string
	Result         *string
	Output         map[string]any // nil keeps it; ClearOutput clears it
	ClearOutput    bool
	InstanceID     *int64
	ChildID        *int64
	Items          *int
	FailureIgnored *bool
	FinishSeq      *int64
	DecidedBy      *string
	Comment        *string
	Deadline       *time.Time
	ClearDeadline  bool
	StartedAt      *time.Time
	FinishedAt     *time.Time
	// Reset clears the times, result, output and links (a retry or rerun).
	Reset bool
}

// Fence makes engine writes conditional on this server still holding the
// app's lease under the epoch it started with: a server paused past its
// lease cannot move a workflow the new owner runs.
type Fence struct {
	AppID    int64
	ServerID string
	Epoch    int64
}

func (f *Fence) where(q *bun.UpdateQuery) *bun.UpdateQuery {
	if f == nil {
		return q
	}
	return q.Where("EXISTS (SELECT 1 FROM app_leases AS l WHERE l.app_id = ? AND l.server_id = ? AND l.epoch = ?)",
		f.AppID, f.ServerID, f.Epoch)
}

// ErrFenced says a fenced write found the lease moved on.
var ErrFenced = errors.New("the app's lease is no longer this server's")

// NodeRunMove applies a node transition; false if the node was not in
// From at Generation. With a fence, it applies only while the lease holds
// (ErrFenced otherwise).
func (s *Store) NodeRunMove(ctx context.Context, t NodeRunTransition, fence *Fence) (bool, error) {
	q := s.idb.NewUpdate().Model((*WorkflowNodeRun)(nil)).
		Set("status = ?", t.To).Set("updated_at = ?", Now())
	if t.Reset {
		q = q.Set("result = ''").Set("output = NULL").Set("message = ''").Set("reason = ''").
			Set("instance_id = NULL").Set("child_instance_id = NULL").Set("items = 0").Set("failure_ignored = ?", false).
			Set("finish_seq = 0").Set("decided_by = NULL").Set("comment = ''").Set("deadline = NULL").
			Set("started_at = NULL").Set("finished_at = NULL")
	}
	if t.NextGeneration != nil {
		q = q.Set("generation = ?", *t.NextGeneration)
	}
	set := func(col string, v any) { q = q.Set("? = ?", bun.Ident(col), v) }
	if t.Reason != nil {
		set("reason", *t.Reason)
	}
	if t.Message != nil {
		set("message", *t.Message)
	}
	if t.Result != nil {
		set("result", *t.Result)
	}
	if t.Output != nil {
		q = q.Set("output = ?", t.Output)
	} else if t.ClearOutput {
		q = q.Set("output = NULL")
	}
	if t.InstanceID != nil {
		set("instance_id", *t.InstanceID)
	}
	if t.ChildID != nil {
		set("child_instance_id", *t.ChildID)
	}
	if t.Items != nil {
		set("items", *t.Items)
	}
	if t.FailureIgnored != nil {
		set("failure_ignored", *t.FailureIgnored)
	}
	if t.FinishSeq != nil {
		set("finish_seq", *t.FinishSeq)
	}
	if t.DecidedBy != nil {
		set("decided_by", *t.DecidedBy)
	}
	if t.Comment != nil {
		set("comment", *t.Comment)
	}
	if t.Deadline != nil {
		set("deadline", *t.Deadline)
	} else if t.ClearDeadline {
		q = q.Set("deadline = NULL")
	}
	if t.StartedAt != nil {
		set("started_at", *t.StartedAt)
	}
	if t.FinishedAt != nil {
		set("finished_at", *t.FinishedAt)
	}
	q = q.Where("id = ? AND status IN (?) AND generation = ?", t.ID, bun.List(t.From), t.Generation)
	res, err := fence.where(q).Exec(ctx)
	if err != nil {
		return false, wrap(err, "moving workflow node")
	}
	n, _ := res.RowsAffected()
	if n == 1 {
		return true, nil
	}
	if fence != nil {
		// Did the node move, or the lease?
		held, err := s.fenceHolds(ctx, fence)
		if err != nil {
			return false, err
		}
		if !held {
			return false, ErrFenced
		}
	}
	return false, nil
}

func (s *Store) fenceHolds(ctx context.Context, f *Fence) (bool, error) {
	n, err := s.idb.NewSelect().TableExpr("app_leases").
		Where("app_id = ? AND server_id = ? AND epoch = ?", f.AppID, f.ServerID, f.Epoch).Count(ctx)
	return n == 1, wrap(err, "checking the app's lease")
}

// NodeRunNextFinishSeq reserves the next finish sequence of an instance: the
// order in which nodes' additions apply to its context.
func (s *Store) NodeRunNextFinishSeq(ctx context.Context, wiID int64) (int64, error) {
	var seq sql.NullInt64
	err := s.idb.NewSelect().Model((*WorkflowNodeRun)(nil)).ColumnExpr("MAX(finish_seq)").
		Where("workflow_instance_id = ?", wiID).Scan(ctx, &seq)
	return seq.Int64 + 1, wrap(err, "reading the run's finish order")
}

// InstancesOfWorkflowInstances returns the job instances workflow instances started.
func (s *Store) InstancesOfWorkflowInstances(ctx context.Context, wiIDs []int64) ([]Instance, error) {
	var out []Instance
	if len(wiIDs) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("workflow_instance_id IN (?)", bun.List(wiIDs)).
		OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading workflow runs' instances")
}

// InstanceCreateOne inserts one instance (a workflow node's) and sets its id.
func (s *Store) InstanceCreateOne(ctx context.Context, in *Instance) error {
	now := Now()
	in.CreatedAt, in.UpdatedAt = now, now
	if in.Attempt == 0 {
		in.Attempt = 1
	}
	_, err := s.idb.NewInsert().Model(in).ExcludeColumn("id").Returning("id").Exec(ctx)
	return wrap(err, "creating instance")
}

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

// FenceHolds says whether this server still holds the app's lease under
// the fence's epoch.
func (s *Store) FenceHolds(ctx context.Context, f *Fence) (bool, error) { return s.fenceHolds(ctx, f) }

// InstancesRelease ends the hold of WAITING instances (FOREACH elements
// waiting for a place): their trigger time becomes at.
func (s *Store) InstancesRelease(ctx context.Context, ids []int64, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := s.idb.NewUpdate().Model((*Instance)(nil)).Set("trigger_at = ?", at).Set("updated_at = ?", Now()).
		Where("id IN (?) AND status = ?", bun.List(ids), StatusWaiting).Exec(ctx)
	return wrap(err, "releasing held instances")
}
