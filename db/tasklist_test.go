package db_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestTaskPage: an attempt's tasks page by id through every status or a
// few, each page continuing after the last id, none of another attempt
// or instance; the counts match; previews are cut with the size kept.
func TestTaskPage(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := newApp(t, d)
		job := newJob(t, d, app.ID, "j", nil)
		in := &db.Instance{AppID: app.ID, JobID: job.ID, Status: db.StatusRunning, TriggerType: "API", TriggerAt: db.Now(), Attempt: 2}
		other := &db.Instance{AppID: app.ID, JobID: job.ID, Status: db.StatusRunning, TriggerType: "API", TriggerAt: db.Now(), Attempt: 1}
		for _, i := range []*db.Instance{in, other} {
			if err := d.InstanceCreate(ctx, i); err != nil {
				t.Fatal(err)
			}
		}
		// An earlier attempt's tasks, then the current one's in rotating
		// statuses, with another instance's interleaved.
		old := []db.Task{{InstanceID: in.ID, Name: "old", Kind: "ROOT", Status: db.StatusFailed, InstanceAttempt: 1}}
		if err := d.TaskCreateMany(ctx, old); err != nil {
			t.Fatal(err)
		}
		statuses := []string{db.StatusWaiting, db.StatusRunning, db.StatusSucceeded, db.StatusFailed, db.StatusDispatched}
		var want []int64
		wantByStatus := map[string][]int64{}
		for i := range 23 {
			st := statuses[i%len(statuses)]
			list := []db.Task{
				{InstanceID: in.ID, Name: "t", Kind: "MAP", Status: st, InstanceAttempt: 2, Payload: strings.Repeat("é", 5000)},
				{InstanceID: other.ID, Name: "x", Kind: "MAP", Status: st, InstanceAttempt: 1},
			}
			if err := d.TaskCreateMany(ctx, list); err != nil {
				t.Fatal(err)
			}
			want = append(want, list[0].ID)
			wantByStatus[st] = append(wantByStatus[st], list[0].ID)
		}

		walk := func(statuses []string) []int64 {
			var got []int64
			q := db.TaskQuery{InstanceID: in.ID, Attempt: 2, Statuses: statuses, Limit: 4}
			for range 20 {
				page, more, err := d.TaskViewList(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				for _, tk := range page {
					got = append(got, tk.ID)
				}
				if !more {
					return got
				}
				q.AfterID = page[len(page)-1].ID
			}
			t.Fatal("paging did not end")
			return nil
		}
		if got := walk(nil); !slices.Equal(got, want) {
			t.Fatalf("every status: %v; want %v", got, want)
		}
		some := []string{db.StatusFailed, db.StatusWaiting, db.StatusFailed}
		wantSome := mergeSorted(wantByStatus[db.StatusFailed], wantByStatus[db.StatusWaiting])
		if got := walk(some); !slices.Equal(got, wantSome) {
			t.Fatalf("FAILED and WAITING: %v; want %v", got, wantSome)
		}
		if n, err := d.TaskCount(ctx, db.TaskQuery{InstanceID: in.ID, Attempt: 2}); err != nil || n != len(want) {
			t.Fatalf("count = %d, %v; want %d", n, err, len(want))
		}
		if n, err := d.TaskCount(ctx, db.TaskQuery{InstanceID: in.ID, Attempt: 2, Statuses: some}); err != nil || n != len(wantSome) {
			t.Fatalf("count FAILED, WAITING = %d, %v; want %d", n, err, len(wantSome))
		}

		tk, err := d.TaskViewGet(ctx, in.ID, want[0])
		if err != nil {
			t.Fatal(err)
		}
		if len([]rune(tk.Payload)) != db.TaskPreviewChars || tk.PayloadSize != 10000 {
			t.Fatalf("payload preview %d characters, size %d; want %d characters of 10000 bytes", len([]rune(tk.Payload)), tk.PayloadSize, db.TaskPreviewChars)
		}
		if _, err := d.TaskViewGet(ctx, other.ID, want[0]); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("another instance's task: %v; want not found", err)
		}
	})
}

func mergeSorted(a, b []int64) []int64 {
	out := make([]int64, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || (len(a) > 0 && a[0] < b[0]) {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return out
}
