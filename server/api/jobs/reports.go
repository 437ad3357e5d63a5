package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// MaxReportDays bounds a run report's range, so one report reads at most a
// quarter's finished instances.
const MaxReportDays = 92

// RunReportInput selects a run report: an app's (or, with App "", every
// app the caller sees), optionally one job's, over [From, To), cut into
// the days of TimeZone.
type RunReportInput struct {
	App      string
	JobID    int64
	From, To time.Time
	TimeZone string
}

// ReportDay is one day of a report: its date in the report's zone, when it
// starts and ends (within the range), and its runs' counts over all jobs.
type ReportDay struct {
	Date                                       string
	Start, End                                 time.Time
	Runs, Succeeded, Failed, Stopped, Canceled int
}

// RunReport is what runReport answers.
type RunReport struct {
	From, To time.Time
	TimeZone string
	Days     []ReportDay
	// Rows are per day and job, by day then job id; days without runs of
	// a job have no row for it.
	Rows []db.RunReportRow
}

// Report counts runs per day and job over a range of at most
// MaxReportDays, in the database.
func (s *Service) Report(ctx context.Context, in RunReportInput) (*RunReport, error) {
	if in.TimeZone == "" {
		in.TimeZone = "UTC"
	}
	loc, err := time.LoadLocation(in.TimeZone)
	if err != nil {
		return nil, fault.BadInput("timeZone", "%q is not an IANA time zone such as Asia/Shanghai", in.TimeZone)
	}
	if !in.To.After(in.From) {
		return nil, fault.BadInput("to", "must be after from")
	}
	if in.To.Sub(in.From) > MaxReportDays*24*time.Hour {
		return nil, fault.BadInput("to", "the range may span at most %d days; this one spans %.1f", MaxReportDays, in.To.Sub(in.From).Hours()/24)
	}
	q := db.RunReportQuery{JobID: in.JobID, From: db.Stamp(in.From), To: db.Stamp(in.To)}
	switch {
	case in.JobID != 0:
		job, err := s.db.JobGet(ctx, in.JobID)
		if errors.Is(err, db.ErrNotFound) {
			return nil, fault.NotFound(fmt.Sprintf("job %d", in.JobID))
		}
		if err != nil {
			return nil, err
		}
		app, err := s.apps.ByID(ctx, job.AppID, db.RoleViewer)
		if err != nil {
			if errors.Is(err, fault.ErrNotFound) {
				return nil, fault.NotFound(fmt.Sprintf("job %d", in.JobID))
			}
			return nil, err
		}
		if in.App != "" && app.Name != in.App {
			return nil, fault.BadInput("jobId", "job %d is not of app %q", in.JobID, in.App)
		}
		q.AppIDs = []int64{app.ID}
	case in.App != "":
		app, err := s.apps.ByName(ctx, in.App, db.RoleViewer)
		if err != nil {
			return nil, err
		}
		q.AppIDs = []int64{app.ID}
	default:
		apps, err := s.apps.Visible(ctx)
		if err != nil {
			return nil, err
		}
		for _, a := range apps {
			q.AppIDs = append(q.AppIDs, a.ID)
		}
	}
	rep := &RunReport{From: q.From, To: q.To, TimeZone: loc.String()}
	// The days of the zone that overlap the range: the first starts at
	// From, each next one at the zone's next midnight (AddDate keeps the
	// calendar, so a day of a change to or from summer time has 23 or 25
	// hours).
	start := q.From
	for start.Before(q.To) {
		y, m, d := start.In(loc).Date()
		end := time.Date(y, m, d+1, 0, 0, 0, 0, loc).UTC()
		if end.After(q.To) {
			end = q.To
		} else {
			q.DayEnds = append(q.DayEnds, end)
		}
		rep.Days = append(rep.Days, ReportDay{Date: fmt.Sprintf("%04d-%02d-%02d", y, m, d), Start: start, End: end})
		start = end
	}
	if n := len(q.DayEnds); n > 0 && q.DayEnds[n-1].Equal(q.To) {
		q.DayEnds = q.DayEnds[:n-1]
	}
	if rep.Rows, err = s.db.InstanceRunReport(ctx, q); err != nil {
		return nil, err
	}
	for i := range rep.Rows {
		r := &rep.Rows[i]
		d := &rep.Days[r.Day]
		r.Date = d.Date
		d.Runs += r.Runs
		d.Succeeded += r.Succeeded
		d.Failed += r.Failed
		d.Stopped += r.Stopped
		d.Canceled += r.Canceled
	}
	return rep, nil
}

// AppOverview is one app of the cross-app overview.
type AppOverview struct {
	App *db.App
	db.AppOverview
}

// Overview gives each app the caller sees at a glance: its jobs, the runs
// that finished today (in timeZone) and how many failed, its running
// instances and its live workers.
func (s *Service) Overview(ctx context.Context, timeZone string) ([]AppOverview, error) {
	if timeZone == "" {
		timeZone = "UTC"
	}
	loc, err := time.LoadLocation(timeZone)
	if err != nil {
		return nil, fault.BadInput("timeZone", "%q is not an IANA time zone such as Asia/Shanghai", timeZone)
	}
	apps, err := s.apps.Visible(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(apps))
	for i := range apps {
		ids[i] = apps[i].ID
	}
	now := s.now()
	y, m, d := now.In(loc).Date()
	counts, err := s.db.AppOverviewList(ctx, ids, db.Stamp(time.Date(y, m, d, 0, 0, 0, 0, loc)), now.Add(-db.WorkerAliveWindow))
	if err != nil {
		return nil, err
	}
	out := make([]AppOverview, len(apps))
	for i := range apps {
		out[i] = AppOverview{App: &apps[i], AppOverview: *counts[apps[i].ID]}
	}
	return out, nil
}
