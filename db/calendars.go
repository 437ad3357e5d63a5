package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Calendar is a named set of dates, per app, on which the jobs that
// reference it do not fire (holidays).
type Calendar struct {
	bun.BaseModel `bun:"table:calendars,alias:cal"`

	ID          int64  `bun:"id,pk,autoincrement"`
	AppID       int64  `bun:"app_id,notnull"`
	Name        string `bun:"name,notnull"`
	Description string `bun:"description,notnull"`
	// Dates are "YYYY-MM-DD", sorted, each once.
	Dates []string `bun:"dates,notnull,type:json"`
	// ManagedBy is the file set the calendar belongs to (nil: made through
	// the API or console); ManagedSource is then ManagedFiles.
	ManagedBy     *string   `bun:"managed_by"`
	ManagedSource *string   `bun:"managed_source"`
	CreatedAt     time.Time `bun:"created_at,notnull"`
	UpdatedAt     time.Time `bun:"updated_at,notnull"`
}

// CalendarCreate inserts a calendar; ErrConflict if the app already has
// one of that name.
func (s *Store) CalendarCreate(ctx context.Context, c *Calendar) error {
	now := Now()
	c.CreatedAt, c.UpdatedAt = now, now
	_, err := s.idb.NewInsert().Model(c).Returning("id").Exec(ctx)
	return wrap(err, "creating calendar "+c.Name)
}

// CalendarUpdate replaces a calendar's name, description, dates and
// managed set.
func (s *Store) CalendarUpdate(ctx context.Context, c *Calendar) error {
	c.UpdatedAt = Now()
	res, err := s.idb.NewUpdate().Model(c).Column("name", "description", "dates", "managed_by", "managed_source", "updated_at").WherePK().Exec(ctx)
	return expectOne(res, err, "updating calendar")
}

// CalendarDelete deletes a calendar.
func (s *Store) CalendarDelete(ctx context.Context, id int64) error {
	res, err := s.idb.NewDelete().Model((*Calendar)(nil)).Where("id = ?", id).Exec(ctx)
	return expectOne(res, err, "deleting calendar")
}

// CalendarGet returns a calendar by id.
func (s *Store) CalendarGet(ctx context.Context, id int64) (*Calendar, error) {
	c := new(Calendar)
	err := s.idb.NewSelect().Model(c).Where("id = ?", id).Scan(ctx)
	return c, wrap(err, "reading calendar")
}

// CalendarGetByName returns an app's calendar by name.
func (s *Store) CalendarGetByName(ctx context.Context, appID int64, name string) (*Calendar, error) {
	c := new(Calendar)
	err := s.idb.NewSelect().Model(c).Where("app_id = ? AND name = ?", appID, name).Scan(ctx)
	return c, wrap(err, "reading calendar "+name)
}

// CalendarList returns an app's calendars by name.
func (s *Store) CalendarList(ctx context.Context, appID int64) ([]Calendar, error) {
	var out []Calendar
	err := s.idb.NewSelect().Model(&out).Where("app_id = ?", appID).OrderExpr("name").Scan(ctx)
	return out, wrap(err, "listing calendars")
}

// JobListByCalendar returns the jobs referencing a calendar, by name.
func (s *Store) JobListByCalendar(ctx context.Context, calendarID int64) ([]Job, error) {
	var out []Job
	err := s.idb.NewSelect().Model(&out).Where("calendar_id = ?", calendarID).OrderExpr("name").Scan(ctx)
	return out, wrap(err, "listing the jobs of a calendar")
}

// JobSetExcludedDates rewrites a job's copy of its calendar's dates and
// its next trigger time (computed with them).
func (s *Store) JobSetExcludedDates(ctx context.Context, id int64, dates []string, next *time.Time) error {
	j := &Job{ID: id, ExcludedDates: dates, NextTriggerAt: next, UpdatedAt: Now()}
	res, err := s.idb.NewUpdate().Model(j).Column("excluded_dates", "next_trigger_at", "updated_at").WherePK().Exec(ctx)
	return expectOne(res, err, "updating a job's excluded dates")
}

// JobGetByName returns an app's job by name.
func (s *Store) JobGetByName(ctx context.Context, appID int64, name string) (*Job, error) {
	j := new(Job)
	err := s.idb.NewSelect().Model(j).Where("app_id = ? AND name = ?", appID, name).Scan(ctx)
	return j, wrap(err, "reading job "+name)
}

// JobListManagedBy returns an app's jobs of a managed set (source
// ManagedCode or ManagedFiles), by name.
func (s *Store) JobListManagedBy(ctx context.Context, appID int64, source, set string) ([]Job, error) {
	var out []Job
	err := s.idb.NewSelect().Model(&out).Where("app_id = ? AND managed_by = ? AND managed_source = ?", appID, set, source).
		OrderExpr("name").Scan(ctx)
	return out, wrap(err, "listing the jobs of a managed set")
}

// CalendarListManagedBy returns an app's calendars of a managed set, by
// name.
func (s *Store) CalendarListManagedBy(ctx context.Context, appID int64, source, set string) ([]Calendar, error) {
	var out []Calendar
	err := s.idb.NewSelect().Model(&out).Where("app_id = ? AND managed_by = ? AND managed_source = ?", appID, set, source).
		OrderExpr("name").Scan(ctx)
	return out, wrap(err, "listing the calendars of a managed set")
}
