package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/api/secrets"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/text"
	"github.com/jobwheel/jobwheel/server/schedule"
)

// Create validates and stores a new job.
func (s *Service) Create(ctx context.Context, in Input) (*db.Job, error) {
	app, err := s.apps.ByName(ctx, in.App, db.RoleEditor)
	if err != nil {
		return nil, asInput("app", err)
	}
	cal, err := s.calendarNamed(ctx, app.ID, in.Calendar)
	if err != nil {
		return nil, err
	}
	j, sch, err := s.build(in, app.ID, cal)
	if err != nil {
		return nil, err
	}
	j.NextTriggerAt = s.firstTrigger(j, sch)
	err = s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		if err := CheckPoolNamed(ctx, tx, app.ID, "pool", j.Pool, "poolSlots", j.PoolSlots); err != nil {
			return err
		}
		return s.CreateIn(ctx, tx, j, calendarName(cal), ChangeCreate)
	})
	var bad *fault.Input
	if errors.As(err, &bad) && bad.Field == "name" {
		return nil, fault.BadInput("name", "app %q already has a job named %q", in.App, j.Name)
	}
	if err != nil {
		return nil, err
	}
	s.notify.JobsChanged(app.ID)
	return j, nil
}

// Update replaces a job's definition; its next fire is computed afresh.
// The change is kept as a new version.
func (s *Service) Update(ctx context.Context, id int64, in Input) (*db.Job, error) {
	return s.update(ctx, id, in, ChangeUpdate)
}

func (s *Service) update(ctx context.Context, id int64, in Input, change string) (*db.Job, error) {
	old, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	app, err := s.apps.Staying(ctx, old.AppID, in.App, "job")
	if err != nil {
		return nil, err
	}
	cal, err := s.calendarNamed(ctx, app.ID, in.Calendar)
	if err != nil {
		return nil, err
	}
	// Secrets sent back as the API showed them keep their stored values.
	in.Processor = secrets.KeepProcessor(in.ProcessorType, in.Processor, old.ProcessorType, old.Processor)
	in.Alarm = secrets.KeepAlarm(in.Alarm, old.Alarm)
	j, sch, err := s.build(in, app.ID, cal)
	if err != nil {
		return nil, err
	}
	if err := CheckPoolNamed(ctx, s.db, app.ID, "pool", j.Pool, "poolSlots", j.PoolSlots); err != nil {
		return nil, err
	}
	// A managed job stays so: the next declaration in code or apply of its
	// files overwrites a manual edit (the console warns before one).
	j.ID, j.CreatedAt, j.ManagedBy, j.ManagedSource = old.ID, old.CreatedAt, old.ManagedBy, old.ManagedSource
	j.NextTriggerAt = s.firstTrigger(j, sch)
	if err := s.save(ctx, old, j, calendarName(cal), change); err != nil {
		if errors.Is(err, db.ErrConflict) {
			return nil, fault.BadInput("name", "app %q already has a job named %q", app.Name, j.Name)
		}
		return nil, err
	}
	s.notify.JobsChanged(app.ID)
	return j, nil
}

// save writes j over old as its next version, and drops the fires
// recorded ahead under the old definition (the trigger loop records the
// new schedule's own).
func (s *Service) save(ctx context.Context, old, j *db.Job, calendar, change string) error {
	oldCal, err := s.CalendarOf(ctx, old)
	if err != nil {
		return err
	}
	prev := db.JobVersion{Definition: old.Definition(calendarName(oldCal)), Change: ChangeCreate, CreatedAt: old.UpdatedAt}
	next := db.JobVersion{Definition: j.Definition(calendar), Change: change, CreatedBy: by(ctx)}
	err = s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		if err := tx.JobSaveVersion(ctx, j, old.Version, prev, next); err != nil {
			return err
		}
		return tx.InstanceDeleteFutureScheduled(ctx, j.ID, s.now())
	})
	switch {
	case errors.Is(err, db.ErrChanged):
		return fault.Conflict("job %q was changed by someone else meanwhile (it is at a newer version than %d); reload it and try again", old.Name, old.Version)
	case err != nil:
		return notFound(err, "job")
	}
	return nil
}

// SetEnabled enables (from now on) or disables a job, as a new version.
func (s *Service) SetEnabled(ctx context.Context, id int64, enabled bool) (*db.Job, error) {
	old, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	sch, err := schedule.Parse(schedule.JobSpec(old))
	if err != nil {
		return nil, err
	}
	j := *old
	j.Enabled = enabled
	j.NextTriggerAt = s.firstTrigger(&j, sch)
	cal, err := s.CalendarOf(ctx, old)
	if err != nil {
		return nil, err
	}
	change := ChangeDisable
	if enabled {
		change = ChangeEnable
	}
	if err := s.save(ctx, old, &j, calendarName(cal), change); err != nil {
		return nil, err
	}
	s.notify.JobsChanged(j.AppID)
	return s.db.JobGet(ctx, id)
}

// SetManagedBy hands a job to the set of jobs a worker declares in code
// (set), whose next declaration of a job of that name then adopts it, or
// back to people (set nil). A job applied from files is not handed over
// here: it leaves its set by being pruned from the files. EDITOR.
func (s *Service) SetManagedBy(ctx context.Context, id int64, set *string) (*db.Job, error) {
	old, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	if deref(old.ManagedSource, "") == db.ManagedFiles {
		return nil, fault.BadInput("id", "job %q is managed by the file set %q (jobwheel apply): remove it from those files and prune it first",
			old.Name, deref(old.ManagedBy, ""))
	}
	j := *old
	j.ManagedBy, j.ManagedSource = nil, nil
	if set != nil {
		name := strings.TrimSpace(*set)
		if err := text.Line("set", name); err != nil {
			return nil, err
		}
		if name == "" || len(name) > 128 {
			return nil, fault.BadInput("set", "a set's name: 1 to 128 characters, as the workers' jobSet")
		}
		j.ManagedBy, j.ManagedSource = &name, new(db.ManagedCode)
	}
	cal, err := s.CalendarOf(ctx, old)
	if err != nil {
		return nil, err
	}
	if err := s.save(ctx, old, &j, calendarName(cal), ChangeHandOver); err != nil {
		return nil, err
	}
	s.notify.JobsChanged(j.AppID)
	return s.db.JobGet(ctx, id)
}

// Delete deletes a job with its history. Its running instances are
// stopped on their workers by the app's owner, which notices them gone.
func (s *Service) Delete(ctx context.Context, id int64) error {
	j, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return err
	}
	if err := s.db.JobDelete(ctx, id); err != nil {
		return notFound(err, "job")
	}
	s.notify.InstancesChanged(j.AppID)
	return nil
}

// Get returns a job if the caller holds at least role on its app.
func (s *Service) Get(ctx context.Context, id int64, role db.Role) (*db.Job, error) {
	return auth.ReadInApp(ctx, s.auth, fmt.Sprintf("job %d", id), role,
		func(ctx context.Context) (*db.Job, error) { return s.db.JobGet(ctx, id) },
		func(j *db.Job) int64 { return j.AppID })
}

// List returns a page of an app's jobs, newest first.
func (s *Service) List(ctx context.Context, appName, search string, beforeID int64, limit int) (db.JobPage, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return db.JobPage{}, err
	}
	return s.db.JobList(ctx, app.ID, search, beforeID, limit)
}
