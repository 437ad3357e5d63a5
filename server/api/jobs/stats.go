package jobs

import (
	"context"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// JobStats is how one job's instances ended within a window.
type JobStats struct {
	Succeeded, Failed, Stopped, Canceled int
	Outcomes                             []db.OutcomeBucket
}

// JobStats counts the outcomes of a job the caller already read over the
// last `hours` hours.
func (s *Service) JobStats(ctx context.Context, job *db.Job, hours int) (*JobStats, error) {
	if hours < 1 || hours > 168 {
		return nil, fault.BadInput("hours", "must be between 1 and 168")
	}
	st := &JobStats{}
	var err error
	if st.Outcomes, err = s.db.JobOutcomes(ctx, job.ID, s.now().Add(-time.Duration(hours)*time.Hour).Truncate(time.Hour)); err != nil {
		return nil, err
	}
	for _, b := range st.Outcomes {
		st.Succeeded += b.Succeeded
		st.Failed += b.Failed
		st.Stopped += b.Stopped
		st.Canceled += b.Canceled
	}
	return st, nil
}

// Stats is an app at a glance.
type Stats struct {
	Jobs, EnabledJobs, Waiting, Running, Succeeded, Failed, WorkersAlive int
	Outcomes                                                             []db.OutcomeBucket
	// AppID and Since are what was counted, for the on-call figures
	// (oncall.go), read only when asked for.
	AppID int64
	Since time.Time
	Hours int
}

// Stats counts an app's jobs, instances and workers; finished instances
// over the last `hours` hours. The caller's access is checked each time;
// the counts are read once for every caller asking about the same app
// while they are being read (counts.go).
func (s *Service) Stats(ctx context.Context, appName string, hours int) (*Stats, error) {
	if hours < 1 || hours > maxStatsHours {
		return nil, fault.BadInput("hours", "must be between 1 and 168")
	}
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return nil, err
	}
	now := s.now()
	c, err := s.appCounts(ctx, app.ID)
	if err != nil {
		return nil, err
	}
	st := &Stats{AppID: app.ID, Since: now.Add(-time.Duration(hours) * time.Hour), Hours: hours,
		Jobs: c.jobs, EnabledJobs: c.enabled, Waiting: c.waiting, Running: c.running, WorkersAlive: c.workersAlive}
	// The counts hold a whole week per hour: this window's hours.
	from := now.Add(-time.Duration(hours) * time.Hour).Truncate(time.Hour)
	for _, b := range c.outcomes {
		if b.Start.Before(from) {
			continue
		}
		st.Outcomes = append(st.Outcomes, b)
		st.Succeeded += b.Succeeded
		st.Failed += b.Failed
	}
	return st, nil
}
