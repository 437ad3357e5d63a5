package e2e

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestConsistentHashDispatch: on a real server over PostgreSQL with three
// real agents, a CONSISTENT_HASH job's 100 runs whose params carry one key
// ({"key": …}, as docs/design.md §6.4 says) all run on one worker, and
// runs with different keys spread over more than one worker. A
// LEAST_RECENTLY_USED job's runs, one after another, take the three
// workers in turn.
func TestConsistentHashDispatch(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, dbtest.NewSchema(t), 3)

	hashed := cl.job(t, map[string]any{"name": "by-customer", "processorType": "GO", "processor": "example.noop",
		"dispatchStrategy": "CONSISTENT_HASH", "maxInstances": 100})
	// runAll starts one run per params, then waits for each and returns the
	// worker each ran on.
	runAll := func(job string, params []string) []string {
		t.Helper()
		ids := make([]string, len(params))
		for i, p := range params {
			ids[i] = cl.runWith(t, job, p)
		}
		workers := make([]string, len(ids))
		for i, id := range ids {
			in := cl.waitLong(t, id, "SUCCEEDED")
			if in.Worker == nil {
				t.Fatalf("instance %s (params %s) succeeded on no worker", id, params[i])
			}
			workers[i] = in.Worker.ID
		}
		return workers
	}

	t.Run("one key, one worker across 100 runs", func(t *testing.T) {
		same := make([]string, 100)
		for i := range same {
			same[i] = `{"key": "customer-42", "run": ` + fmt.Sprint(i) + `}`
		}
		workers := runAll(hashed, same)
		if used := distinct(workers); len(used) != 1 {
			t.Fatalf("the runs of key customer-42 ran on %d workers: %v", len(used), used)
		}
	})

	t.Run("different keys spread over the workers", func(t *testing.T) {
		// 30 keys all on one of 3 workers by chance: 3 × (1/3)^30.
		var keys []string
		for i := range 30 {
			keys = append(keys, fmt.Sprintf(`{"key": "customer-%d"}`, i))
		}
		workers := runAll(hashed, keys)
		if used := distinct(workers); len(used) < 2 {
			t.Fatalf("30 keys all ran on %v", used)
		}
		// And each key again goes where it went first.
		again := runAll(hashed, keys)
		for i := range keys {
			if again[i] != workers[i] {
				t.Errorf("key %s ran on %s, then on %s", keys[i], workers[i], again[i])
			}
		}
	})

	t.Run("least recently used takes the workers in turn", func(t *testing.T) {
		lru := cl.job(t, map[string]any{"name": "in-turn", "processorType": "GO", "processor": "example.noop",
			"dispatchStrategy": "LEAST_RECENTLY_USED"})
		var workers []string
		// One at a time: each pick sees the one before it.
		for range 6 {
			workers = append(workers, runAll(lru, []string{""})...)
		}
		for i := 0; i+3 <= len(workers); i++ {
			if used := distinct(workers[i : i+3]); len(used) != 3 {
				t.Fatalf("runs %d to %d ran on %v; want three different workers in turn (all runs: %v)", i+1, i+3, workers[i:i+3], workers)
			}
		}
	})
}

// distinct lists the different values, sorted.
func distinct(values []string) []string {
	set := map[string]bool{}
	for _, v := range values {
		set[v] = true
	}
	return slices.Sorted(maps.Keys(set))
}
