package db

import (
	"context"
	"strconv"
	"time"

	"github.com/uptrace/bun"
)

// Workflow is a DAG of nodes run as one pipeline (docs/design.md §6). The
// row holds the current version; every version is kept in
// workflow_versions.
type Workflow struct {
	bun.BaseModel `bun:"table:workflows,alias:wf"`

	ID                 int64  `bun:"id,pk,autoincrement"`
	AppID              int64  `bun:"app_id,notnull"`
	Name               string `bun:"name,notnull"`
	Description        string `bun:"description,notnull"`
	Enabled            bool   `bun:"enabled,notnull"`
	ScheduleType       string `bun:"schedule_type,notnull"`
	ScheduleExpression string `bun:"schedule_expression,notnull"`
	TimeZone           string `bun:"time_zone,notnull"`
	MaxInstances       int    `bun:"max_instances,notnull"`
	OverlapPolicy      string `bun:"overlap_policy,notnull"`
	MisfirePolicy      string `bun:"misfire_policy,notnull"`
	FailFast           bool   `bun:"fail_fast,notnull"`
	// TimeoutMs bounds a whole run (nil: no bound).
	TimeoutMs *int64        `bun:"timeout_ms"`
	Graph     WorkflowGraph `bun:"graph,notnull,type:json"`
	// Alarm is whom to tell when its instances fail, and when they recover.
	Alarm         Alarm      `bun:"alarm,notnull,type:json"`
	Version       int        `bun:"version,notnull"`
	NextTriggerAt *time.Time `bun:"next_trigger_at"`
	// ManagedBy is the file set the workflow belongs to (nil: made through
	// the API or console); ManagedSource is then ManagedFiles.
	ManagedBy     *string `bun:"managed_by"`
	ManagedSource *string `bun:"managed_source"`
	// HasDownstream: a workflow names this one upstream
	// (workflow_links.go). Only WorkflowLinkSet writes it.
	HasDownstream bool      `bun:"has_downstream,notnull"`
	CreatedAt     time.Time `bun:"created_at,notnull"`
	UpdatedAt     time.Time `bun:"updated_at,notnull"`
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
	// Pool names the app's pool the node's instances take PoolSlots of
	// in place of their job's (JOB, FOREACH; "" keeps the job's).
	Pool      string `json:"pool,omitempty"`
	PoolSlots int    `json:"poolSlots,omitempty"`
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
	TimeoutMs          *int64        `json:"timeoutMs,omitempty"`
	Graph              WorkflowGraph `json:"graph"`
	Alarm              Alarm         `json:"alarm"`
}

// Spec returns the workflow's current version as a spec.
func (w *Workflow) Spec() WorkflowSpec {
	return WorkflowSpec{Name: w.Name, Description: w.Description, Enabled: w.Enabled, ScheduleType: w.ScheduleType,
		ScheduleExpression: w.ScheduleExpression, TimeZone: w.TimeZone, MaxInstances: w.MaxInstances,
		OverlapPolicy: w.OverlapPolicy, MisfirePolicy: w.MisfirePolicy, FailFast: w.FailFast, TimeoutMs: w.TimeoutMs, Graph: w.Graph, Alarm: w.Alarm}
}

// Apply sets the workflow's fields from a spec.
func (w *Workflow) Apply(s WorkflowSpec) {
	w.Name, w.Description, w.Enabled = s.Name, s.Description, s.Enabled
	w.ScheduleType, w.ScheduleExpression, w.TimeZone = s.ScheduleType, s.ScheduleExpression, s.TimeZone
	w.MaxInstances, w.OverlapPolicy, w.MisfirePolicy, w.FailFast = s.MaxInstances, s.OverlapPolicy, s.MisfirePolicy, s.FailFast
	w.Graph, w.Alarm, w.TimeoutMs = s.Graph, s.Alarm, s.TimeoutMs
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
			"overlap_policy", "misfire_policy", "fail_fast", "graph", "alarm", "version", "next_trigger_at", "updated_at",
			"managed_by", "managed_source").
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

// WorkflowListByIDs returns workflows by id, in no particular order.
func (s *Store) WorkflowListByIDs(ctx context.Context, ids []int64) ([]Workflow, error) {
	var out []Workflow
	if len(ids) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("id IN (?)", bun.List(ids)).Scan(ctx)
	return out, wrap(err, "reading workflows")
}

// WorkflowListByApp returns every workflow of an app, by id (saving one checks
// nesting cycles across all of them).
func (s *Store) WorkflowListByApp(ctx context.Context, appID int64) ([]Workflow, error) {
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

// WorkflowVersionList lists a workflow's versions, newest first.
func (s *Store) WorkflowVersionList(ctx context.Context, workflowID int64) ([]WorkflowVersion, error) {
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

// WorkflowListDue returns an app's enabled scheduled workflows whose next
// trigger is at or before until.
func (s *Store) WorkflowListDue(ctx context.Context, appID int64, until time.Time, limit int) ([]Workflow, error) {
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

// WorkflowGetByName returns an app's workflow of a name.
func (s *Store) WorkflowGetByName(ctx context.Context, appID int64, name string) (*Workflow, error) {
	w := new(Workflow)
	err := s.idb.NewSelect().Model(w).Where("app_id = ? AND name = ?", appID, name).Scan(ctx)
	return w, wrap(err, "reading workflow by name")
}

// WorkflowDeleteIdle deletes a workflow with its versions and runs, and
// the job instances those runs started, unless one of its instances is RUNNING
// or PAUSED: then nothing is deleted and deleted is false (as it is for a
// workflow that does not exist). The check and the delete are one
// statement.
func (s *Store) WorkflowDeleteIdle(ctx context.Context, id int64) (deleted bool, err error) {
	res, err := s.idb.NewDelete().Model((*Workflow)(nil)).
		Where("id = ?", id).
		Where("NOT EXISTS (SELECT 1 FROM workflow_instances AS r WHERE r.workflow_id = ? AND r.status IN (?))",
			id, bun.List([]string{WorkflowRunning, WorkflowPaused})).
		Exec(ctx)
	if err != nil {
		return false, wrap(err, "deleting workflow")
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return false, nil
	}
	if s.dialect != Postgres {
		// PostgreSQL cascades from the instances to their job instances; SQLite
		// cannot add that foreign key to the existing instances table.
		_, err = s.idb.NewDelete().Model((*Instance)(nil)).
			Where("workflow_instance_id IS NOT NULL").
			Where("NOT EXISTS (SELECT 1 FROM workflow_instances AS r WHERE r.id = i.workflow_instance_id)").
			Exec(ctx)
		if err != nil {
			return false, wrap(err, "deleting the deleted workflow runs' job instances")
		}
	}
	return true, nil
}

// WorkflowVersionListByWorkflows returns the versions of workflows, by workflow and
// newest first.
func (s *Store) WorkflowVersionListByWorkflows(ctx context.Context, workflowIDs []int64) ([]WorkflowVersion, error) {
	var out []WorkflowVersion
	if len(workflowIDs) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("workflow_id IN (?)", bun.List(workflowIDs)).
		OrderExpr("workflow_id, version DESC").Scan(ctx)
	return out, wrap(err, "listing workflow versions")
}

// WorkflowListManagedBy returns an app's workflows of a managed set, by
// name.
func (s *Store) WorkflowListManagedBy(ctx context.Context, appID int64, source, set string) ([]Workflow, error) {
	var out []Workflow
	err := s.idb.NewSelect().Model(&out).Where("app_id = ? AND managed_by = ? AND managed_source = ?", appID, set, source).
		OrderExpr("name").Scan(ctx)
	return out, wrap(err, "listing the workflows of a managed set")
}
