package graph

import (
	"context"
	"slices"

	"github.com/jobwheel/jobwheel/db"
)

// linkedWorkflows reads the workflows of links, in id order, as the caller
// may see them (the links are within one app, which the caller has read).
func (r *Resolver) linkedWorkflows(ctx context.Context, ids []int64) ([]*db.Workflow, error) {
	got, err := r.workflows.GetMany(ctx, ids, db.RoleViewer)
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	out := make([]*db.Workflow, 0, len(ids))
	for _, id := range ids {
		if w := got[id]; w != nil {
			out = append(out, w)
		}
	}
	return out, nil
}
