package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// TriggerUpstream is the trigger type of a run started by an upstream
// success (a WorkflowLink).
const TriggerUpstream = "UPSTREAM"

// UpstreamContextKey is the key, in the context of a run an upstream
// success started, of what started it: {"type": "WORKFLOW", "workflowId",
// "runId", "context"} or {"type": "JOB", "jobId", "instanceId", "result"}.
const UpstreamContextKey = "trigger"

// WorkflowLink says workflow WorkflowID starts each time a top-level run of
// UpstreamWorkflowID, or an instance of UpstreamJobID (not a workflow
// node's), succeeds (docs/workflows.md#dependencies-between-workflows).
type WorkflowLink struct {
	bun.BaseModel `bun:"table:workflow_links,alias:wl"`

	ID                 int64     `bun:"id,pk,autoincrement"`
	AppID              int64     `bun:"app_id,notnull"`
	WorkflowID         int64     `bun:"workflow_id,notnull"`
	UpstreamWorkflowID *int64    `bun:"upstream_workflow_id"`
	UpstreamJobID      *int64    `bun:"upstream_job_id"`
	CreatedAt          time.Time `bun:"created_at,notnull"`
}

// WorkflowLinkListByApp returns an app's links (to check a change for
// cycles).
func (s *Store) WorkflowLinkListByApp(ctx context.Context, appID int64) ([]WorkflowLink, error) {
	var out []WorkflowLink
	err := s.idb.NewSelect().Model(&out).Where("app_id = ?", appID).OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading workflow links")
}

// WorkflowLinkListByWorkflows returns the links into or out of workflows.
func (s *Store) WorkflowLinkListByWorkflows(ctx context.Context, ids []int64) ([]WorkflowLink, error) {
	var out []WorkflowLink
	if len(ids) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("workflow_id IN (?) OR upstream_workflow_id IN (?)", bun.List(ids), bun.List(ids)).
		OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading workflow links")
}

// WorkflowLinkListByJob returns the links out of a job.
func (s *Store) WorkflowLinkListByJob(ctx context.Context, jobID int64) ([]WorkflowLink, error) {
	var out []WorkflowLink
	err := s.idb.NewSelect().Model(&out).Where("upstream_job_id = ?", jobID).OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading a job's workflow links")
}

// WorkflowLinkSet replaces the links into workflowID with list, and keeps
// the has_downstream marks of the workflows and jobs involved.
func (s *Store) WorkflowLinkSet(ctx context.Context, appID, workflowID int64, list []WorkflowLink) error {
	var old []WorkflowLink
	if err := s.idb.NewSelect().Model(&old).Where("workflow_id = ?", workflowID).Scan(ctx); err != nil {
		return wrap(err, "reading workflow links")
	}
	if _, err := s.idb.NewDelete().Model((*WorkflowLink)(nil)).Where("workflow_id = ?", workflowID).Exec(ctx); err != nil {
		return wrap(err, "replacing workflow links")
	}
	now := Now()
	for i := range list {
		list[i].AppID, list[i].WorkflowID, list[i].CreatedAt = appID, workflowID, now
	}
	if len(list) > 0 {
		if _, err := s.idb.NewInsert().Model(&list).ExcludeColumn("id").Returning("id").Exec(ctx); err != nil {
			return wrap(err, "saving workflow links")
		}
	}
	var wfs, jobs []int64
	for _, l := range append(old, list...) {
		if l.UpstreamWorkflowID != nil {
			wfs = append(wfs, *l.UpstreamWorkflowID)
		}
		if l.UpstreamJobID != nil {
			jobs = append(jobs, *l.UpstreamJobID)
		}
	}
	if len(wfs) > 0 {
		_, err := s.idb.NewUpdate().Model((*Workflow)(nil)).
			Set("has_downstream = EXISTS (SELECT 1 FROM workflow_links l WHERE l.upstream_workflow_id = wf.id)").
			Where("id IN (?)", bun.List(wfs)).Exec(ctx)
		if err != nil {
			return wrap(err, "marking upstream workflows")
		}
	}
	if len(jobs) > 0 {
		_, err := s.idb.NewUpdate().Model((*Job)(nil)).
			Set("has_downstream = EXISTS (SELECT 1 FROM workflow_links l WHERE l.upstream_job_id = j.id)").
			Where("id IN (?)", bun.List(jobs)).Exec(ctx)
		if err != nil {
			return wrap(err, "marking upstream jobs")
		}
	}
	return nil
}

// WorkflowLinkStart records, for an upstream success, a WAITING run of
// each workflow linked downstream of it — of upstreamWorkflowID for a
// workflow run runID, of upstreamJobID for a job instance instanceID —
// with what started it in its context under UpstreamContextKey (trigger
// builds it, called only if there is a workflow to start). It is
// called in the transaction that ends the upstream run or instance; the
// unique (workflow, upstream run or instance) keeps a success from
// starting a workflow twice. It returns the runs recorded.
func (s *Store) WorkflowLinkStart(ctx context.Context, upstreamWorkflowID, runID, upstreamJobID, instanceID int64, trigger func(ctx context.Context) (map[string]any, error), now time.Time) ([]WorkflowInstance, error) {
	var links []WorkflowLink
	q := s.idb.NewSelect().Model(&links)
	if upstreamWorkflowID > 0 {
		q = q.Where("upstream_workflow_id = ?", upstreamWorkflowID)
	} else {
		q = q.Where("upstream_job_id = ?", upstreamJobID)
	}
	if err := q.OrderExpr("id").Scan(ctx); err != nil || len(links) == 0 {
		return nil, wrap(err, "reading downstream workflows")
	}
	what, err := trigger(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(links))
	for i, l := range links {
		ids[i] = l.WorkflowID
	}
	var wfs []Workflow
	if err := s.idb.NewSelect().Model(&wfs).Where("id IN (?)", bun.List(ids)).OrderExpr("id").Scan(ctx); err != nil {
		return nil, wrap(err, "reading downstream workflows")
	}
	var out []WorkflowInstance
	for _, w := range wfs {
		r := WorkflowInstance{AppID: w.AppID, WorkflowID: w.ID, Version: w.Version, Status: WorkflowWaiting,
			TriggerType: TriggerUpstream, TriggerAt: now, Graph: w.Graph, FailFast: w.FailFast,
			Context: map[string]any{UpstreamContextKey: what}, CreatedAt: Now(), UpdatedAt: Now()}
		conflict := "CONFLICT (workflow_id, upstream_run_id) DO NOTHING"
		if runID > 0 {
			r.UpstreamRunID = &runID
		} else {
			r.UpstreamInstanceID = &instanceID
			conflict = "CONFLICT (workflow_id, upstream_instance_id) DO NOTHING"
		}
		res, err := s.idb.NewInsert().Model(&r).ExcludeColumn("id").On(conflict).Returning("id").Exec(ctx)
		if err != nil {
			return nil, wrap(err, "starting a downstream workflow")
		}
		if n, _ := res.RowsAffected(); n == 1 {
			out = append(out, r)
		}
	}
	return out, nil
}
