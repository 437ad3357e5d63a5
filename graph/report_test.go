package graph

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/testfactory"
)

// TestRunReport: runReport counts finished runs per day (of the zone asked
// for) and job, with durations' p50, p95 and max, computed by the database
// (SQLite and PostgreSQL); the range is bounded; appsOverview gives each
// visible app at a glance (issue 28 item 15).
func TestRunReport(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		appID := api.createApp(t, admin, "orders")
		other := api.createApp(t, admin, "billing")
		a := testfactory.Job(t, d, appID, &testfactory.JobOpts{Name: "a"})
		b := testfactory.Job(t, d, appID, &testfactory.JobOpts{Name: "b"})
		c := testfactory.Job(t, d, other, &testfactory.JobOpts{Name: "c"})
		// Day 1 (2025-01-01 in Asia/Shanghai, UTC+8) and day 2.
		day1 := time.Date(2024, 12, 31, 16, 0, 0, 0, time.UTC)
		day2 := day1.Add(24 * time.Hour)
		run := func(job *db.Job, status string, end time.Time, ms int) {
			start := end.Add(-time.Duration(ms) * time.Millisecond)
			testfactory.Instance(t, d, job, &testfactory.InstanceOpts{Status: status, Edit: func(in *db.Instance) {
				in.FinishedAt = &end
				if ms > 0 {
					in.StartedAt = &start
				}
			}})
		}
		for i := 1; i <= 20; i++ { // a: 20 runs on day 1 taking 100 ms … 2000 ms
			status := db.StatusSucceeded
			if i%5 == 0 {
				status = db.StatusFailed
			}
			run(a, status, day1.Add(time.Duration(i)*time.Minute), i*100)
		}
		run(a, db.StatusCanceled, day1.Add(time.Hour), 0)
		run(b, db.StatusSucceeded, day2.Add(time.Hour), 500)
		run(c, db.StatusFailed, day2.Add(2*time.Hour), 700)
		run(a, db.StatusSucceeded, day2.Add(25*time.Hour), 1) // outside the range

		type row struct {
			Date                                        string
			Job                                         struct{ Name string }
			Runs, Succeeded, Failed, Stopped, Canceled  int
			DurationP50Ms, DurationP95Ms, DurationMaxMs *int
		}
		var out struct {
			RunReport struct {
				TimeZone string
				Days     []struct {
					Date         string
					Runs, Failed int
				}
				Rows []row
			}
		}
		const q = `query($app: String, $job: ID, $from: Time!, $to: Time!) { runReport(app: $app, jobId: $job, from: $from, to: $to, timeZone: "Asia/Shanghai") {
			timeZone days { date runs failed } rows { date job { name } runs succeeded failed stopped canceled durationP50Ms durationP95Ms durationMaxMs } } }`
		vars := map[string]any{"app": "orders", "from": day1, "to": day2.Add(24 * time.Hour)}
		api.must(t, admin, q, vars, &out)
		rep := out.RunReport
		if len(rep.Days) != 2 || rep.Days[0].Date != "2025-01-01" || rep.Days[1].Date != "2025-01-02" ||
			rep.Days[0].Runs != 21 || rep.Days[0].Failed != 4 || rep.Days[1].Runs != 1 {
			t.Fatalf("days: %+v", rep.Days)
		}
		if len(rep.Rows) != 2 {
			t.Fatalf("rows: %+v; want job a on day 1 and job b on day 2", rep.Rows)
		}
		r := rep.Rows[0]
		if r.Date != "2025-01-01" || r.Job.Name != "a" || r.Runs != 21 || r.Succeeded != 16 || r.Failed != 4 || r.Canceled != 1 ||
			r.DurationP50Ms == nil || *r.DurationP50Ms != 1000 || *r.DurationP95Ms != 1900 || *r.DurationMaxMs != 2000 {
			t.Fatalf("job a on day 1: %+v (p50 %v p95 %v max %v); want 21 runs, p50 1000, p95 1900, max 2000", r,
				orNil(r.DurationP50Ms), orNil(r.DurationP95Ms), orNil(r.DurationMaxMs))
		}
		if r := rep.Rows[1]; r.Date != "2025-01-02" || r.Job.Name != "b" || r.Runs != 1 || *r.DurationP50Ms != 500 {
			t.Fatalf("job b on day 2: %+v", r)
		}
		// Every app the caller sees; one job.
		delete(vars, "app")
		api.must(t, admin, q, vars, &out)
		if n := len(out.RunReport.Rows); n != 3 {
			t.Fatalf("all apps: %d rows; want 3", n)
		}
		vars["job"] = fmt.Sprint(b.ID)
		api.must(t, admin, q, vars, &out)
		if n := len(out.RunReport.Rows); n != 1 || out.RunReport.Rows[0].Job.Name != "b" {
			t.Fatalf("job b: %+v", out.RunReport.Rows)
		}

		// The range is bounded, naming the field.
		vars = map[string]any{"from": day1, "to": day1.Add(93 * 24 * time.Hour)}
		if r := api.do(t, admin, q, vars, nil); r.code() != CodeBadInput || r.Errors[0].field() != "to" {
			t.Fatalf("93 days: %+v; want BAD_INPUT naming to", r.Errors)
		}
		// A user who sees no app gets an empty report.
		nobody := api.createUser(t, admin, "nobody")
		vars["to"] = day2
		api.must(t, nobody, q, vars, &out)
		if len(out.RunReport.Rows) != 0 {
			t.Fatalf("a user with no app: %+v", out.RunReport.Rows)
		}

		// The overview: runs today, failures today, running now, per app.
		now := db.Now()
		run(a, db.StatusFailed, now, 10)
		testfactory.Instance(t, d, c, &testfactory.InstanceOpts{Status: db.StatusRunning})
		var ov struct {
			AppsOverview []struct {
				App                                                       struct{ Name string }
				Jobs, RunsToday, FailuresToday, RunningNow, WorkersOnline int
			}
		}
		api.must(t, admin, `{ appsOverview { app { name } jobs runsToday failuresToday runningNow workersOnline } }`, nil, &ov)
		got := map[string]string{}
		for _, o := range ov.AppsOverview {
			got[o.App.Name] = fmt.Sprintf("%d jobs, %d runs, %d failed, %d running, %d workers", o.Jobs, o.RunsToday, o.FailuresToday, o.RunningNow, o.WorkersOnline)
		}
		if got["orders"] != "2 jobs, 1 runs, 1 failed, 0 running, 0 workers" || got["billing"] != "1 jobs, 0 runs, 0 failed, 1 running, 0 workers" {
			t.Fatalf("overview: %v", got)
		}
		_ = ctx
	})
}

func orNil(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
