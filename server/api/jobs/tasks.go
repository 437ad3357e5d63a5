package jobs

import (
	"context"
	"errors"

	"github.com/jobwheel/jobwheel/db"
)

// The API's view of an instance's tasks. The caller already read the
// instance, which checked the caller's role on its app; these only read.

// Tasks returns a page of the instance's current attempt's tasks by id
// (q.InstanceID and q.Attempt are taken from the instance), and whether
// more follow.
func (s *Service) Tasks(ctx context.Context, in *db.Instance, q db.TaskQuery) ([]db.TaskView, bool, error) {
	q.InstanceID, q.Attempt = in.ID, in.Attempt
	list, more, err := s.db.TaskViewList(ctx, q)
	if err != nil {
		return nil, false, err
	}
	for i := range list {
		list[i].AppID = in.AppID
	}
	return list, more, nil
}

// TaskCount counts the tasks a Tasks query lists over every page.
func (s *Service) TaskCount(ctx context.Context, q db.TaskQuery) (int, error) {
	return s.db.TaskCount(ctx, q)
}

// Task returns one task of the instance, or nil if it has none with that id.
func (s *Service) Task(ctx context.Context, in *db.Instance, taskID int64) (*db.TaskView, error) {
	t, err := s.db.TaskViewGet(ctx, in.ID, taskID)
	if errors.Is(err, db.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t.AppID = in.AppID
	return t, nil
}
