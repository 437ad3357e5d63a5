package db_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

func keyedInstance(w *db.Workflow, key string) *db.WorkflowInstance {
	return &db.WorkflowInstance{AppID: w.AppID, WorkflowID: w.ID, Version: w.Version, Status: db.WorkflowWaiting,
		TriggerType: db.TriggerAPI, TriggerAt: db.Now(), Graph: w.Graph, IdempotencyKey: &key}
}

// Concurrent runs with one idempotency key make exactly one instance, and every
// caller gets that instance; another key, or another workflow, makes its own.
func TestWorkflowInstanceIdempotencyKey(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		w := newWorkflow(t, d, app.ID, "etl")
		since := db.Now().Add(-24 * time.Hour)
		const callers = 20
		ids := make([]int64, callers)
		created := make([]bool, callers)
		errs := make([]error, callers)
		var wg sync.WaitGroup
		for i := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, ok, err := d.WorkflowInstanceCreateIdempotent(ctx, keyedInstance(w, "deploy-42"), since)
				errs[i], created[i] = err, ok
				if err == nil {
					ids[i] = r.ID
				}
			}()
		}
		wg.Wait()
		made := 0
		for i := range callers {
			if errs[i] != nil {
				t.Fatalf("caller %d: %v", i, errs[i])
			}
			if created[i] {
				made++
			}
			if ids[i] != ids[0] || ids[i] == 0 {
				t.Fatalf("caller %d got run %d, caller 0 run %d", i, ids[i], ids[0])
			}
		}
		if made != 1 {
			t.Fatalf("%d callers created a run; want 1", made)
		}
		n, err := d.WorkflowInstanceCount(ctx, db.WorkflowInstanceFilter{AppID: app.ID, WorkflowID: w.ID})
		if err != nil || n != 1 {
			t.Fatalf("%d runs, %v; want 1", n, err)
		}
		other, ok, err := d.WorkflowInstanceCreateIdempotent(ctx, keyedInstance(w, "deploy-43"), since)
		if err != nil || !ok || other.ID == ids[0] {
			t.Fatalf("another key: run %d created %v, %v", other.ID, ok, err)
		}
		w2 := newWorkflow(t, d, app.ID, "etl2")
		if r, ok, err := d.WorkflowInstanceCreateIdempotent(ctx, keyedInstance(w2, "deploy-42"), since); err != nil || !ok || r.ID == ids[0] {
			t.Fatalf("the same key on another workflow: created %v, %v", ok, err)
		}
	})
}

// A key older than the window is released from its instance and the new call
// makes a new instance.
func TestWorkflowInstanceIdempotencyKeyExpires(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		w := newWorkflow(t, d, app.ID, "etl")
		old, ok, err := d.WorkflowInstanceCreateIdempotent(ctx, keyedInstance(w, "k"), db.Now().Add(-24*time.Hour))
		if err != nil || !ok {
			t.Fatalf("first run: %v %v", ok, err)
		}
		// A window starting after the first run was made: its key has expired.
		later := old.CreatedAt.Add(time.Millisecond)
		fresh, ok, err := d.WorkflowInstanceCreateIdempotent(ctx, keyedInstance(w, "k"), later)
		if err != nil || !ok || fresh.ID == old.ID {
			t.Fatalf("after the window: run %d created %v, %v; want a new run", fresh.ID, ok, err)
		}
		got, err := d.WorkflowInstanceGet(ctx, old.ID)
		if err != nil || got.IdempotencyKey != nil {
			t.Fatalf("the old run keeps key %v, %v; want it released", got.IdempotencyKey, err)
		}
		// A window that holds the fresh run (it may share the old instance's
		// millisecond, so not `later`): the key names it.
		again, ok, err := d.WorkflowInstanceCreateIdempotent(ctx, keyedInstance(w, "k"), fresh.CreatedAt)
		if err != nil || ok || again.ID != fresh.ID {
			t.Fatalf("within the new window: run %d created %v, %v; want run %d", again.ID, ok, err, fresh.ID)
		}
	})
}

// Deleting a workflow is refused while an instance of it is RUNNING; otherwise
// its instances and their job instances go with it, and scheduled runs recorded
// ahead can be dropped on their own.
func TestWorkflowDeleteIdle(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		job := newJob(t, d, app.ID, "j", nil)
		w := newWorkflow(t, d, app.ID, "etl")
		wi := keyedInstance(w, "r")
		if _, _, err := d.WorkflowInstanceCreateIdempotent(ctx, wi, db.Now()); err != nil {
			t.Fatal(err)
		}
		in := &db.Instance{AppID: app.ID, JobID: job.ID, Status: db.StatusRunning, TriggerType: db.TriggerWorkflow,
			TriggerAt: db.Now(), WorkflowInstanceID: &wi.ID, WorkflowNodeID: new("a"), WorkflowGeneration: new(1)}
		if err := d.InstanceCreate(ctx, in); err != nil {
			t.Fatal(err)
		}
		if ok, err := d.WorkflowInstanceTransition(ctx, db.WorkflowInstanceTransition{ID: wi.ID, From: []string{db.WorkflowWaiting}, To: db.WorkflowRunning}); !ok || err != nil {
			t.Fatalf("start: %v %v", ok, err)
		}
		if deleted, err := d.WorkflowDeleteIdle(ctx, w.ID); deleted || err != nil {
			t.Fatalf("delete with a running run: %v %v; want refused", deleted, err)
		}
		if ok, err := d.WorkflowInstanceTransition(ctx, db.WorkflowInstanceTransition{ID: wi.ID, From: []string{db.WorkflowRunning}, To: db.WorkflowFailed}); !ok || err != nil {
			t.Fatalf("finish: %v %v", ok, err)
		}
		// Two scheduled runs, one due and one recorded ahead.
		now := db.Now()
		for _, at := range []time.Time{now.Add(-time.Second), now.Add(time.Hour)} {
			r := &db.WorkflowInstance{AppID: app.ID, WorkflowID: w.ID, Version: 1, Status: db.WorkflowWaiting, TriggerType: db.TriggerSchedule,
				ExpectedTriggerAt: &at, TriggerAt: at, Graph: w.Graph}
			if _, err := d.WorkflowInstanceCreate(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.WorkflowInstanceDeleteFutureScheduled(ctx, w.ID, now); err != nil {
			t.Fatal(err)
		}
		if n, _ := d.WorkflowInstanceCount(ctx, db.WorkflowInstanceFilter{AppID: app.ID, WorkflowID: w.ID}); n != 2 {
			t.Fatalf("%d runs after dropping those recorded ahead; want 2 (the API run and the due one)", n)
		}
		if deleted, err := d.WorkflowDeleteIdle(ctx, w.ID); !deleted || err != nil {
			t.Fatalf("delete with no active run: %v %v", deleted, err)
		}
		if _, err := d.InstanceGet(ctx, in.ID); err == nil {
			t.Fatal("the deleted run's job instance is still there")
		}
		if _, err := d.WorkflowGet(ctx, w.ID); err == nil {
			t.Fatal("the workflow is still there")
		}
		if jobs, err := d.JobListByNames(ctx, app.ID, []string{"j", "nope"}); err != nil || len(jobs) != 1 || jobs[0].ID != job.ID {
			t.Fatalf("jobs by name: %+v, %v", jobs, err)
		}
	})
}

// WorkflowByName, the app lock inside a transaction, and versions of many
// workflows at once.
func TestWorkflowLookups(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		a := newWorkflow(t, d, app.ID, "a")
		b := newWorkflow(t, d, app.ID, "b")
		err := d.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
			if err := tx.AppLock(ctx, app.ID); err != nil {
				return err
			}
			a.Description = "v2"
			return tx.WorkflowUpdate(ctx, a, 1, "bob")
		})
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.WorkflowGetByName(ctx, app.ID, "b")
		if err != nil || got.ID != b.ID {
			t.Fatalf("by name: %+v, %v", got, err)
		}
		if _, err := d.WorkflowGetByName(ctx, app.ID, "c"); err == nil {
			t.Fatal("a workflow that does not exist was found")
		}
		vs, err := d.WorkflowVersionListByWorkflows(ctx, []int64{a.ID, b.ID})
		if err != nil || len(vs) != 3 || vs[0].WorkflowID != a.ID || vs[0].Version != 2 || vs[2].WorkflowID != b.ID {
			t.Fatalf("versions: %+v, %v", vs, err)
		}
	})
}
