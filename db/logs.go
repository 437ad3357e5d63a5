package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// InstanceLog is one log line of an instance. Seq is assigned by the server
// and increases per instance; (WorkerID, WorkerSeq) de-duplicates re-sends.
type InstanceLog struct {
	bun.BaseModel `bun:"table:instance_logs,alias:lg"`

	ID         int64     `bun:"id,pk,autoincrement"`
	InstanceID int64     `bun:"instance_id,notnull"`
	Seq        int64     `bun:"seq,notnull"`
	WorkerID   string    `bun:"worker_id,notnull"`
	WorkerSeq  int64     `bun:"worker_seq,notnull"`
	Time       time.Time `bun:"time,notnull"`
	Level      string    `bun:"level,notnull"`
	Text       string    `bun:"text,notnull"`
	// Attempt is the instance's attempt when the line was stored (0: a
	// line stored before attempts were recorded).
	Attempt int `bun:"attempt,notnull"`
}

// LogReserveSeq reserves n consecutive log sequence numbers of an
// instance of the app and returns the first, with the instance's current
// attempt (the lines' Attempt); ErrNotFound if the app has no such
// instance. Seq numbers of one instance only grow.
func (s *Store) LogReserveSeq(ctx context.Context, appID, instanceID int64, n int) (first int64, attempt int, err error) {
	var last int64
	err = s.idb.NewUpdate().Model((*Instance)(nil)).
		Set("log_seq = log_seq + ?", n).
		Where("id = ? AND app_id = ?", instanceID, appID).
		Returning("log_seq, attempt").Scan(ctx, &last, &attempt)
	if err != nil {
		return 0, 0, wrap(err, "reserving log sequence numbers")
	}
	return last - int64(n) + 1, attempt, nil
}

// LogInsertMany inserts log lines, skipping any already stored (the same
// instance, worker and worker seq: a re-send).
func (s *Store) LogInsertMany(ctx context.Context, lines []InstanceLog) error {
	if len(lines) == 0 {
		return nil
	}
	_, err := s.idb.NewInsert().Model(&lines).ExcludeColumn("id").
		On("CONFLICT (instance_id, worker_id, worker_seq) DO NOTHING").Exec(ctx)
	return wrap(err, "storing log lines")
}

// LogKnown is a worker's line already stored.
type LogKnown struct {
	InstanceID int64  `bun:"instance_id"`
	WorkerID   string `bun:"worker_id"`
	WorkerSeq  int64  `bun:"worker_seq"`
}

// LogListExisting returns which of the given worker lines are already stored,
// so re-sent lines do not use up sequence numbers.
func (s *Store) LogListExisting(ctx context.Context, workerID string, instanceIDs []int64, minSeq, maxSeq int64) ([]LogKnown, error) {
	var out []LogKnown
	err := s.idb.NewSelect().Model((*InstanceLog)(nil)).
		Column("instance_id", "worker_id", "worker_seq").
		Where("worker_id = ? AND instance_id IN (?) AND worker_seq BETWEEN ? AND ?", workerID, bun.List(instanceIDs), minSeq, maxSeq).
		Scan(ctx, &out)
	return out, wrap(err, "reading stored log lines")
}

// LogList returns up to limit lines of an instance with seq > afterSeq, in
// seq order, and whether more follow.
func (s *Store) LogList(ctx context.Context, instanceID, afterSeq int64, limit int) ([]InstanceLog, bool, error) {
	var out []InstanceLog
	err := s.idb.NewSelect().Model(&out).
		Where("instance_id = ? AND seq > ?", instanceID, afterSeq).
		OrderExpr("seq").Limit(limit + 1).Scan(ctx)
	if err != nil {
		return nil, false, wrap(err, "reading log lines")
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// LogTarget is an instance a worker's log lines name: its app, and whether
// it was ever given to the worker (as the instance's or an attempt's
// worker, or as one of its tasks').
type LogTarget struct {
	ID    int64 `bun:"id"`
	AppID int64 `bun:"app_id"`
	Given int   `bun:"given"` // 1: given to the worker
}

// LogListTargets returns the instances among ids that exist, with whether each
// was given to workerID; missing ids were deleted (or never existed).
func (s *Store) LogListTargets(ctx context.Context, workerID string, ids []int64) ([]LogTarget, error) {
	var out []LogTarget
	if len(ids) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model((*Instance)(nil)).
		ColumnExpr("i.id, i.app_id").
		ColumnExpr(`CASE WHEN i.worker_id = ?
			OR EXISTS (SELECT 1 FROM tasks AS tk WHERE tk.instance_id = i.id AND tk.worker_id = ?)
			OR EXISTS (SELECT 1 FROM instance_attempts AS ia WHERE ia.instance_id = i.id AND ia.worker_id = ?)
			THEN 1 ELSE 0 END AS given`, workerID, workerID, workerID).
		Where("i.id IN (?)", bun.List(ids)).
		Scan(ctx, &out)
	return out, wrap(err, "reading the instances of log lines")
}
