package jobs_test

import (
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/server/api/jobs"
)

// The overlap policy, priority and retry back-off fields: defaults that
// keep the old behaviour, stored and kept in versions, refused naming the
// field when out of range.
func TestOverlapAndBackoffFields(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		j, err := w.svc.Create(w.ed, cronJob("a", "plain"))
		if err != nil {
			t.Fatal(err)
		}
		if j.OverlapPolicy != db.OverlapCancel || j.MaxQueued != jobs.DefaultMaxQueued || j.Priority != 0 || j.RetryDelayMs != 0 ||
			j.RetryBackoff != 1 || j.RetryDelayMaxMs != 0 {
			t.Fatalf("defaults: %+v", j)
		}

		in := cronJob("a", "queued")
		in.OverlapPolicy, in.MaxQueued, in.Priority = new(db.OverlapQueue), new(3), new(-7)
		in.RetryDelayMs, in.RetryBackoff, in.RetryDelayMaxMs = new(2000), new(2.5), new(60000)
		j, err = w.svc.Create(w.ed, in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.JobGet(w.admin, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.OverlapPolicy != db.OverlapQueue || got.MaxQueued != 3 || got.Priority != -7 || got.RetryDelayMs != 2000 ||
			got.RetryBackoff != 2.5 || got.RetryDelayMaxMs != 60000 {
			t.Fatalf("stored: %+v", got)
		}
		// A change is versioned with the new fields, and restoring the
		// first version brings them back.
		in.OverlapPolicy, in.RetryBackoff = new(db.OverlapReplace), new(1.0)
		if _, err := w.svc.Update(w.ed, j.ID, in); err != nil {
			t.Fatal(err)
		}
		restored, err := w.svc.Restore(w.ed, j.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if restored.OverlapPolicy != db.OverlapQueue || restored.RetryBackoff != 2.5 || restored.MaxQueued != 3 || restored.Priority != -7 {
			t.Fatalf("restored version 1: %+v", restored)
		}

		for field, mutate := range map[string]func(*jobs.Input){
			"overlapPolicy":   func(in *jobs.Input) { in.OverlapPolicy = new("SOMETIMES") },
			"maxQueued":       func(in *jobs.Input) { in.MaxQueued = new(0) },
			"priority":        func(in *jobs.Input) { in.Priority = new(1001) },
			"retryDelayMs":    func(in *jobs.Input) { in.RetryDelayMs = new(-1) },
			"retryBackoff":    func(in *jobs.Input) { in.RetryBackoff = new(0.5) },
			"retryDelayMaxMs": func(in *jobs.Input) { in.RetryDelayMs, in.RetryDelayMaxMs = new(5000), new(1000) },
		} {
			in := cronJob("a", "x")
			mutate(&in)
			_, err := w.svc.Create(w.ed, in)
			wantBadInput(t, field, err, field)
		}
	})
}
