package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// ChangeCode is the change of a version a declaration in code made.
const ChangeCode = "CODE"

// Declare applies the jobs a worker of an app declares in its code (the
// hello's job set): each declared job is created, or updated where its
// definition differs, and marked as managed by the set; the set's jobs no
// longer declared are disabled, never deleted, so their history stays.
// With dryRun nothing changes and the changes are only listed. The worker
// authenticated with the app secret, so no user rights are checked.
// Workers of one service connecting at once declare the same set: a
// change that races another is computed again.
func (s *Service) Declare(ctx context.Context, appID int64, workerID string, h *protocol.Hello) ([]protocol.JobChange, error) {
	var err error
	for range 3 {
		var changes []protocol.JobChange
		changes, err = s.declare(ctx, appID, workerID, h)
		if err == nil || !(errors.Is(err, db.ErrChanged) || errors.Is(err, db.ErrConflict)) {
			return changes, err
		}
	}
	return nil, fmt.Errorf("declaring jobs: they kept changing meanwhile: %w", err)
}

func (s *Service) declare(ctx context.Context, appID int64, workerID string, h *protocol.Hello) ([]protocol.JobChange, error) {
	set := h.JobSet
	author := "worker " + workerID
	type plan struct {
		change   protocol.JobChange
		old, job *db.Job
	}
	var plans []plan
	declared := make(map[string]bool, len(h.Jobs))
	for i, d := range h.Jobs {
		j, sch, err := s.build(declaredInput(d), appID, nil)
		if err != nil {
			var in *fault.Input
			if errors.As(err, &in) {
				return nil, fault.BadInput(fmt.Sprintf("jobs[%d].%s", i, in.Field), "job %q: %s", d.Name, in.Reason)
			}
			return nil, err
		}
		declared[j.Name] = true
		j.ManagedBy, j.ManagedSource = &set, new(db.ManagedCode)
		j.NextTriggerAt = s.firstTrigger(j, sch)
		old, err := s.db.JobGetByName(ctx, appID, j.Name)
		switch {
		case errors.Is(err, db.ErrNotFound):
			plans = append(plans, plan{change: protocol.JobChange{Name: j.Name, Action: protocol.JobCreate}, job: j})
			continue
		case err != nil:
			return nil, err
		}
		// A job applied from files is never taken over by code: each would
		// overwrite the other on every connect and every apply.
		if deref(old.ManagedSource, "") == db.ManagedFiles {
			return nil, fault.BadInput(fmt.Sprintf("jobs[%d].name", i), "job %q is managed by the file set %q (jobwheel apply): "+
				"remove it from those files and prune it, or declare the job under another name", d.Name, deref(old.ManagedBy, ""))
		}
		// A declared set adopts only the jobs it manages: one people made,
		// or another set manages, is refused until someone hands it over
		// (setJobManagedBy), and the clash is on the app's audit log.
		if deref(old.ManagedBy, "") != set || deref(old.ManagedSource, "") != db.ManagedCode {
			why := fmt.Sprintf("job %q was made through the API or console, not by the set %q: "+
				"hand it to the set (setJobManagedBy) or declare the job under another name", d.Name, set)
			if old.ManagedBy != nil {
				why = fmt.Sprintf("job %q is managed by the set %q, not %q: hand it over (setJobManagedBy) or declare the job under another name",
					d.Name, *old.ManagedBy, set)
			}
			plans = append(plans, plan{change: protocol.JobChange{Name: j.Name, Action: protocol.JobRefused, Error: why}, old: old})
			continue
		}
		fields := changedFields(old.Definition(""), j.Definition(""))
		if old.CalendarID != nil {
			fields = append(fields, "calendar")
		}
		if len(fields) == 0 {
			plans = append(plans, plan{change: protocol.JobChange{Name: j.Name, Action: protocol.JobUnchanged}})
			continue
		}
		j.ID, j.CreatedAt = old.ID, old.CreatedAt
		plans = append(plans, plan{change: protocol.JobChange{Name: j.Name, Action: protocol.JobUpdate, Fields: fields}, old: old, job: j})
	}
	managed, err := s.db.JobListManagedBy(ctx, appID, db.ManagedCode, set)
	if err != nil {
		return nil, err
	}
	for i := range managed {
		old := &managed[i]
		if declared[old.Name] || !old.Enabled {
			continue
		}
		j := *old
		j.Enabled, j.NextTriggerAt = false, nil
		plans = append(plans, plan{change: protocol.JobChange{Name: old.Name, Action: protocol.JobDisable}, old: old, job: &j})
	}
	changes := make([]protocol.JobChange, len(plans))
	changed := false
	var refused []*db.AuditEntry
	for i, p := range plans {
		changes[i] = p.change
		changed = changed || p.job != nil
		if p.change.Action == protocol.JobRefused {
			refused = append(refused, refusalEntry(appID, author, set, p.old, p.change.Error, s.now()))
		}
	}
	if h.JobsDryRun || (!changed && len(refused) == 0) {
		return changes, nil
	}
	err = s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		if len(refused) > 0 {
			app, err := tx.AppGet(ctx, appID)
			if err != nil {
				return err
			}
			for _, e := range refused {
				e.App = app.Name
			}
			if err := tx.AuditCreateMany(ctx, refused); err != nil {
				return err
			}
		}
		for _, p := range plans {
			switch {
			case p.job == nil:
			case p.old == nil:
				p.job.Version = 1
				if err := tx.JobCreate(ctx, p.job); err != nil {
					return err
				}
				if err := tx.JobVersionCreate(ctx, &db.JobVersion{JobID: p.job.ID, Version: 1, Definition: p.job.Definition(""),
					Change: ChangeCode, CreatedBy: author}); err != nil {
					return err
				}
			default:
				oldCal := ""
				if p.old.CalendarID != nil {
					if c, err := tx.CalendarGet(ctx, *p.old.CalendarID); err == nil {
						oldCal = c.Name
					}
				}
				prev := db.JobVersion{Definition: p.old.Definition(oldCal), Change: ChangeCreate, CreatedAt: p.old.UpdatedAt}
				next := db.JobVersion{Definition: p.job.Definition(""), Change: ChangeCode, CreatedBy: author}
				if err := tx.JobSaveVersion(ctx, p.job, p.old.Version, prev, next); err != nil {
					return err
				}
				if err := tx.InstanceDeleteFutureScheduled(ctx, p.job.ID, s.now()); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.notify.JobsChanged(appID)
	return changes, nil
}

// refusalEntry is the audit log's record of a declared job refused: the
// job people (or another set) keep, the worker and set that declared it.
func refusalEntry(appID int64, author, set string, old *db.Job, why string, now time.Time) *db.AuditEntry {
	return &db.AuditEntry{At: db.Stamp(now), AppID: &appID, Actor: author, Action: "declareJob",
		ObjectType: "job", ObjectID: strconv.FormatInt(old.ID, 10), ObjectName: old.Name, Outcome: "REFUSED",
		Changes: []db.AuditChange{{Field: "managedBy", Before: deref(old.ManagedBy, ""), After: set}, {Field: "reason", After: why}}}
}

// declaredInput is the Input a declaration stands for: a GO job, enabled.
func declaredInput(d protocol.DeclaredJob) Input {
	in := Input{Name: d.Name, Description: &d.Description, Enabled: new(true), ScheduleType: d.ScheduleType,
		ScheduleExpression: &d.ScheduleExpression, ProcessorType: db.ProcessorGo, Processor: d.Processor, Params: &d.Params}
	if d.TimeZone != "" {
		in.TimeZone = &d.TimeZone
	}
	if d.ExecutionMode != "" {
		in.ExecutionMode = &d.ExecutionMode
	}
	for _, f := range []struct {
		v   int
		dst **int
	}{
		{d.MaxInstances, &in.MaxInstances}, {d.TaskConcurrency, &in.TaskConcurrency}, {d.TimeoutMs, &in.TimeoutMs},
		{d.InstanceRetries, &in.InstanceRetries}, {d.TaskRetries, &in.TaskRetries},
		{d.MaxQueued, &in.MaxQueued}, {d.Priority, &in.Priority}, {d.RetryDelayMs, &in.RetryDelayMs},
		{d.RetryDelayMaxMs, &in.RetryDelayMaxMs},
	} {
		if f.v != 0 {
			*f.dst = new(f.v)
		}
	}
	if d.OverlapPolicy != "" {
		in.OverlapPolicy = &d.OverlapPolicy
	}
	if d.RetryBackoff != 0 {
		in.RetryBackoff = &d.RetryBackoff
	}
	return in
}

// changedFields names the fields (JobInput's names) in which two
// definitions differ. Fields are compared as they are stored, in JSON: an
// empty list and none are the same, and so are two equal instants in
// different time zones.
func changedFields(a, b db.JobDefinition) []string {
	var out []string
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	t := va.Type()
	for i := range t.NumField() {
		ja, erra := json.Marshal(va.Field(i).Interface())
		jb, errb := json.Marshal(vb.Field(i).Interface())
		if erra != nil || errb != nil || !bytes.Equal(ja, jb) {
			out = append(out, strings.Split(t.Field(i).Tag.Get("json"), ",")[0])
		}
	}
	return out
}
