package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// OutcomeBucket counts the instances of an app that finished within one
// hour, by final status.
type OutcomeBucket struct {
	Start     time.Time
	Succeeded int
	Failed    int
	Stopped   int
	Canceled  int
}

// InstanceOutcomes returns an app's finished instances per hour since
// `since` (hours with none are left out), oldest first.
func (s *Store) InstanceOutcomes(ctx context.Context, appID int64, since time.Time) ([]OutcomeBucket, error) {
	return s.outcomes(ctx, "app_id", appID, since)
}

// JobOutcomes returns one job's finished instances per hour since `since`
// (hours with none are left out), oldest first.
func (s *Store) JobOutcomes(ctx context.Context, jobID int64, since time.Time) ([]OutcomeBucket, error) {
	return s.outcomes(ctx, "job_id", jobID, since)
}

// outcomes counts the finished instances whose column (app_id or job_id)
// is id, per hour since `since`.
func (s *Store) outcomes(ctx context.Context, column string, id int64, since time.Time) ([]OutcomeBucket, error) {
	// Both dialects group by the hour: PostgreSQL by date_trunc, SQLite by
	// the first 13 characters of bun's UTC text ("2026-11-22 09").
	hour := bun.Safe("date_trunc('hour', finished_at AT TIME ZONE 'UTC')::text")
	if s.dialect == SQLite {
		hour = bun.Safe("substr(finished_at, 1, 13)")
	}
	var rows []struct {
		Hour   string `bun:"hour"`
		Status string `bun:"status"`
		N      int    `bun:"n"`
	}
	err := s.idb.NewSelect().Model((*Instance)(nil)).
		ColumnExpr("? AS hour, status, COUNT(*) AS n", hour).
		Where("? = ? AND finished_at >= ?", bun.Ident(column), id, since).
		GroupExpr("hour, status").OrderExpr("hour").Scan(ctx, &rows)
	if err != nil {
		return nil, wrap(err, "counting instance outcomes")
	}
	var out []OutcomeBucket
	for _, r := range rows {
		start, err := time.Parse("2006-01-02 15", r.Hour[:min(len(r.Hour), 13)])
		if err != nil {
			return nil, wrap(err, "reading an hour bucket")
		}
		if len(out) == 0 || !out[len(out)-1].Start.Equal(start) {
			out = append(out, OutcomeBucket{Start: start})
		}
		b := &out[len(out)-1]
		switch r.Status {
		case StatusSucceeded:
			b.Succeeded += r.N
		case StatusFailed:
			b.Failed += r.N
		case StatusStopped:
			b.Stopped += r.N
		case StatusCanceled:
			b.Canceled += r.N
		}
	}
	return out, nil
}

// InstanceCountsNow counts an app's unfinished instances by status.
func (s *Store) InstanceCountsNow(ctx context.Context, appID int64) (map[string]int, error) {
	var rows []struct {
		Status string `bun:"status"`
		N      int    `bun:"n"`
	}
	err := s.idb.NewSelect().Model((*Instance)(nil)).ColumnExpr("status, COUNT(*) AS n").
		Where("app_id = ? AND status IN (?)", appID, bun.List(ActiveStatuses)).
		Group("status").Scan(ctx, &rows)
	out := map[string]int{}
	for _, r := range rows {
		out[r.Status] = r.N
	}
	return out, wrap(err, "counting unfinished instances")
}

// WorkerCountAlive counts an app's connected workers heard from since.
func (s *Store) WorkerCountAlive(ctx context.Context, appID int64, since time.Time) (int, error) {
	n, err := s.idb.NewSelect().Model((*Worker)(nil)).
		Where("app_id = ? AND disconnected_at IS NULL AND last_heartbeat >= ?", appID, since).Count(ctx)
	return n, wrap(err, "counting live workers")
}
