package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
	"unicode"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/tracing"
	"github.com/jobwheel/jobwheel/server/api/audit"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/text"
)

// Run starts a job now (or after delay) with optional parameters. With an
// idempotency key, a second call with the same key within
// IdempotencyWindow returns the instance the first one created and
// records nothing (its params and delay are not compared: the key names
// the run). Either way the write is one INSERT.
func (s *Service) Run(ctx context.Context, id int64, params string, delay time.Duration, key *string) (*db.Instance, error) {
	j, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	if len(params) > MaxParamsBytes {
		return nil, fault.BadInput("params", "must be at most %d bytes", MaxParamsBytes)
	}
	if err := text.Bytes("params", params); err != nil {
		return nil, err
	}
	if delay < 0 || delay > MaxDelay {
		return nil, fault.BadInput("delayMs", "must be between 0 and %d", MaxDelay.Milliseconds())
	}
	if err := CheckIdempotencyKey(key); err != nil {
		return nil, err
	}
	if j.ScheduleType == db.ScheduleWorkflow {
		return nil, fault.BadInput("id", "job %q runs only as a workflow node", j.Name)
	}
	now := s.now()
	in := &db.Instance{AppID: j.AppID, JobID: j.ID, Status: db.StatusWaiting, TriggerType: "API",
		TriggerAt: now.Add(delay), Params: params, IdempotencyKey: key, JobVersion: &j.Version}
	if trace.SpanContextFromContext(ctx).IsSampled() {
		// A traced API call: the fire's span will be its child.
		in.TraceParent = tracing.Traceparent(ctx)
	}
	if key != nil {
		got, created, err := s.db.InstanceCreateIdempotent(ctx, in, now.Add(-IdempotencyWindow))
		if err != nil {
			return nil, err
		}
		if !created {
			return got, nil
		}
	} else {
		rec := audit.RecordFrom(ctx)
		if err := s.runs.Do(ctx, &run{in: in, rec: rec}); err != nil {
			return nil, err
		}
		if rec != nil {
			rec.Written()
		}
	}
	s.notify.InstanceCreated(in)
	return in, nil
}

// CheckIdempotencyKey refuses a key that is empty, longer than
// MaxKeyChars or not one line of text; nil is no key.
func CheckIdempotencyKey(key *string) error {
	if key == nil {
		return nil
	}
	switch {
	case *key == "":
		return fault.BadInput("idempotencyKey", "must not be empty (leave it out for none)")
	case utf8.RuneCountInString(*key) > MaxKeyChars:
		return fault.BadInput("idempotencyKey", "must be at most %d characters", MaxKeyChars)
	case !utf8.ValidString(*key) || slices.ContainsFunc([]rune(*key), unicode.IsControl):
		return fault.BadInput("idempotencyKey", "must be one line of text without control characters")
	}
	return nil
}

// GetInstance returns an instance if the caller may see its app.
func (s *Service) GetInstance(ctx context.Context, id int64, role db.Role) (*db.Instance, error) {
	return auth.ReadInApp(ctx, s.auth, fmt.Sprintf("instance %d", id), role,
		func(ctx context.Context) (*db.Instance, error) { return s.db.InstanceGet(ctx, id) },
		func(in *db.Instance) int64 { return in.AppID })
}

// Stop stops an unfinished instance: STOPPED at once here, and the owner
// stops its tasks on their workers.
func (s *Service) Stop(ctx context.Context, id int64) (*db.Instance, error) {
	in, err := s.GetInstance(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	if _, err := s.db.InstanceStop(ctx, id, "STOPPED"); err != nil {
		if errors.Is(err, db.ErrNotFound) {
			return nil, fault.Conflict("instance %d already ended (%s)", id, in.Status)
		}
		return nil, err
	}
	// The attempt's own row (the instance row told its story so far: its
	// worker and start, which a retry would clear).
	if err := s.db.AttemptUpsertMany(ctx, []db.InstanceAttempt{{InstanceID: id, Attempt: in.Attempt, Status: db.StatusStopped,
		Reason: "STOPPED", Result: "stopped by a user", WorkerID: in.WorkerID, StartedAt: in.StartedAt, FinishedAt: new(s.now())}}); err != nil {
		return nil, err
	}
	s.notify.InstancesChanged(in.AppID)
	return s.db.InstanceGet(ctx, id)
}

// Retry runs a finished, unsuccessful instance again as its next attempt.
// A retry obeys its job's maxInstances like any fire, and says up front
// what that means rather than be canceled behind the caller's back: while
// maxInstances instances of the job run, overlap policy CANCEL refuses the
// retry (CONFLICT, naming maxInstances; nothing changes), QUEUE queues it
// and REPLACE lets it replace the oldest run, each said in the answer's
// result. A retry of a scheduled fire of a disabled job is refused too,
// since it would be canceled. The attempt it ends keeps its row, so the
// attempts list shows every attempt.
func (s *Service) Retry(ctx context.Context, id int64) (*db.Instance, error) {
	in, err := s.GetInstance(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	switch in.Status {
	case db.StatusFailed, db.StatusStopped, db.StatusCanceled:
	default:
		return nil, fault.Conflict("instance %d is %s; only FAILED, STOPPED or CANCELED instances can be retried", id, in.Status)
	}
	result, err := s.retryOverlap(ctx, in)
	if err != nil {
		return nil, err
	}
	err = s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		stored, err := tx.AttemptList(ctx, id)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(stored, func(a db.InstanceAttempt) bool { return a.Attempt == in.Attempt }) {
			// An attempt canceled before it started (over maxInstances, say)
			// has no row yet: the instance row is all that tells of it.
			ended := db.InstanceAttempt{InstanceID: id, Attempt: in.Attempt, Status: in.Status, Result: in.Result, Reason: in.Reason,
				StartedAt: in.StartedAt, FinishedAt: in.FinishedAt}
			if in.StartedAt != nil {
				ended.WorkerID = in.WorkerID
			}
			if err := tx.AttemptUpsertMany(ctx, []db.InstanceAttempt{ended}); err != nil {
				return err
			}
		}
		ok, err := tx.InstanceRetry(ctx, id, in.Status, in.Attempt+1, s.now(), "", &result)
		if err != nil {
			return err
		}
		if !ok {
			return fault.Conflict("instance %d changed meanwhile; look again", id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.notify.InstancesChanged(in.AppID)
	return s.db.InstanceGet(ctx, id)
}

// retryOverlap applies the job's overlap policy to a retry of in: an
// error when it would be canceled, else the result the instance waits
// with ("" when it may start at once).
func (s *Service) retryOverlap(ctx context.Context, in *db.Instance) (string, error) {
	if in.TriggerType == db.TriggerWorkflow {
		return "", nil // its workflow's maxInstances bounds it, as the node's run
	}
	job, err := s.db.JobGet(ctx, in.JobID)
	if err != nil {
		return "", err
	}
	if !job.Enabled && (in.TriggerType == db.TriggerSchedule || in.TriggerType == db.TriggerMisfire) {
		return "", fault.Conflict("instance %d was not retried: its job %q is disabled, and a scheduled fire of a disabled job is canceled; enable the job first, or run it now", in.ID, job.Name)
	}
	running, err := s.db.InstanceCountLimited(ctx, job.ID)
	if err != nil {
		return "", err
	}
	if running < job.MaxInstances {
		return "", nil
	}
	switch job.OverlapPolicy {
	case db.OverlapQueue:
		return fmt.Sprintf("queued: waits for a running instance of the job to end (overlap policy QUEUE, maxInstances %d)", job.MaxInstances), nil
	case db.OverlapReplace:
		return fmt.Sprintf("replaces the oldest running instance of the job when it starts (overlap policy REPLACE, maxInstances %d)", job.MaxInstances), nil
	}
	return "", fault.Conflict("instance %d was not retried: %d instance(s) of job %q are running and its maxInstances is %d, "+
		"so its overlap policy CANCEL would cancel the retry; retry when one ends, or raise maxInstances or choose overlap policy QUEUE",
		in.ID, running, job.Name, job.MaxInstances)
}

// ListInstances returns a page of instances of an app, newest first.
func (s *Service) ListInstances(ctx context.Context, appName string, f db.InstanceFilter) ([]db.Instance, bool, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return nil, false, err
	}
	f.AppID = app.ID
	return s.db.InstanceList(ctx, f)
}

// CountInstances counts an app's instances the filter matches, on all
// pages.
func (s *Service) CountInstances(ctx context.Context, appName string, f db.InstanceFilter) (int, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return 0, err
	}
	f.AppID = app.ID
	return s.db.InstanceCount(ctx, f)
}

// TaskCounts summarises an instance's current attempt's tasks.
func (s *Service) TaskCounts(ctx context.Context, instanceID int64) (*db.TaskCounts, error) {
	counts, err := s.db.TaskCountsByInstance(ctx, []int64{instanceID})
	if err != nil {
		return nil, err
	}
	c := counts[instanceID]
	c.InstanceID = instanceID
	return &c, nil
}
