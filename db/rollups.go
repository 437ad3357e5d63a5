package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"
)

// An app's finished instances summed per hour (instance_rollups), so that
// appStats reads a row per hour of its window and the instances of the
// last hour or so, not every instance of the week (issue 25). A pass on
// the owner's clock (InstanceRollUp, server/runtime/rollup) sums each
// hour once it is over; hours are summed in order, and an app's mark says
// up to where.

// InstanceRollup is one hour of an app's finished instances.
type InstanceRollup struct {
	bun.BaseModel `bun:"table:instance_rollups"`
	AppID         int64  `bun:"app_id,pk"`
	Hour          int64  `bun:"hour,pk"` // the hour's start, Unix seconds
	Finished      int    `bun:"finished"`
	Succeeded     int    `bun:"succeeded"`
	Failed        int    `bun:"failed"`
	Stopped       int    `bun:"stopped"`
	Canceled      int    `bun:"canceled"`
	LatenessJSON  string `bun:"lateness"`
	StartJSON     string `bun:"fire_to_start"`
	// Lateness and FireToStart are the JSON columns read back.
	Lateness    Histogram `bun:"-"`
	FireToStart Histogram `bun:"-"`
}

// Histogram counts instances by a whole number of milliseconds.
type Histogram map[int64]int

// Add counts in into the hour: its status, and its lateness (actual minus
// expected trigger time) and fire-to-start (started minus actual trigger
// time) where it has the times, in whole milliseconds, at least 0. The
// lag figures of appStats read instances the same way.
func (r *InstanceRollup) Add(in FinishedInstance) {
	r.Finished++
	switch in.Status {
	case StatusSucceeded:
		r.Succeeded++
	case StatusFailed:
		r.Failed++
	case StatusStopped:
		r.Stopped++
	case StatusCanceled:
		r.Canceled++
	}
	if in.ExpectedTriggerAt != nil && in.ActualTriggerAt != nil {
		if r.Lateness == nil {
			r.Lateness = Histogram{}
		}
		r.Lateness[max(0, in.ActualTriggerAt.Sub(*in.ExpectedTriggerAt).Milliseconds())]++
	}
	if in.ActualTriggerAt != nil && in.StartedAt != nil {
		if r.FireToStart == nil {
			r.FireToStart = Histogram{}
		}
		r.FireToStart[max(0, in.StartedAt.Sub(*in.ActualTriggerAt).Milliseconds())]++
	}
}

// Merge adds o's counts into h.
func (h Histogram) Merge(o Histogram) {
	for v, n := range o {
		h[v] += n
	}
}

// Count is the instances h counts.
func (h Histogram) Count() int {
	n := 0
	for _, c := range h {
		n += c
	}
	return n
}

// Rank returns the value at the given 0-based rank of h's values in
// ascending order (nearest rank), with values the sorted keys.
func (h Histogram) Rank(values []int64, rank int) int64 {
	seen := 0
	for _, v := range values {
		seen += h[v]
		if rank < seen {
			return v
		}
	}
	return values[len(values)-1]
}

// Values are h's values in ascending order.
func (h Histogram) Values() []int64 {
	out := make([]int64, 0, len(h))
	for v := range h {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// InstanceRollupMark returns the hour before which the app's finished
// instances are summed (zero: none are).
func (s *Store) InstanceRollupMark(ctx context.Context, appID int64) (time.Time, error) {
	var until int64
	err := s.idb.NewSelect().Table("instance_rollup_marks").Column("until").Where("app_id = ?", appID).Scan(ctx, &until)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, wrap(err, "reading the instance roll-up mark")
	}
	return time.Unix(until, 0).UTC(), nil
}

// InstanceRollupList returns the app's summed hours in [from, to), oldest
// first.
func (s *Store) InstanceRollupList(ctx context.Context, appID int64, from, to time.Time) ([]InstanceRollup, error) {
	var out []InstanceRollup
	err := s.idb.NewSelect().Model(&out).Where("app_id = ? AND hour >= ? AND hour < ?", appID, from.Unix(), to.Unix()).
		Order("hour").Scan(ctx)
	if err != nil {
		return nil, wrap(err, "reading instance roll-ups")
	}
	for i := range out {
		r := &out[i]
		if err := json.Unmarshal([]byte(r.LatenessJSON), &r.Lateness); err != nil {
			return nil, fmt.Errorf("reading the roll-up of app %d at %d: %w", appID, r.Hour, err)
		}
		if err := json.Unmarshal([]byte(r.StartJSON), &r.FireToStart); err != nil {
			return nil, fmt.Errorf("reading the roll-up of app %d at %d: %w", appID, r.Hour, err)
		}
	}
	return out, nil
}

// InstanceTimingsBetween returns an app's instances that finished in
// [from, to), the latest first, at most limit (the instances_by_app_finished
// index): InstanceTimings with an end.
func (s *Store) InstanceTimingsBetween(ctx context.Context, appID int64, from, to time.Time, limit int) ([]FinishedInstance, error) {
	var rows []FinishedInstance
	err := s.idb.NewSelect().Model((*Instance)(nil)).
		Column("id", "status", "reason", "expected_trigger_at", "actual_trigger_at", "started_at", "finished_at").
		Where("app_id = ? AND finished_at >= ? AND finished_at < ?", appID, from, to).
		OrderExpr("finished_at DESC").Limit(limit).Scan(ctx, &rows)
	return rows, wrap(err, "reading instance timings")
}

// RollupMaxHours is the most hours InstanceRollUp sums back from its end
// when an app has none summed yet: the widest window appStats reads, and
// one hour more for its first, partial, hour.
const RollupMaxHours = 169

// InstanceRollUp sums the app's finished instances of each whole hour
// before `before` (truncated to the hour) not summed yet, at most maxHours
// of them, one transaction per hour, and returns how many it summed. The
// caller leaves a margin between `before` and now for instances whose
// finish was stamped before their transaction committed. Two servers
// summing the same app (a lease changing hands) do not double count: the
// mark moves only from where each read it.
func (d *DB) InstanceRollUp(ctx context.Context, appID int64, before time.Time, maxHours int) (int, error) {
	end := before.UTC().Truncate(time.Hour)
	mark, err := d.InstanceRollupMark(ctx, appID)
	if err != nil {
		return 0, err
	}
	if mark.IsZero() {
		// No hour summed: from the app's first finished instance, or the
		// widest window back, whichever is later.
		var first FinishedInstance
		err := d.idb.NewSelect().Model((*Instance)(nil)).Column("finished_at").
			Where("app_id = ? AND finished_at IS NOT NULL", appID).OrderExpr("finished_at").Limit(1).Scan(ctx, &first)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			mark = end
		case err != nil:
			return 0, wrap(err, "reading the app's first finish")
		default:
			mark = first.FinishedAt.UTC().Truncate(time.Hour)
			if floor := end.Add(-RollupMaxHours * time.Hour); mark.Before(floor) {
				mark = floor
			}
		}
		if mark.After(end) {
			mark = end
		}
		_, err = d.idb.NewRaw("INSERT INTO instance_rollup_marks (app_id, until) VALUES (?, ?) ON CONFLICT (app_id) DO NOTHING",
			appID, mark.Unix()).Exec(ctx)
		if err != nil {
			return 0, wrap(err, "recording the instance roll-up mark")
		}
		if mark, err = d.InstanceRollupMark(ctx, appID); err != nil {
			return 0, err
		}
	}
	summed := 0
	for h := mark; h.Before(end) && summed < maxHours; h = h.Add(time.Hour) {
		err := d.InTx(ctx, func(ctx context.Context, tx *Store) error {
			res, err := tx.idb.NewRaw("UPDATE instance_rollup_marks SET until = ? WHERE app_id = ? AND until = ?",
				h.Add(time.Hour).Unix(), appID, h.Unix()).Exec(ctx)
			if err != nil {
				return wrap(err, "moving the instance roll-up mark")
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return errRolledElsewhere
			}
			var rows []FinishedInstance
			err = tx.idb.NewSelect().Model((*Instance)(nil)).
				Column("status", "expected_trigger_at", "actual_trigger_at", "started_at").
				Where("app_id = ? AND finished_at >= ? AND finished_at < ?", appID, h, h.Add(time.Hour)).Scan(ctx, &rows)
			if err != nil {
				return wrap(err, "reading an hour's finished instances")
			}
			if len(rows) == 0 {
				return nil
			}
			r := InstanceRollup{AppID: appID, Hour: h.Unix()}
			for _, in := range rows {
				r.Add(in)
			}
			late, _ := json.Marshal(orEmpty(r.Lateness))
			start, _ := json.Marshal(orEmpty(r.FireToStart))
			r.LatenessJSON, r.StartJSON = string(late), string(start)
			_, err = tx.idb.NewInsert().Model(&r).Exec(ctx)
			return wrap(err, "storing an hour's roll-up")
		})
		if errors.Is(err, errRolledElsewhere) {
			return summed, nil
		}
		if err != nil {
			return summed, err
		}
		summed++
	}
	return summed, nil
}

// InstanceRollupDeleteBefore deletes the app's summed hours that ended at
// or before `before` (retention deleted their instances).
func (s *Store) InstanceRollupDeleteBefore(ctx context.Context, appID int64, before time.Time) (int, error) {
	res, err := s.idb.NewRaw("DELETE FROM instance_rollups WHERE app_id = ? AND hour <= ?",
		appID, before.Add(-time.Hour).Unix()).Exec(ctx)
	if err != nil {
		return 0, wrap(err, "deleting old instance roll-ups")
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

var errRolledElsewhere = errors.New("the hour was summed by another server")

func orEmpty(h Histogram) Histogram {
	if h == nil {
		return Histogram{}
	}
	return h
}
