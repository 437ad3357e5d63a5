package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"
)

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
	// Attempts counts the evaluations of a DECISION's or FOREACH's
	// expression begun for this generation: one is recorded before each,
	// so an evaluation that never finishes (the server stops during it)
	// is not begun again without end.
	Attempts int `bun:"attempts,notnull"`
	// Input is what a FOREACH's elements are given (the context and
	// upstream results as it started them), stored once; it is read only
	// by InstanceHydrate (the node lists leave it out).
	Input      *WorkflowTaskInput `bun:"input,type:json,nullzero"`
	FinishSeq  int64              `bun:"finish_seq,notnull"`
	DecidedBy  *string            `bun:"decided_by"`
	Comment    string             `bun:"comment,notnull"`
	Deadline   *time.Time         `bun:"deadline"`
	StartedAt  *time.Time         `bun:"started_at"`
	FinishedAt *time.Time         `bun:"finished_at"`
	UpdatedAt  time.Time          `bun:"updated_at,notnull"`
}

// WorkflowNodeRunCreateMany inserts an instance's node rows.
func (s *Store) WorkflowNodeRunCreateMany(ctx context.Context, list []WorkflowNodeRun) error {
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

// WorkflowNodeRunListByInstances returns the node rows of runs, by run and key.
func (s *Store) WorkflowNodeRunListByInstances(ctx context.Context, wiIDs []int64) ([]WorkflowNodeRun, error) {
	var out []WorkflowNodeRun
	if len(wiIDs) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).ExcludeColumn("input").Where("workflow_instance_id IN (?)", bun.List(wiIDs)).
		OrderExpr("workflow_instance_id, id").Scan(ctx)
	return out, wrap(err, "reading workflow node runs")
}

// WorkflowNodeRunGet returns one node of one instance.
func (s *Store) WorkflowNodeRunGet(ctx context.Context, wiID int64, key string) (*WorkflowNodeRun, error) {
	n := new(WorkflowNodeRun)
	err := s.idb.NewSelect().Model(n).ExcludeColumn("input").Where("workflow_instance_id = ? AND node_key = ?", wiID, key).Scan(ctx)
	return n, wrap(err, "reading workflow node run")
}

// WorkflowNodeRunTransition moves one node of an instance. It applies only while the
// node is in one of From at Generation: the compare-and-set that keeps two
// parties (the engine and an API call, an old and a new owner) from both
// moving it.
type WorkflowNodeRunTransition struct {
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
	Attempts       *int
	// Input stores what a FOREACH's elements are given.
	Input          *WorkflowTaskInput
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
	// Resume clears how the node ended (result, output, reason, finish)
	// and keeps what it started (its instance, nested instance, elements):
	// a retry in place.
	Resume bool
}

// WorkflowNodeRunTransition applies a node transition; false if the node was not in
// From at Generation. With a fence, it applies only while the lease holds
// (ErrFenced otherwise).
func (s *Store) WorkflowNodeRunTransition(ctx context.Context, t WorkflowNodeRunTransition, fence *Fence) (bool, error) {
	q := s.idb.NewUpdate().Model((*WorkflowNodeRun)(nil)).
		Set("status = ?", t.To).Set("updated_at = ?", Now())
	if t.Reset {
		q = q.Set("result = ''").Set("output = NULL").Set("message = ''").Set("reason = ''").
			Set("instance_id = NULL").Set("child_instance_id = NULL").Set("items = 0").Set("attempts = 0").Set("input = NULL").Set("failure_ignored = ?", false).
			Set("finish_seq = 0").Set("decided_by = NULL").Set("comment = ''").Set("deadline = NULL").
			Set("started_at = NULL").Set("finished_at = NULL")
	}
	if t.Resume {
		q = q.Set("result = ''").Set("output = NULL").Set("message = ''").Set("reason = ''").Set("failure_ignored = ?", false).
			Set("finish_seq = 0").Set("decided_by = NULL").Set("comment = ''").Set("finished_at = NULL")
		if t.Deadline == nil {
			q = q.Set("deadline = NULL")
		}
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
	if t.Attempts != nil {
		set("attempts", *t.Attempts)
	}
	if t.Input != nil {
		q = q.Set("input = ?", t.Input)
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

// WorkflowNodeRunNextFinishSeq reserves the next finish sequence of an instance: the
// order in which nodes' additions apply to its context.
func (s *Store) WorkflowNodeRunNextFinishSeq(ctx context.Context, wiID int64) (int64, error) {
	var seq sql.NullInt64
	err := s.idb.NewSelect().Model((*WorkflowNodeRun)(nil)).ColumnExpr("MAX(finish_seq)").
		Where("workflow_instance_id = ?", wiID).Scan(ctx, &seq)
	return seq.Int64 + 1, wrap(err, "reading the run's finish order")
}

// WorkflowElement is one element of a FOREACH's list, stored once when its
// expression is evaluated; the node's job instances are made from them in
// batches as places free.
type WorkflowElement struct {
	bun.BaseModel `bun:"table:workflow_foreach_elements,alias:we"`

	NodeRunID  int64 `bun:"node_run_id,pk"`
	Generation int   `bun:"generation,pk"`
	Item       int   `bun:"item,pk"`
	Element    any   `bun:"element,type:json"`
}

// WorkflowElementCreateMany stores a FOREACH generation's elements, in
// order, in one statement.
func (s *Store) WorkflowElementCreateMany(ctx context.Context, nodeRunID int64, generation int, items []any) error {
	if len(items) == 0 {
		return nil
	}
	rows := make([]WorkflowElement, len(items))
	for i, el := range items {
		rows[i] = WorkflowElement{NodeRunID: nodeRunID, Generation: generation, Item: i, Element: jsonNull(el)}
	}
	_, err := s.idb.NewInsert().Model(&rows).Exec(ctx)
	return wrap(err, "storing FOREACH elements")
}

// jsonNull keeps a null element a JSON null (bun would write SQL NULL).
func jsonNull(v any) any {
	if v == nil {
		return json.RawMessage("null")
	}
	return v
}

// WorkflowElementListUnmade returns up to limit elements of a FOREACH
// generation that have no job instance of that generation yet, in order.
func (s *Store) WorkflowElementListUnmade(ctx context.Context, n *WorkflowNodeRun, limit int) ([]WorkflowElement, error) {
	var made []int
	err := s.idb.NewSelect().Model((*Instance)(nil)).Column("workflow_item").
		Where("i.workflow_instance_id = ? AND i.workflow_node_id = ? AND i.workflow_generation = ? AND i.workflow_item IS NOT NULL",
			n.WorkflowInstanceID, n.NodeKey, n.Generation).Scan(ctx, &made)
	if err != nil {
		return nil, wrap(err, "reading FOREACH elements")
	}
	return s.elementsBut(ctx, n, made, limit)
}

// WorkflowElementListUnrun returns up to limit elements of a FOREACH over
// a nested workflow, of its generation, that have no nested run yet.
func (s *Store) WorkflowElementListUnrun(ctx context.Context, n *WorkflowNodeRun, limit int) ([]WorkflowElement, error) {
	var run []int
	err := s.idb.NewSelect().Model((*WorkflowInstance)(nil)).Column("parent_item").
		Where("wi.parent_instance_id = ? AND wi.parent_node_key = ? AND wi.parent_generation = ? AND wi.parent_item IS NOT NULL",
			n.WorkflowInstanceID, n.NodeKey, n.Generation).Scan(ctx, &run)
	if err != nil {
		return nil, wrap(err, "reading FOREACH elements")
	}
	return s.elementsBut(ctx, n, run, limit)
}

// elementsBut returns up to limit elements of the node's generation whose
// items are not in done, in order. It reads the generation's items (at
// most a FOREACH's 10,000) and skips done in memory: written as one query
// (NOT EXISTS), PostgreSQL misjudged a run's rows when they were new and
// scanned the run's instances once per element, minutes per batch for a
// FOREACH of 10,000 with the run's lock held (the attacker probe,
// docs/security.md). This costs the elements plus done, whatever the plan.
func (s *Store) elementsBut(ctx context.Context, n *WorkflowNodeRun, done []int, limit int) ([]WorkflowElement, error) {
	var items []int
	err := s.idb.NewSelect().Model((*WorkflowElement)(nil)).Column("item").
		Where("we.node_run_id = ? AND we.generation = ?", n.ID, n.Generation).OrderExpr("we.item").Scan(ctx, &items)
	if err != nil {
		return nil, wrap(err, "reading FOREACH elements")
	}
	skip := make(map[int]bool, len(done))
	for _, i := range done {
		skip[i] = true
	}
	var want []int
	for _, i := range items {
		if len(want) == limit {
			break
		}
		if !skip[i] {
			want = append(want, i)
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	var out []WorkflowElement
	err = s.idb.NewSelect().Model(&out).Where("we.node_run_id = ? AND we.generation = ? AND we.item IN (?)", n.ID, n.Generation, bun.List(want)).
		OrderExpr("we.item").Scan(ctx)
	return out, wrap(err, "reading FOREACH elements")
}

// WorkflowElementCopy copies a FOREACH generation's elements to the next
// (a retry that keeps what succeeded); it returns how many it copied.
func (s *Store) WorkflowElementCopy(ctx context.Context, nodeRunID int64, from, to int) (int, error) {
	res, err := s.idb.NewRaw(`INSERT INTO workflow_foreach_elements (node_run_id, generation, item, element)
		SELECT node_run_id, ?, item, element FROM workflow_foreach_elements WHERE node_run_id = ? AND generation = ?`, to, nodeRunID, from).Exec(ctx)
	if err != nil {
		return 0, wrap(err, "copying FOREACH elements")
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// WorkflowNodeRunStopMany ends every unfinished node of instances STOPPED
// in one statement.
func (s *Store) WorkflowNodeRunStopMany(ctx context.Context, wiIDs []int64, why string, now time.Time) error {
	if len(wiIDs) == 0 {
		return nil
	}
	_, err := s.idb.NewUpdate().Model((*WorkflowNodeRun)(nil)).
		Set("status = ?", NodeStopped).Set("reason = ?", NodeReasonStopped).Set("message = ?", why).
		Set("finished_at = ?", now).Set("deadline = NULL").Set("updated_at = ?", Now()).
		Where("workflow_instance_id IN (?) AND status IN (?)", bun.List(wiIDs),
			bun.List([]string{NodeWaiting, NodeRunning, NodeAwaitingApproval})).Exec(ctx)
	return wrap(err, "stopping workflow nodes")
}
