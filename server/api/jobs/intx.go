package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/schedule"
)

// ChangeApply is the change of a version an apply of configuration files
// made (package apply); ChangeImport that of an earlier version an apply
// brought with a job it created (an import's history).
const (
	ChangeApply  = "APPLY"
	ChangeImport = "IMPORT"
)

// The steps of a change inside a caller's transaction, for package apply,
// which applies many jobs and calendars (and workflows) in one: each reads
// and writes through tx, and nothing is announced (Notifier) — the caller
// does that once it committed.

// BuildIn validates in as a job of app and returns the job it defines
// (not stored, without id, with its first fire) and the name of its
// calendar, which is read in tx so a calendar created earlier in the same
// transaction is found.
func (s *Service) BuildIn(ctx context.Context, tx *db.Store, app *db.App, in Input) (*db.Job, string, error) {
	var cal *db.Calendar
	if in.Calendar != nil && strings.TrimSpace(*in.Calendar) != "" {
		c, err := tx.CalendarGetByName(ctx, app.ID, strings.TrimSpace(*in.Calendar))
		if errors.Is(err, db.ErrNotFound) {
			return nil, "", fault.BadInput("calendar", "app %q has no calendar named %q", app.Name, *in.Calendar)
		}
		if err != nil {
			return nil, "", err
		}
		cal = c
	}
	j, sch, err := s.build(in, app.ID, cal)
	if err != nil {
		return nil, "", err
	}
	if err := CheckPoolNamed(ctx, tx, app.ID, "pool", j.Pool, "poolSlots", j.PoolSlots); err != nil {
		return nil, "", err
	}
	j.NextTriggerAt = s.firstTrigger(j, sch)
	return j, calendarName(cal), nil
}

// CreateIn stores a job BuildIn returned as its version 1 or, given
// earlier versions (oldest first), as the version after them: they are
// recorded as versions 1, 2, … as given, an empty author being the
// caller's and a zero time now.
func (s *Service) CreateIn(ctx context.Context, tx *db.Store, j *db.Job, calendar, change string, earlier ...db.JobVersion) error {
	j.Version = len(earlier) + 1
	if err := tx.JobCreate(ctx, j); err != nil {
		if errors.Is(err, db.ErrConflict) {
			return fault.BadInput("name", "the app already has a job named %q", j.Name)
		}
		return err
	}
	for i, v := range earlier {
		v.JobID, v.Version = j.ID, i+1
		if v.CreatedBy == "" {
			v.CreatedBy = by(ctx)
		}
		if err := tx.JobVersionCreate(ctx, &v); err != nil {
			return err
		}
	}
	return tx.JobVersionCreate(ctx, &db.JobVersion{JobID: j.ID, Version: j.Version, Definition: j.Definition(calendar),
		Change: change, CreatedBy: by(ctx)})
}

// UpdateIn saves j (from BuildIn) over old as its next version, and drops
// the fires recorded ahead under the old definition. j takes old's id and
// creation time; its managed set is the caller's to set.
func (s *Service) UpdateIn(ctx context.Context, tx *db.Store, old, j *db.Job, calendar, change string) error {
	j.ID, j.CreatedAt = old.ID, old.CreatedAt
	oldCal, err := s.calendarNameIn(ctx, tx, old)
	if err != nil {
		return err
	}
	prev := db.JobVersion{Definition: old.Definition(oldCal), Change: ChangeCreate, CreatedAt: old.UpdatedAt}
	next := db.JobVersion{Definition: j.Definition(calendar), Change: change, CreatedBy: by(ctx)}
	err = tx.JobSaveVersion(ctx, j, old.Version, prev, next)
	switch {
	case errors.Is(err, db.ErrChanged):
		return fault.Conflict("job %q was changed by someone else meanwhile (it is at a newer version than %d); try again", old.Name, old.Version)
	case errors.Is(err, db.ErrConflict):
		return fault.BadInput("name", "the app already has a job named %q", j.Name)
	case err != nil:
		return notFound(err, "job")
	}
	return tx.InstanceDeleteFutureScheduled(ctx, j.ID, s.now())
}

// Differences names the fields (JobInput's) in which j, with its calendar
// named calendar, differs from old.
func (s *Service) Differences(ctx context.Context, tx *db.Store, old, j *db.Job, calendar string) ([]string, error) {
	oldCal, err := s.calendarNameIn(ctx, tx, old)
	if err != nil {
		return nil, err
	}
	return changedFields(old.Definition(oldCal), j.Definition(calendar)), nil
}

// calendarNameIn is the name of a job's calendar, read in tx ("" for none).
func (s *Service) calendarNameIn(ctx context.Context, tx *db.Store, j *db.Job) (string, error) {
	if j.CalendarID == nil {
		return "", nil
	}
	c, err := tx.CalendarGet(ctx, *j.CalendarID)
	if errors.Is(err, db.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return c.Name, nil
}

// BuildCalendar validates a calendar's input for app.
func BuildCalendar(in CalendarInput, app *db.App) (*db.Calendar, error) {
	return buildCalendar(in, app.ID)
}

// CreateCalendarIn stores a calendar BuildCalendar returned.
func (s *Service) CreateCalendarIn(ctx context.Context, tx *db.Store, c *db.Calendar) error {
	if err := tx.CalendarCreate(ctx, c); err != nil {
		if errors.Is(err, db.ErrConflict) {
			return fault.BadInput("name", "the app already has a calendar named %q", c.Name)
		}
		return err
	}
	return nil
}

// UpdateCalendarIn replaces a calendar (c has its id). The jobs
// referencing it take its new dates: their copy of the dates and their
// next fire are rewritten, and fires recorded ahead are dropped for the
// trigger loop to record afresh.
func (s *Service) UpdateCalendarIn(ctx context.Context, tx *db.Store, c *db.Calendar) error {
	if err := tx.CalendarUpdate(ctx, c); err != nil {
		if errors.Is(err, db.ErrConflict) {
			return fault.BadInput("name", "the app already has a calendar named %q", c.Name)
		}
		return notFound(err, "calendar")
	}
	list, err := tx.JobListByCalendar(ctx, c.ID)
	if err != nil {
		return err
	}
	now := s.now()
	for i := range list {
		j := &list[i]
		j.ExcludedDates = c.Dates
		sch, err := schedule.Parse(schedule.JobSpec(j))
		if err != nil {
			return fmt.Errorf("job %q with the calendar's new dates: %w", j.Name, err)
		}
		if err := tx.JobSetExcludedDates(ctx, j.ID, c.Dates, s.firstTrigger(j, sch)); err != nil {
			return err
		}
		if err := tx.InstanceDeleteFutureScheduled(ctx, j.ID, now); err != nil {
			return err
		}
	}
	return nil
}

// DeleteCalendarIn deletes a calendar no job references; CONFLICT naming
// the jobs otherwise.
func (s *Service) DeleteCalendarIn(ctx context.Context, tx *db.Store, c *db.Calendar) error {
	list, err := tx.JobListByCalendar(ctx, c.ID)
	if err != nil {
		return err
	}
	if len(list) > 0 {
		names := make([]string, 0, 5)
		for i := range list[:min(5, len(list))] {
			names = append(names, fmt.Sprintf("%q", list[i].Name))
		}
		return fault.Conflict("calendar %q is used by %d job(s) (%s): remove it from them first", c.Name, len(list), strings.Join(names, ", "))
	}
	return notFound(tx.CalendarDelete(ctx, c.ID), "calendar")
}
