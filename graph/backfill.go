package graph

import (
	"context"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/graph/model"
	"github.com/jobwheel/jobwheel/server/api/backfills"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// backfillInput reads backfillWorkflow's and backfillJob's input.
func backfillInput(in model.BackfillInput) (backfills.Input, error) {
	out := backfills.Input{From: time.Time(in.From), To: time.Time(in.To), Parallelism: 1}
	if in.Parallelism != nil {
		out.Parallelism = *in.Parallelism
	}
	if in.Params != nil {
		out.Params = *in.Params
	}
	if in.Context != nil {
		m, ok := in.Context.(map[string]any)
		if !ok {
			return out, fault.BadInput("input.context", "must be a JSON object, e.g. {\"region\": \"eu\"}")
		}
		out.Context = m
	}
	return out, nil
}

// backfillView is a backfill with its progress.
func (r *Resolver) backfillView(ctx context.Context, b *db.Backfill) (*backfills.View, error) {
	list, err := r.backfills.Views(ctx, []db.Backfill{*b})
	if err != nil {
		return nil, err
	}
	return list[0], nil
}
