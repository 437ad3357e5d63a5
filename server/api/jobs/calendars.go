package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/text"
	"github.com/jobwheel/jobwheel/server/schedule"
)

// CalendarInput is a calendar as the API receives it.
type CalendarInput struct {
	App         string
	Name        string
	Description string
	Dates       []string
}

// calendarNamed resolves a job's calendar by name in its app; nil or ""
// is none.
func (s *Service) calendarNamed(ctx context.Context, appID int64, name *string) (*db.Calendar, error) {
	if name == nil || strings.TrimSpace(*name) == "" {
		return nil, nil
	}
	c, err := s.db.CalendarGetByName(ctx, appID, strings.TrimSpace(*name))
	if errors.Is(err, db.ErrNotFound) {
		return nil, fault.BadInput("calendar", "the app has no calendar named %q", *name)
	}
	return c, err
}

// buildCalendar validates a calendar's input.
func buildCalendar(in CalendarInput, appID int64) (*db.Calendar, error) {
	c := &db.Calendar{AppID: appID, Name: strings.TrimSpace(in.Name), Description: in.Description}
	switch {
	case c.Name == "":
		return nil, fault.BadInput("name", "must not be empty")
	case utf8.RuneCountInString(c.Name) > 128:
		return nil, fault.BadInput("name", "must be at most 128 characters")
	case len(c.Description) > 2000:
		return nil, fault.BadInput("description", "must be at most 2000 characters")
	}
	if err := text.Line("name", c.Name); err != nil {
		return nil, err
	}
	if err := text.Bytes("description", c.Description); err != nil {
		return nil, err
	}
	dates, err := schedule.NormalizeDates("dates", in.Dates)
	if err != nil {
		return nil, err
	}
	c.Dates = dates
	return c, nil
}

// CreateCalendar stores a new calendar of excluded dates (EDITOR).
func (s *Service) CreateCalendar(ctx context.Context, in CalendarInput) (*db.Calendar, error) {
	app, err := s.apps.ByName(ctx, in.App, db.RoleEditor)
	if err != nil {
		return nil, asInput("app", err)
	}
	c, err := buildCalendar(in, app.ID)
	if err != nil {
		return nil, err
	}
	if err := s.db.CalendarCreate(ctx, c); err != nil {
		if errors.Is(err, db.ErrConflict) {
			return nil, fault.BadInput("name", "app %q already has a calendar named %q", app.Name, c.Name)
		}
		return nil, err
	}
	return c, nil
}

// UpdateCalendar replaces a calendar. The jobs referencing it take its new
// dates in the same transaction: their copy of the dates and their next
// fire are rewritten, and fires recorded ahead are dropped for the trigger
// loop to record afresh.
func (s *Service) UpdateCalendar(ctx context.Context, id int64, in CalendarInput) (*db.Calendar, error) {
	old, err := s.GetCalendar(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	app, err := s.apps.Staying(ctx, old.AppID, in.App, "calendar")
	if err != nil {
		return nil, err
	}
	c, err := buildCalendar(in, app.ID)
	if err != nil {
		return nil, err
	}
	c.ID, c.CreatedAt, c.ManagedBy, c.ManagedSource = old.ID, old.CreatedAt, old.ManagedBy, old.ManagedSource
	err = s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error { return s.UpdateCalendarIn(ctx, tx, c) })
	if err != nil {
		return nil, err
	}
	s.notify.JobsChanged(app.ID)
	return c, nil
}

// DeleteCalendar deletes a calendar no job references; CONFLICT naming
// the jobs otherwise.
func (s *Service) DeleteCalendar(ctx context.Context, id int64) error {
	c, err := s.GetCalendar(ctx, id, db.RoleEditor)
	if err != nil {
		return err
	}
	err = s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error { return s.DeleteCalendarIn(ctx, tx, c) })
	return notFound(err, "calendar")
}

// GetCalendar returns a calendar if the caller holds at least role on its
// app.
func (s *Service) GetCalendar(ctx context.Context, id int64, role db.Role) (*db.Calendar, error) {
	return auth.ReadInApp(ctx, s.auth, fmt.Sprintf("calendar %d", id), role,
		func(ctx context.Context) (*db.Calendar, error) { return s.db.CalendarGet(ctx, id) },
		func(c *db.Calendar) int64 { return c.AppID })
}

// Calendars lists an app's calendars (VIEWER).
func (s *Service) Calendars(ctx context.Context, appName string) ([]db.Calendar, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return nil, err
	}
	return s.db.CalendarList(ctx, app.ID)
}

// CalendarJobs lists the jobs referencing a calendar the caller has read.
func (s *Service) CalendarJobs(ctx context.Context, c *db.Calendar) ([]db.Job, error) {
	return s.db.JobListByCalendar(ctx, c.ID)
}

// CalendarOf returns a job's calendar (read with the job).
func (s *Service) CalendarOf(ctx context.Context, j *db.Job) (*db.Calendar, error) {
	if j.CalendarID == nil {
		return nil, nil
	}
	c, err := s.db.CalendarGet(ctx, *j.CalendarID)
	if errors.Is(err, db.ErrNotFound) {
		return nil, nil
	}
	return c, err
}

// PreviewCalendarDates returns the dates of an app's calendar, for
// previewSchedule (VIEWER).
func (s *Service) PreviewCalendarDates(ctx context.Context, appName, name string) ([]string, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return nil, asInput("app", err)
	}
	c, err := s.calendarNamed(ctx, app.ID, &name)
	if err != nil || c == nil {
		return nil, err
	}
	return c.Dates, nil
}
