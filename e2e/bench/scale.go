package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/schedule/cron"
)

// The console's queries, as frontend/src/jobs/operations.ts and
// frontend/src/dashboard/operations.ts send them.
const (
	jobsPageQuery = `query Jobs($app: String!, $first: Int, $after: String, $search: String) {
  jobs(app: $app, first: $first, after: $after, search: $search) {
    edges { cursor node { id name description enabled scheduleType scheduleExpression timeZone processorType executionMode
      nextTriggerTime lastRun { id status actualTriggerTime } } }
    pageInfo { hasNextPage endCursor }
  }
}`
	dashboardQuery = `query AppStats($app: String!, $hours: Int) {
  appStats(app: $app, hours: $hours) {
    jobs enabledJobs waiting running succeeded failed workersAlive
    outcomes { start succeeded failed stopped canceled }
  }
}`
)

// scale: total jobs defined in one app, firing of them every second (a
// no-op GO processor), the rest daily; the jobs are bulk-inserted through
// the database layer (the API would take minutes for 100,000), copied from
// two made through the API so every column is as the API sets it. While
// they fire, `readers` console users each load the jobs page (25 jobs, as
// the console asks) and the dashboard, then pause 100 ms.
func (b *bench) scale(total, firing, readers, seconds, workers int) map[string]any {
	e := b.start(workers, 256)
	ctx := context.Background()
	// Templates made disabled, so they never fire, read back, and deleted
	// through the API once the copies are in: that tells the app's owner
	// its jobs changed, as creating them through the API would have.
	var templates []string
	template := func(name, expr string) db.Job {
		id, err := e.c.CreateJob(map[string]any{"app": "bench", "name": name, "scheduleType": "CRON", "enabled": false,
			"scheduleExpression": expr, "processorType": "GO", "processor": "example.noop"})
		if err != nil {
			b.Fatalf("creating the %s template: %v", name, err)
		}
		n, _ := strconv.ParseInt(id, 10, 64)
		j, err := e.db.JobGet(ctx, n)
		if err != nil {
			b.Fatalf("%v", err)
		}
		templates = append(templates, id)
		j.Enabled = true
		return *j
	}
	daily := template("template-daily", "0 0 3 * * ?")
	loc, err := time.LoadLocation(daily.TimeZone)
	if err != nil {
		b.Fatalf("the template's time zone %q: %v", daily.TimeZone, err)
	}
	expr, err := cron.Parse(daily.ScheduleExpression, loc)
	if err != nil {
		b.Fatalf("%v", err)
	}
	dailyNext, ok := expr.Next(time.Now())
	if !ok {
		b.Fatalf("%s has no next fire time", daily.ScheduleExpression)
	}
	daily.NextTriggerAt = &dailyNext
	everySecond := template("template-every-second", "* * * * * ?")

	inserted := time.Now()
	const chunk = 1000
	// The daily ones first, the firing ones last, each chunk due from a
	// few seconds after it is written.
	for from := 0; from < total; from += chunk {
		batch := make([]db.Job, 0, chunk)
		next := time.Now().Truncate(time.Second).Add(3 * time.Second)
		for i := from; i < min(from+chunk, total); i++ {
			j := daily
			if i >= total-firing {
				j = everySecond
				j.NextTriggerAt = &next
			}
			j.ID = 0
			j.Name = fmt.Sprintf("job-%06d", i)
			j.CreatedAt, j.UpdatedAt = db.Now(), db.Now()
			batch = append(batch, j)
		}
		if _, err := e.db.Bun().NewInsert().Model(&batch).Exec(ctx); err != nil {
			b.Fatalf("inserting jobs %d to %d: %v", from, from+len(batch), err)
		}
	}
	for _, id := range templates {
		if err := e.c.Do(`mutation($id: ID!) { deleteJob(id: $id) }`, map[string]any{"id": id}, nil); err != nil {
			b.Fatalf("deleting template %s: %v", id, err)
		}
	}
	insertSec := time.Since(inserted).Seconds()

	// Measured from when a whole second's fires all fired: a loaded
	// database can make the bulk insert cost the server its lease (a
	// renewal timing out), and an app taken over holds its misfires for a
	// while — the start, not the steady state this scenario is about.
	warm := time.Now()
	steady := false
	for time.Since(warm) < 3*time.Minute {
		sec := time.Now().Truncate(time.Second).Add(-2 * time.Second)
		var fired int
		if err := e.db.Bun().NewRaw(`SELECT count(*) FROM instances WHERE app_id = ? AND expected_trigger_at >= ? AND expected_trigger_at < ?
			AND actual_trigger_at IS NOT NULL`, e.appID, sec, sec.Add(time.Second)).Scan(ctx, &fired); err != nil {
			b.Fatalf("counting fires: %v", err)
		}
		if fired >= firing {
			steady = true
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	warmupSec := time.Since(warm).Seconds()
	from := time.Now().Truncate(time.Second).Add(time.Second)
	to := from.Add(time.Duration(seconds) * time.Second)
	time.Sleep(time.Until(from))
	prof := b.profile(e, "scale")
	share := newCPUShare(e, false)
	cpu0 := cpuSeconds(e.srv.Pid())
	var (
		mu              sync.Mutex
		jobsMs, dashMs  []float64
		queryErrs       int
		lastQueryErr    string
		wg              sync.WaitGroup
		firstPageLength int
	)
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := e.srv.Client()
			for time.Now().Before(to) {
				var page struct {
					Jobs struct{ Edges []struct{ Cursor string } }
				}
				t0 := time.Now()
				err1 := c.Do(jobsPageQuery, map[string]any{"app": "bench", "first": 25}, &page)
				t1 := time.Now()
				err2 := c.Do(dashboardQuery, map[string]any{"app": "bench", "hours": 24}, nil)
				t2 := time.Now()
				mu.Lock()
				for _, err := range []error{err1, err2} {
					if err != nil {
						queryErrs++
						lastQueryErr = err.Error()
					}
				}
				if err1 == nil {
					jobsMs = append(jobsMs, ms(t1.Sub(t0)))
					firstPageLength = len(page.Jobs.Edges)
				}
				if err2 == nil {
					dashMs = append(dashMs, ms(t2.Sub(t1)))
				}
				mu.Unlock()
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}
	time.Sleep(time.Until(to))
	wg.Wait()
	cpu1 := cpuSeconds(e.srv.Pid())
	cpuShare := share.finish()
	profiles := prof.finish()
	rss := peakRSSMB(e.srv.Pid())
	time.Sleep(3 * time.Second) // the window's last fires are recorded
	records, err := e.db.FireRecordList(ctx, e.appID, from, to)
	if err != nil {
		b.Fatalf("%v", err)
	}
	type key struct {
		job int64
		at  int64
	}
	seen := map[key]int{}
	statuses := map[string]int{}
	canceledBy := map[string]int{}
	var lateness, started []float64
	for _, r := range records {
		seen[key{r.JobID, r.ExpectedTriggerAt.Unix()}]++
		statuses[r.Status]++
		if r.Status == "CANCELED" {
			canceledBy[r.Reason]++
		}
		if r.ActualTriggerAt != nil {
			lateness = append(lateness, ms(r.ActualTriggerAt.Sub(*r.ExpectedTriggerAt)))
		}
		if r.StartedAt != nil {
			started = append(started, ms(r.StartedAt.Sub(*r.ExpectedTriggerAt)))
		}
	}
	duplicates := 0
	for _, n := range seen {
		duplicates += n - 1
	}
	// Stop the firing before the schema is dropped.
	if _, err := e.db.Bun().NewUpdate().Model((*db.Job)(nil)).Set("enabled = ?", false).Set("next_trigger_at = NULL").
		Where("app_id = ?", e.appID).Exec(ctx); err != nil {
		b.Logf("bench: disabling the jobs: %v", err)
	}
	sort.Float64s(lateness)
	sort.Float64s(started)
	sort.Float64s(jobsMs)
	sort.Float64s(dashMs)
	expected := firing * seconds
	return map[string]any{
		"jobs": total, "firing": firing, "seconds": seconds, "workers": workers, "readers": readers,
		"insertJobsSec": round(insertSec),
		// From the insert to a whole second's fires all fired (steady:
		// false if that did not happen within 3 minutes; measured anyway).
		"warmupSec": round(warmupSec), "steady": steady,
		"expectedFires": expected, "fires": len(records), "missed": expected - len(seen), "duplicates": duplicates,
		"statuses": statuses, "canceledByReason": canceledBy,
		"latenessMs":     map[string]any{"p50": pct(lateness, 50), "p99": pct(lateness, 99), "max": pct(lateness, 100)},
		"startLatencyMs": map[string]any{"p50": pct(started, 50), "p99": pct(started, 99), "max": pct(started, 100)},
		// The console's jobs page (first 25 with their last run) and
		// dashboard (appStats, 24 h), as answered while the jobs fire.
		"jobsPageMs":      map[string]any{"n": len(jobsMs), "p50": pct(jobsMs, 50), "p99": pct(jobsMs, 99), "max": pct(jobsMs, 100)},
		"dashboardMs":     map[string]any{"n": len(dashMs), "p50": pct(dashMs, 50), "p99": pct(dashMs, 99), "max": pct(dashMs, 100)},
		"jobsPageRows":    firstPageLength,
		"queryErrors":     queryErrs,
		"lastQueryError":  lastQueryErr,
		"serverCpuSec":    round(cpu1 - cpu0),
		"serverPeakRssMB": rss,
		"profiles":        profiles,
		"cpuSec":          cpuShare,
		"perJob":          share.perJob(map[string]int{"instance": len(records)}),
	}
}
