package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Backfill states.
const (
	BackfillRunning   = "RUNNING"
	BackfillSucceeded = "SUCCEEDED"
	BackfillFailed    = "FAILED"
	BackfillStopped   = "STOPPED"
)

// TriggerBackfill is the trigger type of a backfill's runs.
const TriggerBackfill = "BACKFILL"

// BackfillSchedule is the schedule a backfill enumerates, as it was when
// the backfill was made: a later change of the workflow or job does not
// move the fire times of a backfill under way.
type BackfillSchedule struct {
	Type       string   `json:"type"`
	Expression string   `json:"expression"`
	TimeZone   string   `json:"timeZone"`
	Excluded   []string `json:"excluded,omitempty"`
}

// Backfill is a CRON-scheduled workflow or job run once per fire time of
// a past range [RangeFrom, RangeTo], at most Parallelism runs at once
// (docs/workflows.md#backfills). Made counts the runs made so far, in fire
// order; CursorAt is the logical time of the last one. Its runs are the
// workflow instances (or job instances) whose backfill_id is its id, one
// per logical time (a unique key).
type Backfill struct {
	bun.BaseModel `bun:"table:backfills,alias:bf"`

	ID          int64            `bun:"id,pk,autoincrement"`
	AppID       int64            `bun:"app_id,notnull"`
	WorkflowID  *int64           `bun:"workflow_id"`
	JobID       *int64           `bun:"job_id"`
	RangeFrom   time.Time        `bun:"range_from,notnull"`
	RangeTo     time.Time        `bun:"range_to,notnull"`
	Schedule    BackfillSchedule `bun:"schedule,notnull,type:json"`
	Parallelism int              `bun:"parallelism,notnull"`
	Total       int              `bun:"total,notnull"`
	Made        int              `bun:"made,notnull"`
	CursorAt    *time.Time       `bun:"cursor_at"`
	// Context is added to each workflow run's context; Params is each job
	// instance's parameters (a JSON object, or "").
	Context    map[string]any `bun:"context,notnull,type:json"`
	Params     string         `bun:"params,notnull"`
	Status     string         `bun:"status,notnull"`
	CreatedBy  string         `bun:"created_by,notnull"`
	CreatedAt  time.Time      `bun:"created_at,notnull"`
	FinishedAt *time.Time     `bun:"finished_at"`
	UpdatedAt  time.Time      `bun:"updated_at,notnull"`
}

// BackfillCreate inserts a backfill and sets its id.
func (s *Store) BackfillCreate(ctx context.Context, b *Backfill) error {
	now := Now()
	b.CreatedAt, b.UpdatedAt = now, now
	if b.Context == nil {
		b.Context = map[string]any{}
	}
	_, err := s.idb.NewInsert().Model(b).ExcludeColumn("id").Returning("id").Exec(ctx)
	return wrap(err, "creating backfill")
}

// BackfillGet returns a backfill.
func (s *Store) BackfillGet(ctx context.Context, id int64) (*Backfill, error) {
	b := new(Backfill)
	err := s.idb.NewSelect().Model(b).Where("id = ?", id).Scan(ctx)
	return b, wrap(err, "reading backfill")
}

// BackfillLock reads a backfill for a change (FOR UPDATE on PostgreSQL;
// SQLite has one writer at a time): the driver's pass and stopBackfill
// on any server take it, so runs are never made after a stop.
func (s *Store) BackfillLock(ctx context.Context, id int64) (*Backfill, error) {
	b := new(Backfill)
	q := s.idb.NewSelect().Model(b).Where("id = ?", id)
	if s.dialect == Postgres {
		q = q.For("UPDATE")
	}
	return b, wrap(q.Scan(ctx), "locking backfill")
}

// BackfillListRunning returns an app's RUNNING backfills' ids.
func (s *Store) BackfillListRunning(ctx context.Context, appID int64) ([]int64, error) {
	var ids []int64
	err := s.idb.NewSelect().Model((*Backfill)(nil)).Column("id").
		Where("app_id = ? AND status = ?", appID, BackfillRunning).OrderExpr("id").Scan(ctx, &ids)
	return ids, wrap(err, "reading running backfills")
}

// BackfillFilter narrows a backfill listing.
type BackfillFilter struct {
	AppID      int64
	WorkflowID int64
	JobID      int64
	BeforeID   int64
	Limit      int
}

// BackfillList returns a page of backfills, newest first, and whether
// more follow.
func (s *Store) BackfillList(ctx context.Context, f BackfillFilter) ([]Backfill, bool, error) {
	var out []Backfill
	q := s.idb.NewSelect().Model(&out).Where("app_id = ?", f.AppID)
	if f.WorkflowID > 0 {
		q = q.Where("workflow_id = ?", f.WorkflowID)
	}
	if f.JobID > 0 {
		q = q.Where("job_id = ?", f.JobID)
	}
	if f.BeforeID > 0 {
		q = q.Where("id < ?", f.BeforeID)
	}
	err := q.OrderExpr("id DESC").Limit(f.Limit + 1).Scan(ctx)
	more := len(out) > f.Limit
	if more {
		out = out[:f.Limit]
	}
	return out, more, wrap(err, "listing backfills")
}

// BackfillAdvance records runs made up to cursor.
func (s *Store) BackfillAdvance(ctx context.Context, id int64, made int, cursor time.Time) error {
	_, err := s.idb.NewUpdate().Model((*Backfill)(nil)).Set("made = ?", made).Set("cursor_at = ?", cursor).
		Set("updated_at = ?", Now()).Where("id = ?", id).Exec(ctx)
	return wrap(err, "advancing backfill")
}

// BackfillFinish ends a RUNNING backfill in status; false if it was not
// RUNNING.
func (s *Store) BackfillFinish(ctx context.Context, id int64, status string, at time.Time) (bool, error) {
	res, err := s.idb.NewUpdate().Model((*Backfill)(nil)).Set("status = ?", status).Set("finished_at = ?", at).
		Set("updated_at = ?", Now()).Where("id = ? AND status = ?", id, BackfillRunning).Exec(ctx)
	if err != nil {
		return false, wrap(err, "ending backfill")
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// BackfillProgress is how a backfill's runs stand: Running are made and
// not ended (waiting included), Succeeded ended well, Failed ended
// otherwise (failed, stopped, canceled).
type BackfillProgress struct {
	Running, Succeeded, Failed int
}

// BackfillProgressMany counts the runs of backfills by how they stand:
// one grouped read of workflow runs and one of job instances, by the
// (backfill_id, logical_time) index.
func (s *Store) BackfillProgressMany(ctx context.Context, ids []int64) (map[int64]BackfillProgress, error) {
	out := make(map[int64]BackfillProgress, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	type row struct {
		BackfillID int64  `bun:"backfill_id"`
		Status     string `bun:"status"`
		N          int    `bun:"n"`
	}
	for _, m := range []any{(*WorkflowInstance)(nil), (*Instance)(nil)} {
		var rows []row
		err := s.idb.NewSelect().Model(m).ColumnExpr("backfill_id, status, COUNT(*) AS n").
			Where("backfill_id IN (?)", bun.List(ids)).GroupExpr("backfill_id, status").Scan(ctx, &rows)
		if err != nil {
			return nil, wrap(err, "counting backfill runs")
		}
		for _, r := range rows {
			p := out[r.BackfillID]
			switch r.Status {
			case WorkflowSucceeded: // StatusSucceeded alike
				p.Succeeded += r.N
			case WorkflowFailed, WorkflowStopped, WorkflowCanceled:
				p.Failed += r.N
			default:
				p.Running += r.N
			}
			out[r.BackfillID] = p
		}
	}
	return out, nil
}

// BackfillListActiveRuns returns the ids of a backfill's workflow runs
// and job instances not ended.
func (s *Store) BackfillListActiveRuns(ctx context.Context, id int64) (runs, instances []int64, err error) {
	err = s.idb.NewSelect().Model((*WorkflowInstance)(nil)).Column("id").
		Where("backfill_id = ? AND status IN (?)", id, bun.List([]string{WorkflowWaiting, WorkflowRunning, WorkflowPaused})).
		OrderExpr("id").Scan(ctx, &runs)
	if err != nil {
		return nil, nil, wrap(err, "reading a backfill's runs")
	}
	err = s.idb.NewSelect().Model((*Instance)(nil)).Column("id").
		Where("backfill_id = ? AND status IN (?)", id, bun.List([]string{StatusWaiting, StatusDispatched, StatusRunning})).
		OrderExpr("id").Scan(ctx, &instances)
	return runs, instances, wrap(err, "reading a backfill's instances")
}

// BackfillCreateRuns inserts a backfill's workflow runs, skipping any whose
// (backfill, logical time) exists already; it returns those inserted.
func (s *Store) BackfillCreateRuns(ctx context.Context, list []WorkflowInstance) ([]int64, error) {
	var ids []int64
	for i := range list {
		r := &list[i]
		now := Now()
		r.CreatedAt, r.UpdatedAt = now, now
		res, err := s.idb.NewInsert().Model(r).ExcludeColumn("id").
			On("CONFLICT (backfill_id, logical_time) WHERE backfill_id IS NOT NULL DO NOTHING").Returning("id").Exec(ctx)
		if err != nil {
			return nil, wrap(err, "creating backfill run")
		}
		if n, _ := res.RowsAffected(); n == 1 {
			ids = append(ids, r.ID)
		}
	}
	return ids, nil
}

// BackfillCreateInstances inserts a backfill's job instances, skipping any
// whose (backfill, logical time) exists already; it returns those inserted.
func (s *Store) BackfillCreateInstances(ctx context.Context, list []Instance) ([]Instance, error) {
	var out []Instance
	for i := range list {
		in := &list[i]
		now := Now()
		in.CreatedAt, in.UpdatedAt = now, now
		if in.Attempt == 0 {
			in.Attempt = 1
		}
		res, err := s.idb.NewInsert().Model(in).ExcludeColumn("id").
			On("CONFLICT (backfill_id, logical_time) WHERE backfill_id IS NOT NULL DO NOTHING").Returning("id").Exec(ctx)
		if err != nil {
			return nil, wrap(err, "creating backfill instance")
		}
		if n, _ := res.RowsAffected(); n == 1 {
			out = append(out, *in)
		}
	}
	return out, nil
}
