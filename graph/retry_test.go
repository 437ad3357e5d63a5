package graph

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
)

// TestRetryFollowsOverlapPolicy: retrying an instance while its job runs
// maxInstances instances says what the job's overlap policy does with it
// up front — CANCEL refuses naming maxInstances and changes nothing, QUEUE
// queues it and says so — instead of the retry being canceled unseen; and
// the attempts list shows every attempt, one canceled before it started
// included (issue 28 defect 3).
func TestRetryFollowsOverlapPolicy(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		appID := api.createApp(t, admin, "orders")

		type attempt struct {
			Attempt        int
			Status, Reason string
			Worker         *string
		}
		type instance struct {
			Status, Result, Reason string
			Attempt                int
			Worker                 *struct{ ID string }
			Attempts               []attempt
		}
		const fields = `status result reason attempt worker { id } attempts { attempt status reason worker }`
		retry := func(id int64) (*response, instance) {
			var out struct{ RetryInstance instance }
			r := api.do(t, admin, `mutation($id: ID!) { retryInstance(id: $id) { `+fields+` } }`, map[string]any{"id": fmt.Sprint(id)}, &out)
			return r, out.RetryInstance
		}
		get := func(id int64) instance {
			var out struct{ Instance instance }
			api.must(t, admin, `query($id: ID!) { instance(id: $id) { `+fields+` } }`, map[string]any{"id": fmt.Sprint(id)}, &out)
			return out.Instance
		}
		// failed is an instance whose first attempt failed on worker w-1.
		failed := func(job *db.Job) *db.Instance {
			start := db.Now()
			in := testfactory.Instance(t, d, job, &testfactory.InstanceOpts{Status: db.StatusFailed, WorkerID: "w-1",
				Edit: func(in *db.Instance) {
					in.StartedAt, in.FinishedAt, in.Reason, in.Result = &start, &start, db.ReasonFailed, "exit 3"
				}})
			if err := d.AttemptUpsertMany(ctx, []db.InstanceAttempt{{InstanceID: in.ID, Attempt: 1, Status: db.StatusFailed,
				WorkerID: new("w-1"), Reason: db.ReasonFailed, Result: "exit 3", StartedAt: &start, FinishedAt: &start}}); err != nil {
				t.Fatal(err)
			}
			return in
		}

		for _, w := range []string{"w-1", "w-2"} {
			if err := d.WorkerUpsert(ctx, &db.Worker{AppID: appID, ID: w, ServerID: "s", Host: "h", Slots: 4,
				Tags: []string{}, Processors: []string{}, ConnectedAt: db.Now(), LastHeartbeat: db.Now()}); err != nil {
				t.Fatal(err)
			}
		}

		// CANCEL (the default): refused while a run of the job is under
		// way, naming maxInstances; the instance is as it was.
		cancelJob := testfactory.Job(t, d, appID, &testfactory.JobOpts{Name: "nightly", MaxInstances: 1})
		in := failed(cancelJob)
		busy := testfactory.Instance(t, d, cancelJob, &testfactory.InstanceOpts{Status: db.StatusRunning, WorkerID: "w-2"})
		r, _ := retry(in.ID)
		if r.code() != CodeConflict || !strings.Contains(r.Errors[0].Message, "maxInstances is 1") ||
			!strings.Contains(r.Errors[0].Message, "overlap policy CANCEL") {
			t.Fatalf("retry while the job runs maxInstances: %+v; want CONFLICT naming maxInstances and the policy", r.Errors)
		}
		if got := get(in.ID); got.Status != db.StatusFailed || got.Attempt != 1 || len(got.Attempts) != 1 {
			t.Fatalf("after the refused retry: %+v; want it FAILED at attempt 1, unchanged", got)
		}
		// A workflow node's run is its workflow's to bound: not counted.
		testfactory.Instance(t, d, cancelJob, &testfactory.InstanceOpts{Status: db.StatusRunning, TriggerType: db.TriggerWorkflow})

		// Once the run ended, the retry goes ahead, with no worker until
		// the new attempt starts (the old one is the attempt's row's).
		if _, err := d.InstanceTransitionMany(ctx, []db.InstanceTransition{{ID: busy.ID, From: db.StatusRunning, To: db.StatusSucceeded, FinishedAt: new(db.Now())}}); err != nil {
			t.Fatal(err)
		}
		r, got := retry(in.ID)
		if len(r.Errors) > 0 || got.Status != db.StatusWaiting || got.Attempt != 2 || got.Result != "" || got.Worker != nil {
			t.Fatalf("retry of an idle job: %+v %+v; want WAITING at attempt 2 with no worker or old result", r.Errors, got)
		}

		// The second attempt is canceled before it starts (a scheduled run
		// took the slot first): it is listed, and a second retry keeps it.
		if _, err := d.InstanceTransitionMany(ctx, []db.InstanceTransition{{ID: in.ID, From: db.StatusWaiting, To: db.StatusCanceled,
			FinishedAt: new(db.Now()), Reason: new(db.ReasonMaxInstances), Result: new("1 instance(s) of the job already running (maxInstances 1)")}}); err != nil {
			t.Fatal(err)
		}
		if got := get(in.ID); len(got.Attempts) != 2 || got.Attempts[1].Attempt != 2 || got.Attempts[1].Reason != db.ReasonMaxInstances || got.Attempts[1].Worker != nil {
			t.Fatalf("attempts of an instance whose second attempt was canceled unstarted: %+v", got.Attempts)
		}
		if r, got = retry(in.ID); len(r.Errors) > 0 || got.Attempt != 3 {
			t.Fatalf("second retry: %+v %+v", r.Errors, got)
		}
		if _, err := d.InstanceTransitionMany(ctx, []db.InstanceTransition{{ID: in.ID, From: db.StatusWaiting, To: db.StatusFailed,
			FinishedAt: new(db.Now()), Reason: new(db.ReasonFailed)}}); err != nil {
			t.Fatal(err)
		}
		got = get(in.ID)
		var listed []string
		for _, a := range got.Attempts {
			listed = append(listed, fmt.Sprintf("%d %s %s", a.Attempt, a.Status, a.Reason))
		}
		if want := "1 FAILED FAILED, 2 CANCELED MAX_INSTANCES, 3 FAILED FAILED"; strings.Join(listed, ", ") != want {
			t.Fatalf("attempts after two retries: %s; want %s", strings.Join(listed, ", "), want)
		}
		if got.Attempts[0].Worker == nil || *got.Attempts[0].Worker != "w-1" {
			t.Fatalf("the first attempt's worker: %+v", got.Attempts[0])
		}

		// QUEUE: the retry is queued behind the running instance, and the
		// answer says so.
		queueJob := testfactory.Job(t, d, appID, &testfactory.JobOpts{Name: "queued", MaxInstances: 1,
			Edit: func(j *db.Job) { j.OverlapPolicy = db.OverlapQueue }})
		in = failed(queueJob)
		testfactory.Instance(t, d, queueJob, &testfactory.InstanceOpts{Status: db.StatusDispatched})
		r, got = retry(in.ID)
		if len(r.Errors) > 0 || got.Status != db.StatusWaiting || got.Attempt != 2 ||
			!strings.HasPrefix(got.Result, "queued:") || !strings.Contains(got.Result, "overlap policy QUEUE, maxInstances 1") {
			t.Fatalf("retry of a busy QUEUE job: %+v %+v; want WAITING, saying it is queued", r.Errors, got)
		}

		// A scheduled fire of a disabled job would be canceled: refused.
		off := testfactory.Job(t, d, appID, &testfactory.JobOpts{Name: "off", Disabled: true})
		in = testfactory.Instance(t, d, off, &testfactory.InstanceOpts{Status: db.StatusFailed, TriggerType: db.TriggerSchedule})
		if r, _ = retry(in.ID); r.code() != CodeConflict || !strings.Contains(r.Errors[0].Message, "disabled") {
			t.Fatalf("retry of a disabled job's scheduled fire: %+v; want CONFLICT saying the job is disabled", r.Errors)
		}
	})
}
