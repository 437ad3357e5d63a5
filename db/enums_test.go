package db_test

import (
	"context"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// Every dispatch strategy fits its column: PostgreSQL refused
// LEAST_RECENTLY_USED in the first VARCHAR(16) (SQLite does not check).
func TestEveryDispatchStrategyIsStored(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		app := newApp(t, d)
		for _, s := range db.DispatchStrategies {
			j := newJob(t, d, app.ID, "by-"+s, nil)
			j.DispatchStrategy = s
			if err := d.JobUpdate(context.Background(), j); err != nil {
				t.Fatalf("a job dispatched by %s: %v", s, err)
			}
			got, err := d.JobGet(context.Background(), j.ID)
			if err != nil || got.DispatchStrategy != s {
				t.Fatalf("read back %+v, %v; want strategy %s", got, err, s)
			}
		}
	})
}
