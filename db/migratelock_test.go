package db_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// Servers starting together on an empty PostgreSQL migrate it once: the
// transaction-level advisory lock lets one migrate while the others wait,
// and they then find nothing left to do. (Through PgBouncer in transaction
// pooling mode: e2e TestClusterFailoverThroughPgBouncer.)
func TestConcurrentMigrationsRunOnce(t *testing.T) {
	t.Parallel()
	u := dbtest.NewSchema(t)
	ctx := context.Background()
	const servers = 4
	errs := make([]error, servers)
	var wg sync.WaitGroup
	for i := range servers {
		d, err := db.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = d.Close() })
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = d.Migrate(ctx)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("server %d: %v", i, err)
		}
	}
	d, err := db.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.Close() }()
	var applied, distinct int
	if err := d.Bun().NewRaw("SELECT count(*), count(DISTINCT name) FROM jobwheel_migrations").Scan(ctx, &applied, &distinct); err != nil {
		t.Fatal(err)
	}
	if applied == 0 || applied != distinct {
		t.Fatalf("%d migrations recorded, %d distinct; want each once", applied, distinct)
	}
	// The lock went with its transactions: one more server migrates at once.
	if err := d.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
}
