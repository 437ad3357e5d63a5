package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
)

// A pool's holders and queue are read from the instances alone: its
// DISPATCHED and RUNNING instances, and its WAITING ones marked POOL_FULL
// by job priority then fire time; the trigger loop never reads a waiting
// one as due.
func TestPoolHoldersAndQueue(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		p := &db.Pool{AppID: app.ID, Name: "db", Slots: 2}
		if err := d.PoolCreate(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := d.PoolCreate(ctx, &db.Pool{AppID: app.ID, Name: "db", Slots: 1}); !errors.Is(err, db.ErrConflict) {
			t.Fatalf("a second pool named db: %v; want ErrConflict", err)
		}
		low := testfactory.Job(t, d, app.ID, &testfactory.JobOpts{Edit: func(j *db.Job) { j.Pool, j.PoolSlots = "db", 1 }})
		high := testfactory.Job(t, d, app.ID, &testfactory.JobOpts{Edit: func(j *db.Job) { j.Pool, j.PoolSlots, j.Priority = "db", 1, 5 }})
		base := db.Now().Add(-time.Minute)
		holder := testfactory.Instance(t, d, low, &testfactory.InstanceOpts{Status: db.StatusRunning, TriggerAt: base})
		mk := func(j *db.Job, at time.Time) *db.Instance {
			return testfactory.Instance(t, d, j, &testfactory.InstanceOpts{TriggerAt: at, Edit: func(in *db.Instance) { in.Reason = db.ReasonPoolFull }})
		}
		first := mk(low, base.Add(time.Second))
		urgent := mk(high, base.Add(2*time.Second))
		if err := d.InstanceSetPoolMany(ctx, []db.InstancePool{{ID: holder.ID, Pool: "db", Slots: 1},
			{ID: first.ID, Pool: "db", Slots: 1}, {ID: urgent.ID, Pool: "db", Slots: 1}}); err != nil {
			t.Fatal(err)
		}
		holders, err := d.InstanceListPoolHolders(ctx, app.ID, "db")
		if err != nil || len(holders) != 1 || holders[0].ID != holder.ID || *holders[0].Pool != "db" || *holders[0].PoolSlots != 1 {
			t.Fatalf("holders %+v, %v; want the running instance", holders, err)
		}
		queue, err := d.InstanceListPoolWaiting(ctx, app.ID, "db")
		if err != nil || len(queue) != 2 || queue[0].ID != urgent.ID || queue[1].ID != first.ID {
			t.Fatalf("queue %+v, %v; want the priority 5 job's instance first", queue, err)
		}
		due, err := d.InstanceListWaitingDue(ctx, app.ID, db.Now(), 100)
		if err != nil || len(due) != 0 {
			t.Fatalf("due %+v, %v; instances waiting for their pool are the actor's, not the trigger loop's", due, err)
		}
		if jobs, err := d.JobListByPool(ctx, app.ID, "db"); err != nil || len(jobs) != 2 {
			t.Fatalf("jobs of the pool: %d, %v", len(jobs), err)
		}
		p.Slots = 4
		if err := d.PoolUpdate(ctx, p); err != nil {
			t.Fatal(err)
		}
		got, err := d.PoolGetByName(ctx, app.ID, "db")
		if err != nil || got.Slots != 4 {
			t.Fatalf("after the update: %+v, %v", got, err)
		}
	})
}
