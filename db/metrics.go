package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// FinishedInstance is what the metrics collector reads of an instance that
// finished: its outcome and the times its latencies are computed from.
type FinishedInstance struct {
	ID                int64      `bun:"id"`
	Status            string     `bun:"status"`
	Reason            string     `bun:"reason"`
	ExpectedTriggerAt *time.Time `bun:"expected_trigger_at"`
	ActualTriggerAt   *time.Time `bun:"actual_trigger_at"`
	StartedAt         *time.Time `bun:"started_at"`
	FinishedAt        time.Time  `bun:"finished_at"`
}

// InstanceListFinishedBetween returns an app's instances that finished in
// (from, to], oldest first, at most limit (the instances_by_app_finished
// index). Only the columns the metrics need are read.
func (s *Store) InstanceListFinishedBetween(ctx context.Context, appID int64, from, to time.Time, limit int) ([]FinishedInstance, error) {
	var rows []FinishedInstance
	err := s.idb.NewSelect().Model((*Instance)(nil)).
		Column("id", "status", "reason", "expected_trigger_at", "actual_trigger_at", "started_at", "finished_at").
		Where("app_id = ? AND finished_at > ? AND finished_at <= ?", appID, from, to).
		OrderExpr("finished_at, id").Limit(limit).Scan(ctx, &rows)
	return rows, wrap(err, "reading finished instances")
}

// AttemptReasonCounts counts, per reason, the attempts of these instances
// that ended with one of the reasons given.
func (s *Store) AttemptReasonCounts(ctx context.Context, instanceIDs []int64, reasons []string) (map[string]int, error) {
	out := map[string]int{}
	if len(instanceIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		Reason string `bun:"reason"`
		N      int    `bun:"n"`
	}
	err := s.idb.NewSelect().Model((*InstanceAttempt)(nil)).ColumnExpr("reason, COUNT(*) AS n").
		Where("instance_id IN (?) AND reason IN (?)", bun.List(instanceIDs), bun.List(reasons)).
		Group("reason").Scan(ctx, &rows)
	for _, r := range rows {
		out[r.Reason] = r.N
	}
	return out, wrap(err, "counting attempts by reason")
}

// QueueDepth is an app's backlog: instances WAITING (for their time or a
// worker) and tasks WAITING for a worker slot.
type QueueDepth struct {
	Instances int
	Tasks     int
}

// AppQueueDepth counts an app's WAITING instances and the WAITING tasks of
// its unfinished instances (both through the active-instance index).
func (s *Store) AppQueueDepth(ctx context.Context, appID int64) (QueueDepth, error) {
	var q QueueDepth
	n, err := s.idb.NewSelect().Model((*Instance)(nil)).
		Where("app_id = ? AND status = ?", appID, StatusWaiting).Count(ctx)
	if err != nil {
		return q, wrap(err, "counting waiting instances")
	}
	q.Instances = n
	// From the counts (tasks.go): a few rows per instance, not one per task.
	err = s.idb.NewSelect().TableExpr("("+s.taskCountRows("i.app_id = ? AND i.status IN (?)", appID, bun.List(ActiveStatuses))+") AS c").
		ColumnExpr("COALESCE(SUM(c.n), 0)").Where("c.status = ?", StatusWaiting).Scan(ctx, &n)
	q.Tasks = n
	return q, wrap(err, "counting waiting tasks")
}

// InstanceListFailedRecent returns an app's instances that ended FAILED since
// `since`, the latest first, at most limit.
func (s *Store) InstanceListFailedRecent(ctx context.Context, appID int64, since time.Time, limit int) ([]Instance, error) {
	var out []Instance
	err := s.idb.NewSelect().Model(&out).
		Where("app_id = ? AND finished_at >= ? AND status = ?", appID, since, StatusFailed).
		OrderExpr("finished_at DESC, id DESC").Limit(limit).Scan(ctx)
	return out, wrap(err, "reading recent failures")
}

// InstanceTimings returns the timing columns of an app's instances that
// finished since `since`, the latest first, at most limit.
func (s *Store) InstanceTimings(ctx context.Context, appID int64, since time.Time, limit int) ([]FinishedInstance, error) {
	var rows []FinishedInstance
	err := s.idb.NewSelect().Model((*Instance)(nil)).
		Column("id", "status", "reason", "expected_trigger_at", "actual_trigger_at", "started_at", "finished_at").
		Where("app_id = ? AND finished_at >= ?", appID, since).
		OrderExpr("finished_at DESC").Limit(limit).Scan(ctx, &rows)
	return rows, wrap(err, "reading instance timings")
}

// JobListNextFires returns an app's enabled jobs by their next fire, soonest
// first, at most limit (the jobs_due index).
func (s *Store) JobListNextFires(ctx context.Context, appID int64, limit int) ([]Job, error) {
	var out []Job
	err := s.idb.NewSelect().Model(&out).
		Where("app_id = ? AND enabled AND next_trigger_at IS NOT NULL", appID).
		OrderExpr("next_trigger_at, id").Limit(limit).Scan(ctx)
	return out, wrap(err, "reading next fires")
}

// WorkerListAlive returns an app's connected workers heard from since.
func (s *Store) WorkerListAlive(ctx context.Context, appID int64, since time.Time) ([]Worker, error) {
	var out []Worker
	err := s.idb.NewSelect().Model(&out).
		Where("app_id = ? AND disconnected_at IS NULL AND last_heartbeat >= ?", appID, since).Scan(ctx)
	return out, wrap(err, "reading live workers")
}
