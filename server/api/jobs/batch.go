package jobs

import (
	"context"
	"errors"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// GetMany returns the jobs among ids whose app the caller holds at least
// role on, by id; the others are missing, as if they did not exist. It is
// the batch read behind the API's dataloaders: one query for the jobs,
// and one role check per distinct app (remembered for the request).
func (s *Service) GetMany(ctx context.Context, ids []int64, role db.Role) (map[int64]*db.Job, error) {
	list, err := s.db.JobListByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*db.Job, len(list))
	allowed := map[int64]bool{}
	for i := range list {
		j := &list[i]
		ok, seen := allowed[j.AppID]
		if !seen {
			err := s.auth.Require(ctx, j.AppID, role)
			switch {
			case err == nil:
				ok = true
			case errors.Is(err, fault.ErrNotFound), errors.Is(err, fault.ErrForbidden):
			default:
				return nil, err
			}
			allowed[j.AppID] = ok
		}
		if ok {
			out[j.ID] = j
		}
	}
	return out, nil
}

// Count counts an app's jobs matching search ("" for all).
func (s *Service) Count(ctx context.Context, appName, search string) (int, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return 0, err
	}
	return s.db.JobCountMatching(ctx, app.ID, search)
}

// LastRunsMany returns the newest fired instance of each of jobs the
// caller already read (jobs that never fired are missing).
func (s *Service) LastRunsMany(ctx context.Context, jobIDs []int64) (map[int64]*db.Instance, error) {
	m, err := s.db.InstanceListLast(ctx, jobIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*db.Instance, len(m))
	for id, in := range m {
		out[id] = &in
	}
	return out, nil
}

// AttemptsMany returns the attempt rows of instances the caller already
// read; db.AttemptsWithCurrent adds the current attempt from the
// instance row.
func (s *Service) AttemptsMany(ctx context.Context, instanceIDs []int64) (map[int64][]db.InstanceAttempt, error) {
	return s.db.AttemptListByInstances(ctx, instanceIDs)
}

// TaskCountsMany summarises the tasks of instances the caller already read.
func (s *Service) TaskCountsMany(ctx context.Context, instanceIDs []int64) (map[int64]db.TaskCounts, error) {
	out, err := s.db.TaskCountsByInstance(ctx, instanceIDs)
	if err != nil {
		return nil, err
	}
	for _, id := range instanceIDs {
		c := out[id]
		c.InstanceID = id
		out[id] = c
	}
	return out, nil
}
