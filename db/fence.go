package db

import (
	"context"
	"errors"

	"github.com/uptrace/bun"
)

// Fence makes engine writes conditional on this server still holding the
// app's lease under the epoch it started with: a server paused past its
// lease cannot move a workflow the new owner runs.
type Fence struct {
	AppID    int64
	ServerID string
	Epoch    int64
}

func (f *Fence) where(q *bun.UpdateQuery) *bun.UpdateQuery {
	if f == nil {
		return q
	}
	return q.Where("EXISTS (SELECT 1 FROM app_leases AS l WHERE l.app_id = ? AND l.server_id = ? AND l.epoch = ?)",
		f.AppID, f.ServerID, f.Epoch)
}

// ErrFenced says a fenced write found the lease moved on.
var ErrFenced = errors.New("the app's lease is no longer this server's")

func (s *Store) fenceHolds(ctx context.Context, f *Fence) (bool, error) {
	n, err := s.idb.NewSelect().TableExpr("app_leases").
		Where("app_id = ? AND server_id = ? AND epoch = ?", f.AppID, f.ServerID, f.Epoch).Count(ctx)
	return n == 1, wrap(err, "checking the app's lease")
}

// FenceHolds says whether this server still holds the app's lease under
// the fence's epoch.
func (s *Store) FenceHolds(ctx context.Context, f *Fence) (bool, error) { return s.fenceHolds(ctx, f) }
