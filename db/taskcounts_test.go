package db_test

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// The stored task counts agree with the tasks after every kind of write
// the server makes to them — inserts one by one and in bulk, moves that
// apply and moves that do not, stopping an instance, a new attempt — and
// go with a deleted instance. The owner and the API trust them instead of
// counting millions of rows. They are kept for the kinds an instance has
// many of (MAP, BROADCAST) only; the counts the API and the owner read
// add the others from their rows, and still agree with every task.
func TestTaskCountsFollowTheTasks(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		j := newJob(t, d, app.ID, "mr", nil)
		a := &db.Instance{AppID: app.ID, JobID: j.ID, Status: db.StatusRunning, TriggerType: "API", TriggerAt: db.Now(), Attempt: 1}
		b := &db.Instance{AppID: app.ID, JobID: j.ID, Status: db.StatusRunning, TriggerType: "API", TriggerAt: db.Now(), Attempt: 1}
		for _, in := range []*db.Instance{a, b} {
			if err := d.InstanceCreate(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		check := func(step string) {
			t.Helper()
			stored, counted := map[string]int64{}, map[string]int64{}
			var rows []struct {
				InstanceID int64  `bun:"instance_id"`
				Attempt    int    `bun:"instance_attempt"`
				Status     string `bun:"status"`
				N          int64  `bun:"n"`
			}
			if err := d.Bun().NewRaw("SELECT instance_id, instance_attempt, status, n FROM task_counts WHERE n <> 0").Scan(ctx, &rows); err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				stored[key(r.InstanceID, r.Attempt, r.Status)] = r.N
			}
			rows = nil
			if err := d.Bun().NewRaw("SELECT instance_id, instance_attempt, status, COUNT(*) AS n FROM tasks WHERE kind IN ('MAP', 'BROADCAST') GROUP BY instance_id, instance_attempt, status").Scan(ctx, &rows); err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				counted[key(r.InstanceID, r.Attempt, r.Status)] = r.N
			}
			if !maps.Equal(stored, counted) {
				t.Fatalf("after %s: stored counts %v; the tasks say %v", step, stored, counted)
			}
			// What the owner and the API read: every task of the
			// current attempt, singles (the ROOT) included.
			var all []struct {
				InstanceID int64  `bun:"instance_id"`
				Status     string `bun:"status"`
				N          int    `bun:"n"`
			}
			if err := d.Bun().NewRaw("SELECT tk.instance_id, tk.status, COUNT(*) AS n FROM tasks AS tk JOIN instances AS i ON i.id = tk.instance_id AND i.attempt = tk.instance_attempt GROUP BY tk.instance_id, tk.status").Scan(ctx, &all); err != nil {
				t.Fatal(err)
			}
			want := map[int64]int{}
			byStatus := map[int64]map[string]int{}
			for _, r := range all {
				want[r.InstanceID] += r.N
				if byStatus[r.InstanceID] == nil {
					byStatus[r.InstanceID] = map[string]int{}
				}
				byStatus[r.InstanceID][r.Status] += r.N
			}
			got, err := d.TaskCountsByInstance(ctx, []int64{a.ID, b.ID})
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range []int64{a.ID, b.ID} {
				c := got[id]
				if c.Total != want[id] || c.Waiting != byStatus[id][db.StatusWaiting] || c.Succeeded != byStatus[id][db.StatusSucceeded] {
					t.Fatalf("after %s: instance %d counted %+v; its tasks are %v", step, id, c, byStatus[id])
				}
				for st, n := range byStatus[id] {
					if got, err := d.TaskCount(ctx, db.TaskQuery{InstanceID: id, Attempt: currentAttempt(t, d, id), Statuses: []string{st}}); err != nil || got != n {
						t.Fatalf("after %s: TaskCount(%d, %s) = %d, %v; want %d", step, id, st, got, err, n)
					}
				}
			}
		}

		one := []db.Task{{InstanceID: a.ID, Name: "ROOT", Kind: "ROOT", Status: db.StatusWaiting, InstanceAttempt: 1}}
		if err := d.TaskCreateMany(ctx, one); err != nil {
			t.Fatal(err)
		}
		check("creating a task")
		bulk := make([]db.Task, 4500) // more than one insert statement
		for i := range bulk {
			in := a.ID
			if i%3 == 0 {
				in = b.ID
			}
			bulk[i] = db.Task{InstanceID: in, Name: "sub", Kind: "MAP", Status: db.StatusWaiting, InstanceAttempt: 1}
		}
		if err := d.TaskCreateManyChunked(ctx, bulk); err != nil {
			t.Fatal(err)
		}
		check("inserting in bulk")

		waiting, err := d.TaskListWaitingAfter(ctx, a.ID, 1, 0, 300)
		if err != nil {
			t.Fatal(err)
		}
		w, now := "w1", db.Now()
		var moves []db.TaskTransition
		for i, tk := range waiting {
			to := []string{db.StatusDispatched, db.StatusRunning, db.StatusSucceeded, db.StatusFailed}[i%4]
			moves = append(moves, db.TaskTransition{ID: tk.ID, InstanceID: tk.InstanceID, From: db.StatusWaiting, To: to, WorkerID: &w, DispatchedAt: &now})
		}
		// A move whose task is no longer in From does not apply, nor count.
		moves = append(moves, db.TaskTransition{ID: waiting[0].ID, InstanceID: waiting[0].InstanceID, From: db.StatusRunning, To: db.StatusSucceeded})
		if _, err := d.TaskTransitionMany(ctx, moves); err != nil {
			t.Fatal(err)
		}
		check("moving tasks")
		// A retry: back to WAITING with its result; and a result-only rewrite.
		res := "lost"
		if _, err := d.TaskTransitionMany(ctx, []db.TaskTransition{
			{ID: waiting[0].ID, InstanceID: waiting[0].InstanceID, From: db.StatusDispatched, To: db.StatusWaiting, Retries: new(1), Result: &res},
			{ID: waiting[2].ID, InstanceID: waiting[2].InstanceID, From: db.StatusSucceeded, To: db.StatusSucceeded, Result: &res},
		}); err != nil {
			t.Fatal(err)
		}
		check("a retry")

		if _, err := d.TaskStopByInstance(ctx, b.ID, 1, db.StatusStopped); err != nil {
			t.Fatal(err)
		}
		check("stopping an instance")
		if err := d.TaskStopWaiting(ctx, a.ID, 1, time.Now()); err != nil {
			t.Fatal(err)
		}
		check("stopping the waiting tasks")

		// The instance's next attempt starts with tasks of its own; the
		// summary is of the current attempt only.
		if err := d.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
			return tx.TaskCreateMany(ctx, []db.Task{{InstanceID: a.ID, Name: "ROOT", Kind: "ROOT", Status: db.StatusWaiting, InstanceAttempt: 2}})
		}); err != nil {
			t.Fatal(err)
		}
		check("a second attempt")
		if _, err := d.Bun().NewUpdate().Model((*db.Instance)(nil)).Set("attempt = 2").Where("id = ?", a.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		counts, err := d.TaskCountsByInstance(ctx, []int64{a.ID, b.ID})
		if err != nil {
			t.Fatal(err)
		}
		if c := counts[a.ID]; c.Total != 1 || c.Waiting != 1 {
			t.Errorf("instance a's second attempt: %+v; want its one waiting task", c)
		}
		if c := counts[b.ID]; c.Total != 1500 || c.Stopped != 1500 || c.Failed != 1500 {
			t.Errorf("instance b: %+v; want 1500 tasks, all stopped", c)
		}
		if n, err := d.TaskCount(ctx, db.TaskQuery{InstanceID: b.ID, Attempt: 1, Statuses: []string{db.StatusStopped}}); err != nil || n != 1500 {
			t.Errorf("TaskCount of b's stopped tasks = %d, %v; want 1500", n, err)
		}

		if _, err := d.Bun().NewDelete().Model((*db.Instance)(nil)).Where("id = ?", b.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		check("deleting an instance")
	})
}

func currentAttempt(t *testing.T, d *db.DB, id int64) int {
	t.Helper()
	in, err := d.InstanceGet(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return in.Attempt
}

func key(instanceID int64, attempt int, status string) string {
	return fmt.Sprintf("%d/%d/%s", instanceID, attempt, status)
}
