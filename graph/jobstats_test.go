package graph

import (
	"context"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestJobStats: a job's overview counts how its own instances ended in the
// window (not its app's other jobs', nor older ones), a VIEWER of the app
// reads them, someone without a role on the app does not see the job, and
// a window out of range is a BAD_INPUT naming hours.
func TestJobStats(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		appID := api.createApp(t, admin, "orders")
		api.createApp(t, admin, "billing")
		job := api.createJob(t, admin, "orders", "nightly")
		other := api.createJob(t, admin, "orders", "hourly")
		viewer := api.createUser(t, admin, "vera")
		if r := api.setRole(t, admin, "orders", "vera", "VIEWER"); len(r.Errors) > 0 {
			t.Fatal(r.Errors)
		}
		stranger := api.createUser(t, admin, "sam")
		if r := api.setRole(t, admin, "billing", "sam", "OWNER"); len(r.Errors) > 0 {
			t.Fatal(r.Errors)
		}

		ctx := context.Background()
		now := db.Now()
		for _, c := range []struct {
			job    string
			status string
			ago    time.Duration
		}{
			{job, db.StatusSucceeded, time.Minute},
			{job, db.StatusSucceeded, 2 * time.Hour},
			{job, db.StatusFailed, 3 * time.Hour},
			{job, db.StatusStopped, 4 * time.Hour},
			{job, db.StatusCanceled, 5 * time.Hour},
			{job, db.StatusFailed, 30 * time.Hour}, // before the 24-hour window
			{job, db.StatusRunning, 0},             // not finished
			{other, db.StatusFailed, time.Minute},  // another job
		} {
			at := now.Add(-c.ago)
			in := &db.Instance{AppID: appID, JobID: mustInt(t, c.job), Status: c.status, TriggerType: "API", TriggerAt: at, ActualTriggerAt: &at}
			if c.status != db.StatusRunning {
				in.FinishedAt = &at
			}
			if err := d.InstanceCreate(ctx, in); err != nil {
				t.Fatal(err)
			}
		}

		const q = `query($id: ID!, $h: Int) { job(id: $id) { stats(hours: $h) {
			succeeded failed stopped canceled outcomes { start succeeded failed stopped canceled } } } }`
		type bucket struct{ Succeeded, Failed, Stopped, Canceled int }
		var out struct {
			Job *struct {
				Stats struct {
					Succeeded, Failed, Stopped, Canceled int
					Outcomes                             []bucket
				}
			}
		}
		api.must(t, viewer, q, map[string]any{"id": job}, &out)
		st := out.Job.Stats
		if st.Succeeded != 2 || st.Failed != 1 || st.Stopped != 1 || st.Canceled != 1 {
			t.Fatalf("24 h stats = %+v; want 2 succeeded, 1 failed, 1 stopped, 1 canceled", st)
		}
		var sum bucket
		for _, b := range st.Outcomes {
			sum.Succeeded += b.Succeeded
			sum.Failed += b.Failed
			sum.Stopped += b.Stopped
			sum.Canceled += b.Canceled
		}
		if sum != (bucket{2, 1, 1, 1}) || len(st.Outcomes) < 4 {
			t.Fatalf("outcome buckets %+v add up to %+v", st.Outcomes, sum)
		}

		api.must(t, viewer, q, map[string]any{"id": job, "h": 48}, &out)
		if out.Job.Stats.Failed != 2 {
			t.Fatalf("48 h stats = %+v; want the older failure too", out.Job.Stats)
		}

		if r := api.do(t, viewer, q, map[string]any{"id": job, "h": 169}, nil); r.code() != CodeBadInput || r.Errors[0].field() != "hours" {
			t.Fatalf("hours 169: %+v; want BAD_INPUT on hours", r.Errors)
		}
		if r := api.do(t, stranger, q, map[string]any{"id": job}, nil); r.code() != CodeNotFound {
			t.Fatalf("a user without a role on the app: %+v; want NOT_FOUND", r.Errors)
		}
	})
}

// TestTaskSummaryStopped: the tasks of a stopped instance count as
// stopped, not failed.
func TestTaskSummaryStopped(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		appID := api.createApp(t, admin, "orders")
		job := mustInt(t, api.createJob(t, admin, "orders", "nightly"))
		ctx := context.Background()
		at := db.Now()
		in := &db.Instance{AppID: appID, JobID: job, Status: db.StatusStopped, TriggerType: "API", TriggerAt: at, FinishedAt: &at, Attempt: 1}
		if err := d.InstanceCreate(ctx, in); err != nil {
			t.Fatal(err)
		}
		tasks := []db.Task{
			{InstanceID: in.ID, Name: "ROOT", Kind: "ROOT", Status: db.StatusStopped, InstanceAttempt: 1},
			{InstanceID: in.ID, Name: "a", Kind: "MAP", Status: db.StatusCanceled, InstanceAttempt: 1},
			{InstanceID: in.ID, Name: "b", Kind: "MAP", Status: db.StatusFailed, InstanceAttempt: 1},
			{InstanceID: in.ID, Name: "c", Kind: "MAP", Status: db.StatusSucceeded, InstanceAttempt: 1},
		}
		if err := d.TaskCreateMany(ctx, tasks); err != nil {
			t.Fatal(err)
		}
		var out struct {
			Instance struct {
				Tasks struct{ Total, Waiting, Running, Succeeded, Failed, Stopped int }
			}
		}
		api.must(t, admin, `query($id: ID!) { instance(id: $id) { tasks { total waiting running succeeded failed stopped } } }`,
			map[string]any{"id": in.ID}, &out)
		if got := out.Instance.Tasks; got.Total != 4 || got.Succeeded != 1 || got.Failed != 1 || got.Stopped != 2 {
			t.Fatalf("tasks = %+v; want 4 in all: 1 succeeded, 1 failed, 2 stopped", got)
		}
	})
}
