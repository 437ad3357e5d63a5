package db

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// RunReportQuery selects the finished instances a run report counts.
type RunReportQuery struct {
	AppIDs []int64
	JobID  int64 // 0: every job of the apps
	// From and To bound the instances' finished_at: [From, To).
	From, To time.Time
	// DayEnds are the ends of the report's days but the last, ascending,
	// within (From, To): a run that finished before DayEnds[0] is on day
	// 0, before DayEnds[1] on day 1, and so on; one after them all on the
	// last day. The caller cuts days in the time zone of its choice.
	DayEnds []time.Time
}

// RunReportRow is one job's runs that finished on one day of a report.
type RunReportRow struct {
	Day       int    `bun:"day"`
	Date      string `bun:"-"` // the day's date, set by the caller that cut the days
	JobID     int64  `bun:"job_id"`
	Runs      int    `bun:"runs"`
	Succeeded int    `bun:"succeeded"`
	Failed    int    `bun:"failed"`
	Stopped   int    `bun:"stopped"`
	Canceled  int    `bun:"canceled"`
	// Durations (finished_at - started_at) of the runs that started, in
	// milliseconds, nearest-rank percentiles; nil when none started.
	P50Ms *int64 `bun:"p50_ms"`
	P95Ms *int64 `bun:"p95_ms"`
	MaxMs *int64 `bun:"max_ms"`
}

// InstanceRunReport counts finished instances per day and job, with their
// durations' median, 95th percentile and maximum, in one statement: a
// range scan of instances_by_app_finished (app_id, finished_at), one CASE
// for the day, and window functions for the percentiles (both dialects
// have them). Rows are ordered by day, then job id; days and jobs without
// runs are left out.
func (s *Store) InstanceRunReport(ctx context.Context, q RunReportQuery) ([]RunReportRow, error) {
	out := []RunReportRow{}
	if len(q.AppIDs) == 0 {
		return out, nil
	}
	var day strings.Builder
	args := []any{}
	if len(q.DayEnds) == 0 {
		day.WriteString("0")
	} else {
		day.WriteString("CASE")
		for i, end := range q.DayEnds {
			day.WriteString(" WHEN finished_at < ? THEN ")
			day.WriteString(strconv.Itoa(i))
			args = append(args, end)
		}
		day.WriteString(" ELSE " + strconv.Itoa(len(q.DayEnds)) + " END")
	}
	ms := "CAST(EXTRACT(EPOCH FROM (finished_at - started_at)) * 1000 AS BIGINT)"
	if s.dialect == SQLite {
		ms = "CAST(ROUND((julianday(finished_at) - julianday(started_at)) * 86400000.0) AS INTEGER)"
	}
	where := "app_id IN (?) AND finished_at >= ? AND finished_at < ?"
	args = append(args, bun.List(q.AppIDs), q.From, q.To)
	if q.JobID != 0 {
		where += " AND job_id = ?"
		args = append(args, q.JobID)
	}
	query := `WITH runs AS (
	SELECT ` + day.String() + ` AS day, job_id, status,
		CASE WHEN started_at IS NOT NULL THEN ` + ms + ` END AS ms
	FROM instances WHERE ` + where + `
), ranked AS (
	SELECT day, job_id, ms, ROW_NUMBER() OVER (PARTITION BY day, job_id ORDER BY ms) AS rn,
		COUNT(*) OVER (PARTITION BY day, job_id) AS n
	FROM runs WHERE ms IS NOT NULL
), durations AS (
	SELECT day, job_id,
		MAX(CASE WHEN rn = (50 * n + 99) / 100 THEN ms END) AS p50_ms,
		MAX(CASE WHEN rn = (95 * n + 99) / 100 THEN ms END) AS p95_ms,
		MAX(ms) AS max_ms
	FROM ranked GROUP BY day, job_id
), counts AS (
	SELECT day, job_id, COUNT(*) AS runs,
		SUM(CASE WHEN status = 'SUCCEEDED' THEN 1 ELSE 0 END) AS succeeded,
		SUM(CASE WHEN status = 'FAILED' THEN 1 ELSE 0 END) AS failed,
		SUM(CASE WHEN status = 'STOPPED' THEN 1 ELSE 0 END) AS stopped,
		SUM(CASE WHEN status = 'CANCELED' THEN 1 ELSE 0 END) AS canceled
	FROM runs GROUP BY day, job_id
)
SELECT c.day, c.job_id, c.runs, c.succeeded, c.failed, c.stopped, c.canceled, d.p50_ms, d.p95_ms, d.max_ms
FROM counts AS c LEFT JOIN durations AS d ON d.day = c.day AND d.job_id = c.job_id
ORDER BY c.day, c.job_id`
	err := s.idb.NewRaw(query, args...).Scan(ctx, &out)
	return out, wrap(err, "reporting runs")
}

// AppOverview is one app at a glance, for people who see many.
type AppOverview struct {
	AppID         int64
	Jobs          int
	RunsToday     int // instances finished since the start of the day
	FailuresToday int // of which FAILED
	RunningNow    int // DISPATCHED or RUNNING
	WorkersOnline int // connected and heard from since aliveSince
}

// AppOverviewList counts, for each app, its jobs, the runs that finished
// since dayStart and how many failed, its running instances and its live
// workers: four grouped statements, whatever the number of apps.
func (s *Store) AppOverviewList(ctx context.Context, appIDs []int64, dayStart, aliveSince time.Time) (map[int64]*AppOverview, error) {
	out := make(map[int64]*AppOverview, len(appIDs))
	if len(appIDs) == 0 {
		return out, nil
	}
	for _, id := range appIDs {
		out[id] = &AppOverview{AppID: id}
	}
	type count struct {
		AppID int64 `bun:"app_id"`
		N     int   `bun:"n"`
		M     int   `bun:"m"`
	}
	var rows []count
	if err := s.idb.NewSelect().Model((*Job)(nil)).ColumnExpr("app_id, COUNT(*) AS n").
		Where("app_id IN (?)", bun.List(appIDs)).Group("app_id").Scan(ctx, &rows); err != nil {
		return nil, wrap(err, "counting jobs per app")
	}
	for _, r := range rows {
		out[r.AppID].Jobs = r.N
	}
	rows = rows[:0]
	if err := s.idb.NewSelect().Model((*Instance)(nil)).
		ColumnExpr("app_id, COUNT(*) AS n, SUM(CASE WHEN status = ? THEN 1 ELSE 0 END) AS m", StatusFailed).
		Where("app_id IN (?) AND finished_at >= ?", bun.List(appIDs), dayStart).Group("app_id").Scan(ctx, &rows); err != nil {
		return nil, wrap(err, "counting today's runs per app")
	}
	for _, r := range rows {
		out[r.AppID].RunsToday, out[r.AppID].FailuresToday = r.N, r.M
	}
	rows = rows[:0]
	if err := s.idb.NewSelect().Model((*Instance)(nil)).ColumnExpr("app_id, COUNT(*) AS n").
		Where("app_id IN (?) AND status IN (?)", bun.List(appIDs), bun.List([]string{StatusDispatched, StatusRunning})).
		Group("app_id").Scan(ctx, &rows); err != nil {
		return nil, wrap(err, "counting running instances per app")
	}
	for _, r := range rows {
		out[r.AppID].RunningNow = r.N
	}
	rows = rows[:0]
	if err := s.idb.NewSelect().Model((*Worker)(nil)).ColumnExpr("app_id, COUNT(*) AS n").
		Where("app_id IN (?) AND disconnected_at IS NULL AND last_heartbeat >= ?", bun.List(appIDs), aliveSince).
		Group("app_id").Scan(ctx, &rows); err != nil {
		return nil, wrap(err, "counting live workers per app")
	}
	for _, r := range rows {
		out[r.AppID].WorkersOnline = r.N
	}
	return out, nil
}
