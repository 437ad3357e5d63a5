package db

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

// The workflow API's queries (server/api/workflows): saving under the app's
// lock, deleting, idempotent runs, batch reads for the API's loaders.

// AppLock serializes the calling transaction's changes to an app's
// definitions with other transactions that take it: on PostgreSQL it locks
// the app's row until the transaction ends (SQLite runs one transaction at
// a time anyway). Saving a workflow takes it, so two saves cannot together
// make a nesting cycle that neither would make alone, and a workflow
// cannot be deleted while another save starts nesting it.
func (s *Store) AppLock(ctx context.Context, appID int64) error {
	if s.dialect != Postgres {
		return nil
	}
	var id int64
	err := s.idb.NewSelect().Model((*App)(nil)).Column("id").Where("id = ?", appID).For("UPDATE").Scan(ctx, &id)
	return wrap(err, "locking app")
}

// WorkflowByName returns an app's workflow of a name.
func (s *Store) WorkflowByName(ctx context.Context, appID int64, name string) (*Workflow, error) {
	w := new(Workflow)
	err := s.idb.NewSelect().Model(w).Where("app_id = ? AND name = ?", appID, name).Scan(ctx)
	return w, wrap(err, "reading workflow by name")
}

// JobsByNames returns an app's jobs among names, in no particular order.
func (s *Store) JobsByNames(ctx context.Context, appID int64, names []string) ([]Job, error) {
	var out []Job
	if len(names) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("app_id = ? AND name IN (?)", appID, bun.List(names)).Scan(ctx)
	return out, wrap(err, "reading jobs by name")
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

// WorkflowInstanceCreateKeyed inserts an instance carrying an idempotency key,
// unless an instance of the same workflow created at or after since carries the
// key already: then that instance is returned and created is false. A run
// older than since keeps its key no longer: it is released (set NULL) and
// the new instance inserted. The unique index on (workflow_id,
// idempotency_key) makes concurrent calls with one key create one instance.
func (s *Store) WorkflowInstanceCreateKeyed(ctx context.Context, r *WorkflowInstance, since time.Time) (_ *WorkflowInstance, created bool, err error) {
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

// WorkflowVersionsOf returns the versions of workflows, by workflow and
// newest first.
func (s *Store) WorkflowVersionsOf(ctx context.Context, workflowIDs []int64) ([]WorkflowVersion, error) {
	var out []WorkflowVersion
	if len(workflowIDs) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("workflow_id IN (?)", bun.List(workflowIDs)).
		OrderExpr("workflow_id, version DESC").Scan(ctx)
	return out, wrap(err, "listing workflow versions")
}
