// Package backfill drives an owned app's backfills (docs/workflows.md
// #backfills): a CRON-scheduled workflow or job run once per fire time of a
// past range, at most the backfill's parallelism at once.
//
// One Driver per owned app (package owned starts it after the trigger
// loop). A pass looks at the app's RUNNING backfills, each in one
// transaction: lock the backfill, count its runs not ended, make the next
// fire times' runs for the places free — WAITING, due now, carrying the
// backfill and their logical time (unique together) — and move the
// backfill's cursor past them; once every fire time has its run and all
// have ended, the backfill ends SUCCEEDED (or FAILED if one did not
// succeed). The runs then go the way of any run: the workflow engine
// starts a workflow's, the execution actor a job's.
//
// Because the cursor moves in the transaction that makes the runs, and the
// runs' (backfill, logical time) is unique, a driver killed mid-pass
// leaves either both or neither, and the next owner's driver carries on
// from the cursor: no fire time is run twice or left out.
//
// Passes run when told (a backfill was made or stopped: HintTopic on the
// bus), every Every while a backfill runs (its runs end in other parts;
// looking once a second costs one indexed read), and every Idle otherwise,
// in case a hint was lost. Nothing here is on the path from a node's end
// to the next node's start.
package backfill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strconv"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/server/schedule"
)

// HintTopic is the bus topic that tells an app's owner to look at its
// backfills now; the data is the app's id.
const HintTopic = "backfills"

// LogicalTimeKey is the key of a run's logical time in a workflow run's
// context and in a job instance's parameters (Airflow's logical_date).
const LogicalTimeKey = "logicalTime"

// FormatLogicalTime is how a logical time is written into a run.
func FormatLogicalTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Store is what the driver reads outside transactions.
type Store interface {
	InTx(ctx context.Context, fn func(ctx context.Context, tx *db.Store) error) error
	BackfillListRunning(ctx context.Context, appID int64) ([]int64, error)
}

// Runs is where the runs a pass made go (the owned app): a workflow's to
// the engine, a job's to the trigger loop's wheel.
type Runs interface {
	WorkflowRunsMade(wiIDs []int64)
	InstancesMade(list []db.Instance)
}

// Notifier tells the API's subscriptions of runs made.
type Notifier interface {
	WorkflowInstancesChanged(appID int64, wiIDs []int64)
	InstancesChanged(appID int64, ids []int64)
}

// Config tunes a driver.
type Config struct {
	// Every is how often a pass runs while a backfill runs (default 1s);
	// Idle how often otherwise (default 30s).
	Every, Idle time.Duration
	Clock       clock.Clock
}

// Driver makes an owned app's backfill runs.
type Driver struct {
	lifecycle.Base
	cfg    Config
	store  Store
	runs   Runs
	notify Notifier
	log    *slog.Logger
	app    int64
	fence  *db.Fence
	wake   chan struct{}
}

// New returns the driver of an app held under epoch by serverID.
func New(cfg Config, store Store, runs Runs, notify Notifier, log *slog.Logger, appID int64, serverID string, epoch int64) *Driver {
	if cfg.Every <= 0 {
		cfg.Every = time.Second
	}
	if cfg.Idle <= 0 {
		cfg.Idle = 30 * time.Second
	}
	cfg.Clock = clock.OrSystem(cfg.Clock)
	return &Driver{cfg: cfg, store: store, runs: runs, notify: notify, log: log.With("app", appID), app: appID,
		fence: &db.Fence{AppID: appID, ServerID: serverID, Epoch: epoch}, wake: make(chan struct{}, 1)}
}

// Wake asks for a pass now.
func (d *Driver) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// ParseHint reads a HintTopic hint.
func ParseHint(data string) (int64, bool) {
	id, err := strconv.ParseInt(data, 10, 64)
	return id, err == nil
}

// Start starts the passes.
func (d *Driver) Start(ctx context.Context) error {
	ctx, ok, started, stopped := d.StartInit(ctx)
	if !ok {
		return nil
	}
	go func() {
		started()
		defer stopped()
		for {
			wait := d.cfg.Idle
			if d.pass(ctx) {
				wait = d.cfg.Every
			}
			t := d.cfg.Clock.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-d.wake:
				t.Stop()
			case <-t.C():
			}
		}
	}()
	return nil
}

// pass looks at every RUNNING backfill once; it says whether any still
// runs.
func (d *Driver) pass(ctx context.Context) bool {
	ids, err := d.store.BackfillListRunning(ctx, d.app)
	if err != nil {
		if ctx.Err() == nil {
			d.log.Warn("backfill: reading running backfills failed; trying again at the next pass", "err", err)
		}
		return true
	}
	for _, id := range ids {
		if err := d.step(ctx, id); err != nil && ctx.Err() == nil {
			d.log.Warn("backfill: a pass failed; trying again at the next", "backfill", id, "err", err)
		}
	}
	return len(ids) > 0
}

// step makes one backfill's next runs, or ends it, in one transaction.
func (d *Driver) step(ctx context.Context, id int64) error {
	var made []int64
	var instances []db.Instance
	err := d.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		made, instances = nil, nil
		if ok, err := tx.FenceHolds(ctx, d.fence); err != nil || !ok {
			return errors.Join(err, db.ErrFenced)
		}
		b, err := tx.BackfillLock(ctx, id)
		if err != nil || b.Status != db.BackfillRunning {
			return err
		}
		progress, err := tx.BackfillProgressMany(ctx, []int64{id})
		if err != nil {
			return err
		}
		p := progress[id]
		now := db.Stamp(d.cfg.Clock.Now())
		times, err := nextTimes(b, min(b.Parallelism-p.Running, b.Total-b.Made))
		if err != nil {
			return err
		}
		if len(times) == 0 {
			if p.Running > 0 {
				return nil // its last runs are under way
			}
			status := db.BackfillSucceeded
			if p.Failed > 0 {
				status = db.BackfillFailed
			}
			_, err := tx.BackfillFinish(ctx, id, status, now)
			d.log.Info("backfill: ended", "backfill", id, "status", status, "succeeded", p.Succeeded, "failed", p.Failed)
			return err
		}
		switch {
		case b.WorkflowID != nil:
			made, err = d.makeRuns(ctx, tx, b, times, now)
		case b.JobID != nil:
			instances, err = d.makeInstances(ctx, tx, b, times, now)
		}
		if err != nil {
			return err
		}
		return tx.BackfillAdvance(ctx, id, b.Made+len(times), times[len(times)-1])
	})
	if err != nil {
		return err
	}
	if len(made) > 0 {
		d.runs.WorkflowRunsMade(made)
		d.notify.WorkflowInstancesChanged(d.app, made)
	}
	if len(instances) > 0 {
		d.runs.InstancesMade(instances)
		d.notify.InstancesChanged(d.app, nil)
	}
	return nil
}

// nextTimes returns up to n fire times after the backfill's cursor,
// within its range.
func nextTimes(b *db.Backfill, n int) ([]time.Time, error) {
	if n <= 0 {
		return nil, nil
	}
	sch, err := Schedule(b.Schedule)
	if err != nil {
		return nil, fmt.Errorf("backfill %d's schedule: %w", b.ID, err)
	}
	after := b.RangeFrom.Add(-time.Millisecond)
	if b.CursorAt != nil {
		after = *b.CursorAt
	}
	var out []time.Time
	for len(out) < n {
		t, ok := sch.Next(after)
		if !ok || t.After(b.RangeTo) {
			break
		}
		out = append(out, t)
		after = t
	}
	return out, nil
}

// Schedule parses a backfill's schedule.
func Schedule(s db.BackfillSchedule) (*schedule.Schedule, error) {
	return schedule.Parse(schedule.Spec{Type: s.Type, Expression: s.Expression, TimeZone: s.TimeZone, Excluded: s.Excluded})
}

// makeRuns records a workflow's runs for times, each with the backfill's
// context and its logical time, at the workflow's current version.
func (d *Driver) makeRuns(ctx context.Context, tx *db.Store, b *db.Backfill, times []time.Time, now time.Time) ([]int64, error) {
	w, err := tx.WorkflowGet(ctx, *b.WorkflowID)
	if err != nil {
		return nil, err
	}
	list := make([]db.WorkflowInstance, len(times))
	for i, t := range times {
		c := maps.Clone(b.Context)
		if c == nil {
			c = map[string]any{}
		}
		c[LogicalTimeKey] = FormatLogicalTime(t)
		list[i] = db.WorkflowInstance{AppID: b.AppID, WorkflowID: w.ID, Version: w.Version, Status: db.WorkflowWaiting,
			TriggerType: db.TriggerBackfill, TriggerAt: now, Graph: w.Graph, FailFast: w.FailFast, Context: c,
			BackfillID: &b.ID, LogicalTime: &t}
	}
	return tx.BackfillCreateRuns(ctx, list)
}

// makeInstances records a job's instances for times, each with the
// backfill's parameters and its logical time.
func (d *Driver) makeInstances(ctx context.Context, tx *db.Store, b *db.Backfill, times []time.Time, now time.Time) ([]db.Instance, error) {
	j, err := tx.JobGet(ctx, *b.JobID)
	if err != nil {
		return nil, err
	}
	list := make([]db.Instance, len(times))
	for i, t := range times {
		params, err := ParamsWith(b.Params, t)
		if err != nil {
			return nil, err
		}
		list[i] = db.Instance{AppID: b.AppID, JobID: j.ID, Status: db.StatusWaiting, TriggerType: db.TriggerBackfill,
			TriggerAt: now, Params: params, JobVersion: &j.Version, BackfillID: &b.ID, LogicalTime: &t}
	}
	return tx.BackfillCreateInstances(ctx, list)
}

// ParamsWith is a backfill job instance's parameters: the backfill's (a
// JSON object, or "") with the logical time added.
func ParamsWith(params string, t time.Time) (string, error) {
	obj := map[string]any{}
	if params != "" {
		if err := json.Unmarshal([]byte(params), &obj); err != nil || obj == nil {
			return "", fmt.Errorf("backfill parameters are not a JSON object: %w", err)
		}
	}
	obj[LogicalTimeKey] = FormatLogicalTime(t)
	raw, err := json.Marshal(obj)
	return string(raw), err
}
