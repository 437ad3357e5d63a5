package execution

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// An instance no connected worker qualifies for records each worker and
// the filter that ruled it out while it waits, once per distinct finding,
// and keeps it when it fails NO_WORKER.
func TestNoWorkerRecordsEachWorkersFilter(t *testing.T) {
	m := newSim(t)
	m.join("w2", 4, "blue")
	m.join("w1", 4)
	j := job(1, func(j *db.Job) { j.WorkerFilter.Tags = []string{"red"} })
	c := m.fire(j, 10)
	if len(c.noWorker) != 1 || c.noWorker[0].ID != 10 {
		t.Fatalf("noWorker = %+v; want instance 10's finding", c.noWorker)
	}
	nw := c.noWorker[0].NoWorker
	if !nw.At.Equal(t0) || len(nw.Workers) != 2 || nw.Workers[0].Worker != "w1" || nw.Workers[1].Worker != "w2" {
		t.Fatalf("finding = %+v; want w1 and w2 at %v", nw, t0)
	}
	for _, v := range nw.Workers {
		if v.Filter != db.FilterTag || v.Reason != `lacks tag "red"` {
			t.Errorf("%s: %s %q; want TAG lacks tag \"red\"", v.Worker, v.Filter, v.Reason)
		}
	}

	// Looked at again a second later: nothing new to record.
	m.s.now = t0.Add(time.Second)
	if c := m.fire(j, 10); len(c.noWorker) != 0 {
		t.Fatalf("the same finding recorded again: %+v", c.noWorker)
	}
	// A worker more is a new finding.
	m.join("w3", 4, "green")
	if c := m.fire(j, 10); len(c.noWorker) != 1 || len(c.noWorker[0].NoWorker.Workers) != 3 {
		t.Fatalf("after w3 joined: %+v; want a finding of three workers", c.noWorker)
	}
	// Past NoWorkerWait it fails; the finding stands as recorded.
	m.s.now = t0.Add(11 * time.Second)
	c = m.batch(func(c *changes) {
		m.s.fire(c, []firing{{id: 10, at: m.s.now}}, []db.Instance{{ID: 10, AppID: 1, JobID: 1, Status: db.StatusWaiting,
			TriggerType: db.TriggerAPI, TriggerAt: t0, Attempt: 1}}, map[int64]*db.Job{1: j})
	})
	if tr := instanceTo(c, 10); tr == nil || tr.To != db.StatusFailed {
		t.Fatalf("after NoWorkerWait: %+v; want FAILED", tr)
	}
	if len(c.noWorker) != 0 {
		t.Fatalf("unchanged finding written again as it failed: %+v", c.noWorker)
	}
}

// The actor writes the finding to the instance in its batch, on both
// databases.
func TestNoWorkerFindingIsStored(t *testing.T) {
	t.Parallel()
	for _, dialect := range []db.Dialect{db.SQLite, db.Postgres} {
		t.Run(string(dialect), func(t *testing.T) {
			b := setup(t, dialect)
			b.join("w1", 4)
			j := b.job(func(j *db.Job) { j.WorkerFilter.Tags = []string{"gpu"} })
			id := b.fire(j)
			b.e.Fire([]int64{id}, db.Now().Add(150*time.Millisecond))
			b.waitStatus(id, db.StatusFailed)
			in, err := b.d.InstanceGet(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if in.NoWorker == nil || len(in.NoWorker.Workers) != 1 {
				t.Fatalf("stored finding = %+v; want w1's", in.NoWorker)
			}
			if v := in.NoWorker.Workers[0]; v.Worker != "w1" || v.Host != "w1" || v.Filter != db.FilterTag || v.Reason != `lacks tag "gpu"` {
				t.Fatalf("stored verdict = %+v", v)
			}
		})
	}
}

// Several findings of one batch are written in one statement, each to its
// instance.
func TestNoWorkerFindingsOfABatch(t *testing.T) {
	t.Parallel()
	for _, dialect := range []db.Dialect{db.SQLite, db.Postgres} {
		t.Run(string(dialect), func(t *testing.T) {
			b := setup(t, dialect)
			j := b.job(nil)
			ctx := context.Background()
			var list []db.InstanceNoWorker
			for i := range 3 {
				in := &db.Instance{AppID: b.app, JobID: j.ID, Status: db.StatusWaiting, TriggerType: db.TriggerAPI, TriggerAt: db.Now()}
				if err := b.d.InstanceCreate(ctx, in); err != nil {
					t.Fatal(err)
				}
				list = append(list, db.InstanceNoWorker{ID: in.ID, NoWorker: &db.NoWorker{At: db.Now(), Workers: []db.WorkerVerdict{
					{Worker: fmt.Sprintf("w%d", i), Host: "h", Filter: db.FilterFull, Reason: "has no free slot (4 slots)"}}}})
			}
			if err := b.d.InstanceSetNoWorkerMany(ctx, list); err != nil {
				t.Fatal(err)
			}
			for i, r := range list {
				in, err := b.d.InstanceGet(ctx, r.ID)
				if err != nil {
					t.Fatal(err)
				}
				if in.NoWorker == nil || len(in.NoWorker.Workers) != 1 || in.NoWorker.Workers[0].Worker != fmt.Sprintf("w%d", i) {
					t.Fatalf("instance %d: %+v", r.ID, in.NoWorker)
				}
			}
		})
	}
}
