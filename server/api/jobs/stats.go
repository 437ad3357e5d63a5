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
// over the last `hours` hours.
func (s *Service) Stats(ctx context.Context, appName string, hours int) (*Stats, error) {
	if hours < 1 || hours > 168 {
		return nil, fault.BadInput("hours", "must be between 1 and 168")
	}
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return nil, err
	}
	st := &Stats{AppID: app.ID, Since: s.now().Add(-time.Duration(hours) * time.Hour), Hours: hours}
	if st.Jobs, st.EnabledJobs, err = s.db.JobCount(ctx, app.ID); err != nil {
		return nil, err
	}
	now, err := s.db.InstanceCountsNow(ctx, app.ID)
	if err != nil {
		return nil, err
	}
	st.Waiting = now[db.StatusWaiting]
	st.Running = now[db.StatusDispatched] + now[db.StatusRunning]
	if st.Outcomes, err = s.db.InstanceOutcomes(ctx, app.ID, s.now().Add(-time.Duration(hours)*time.Hour).Truncate(time.Hour)); err != nil {
		return nil, err
	}
	for _, b := range st.Outcomes {
		st.Succeeded += b.Succeeded
		st.Failed += b.Failed
	}
	if st.WorkersAlive, err = s.db.WorkerCountAlive(ctx, app.ID, s.now().Add(-db.WorkerAliveWindow)); err != nil {
		return nil, err
	}
	return st, nil
}
