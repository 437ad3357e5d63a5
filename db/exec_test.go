package db_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
)

func newJob(t *testing.T, d *db.DB, appID int64, name string, next *time.Time) *db.Job {
	t.Helper()
	return testfactory.Job(t, d, appID, &testfactory.JobOpts{Name: name, ScheduleType: "CRON", ScheduleExpression: "* * * * * ?",
		DispatchStrategy: "HEALTH_FIRST", NextTriggerAt: next})
}

func newApp(t *testing.T, d *db.DB) *db.App {
	t.Helper()
	return newNamedApp(t, d, "app")
}

func newNamedApp(t *testing.T, d *db.DB, name string) *db.App {
	t.Helper()
	return testfactory.App(t, d, &testfactory.AppOpts{Name: name})
}

// The trigger loop's two writes: advancing next_trigger_at by
// compare-and-set, and creating instances that UNIQUE keeps single.
func TestTriggerWrites(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		t0 := db.Now().Truncate(time.Second)
		j1 := newJob(t, d, app.ID, "j1", new(t0))
		j2 := newJob(t, d, app.ID, "j2", new(t0.Add(time.Second)))
		newJob(t, d, app.ID, "later", new(t0.Add(time.Hour)))

		due, err := d.JobListDue(ctx, app.ID, t0.Add(2*time.Second), 100)
		if err != nil || len(due) != 2 || due[0].ID != j1.ID {
			t.Fatalf("JobsDue = %+v, %v", due, err)
		}

		// j2's advance carries a stale old value: it must not apply.
		ids, err := d.JobAdvanceMany(ctx, []db.JobAdvance{
			{ID: j1.ID, Old: t0, New: new(t0.Add(time.Second))},
			{ID: j2.ID, Old: t0, New: new(t0.Add(2 * time.Second))},
		})
		if err != nil || !slices.Equal(ids, []int64{j1.ID}) {
			t.Fatalf("JobAdvanceMany = %v, %v; want only j1", ids, err)
		}
		// FIXED_DELAY: advance to none.
		ids, err = d.JobAdvanceMany(ctx, []db.JobAdvance{{ID: j2.ID, Old: t0.Add(time.Second), New: nil}})
		if err != nil || len(ids) != 1 {
			t.Fatalf("advance to nil = %v, %v", ids, err)
		}
		if j, _ := d.JobGet(ctx, j2.ID); j.NextTriggerAt != nil {
			t.Fatalf("next_trigger_at = %v; want NULL", j.NextTriggerAt)
		}
		if err := d.JobSetNextIfUnset(ctx, j2.ID, t0.Add(5*time.Second)); err != nil {
			t.Fatal(err)
		}
		if j, _ := d.JobGet(ctx, j2.ID); j.NextTriggerAt == nil || !j.NextTriggerAt.Equal(t0.Add(5*time.Second)) {
			t.Fatalf("re-armed next_trigger_at = %v", j.NextTriggerAt)
		}

		mk := func(job int64, at time.Time) db.Instance {
			return db.Instance{AppID: app.ID, JobID: job, Status: db.StatusWaiting, TriggerType: "SCHEDULE", ExpectedTriggerAt: new(at), TriggerAt: at}
		}
		created, err := d.InstanceCreateFired(ctx, []db.Instance{mk(j1.ID, t0), mk(j1.ID, t0.Add(time.Second))})
		if err != nil || len(created) != 2 || created[0].ID == 0 || created[1].ID == created[0].ID {
			t.Fatalf("InstanceCreateMany = %+v, %v", created, err)
		}
		// The same fire again (another owner, a retry): nothing new.
		again, err := d.InstanceCreateFired(ctx, []db.Instance{mk(j1.ID, t0.Add(time.Second)), mk(j1.ID, t0.Add(2*time.Second))})
		if err != nil || len(again) != 1 || !again[0].ExpectedTriggerAt.Equal(t0.Add(2*time.Second)) {
			t.Fatalf("duplicate fire: created %+v, %v; want only the new one", again, err)
		}
		waiting, err := d.InstanceListWaitingDue(ctx, app.ID, t0.Add(time.Second), 100)
		if err != nil || len(waiting) != 2 {
			t.Fatalf("InstancesWaitingDue = %d, %v", len(waiting), err)
		}
	})
}

func TestInstanceAndTaskTransitions(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		job := newJob(t, d, app.ID, "j", nil)
		now := db.Now()
		a := &db.Instance{AppID: app.ID, JobID: job.ID, Status: db.StatusWaiting, TriggerType: "API", TriggerAt: now}
		b := &db.Instance{AppID: app.ID, JobID: job.ID, Status: db.StatusWaiting, TriggerType: "API", TriggerAt: now}
		for _, in := range []*db.Instance{a, b} {
			if err := d.InstanceCreate(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		ids, err := d.InstanceTransitionMany(ctx, []db.InstanceTransition{
			{ID: a.ID, From: db.StatusWaiting, To: db.StatusDispatched, ActualTriggerAt: new(now), Epoch: new(int64(3))},
			{ID: b.ID, From: db.StatusRunning, To: db.StatusSucceeded}, // wrong from: no move
		})
		if err != nil || !slices.Equal(ids, []int64{a.ID}) {
			t.Fatalf("InstanceTransitionMany = %v, %v", ids, err)
		}
		got, _ := d.InstanceGet(ctx, a.ID)
		if got.Status != db.StatusDispatched || got.Epoch != 3 || got.ActualTriggerAt == nil || got.Result != "" {
			t.Fatalf("after dispatch: %+v", got)
		}
		if n, _ := d.InstanceCountActive(ctx, []int64{job.ID}); n[job.ID] != 1 {
			t.Fatalf("InstanceCountActive = %v", n)
		}
		if _, err := d.InstanceTransitionMany(ctx, []db.InstanceTransition{
			{ID: a.ID, From: db.StatusDispatched, To: db.StatusFailed, FinishedAt: new(now), Result: new("exit status 3"), Reason: new("EXIT")},
		}); err != nil {
			t.Fatal(err)
		}
		ok, err := d.InstanceRetry(ctx, a.ID, db.StatusFailed, 2, now.Add(time.Second), "", nil)
		if err != nil || !ok {
			t.Fatalf("InstanceRetry = %v, %v", ok, err)
		}
		got, _ = d.InstanceGet(ctx, a.ID)
		if got.Status != db.StatusWaiting || got.Attempt != 2 || got.Result != "exit status 3" {
			t.Fatalf("after retry: %+v", got)
		}

		// Attempts: insert, then update keeps what is not given.
		w := "w1"
		err = d.AttemptUpsertMany(ctx, []db.InstanceAttempt{{InstanceID: a.ID, Attempt: 1, Status: db.StatusDispatched, StartedAt: new(now)}})
		if err != nil {
			t.Fatal(err)
		}
		err = d.AttemptUpsertMany(ctx, []db.InstanceAttempt{{InstanceID: a.ID, Attempt: 1, Status: db.StatusFailed, WorkerID: &w, Result: "exit status 3", FinishedAt: new(now)}})
		if err != nil {
			t.Fatal(err)
		}
		atts, err := d.AttemptList(ctx, a.ID)
		if err != nil || len(atts) != 1 || atts[0].Status != db.StatusFailed || atts[0].StartedAt == nil || *atts[0].WorkerID != "w1" || atts[0].Result != "exit status 3" {
			t.Fatalf("attempts = %+v, %v", atts, err)
		}

		tasks := []db.Task{
			{InstanceID: a.ID, Name: "ROOT", Kind: "ROOT", Status: db.StatusWaiting, InstanceAttempt: 2},
			{InstanceID: a.ID, Name: "sub", Kind: "MAP", Status: db.StatusWaiting, InstanceAttempt: 2},
		}
		if err := d.TaskCreateMany(ctx, tasks); err != nil || tasks[0].ID == 0 || tasks[1].ID == tasks[0].ID {
			t.Fatalf("TaskCreateMany: %+v, %v", tasks, err)
		}
		moved, err := d.TaskTransitionMany(ctx, []db.TaskTransition{
			{ID: tasks[0].ID, InstanceID: tasks[0].InstanceID, From: db.StatusWaiting, To: db.StatusDispatched, WorkerID: &w, DispatchedAt: new(now)},
			{ID: tasks[1].ID, InstanceID: tasks[1].InstanceID, From: db.StatusRunning, To: db.StatusSucceeded},
		})
		if err != nil || !slices.Equal(moved, []int64{tasks[0].ID}) {
			t.Fatalf("TaskTransitionMany = %v, %v", moved, err)
		}
		// Back to WAITING clears the worker.
		if _, err := d.TaskTransitionMany(ctx, []db.TaskTransition{{ID: tasks[0].ID, InstanceID: tasks[0].InstanceID, From: db.StatusDispatched, To: db.StatusWaiting, Retries: new(1)}}); err != nil {
			t.Fatal(err)
		}
		un, err := d.TaskListUnfinished(ctx, []int64{a.ID})
		if err != nil || len(un) != 2 || un[0].WorkerID != nil || un[0].Retries != 1 {
			t.Fatalf("TasksUnfinished = %+v, %v", un, err)
		}
		counts, err := d.TaskCountsByInstance(ctx, []int64{a.ID})
		if err != nil || counts[a.ID].Total != 2 || counts[a.ID].Waiting != 2 {
			t.Fatalf("TaskCountsByInstance = %+v, %v", counts, err)
		}
		if _, err := d.TaskStopByInstance(ctx, a.ID, 2, db.StatusStopped); err != nil {
			t.Fatal(err)
		}
		if un, _ := d.TaskListUnfinished(ctx, []int64{a.ID}); len(un) != 0 {
			t.Fatalf("tasks left after stop: %+v", un)
		}
		// Stopped tasks are counted apart, so a stopped instance is not shown as failed.
		counts, err = d.TaskCountsByInstance(ctx, []int64{a.ID})
		if c := counts[a.ID]; err != nil || c.Total != 2 || c.Stopped != 2 || c.Failed != 2 || c.Waiting != 0 {
			t.Fatalf("TaskCountsByInstance after stop = %+v, %v", c, err)
		}
	})
}

// Listing pages newest first and counting agree on every filter: the
// console shows "n instances" above a page of them.
func TestInstanceListAndCount(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		t0 := db.Now().Truncate(time.Second)
		j1 := newJob(t, d, app.ID, "j1", nil)
		j2 := newJob(t, d, app.ID, "j2", nil)
		var list []db.Instance
		for i := 0; i < 10; i++ {
			j, status := j1, db.StatusSucceeded
			if i%2 == 1 {
				j = j2
			}
			if i%3 == 0 {
				status = db.StatusFailed
			}
			at := t0.Add(time.Duration(i) * time.Second)
			list = append(list, db.Instance{AppID: app.ID, JobID: j.ID, Status: status, TriggerType: "API", TriggerAt: at, ExpectedTriggerAt: &at})
		}
		if _, err := d.InstanceCreateFired(ctx, list); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			f    db.InstanceFilter
			want int
		}{
			{"all", db.InstanceFilter{}, 10},
			{"one job", db.InstanceFilter{JobID: j2.ID}, 5},
			{"failed", db.InstanceFilter{Statuses: []string{db.StatusFailed}}, 4},
			{"failed of j1", db.InstanceFilter{JobID: j1.ID, Statuses: []string{db.StatusFailed}}, 2},
			{"time range", db.InstanceFilter{From: new(t0.Add(2 * time.Second)), To: new(t0.Add(5 * time.Second))}, 3},
		} {
			f := tc.f
			f.AppID = app.ID
			n, err := d.InstanceCount(ctx, f)
			if err != nil || n != tc.want {
				t.Errorf("%s: InstanceCount = %d, %v; want %d", tc.name, n, err, tc.want)
			}
			// Walk the pages, 3 at a time: newest first, each once, as many as counted.
			var seen []int64
			f.Limit = 3
			for {
				page, more, err := d.InstanceList(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				for _, in := range page {
					seen = append(seen, in.ID)
				}
				if !more {
					break
				}
				f.BeforeID = page[len(page)-1].ID
			}
			if len(seen) != tc.want || !slices.IsSortedFunc(seen, func(a, b int64) int { return int(b - a) }) {
				t.Errorf("%s: pages gave ids %v; want %d, newest first", tc.name, seen, tc.want)
			}
		}
		other := newNamedApp(t, d, "other")
		if n, err := d.InstanceCount(ctx, db.InstanceFilter{AppID: other.ID}); err != nil || n != 0 {
			t.Errorf("another app counts %d, %v; want 0", n, err)
		}
	})
}

// A job's last run is its newest instance that fired, not a fire recorded
// ahead; a job that never fired has none.
func TestInstancesLastRun(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		ran := newJob(t, d, app.ID, "ran", nil)
		never := newJob(t, d, app.ID, "never", nil)
		t0 := db.Now().Truncate(time.Second)
		fired := func(at time.Time, status string, actual bool) db.Instance {
			in := db.Instance{AppID: app.ID, JobID: ran.ID, Status: status, TriggerType: "SCHEDULE", TriggerAt: at, ExpectedTriggerAt: &at}
			if actual {
				in.ActualTriggerAt = &at
			}
			return in
		}
		list := []db.Instance{
			fired(t0, db.StatusSucceeded, true),
			fired(t0.Add(time.Second), db.StatusFailed, true),
			fired(t0.Add(2*time.Second), db.StatusRunning, true),
			fired(t0.Add(3*time.Second), db.StatusWaiting, false), // recorded ahead
			{AppID: app.ID, JobID: never.ID, Status: db.StatusWaiting, TriggerType: "SCHEDULE", TriggerAt: t0.Add(time.Hour)},
		}
		if _, err := d.InstanceCreateFired(ctx, list); err != nil {
			t.Fatal(err)
		}
		last, err := d.InstanceListLast(ctx, []int64{ran.ID, never.ID})
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := last[ran.ID]; !ok || got.Status != db.StatusRunning || !got.TriggerAt.Equal(t0.Add(2*time.Second)) {
			t.Errorf("last run of ran: %+v (present %v); want the RUNNING one at t0+2s", got, ok)
		}
		if got, ok := last[never.ID]; ok {
			t.Errorf("a job that never fired has a last run: %+v", got)
		}
	})
}
