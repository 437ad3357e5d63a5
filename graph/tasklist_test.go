package graph

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

const taskListQuery = `query($id: ID!, $status: [TaskStatus!], $first: Int, $after: String) {
  instance(id: $id) {
    taskList(status: $status, first: $first, after: $after) {
      edges { cursor node { id name kind status attempt instanceAttempt workerId payloadSize } }
      pageInfo { hasNextPage endCursor }
      totalCount
    }
  }
}`

type taskPage struct {
	Instance *struct {
		TaskList struct {
			Edges []struct {
				Cursor string
				Node   struct {
					ID, Name, Kind, Status string
					Attempt                int
					InstanceAttempt        int
					WorkerID               *string
					PayloadSize            int
				}
			}
			PageInfo struct {
				HasNextPage bool
				EndCursor   *string
			}
			TotalCount int
		}
	}
}

// TestTaskList: Instance.taskList pages the current attempt's tasks by id
// with a status filter and totalCount; task(id) shows one with its payload
// cut and sized; a viewer of the app reads them, a member of another app
// finds no instance; bad arguments name themselves.
func TestTaskList(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		appID := api.createApp(t, admin, "orders")
		api.createApp(t, admin, "billing")
		job := mustInt(t, api.createJob(t, admin, "orders", "reprice"))
		viewer := api.createUser(t, admin, "vera")
		if r := api.setRole(t, admin, "orders", "vera", "VIEWER"); len(r.Errors) > 0 {
			t.Fatal(r.Errors)
		}
		outsider := api.createUser(t, admin, "otto")
		if r := api.setRole(t, admin, "billing", "otto", "OWNER"); len(r.Errors) > 0 {
			t.Fatal(r.Errors)
		}

		in := &db.Instance{AppID: appID, JobID: job, Status: db.StatusRunning, TriggerType: "API", TriggerAt: db.Now(), Attempt: 2}
		if err := d.InstanceCreate(ctx, in); err != nil {
			t.Fatal(err)
		}
		// The first attempt's task is not listed; of the current
		// attempt's ten, four succeeded, three wait, three run.
		w := "worker-1"
		tasks := []db.Task{{InstanceID: in.ID, Name: "ROOT", Kind: "ROOT", Status: db.StatusFailed, InstanceAttempt: 1}}
		for i := range 10 {
			tk := db.Task{InstanceID: in.ID, Name: "part", Kind: "MAP", InstanceAttempt: 2, Payload: `{"part":` + string(rune('0'+i)) + `}`}
			switch {
			case i < 4:
				tk.Status, tk.WorkerID, tk.Result = db.StatusSucceeded, &w, "ok"
			case i < 7:
				tk.Status = db.StatusWaiting
			default:
				tk.Status, tk.WorkerID, tk.Retries = db.StatusRunning, &w, 1
			}
			tasks = append(tasks, tk)
		}
		tasks[10].Payload = strings.Repeat("x", 10000)
		if err := d.TaskCreateMany(ctx, tasks); err != nil {
			t.Fatal(err)
		}

		// Everything, three at a time, in id order, for the viewer.
		var ids []string
		var after any
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatal("paging did not end")
			}
			var out taskPage
			api.must(t, viewer, taskListQuery, map[string]any{"id": in.ID, "first": 3, "after": after}, &out)
			l := out.Instance.TaskList
			if l.TotalCount != 10 {
				t.Fatalf("totalCount = %d; want 10 (the current attempt's)", l.TotalCount)
			}
			for _, e := range l.Edges {
				ids = append(ids, e.Node.ID)
			}
			if !l.PageInfo.HasNextPage {
				break
			}
			after = *l.PageInfo.EndCursor
		}
		var want []string
		for _, tk := range tasks[1:] {
			want = append(want, strconv.FormatInt(tk.ID, 10))
		}
		if strings.Join(ids, ",") != strings.Join(want, ",") {
			t.Fatalf("pages = %v; want %v", ids, want)
		}

		// A status filter, with its own count.
		var out taskPage
		api.must(t, viewer, taskListQuery, map[string]any{"id": in.ID, "status": []string{"RUNNING", "WAITING"}, "first": 4}, &out)
		l := out.Instance.TaskList
		if l.TotalCount != 6 || len(l.Edges) != 4 || !l.PageInfo.HasNextPage || l.Edges[0].Node.ID != strconv.FormatInt(tasks[5].ID, 10) {
			t.Fatalf("RUNNING or WAITING, first 4: %+v; want 4 of 6 from task %d", l, tasks[5].ID)
		}
		if n := l.Edges[3].Node; n.Status != "RUNNING" || n.Attempt != 2 || n.InstanceAttempt != 2 || n.WorkerID == nil || *n.WorkerID != w {
			t.Fatalf("a running task = %+v; want RUNNING on %s, attempt 2 of instance attempt 2", n, w)
		}

		// One task, its payload cut to the preview with its size.
		var one struct {
			Instance struct {
				Task *struct {
					Name, Kind, Status, Payload, Result string
					PayloadSize, ResultSize             int
					CreatedTime                         string
				}
				Missing *struct{ ID string }
			}
		}
		api.must(t, viewer, `query($id: ID!, $task: ID!, $other: ID!) { instance(id: $id) {
			task(id: $task) { name kind status payload payloadSize result resultSize createdTime }
			missing: task(id: $other) { id } } }`,
			map[string]any{"id": in.ID, "task": tasks[10].ID, "other": tasks[10].ID + 1000}, &one)
		if tk := one.Instance.Task; tk == nil || len(tk.Payload) != db.TaskPreviewChars || tk.PayloadSize != 10000 || tk.Kind != "MAP" || tk.CreatedTime == "" {
			t.Fatalf("task = %+v; want a MAP task with %d characters of a 10000-byte payload", tk, db.TaskPreviewChars)
		}
		if one.Instance.Missing != nil {
			t.Fatalf("a task of no instance = %+v; want null", one.Instance.Missing)
		}

		// A member of another app: no such instance.
		r := api.do(t, outsider, taskListQuery, map[string]any{"id": in.ID}, &out)
		if r.code() != CodeNotFound {
			t.Fatalf("another app's member: %+v; want NOT_FOUND", r.Errors)
		}
		for _, c := range []struct {
			vars  map[string]any
			field string
		}{
			{map[string]any{"id": in.ID, "first": 0}, "first"},
			{map[string]any{"id": in.ID, "first": 501}, "first"},
			{map[string]any{"id": in.ID, "after": "nope"}, "after"},
		} {
			if r := api.do(t, admin, taskListQuery, c.vars, nil); r.code() != CodeBadInput || r.Errors[0].field() != c.field {
				t.Fatalf("%v: %+v; want BAD_INPUT on %s", c.vars, r.Errors, c.field)
			}
		}
	})
}
