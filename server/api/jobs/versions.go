package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// What a version of a job records as its change.
const (
	ChangeCreate  = "CREATE"
	ChangeUpdate  = "UPDATE"
	ChangeEnable  = "ENABLE"
	ChangeDisable = "DISABLE"
	// ChangeRestore is followed by the version restored: "RESTORE 3".
	ChangeRestore = "RESTORE"
	// ChangeHandOver: the job was handed to a set of jobs declared in
	// code, or back to people (setJobManagedBy).
	ChangeHandOver = "HAND_OVER"
)

// MaxVersions bounds one listing of a job's versions.
const MaxVersions = 500

// by names the caller in versions.
func by(ctx context.Context) string {
	if p := auth.FromContext(ctx); p != nil {
		return p.User.Username
	}
	return ""
}

func calendarName(c *db.Calendar) string {
	if c == nil {
		return ""
	}
	return c.Name
}

// Versions returns a job's versions, newest first (the job was read with
// the caller's rights).
func (s *Service) Versions(ctx context.Context, j *db.Job, limit int) ([]db.JobVersion, error) {
	if limit < 1 || limit > MaxVersions {
		return nil, fault.BadInput("first", "must be between 1 and %d", MaxVersions)
	}
	return s.db.JobVersionList(ctx, j.ID, limit)
}

// Restore makes a kept version the job's definition again, as a new
// version (EDITOR). It is validated as any change: a version naming a
// calendar since deleted is refused, naming the calendar.
func (s *Service) Restore(ctx context.Context, id int64, version int) (*db.Job, error) {
	j, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	v, err := s.db.JobVersionGet(ctx, id, version)
	if errors.Is(err, db.ErrNotFound) {
		return nil, fault.BadInput("version", "job %q has no version %d", j.Name, version)
	}
	if err != nil {
		return nil, err
	}
	app, err := s.apps.ByID(ctx, j.AppID, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	return s.update(ctx, id, inputOf(app.Name, v.Definition), fmt.Sprintf("%s %d", ChangeRestore, version))
}

// inputOf is the Input that defines d in app.
func inputOf(app string, d db.JobDefinition) Input {
	in := Input{App: app, Name: d.Name, Description: &d.Description, Enabled: &d.Enabled, ScheduleType: d.ScheduleType,
		ScheduleExpression: &d.ScheduleExpression, TimeZone: &d.TimeZone, LifecycleStart: d.LifecycleStart, LifecycleEnd: d.LifecycleEnd,
		ExecutionMode: &d.ExecutionMode, ProcessorType: d.ProcessorType, Processor: d.Processor, Params: &d.Params,
		MaxInstances: &d.MaxInstances, TaskConcurrency: &d.TaskConcurrency, TimeoutMs: new(int(d.TimeoutMs)),
		InstanceRetries: &d.InstanceRetries, TaskRetries: &d.TaskRetries, WorkerFilter: d.WorkerFilter,
		DispatchStrategy: &d.DispatchStrategy, MisfirePolicy: &d.MisfirePolicy, Alarm: d.Alarm, ScheduleWindow: d.ScheduleWindow,
		Priority: &d.Priority, RetryDelayMs: new(int(d.RetryDelayMs)), RetryDelayMaxMs: new(int(d.RetryDelayMaxMs))}
	if d.Calendar != "" {
		in.Calendar = &d.Calendar
	}
	// A version kept before these fields existed has them empty: the
	// defaults.
	if d.OverlapPolicy != "" {
		in.OverlapPolicy = &d.OverlapPolicy
	}
	if d.MaxQueued != 0 {
		in.MaxQueued = &d.MaxQueued
	}
	if d.RetryBackoff != 0 {
		in.RetryBackoff = &d.RetryBackoff
	}
	if d.Pool != "" {
		in.Pool, in.PoolSlots = &d.Pool, new(max(d.PoolSlots, 1))
	}
	return in
}
