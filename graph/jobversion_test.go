package graph

import (
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestJobVersions: every change is a version with who and when; restoring
// a version brings its script back as a new version; an instance records
// the version it ran; a VIEWER reads versions but cannot restore.
func TestJobVersions(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		vera := api.createUser(t, admin, "vera")
		api.setRole(t, admin, "orders", "vera", "VIEWER")
		id := api.createJob(t, admin, "orders", "report") // script "echo hi"
		in := map[string]any{"app": "orders", "name": "report", "scheduleType": "API", "processorType": "SHELL", "processor": "echo bye"}
		api.must(t, admin, `mutation($id: ID!, $in: JobInput!) { updateJob(id: $id, input: $in) { id } }`, map[string]any{"id": id, "in": in}, nil)
		api.must(t, admin, `mutation($id: ID!) { setJobEnabled(id: $id, enabled: false) { id } }`, map[string]any{"id": id}, nil)

		type version struct {
			Version        int
			Change, Author string
			CreatedAt      string
			Processor      string
			Definition     map[string]any
		}
		var got struct {
			Job struct {
				Version  int
				Versions []version
			}
		}
		readQ := `query($id: ID!) { job(id: $id) { version versions { version change author createdAt processor definition } } }`
		api.must(t, vera, readQ, map[string]any{"id": id}, &got)
		vs := got.Job.Versions
		if got.Job.Version != 3 || len(vs) != 3 || vs[0].Change != "DISABLE" || vs[1].Change != "UPDATE" || vs[2].Change != "CREATE" ||
			vs[1].Processor != "echo bye" || vs[2].Processor != "echo hi" || vs[0].Author != "admin" || vs[2].CreatedAt == "" ||
			vs[0].Definition["enabled"] != false || vs[2].Definition["name"] != "report" {
			t.Fatalf("versions: %d %+v", got.Job.Version, vs)
		}

		restoreQ := `mutation($id: ID!, $v: Int!) { restoreJobVersion(id: $id, version: $v) { version processor enabled } }`
		if r := api.do(t, vera, restoreQ, map[string]any{"id": id, "v": 1}, nil); r.code() != CodeForbidden {
			t.Fatalf("a VIEWER restored a version: %+v", r.Errors)
		}
		if r := api.do(t, admin, restoreQ, map[string]any{"id": id, "v": 9}, nil); r.code() != CodeBadInput || r.Errors[0].field() != "version" {
			t.Fatalf("restoring a missing version: %+v", r.Errors)
		}
		var restored struct {
			RestoreJobVersion struct {
				Version   int
				Processor string
				Enabled   bool
			}
		}
		api.must(t, admin, restoreQ, map[string]any{"id": id, "v": 1}, &restored)
		if r := restored.RestoreJobVersion; r.Version != 4 || r.Processor != "echo hi" || !r.Enabled {
			t.Fatalf("restored: %+v; want version 4 with version 1's script, enabled", r)
		}
		api.must(t, vera, readQ, map[string]any{"id": id}, &got)
		if got.Job.Versions[0].Change != "RESTORE 1" {
			t.Fatalf("newest version %+v; want RESTORE 1", got.Job.Versions[0])
		}

		var run struct{ RunJob struct{ JobVersion *int } }
		api.must(t, admin, `mutation($id: ID!) { runJob(id: $id) { jobVersion } }`, map[string]any{"id": id}, &run)
		if v := run.RunJob.JobVersion; v == nil || *v != 4 {
			t.Fatalf("the instance ran version %v; want 4", v)
		}
	})
}
