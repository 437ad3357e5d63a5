package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// dialects runs fn as a parallel subtest on SQLite and on PostgreSQL.
func dialects(t *testing.T, fn func(t *testing.T, dbURL string)) {
	t.Helper()
	for _, tc := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "" }},
		{"postgres", func(t *testing.T) string { return dbtest.NewSchema(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fn(t, tc.url(t))
		})
	}
}

func (cl *cluster) setEnabled(t *testing.T, jobID string, enabled bool) {
	t.Helper()
	if err := cl.c.Do(`mutation($id: ID!, $e: Boolean!) { setJobEnabled(id: $id, enabled: $e) { id } }`,
		map[string]any{"id": jobID, "e": enabled}, nil); err != nil {
		t.Fatal(err)
	}
}

// instancesOf returns a job's instances oldest first, leaving out fires
// that came due while the test was disabling the job (CANCELED as
// JOB_DISABLED): they are the test's doing, not the scheduler's.
func (cl *cluster) instancesOf(t *testing.T, jobID string) []harness.Instance {
	t.Helper()
	all, err := cl.c.Instances(cl.app, jobID)
	if err != nil {
		t.Fatal(err)
	}
	list := all[:0]
	for _, in := range all {
		if in.Reason != "JOB_DISABLED" {
			list = append(list, in)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].ExpectedTriggerTime.Before(*list[j].ExpectedTriggerTime) })
	return list
}

// waitIdle waits until none of the jobs' instances is unfinished.
func (cl *cluster) waitIdle(t *testing.T, jobIDs ...string) {
	t.Helper()
	ok := testkit.Poll(settle, func() bool {
		for _, id := range jobIDs {
			for _, in := range cl.instancesOf(t, id) {
				switch in.Status {
				case "WAITING", "DISPATCHED", "RUNNING":
					return false
				}
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("jobs %v still have unfinished instances\nserver output:\n%s", jobIDs, tail(cl.srv.Output(), 80))
	}
}

// TestEverySecondExactlyOnce: 20 every-second CRON jobs, 5 FIXED_RATE and
// 2 FIXED_DELAY jobs run for 30 s: every fire is recorded once, none is
// missing, and each ran.
func TestEverySecondExactlyOnce(t *testing.T) {
	t.Parallel()
	dialects(t, func(t *testing.T, dbURL string) {
		cl := newCluster(t, dbURL, 2)
		var cron, rate, delay []string
		// maxInstances 5: this test is about the scheduler recording and
		// running every fire. With the default of 1, a run that takes over
		// a second on a loaded machine (27 jobs a second on one SQLite
		// connection, next to Chromium) would rightly cancel the next fire
		// as MAX_INSTANCES; that rule has its own test below.
		for i := 0; i < 20; i++ {
			cron = append(cron, cl.job(t, map[string]any{"name": fmt.Sprintf("cron-%d", i), "scheduleType": "CRON",
				"scheduleExpression": "* * * * * ?", "processorType": "SHELL", "processor": "true", "maxInstances": 5}))
		}
		for i := 0; i < 5; i++ {
			rate = append(rate, cl.job(t, map[string]any{"name": fmt.Sprintf("rate-%d", i), "scheduleType": "FIXED_RATE",
				"scheduleExpression": fmt.Sprintf("%ds", i%2+1), "processorType": "SHELL", "processor": "true", "maxInstances": 5}))
		}
		for i := 0; i < 2; i++ {
			delay = append(delay, cl.job(t, map[string]any{"name": fmt.Sprintf("delay-%d", i), "scheduleType": "FIXED_DELAY",
				"scheduleExpression": "1s", "processorType": "SHELL", "processor": "sleep 0.3"}))
		}
		start := time.Now()
		harness.Elapse(t, 30*time.Second, "the every-second, fixed-rate and fixed-delay jobs firing")
		all := append(append(append([]string{}, cron...), rate...), delay...)
		for _, id := range all {
			cl.setEnabled(t, id, false)
		}
		stop := time.Now()
		cl.waitIdle(t, all...)

		var slowest time.Duration
		for _, id := range cron {
			list := cl.instancesOf(t, id)
			checkInstance(t, "cron "+id, list, time.Second, start, stop)
			for _, in := range list {
				if in.FinishedTime != nil && in.FinishedTime.Sub(*in.ExpectedTriggerTime) > slowest {
					slowest = in.FinishedTime.Sub(*in.ExpectedTriggerTime)
				}
			}
		}
		t.Logf("slowest cron run, from its fire time to its end: %v", slowest)
		for i, id := range rate {
			checkInstance(t, "rate "+id, cl.instancesOf(t, id), time.Duration(i%2+1)*time.Second, start, stop)
		}
		for _, id := range delay {
			list := cl.instancesOf(t, id)
			if len(list) < 15 {
				t.Errorf("fixed delay %s ran %d times in 30s; want about 23", id, len(list))
			}
			for i, in := range list {
				if in.Status != "SUCCEEDED" || in.TriggerType != "SCHEDULE" {
					t.Errorf("fixed delay %s instance %s: %s %s", id, in.ID, in.TriggerType, in.Status)
				}
				// Each run is armed the delay after the previous one ended.
				if i > 0 {
					want := list[i-1].FinishedTime.Add(time.Second)
					if d := in.ExpectedTriggerTime.Sub(want); d < -time.Millisecond || d > time.Millisecond {
						t.Errorf("fixed delay %s: run %d expected at %v, %v after the previous ended; want 1s", id, i,
							in.ExpectedTriggerTime, in.ExpectedTriggerTime.Sub(*list[i-1].FinishedTime))
					}
				}
			}
		}
	})
}

// checkInstance asserts a job fired on every point of its grid between start and
// stop, once each, on time, and every run succeeded.
func checkInstance(t *testing.T, what string, list []harness.Instance, every time.Duration, start, stop time.Time) {
	t.Helper()
	if len(list) == 0 {
		t.Errorf("%s never fired", what)
		return
	}
	seen := map[time.Time]bool{}
	for i, in := range list {
		at := *in.ExpectedTriggerTime
		if seen[at] {
			t.Errorf("%s: fire at %v recorded twice", what, at)
		}
		seen[at] = true
		if i > 0 && at.Sub(*list[i-1].ExpectedTriggerTime) != every {
			t.Errorf("%s: fires at %v then %v; want every %v (a fire is missing)", what, *list[i-1].ExpectedTriggerTime, at, every)
		}
		if in.Status != "SUCCEEDED" || in.TriggerType != "SCHEDULE" {
			t.Errorf("%s: instance %s at %v is %s (%s: %s)", what, in.ID, at, in.Status, in.Reason, in.Result)
		}
	}
	first, last := *list[0].ExpectedTriggerTime, *list[len(list)-1].ExpectedTriggerTime
	if first.After(start.Add(every + time.Second)) {
		t.Errorf("%s: first fire at %v, long after the job was created at %v", what, first, start)
	}
	if last.Before(stop.Add(-every - time.Second)) {
		t.Errorf("%s: last fire at %v, long before the job was disabled at %v", what, last, stop)
	}
}

// TestRetriesTimeoutStopLimits covers an instance's lifecycle rules.
func TestRetriesTimeoutStopLimits(t *testing.T) {
	t.Parallel()
	dialects(t, func(t *testing.T, dbURL string) {
		cl := newCluster(t, dbURL, 1)
		marker := fmt.Sprintf("%d.%03d", 60+time.Now().Nanosecond()%30, time.Now().Nanosecond()%1000)

		// instanceRetries: 2 → three attempts, FAILED at attempt 3.
		failing := cl.job(t, map[string]any{"name": "failing", "processorType": "SHELL", "processor": "echo try\nexit 7", "instanceRetries": 2})
		in := cl.wait(t, cl.run(t, failing), "FAILED")
		if in.Attempt != 3 || len(in.Attempts) != 3 {
			t.Errorf("retried instance: attempt %d with %d attempts recorded; want 3 and 3", in.Attempt, len(in.Attempts))
		}
		for _, a := range in.Attempts {
			if a.Status != "FAILED" || a.Worker == nil || !strings.Contains(a.Result, "exit status 7") {
				t.Errorf("attempt %d: %+v", a.Attempt, a)
			}
		}

		// timeoutMs: FAILED with TIMEOUT, and the script's processes are gone.
		slow := cl.job(t, map[string]any{"name": "slow", "processorType": "SHELL", "processor": "sleep " + marker, "timeoutMs": 2000})
		in = cl.wait(t, cl.run(t, slow), "FAILED")
		if in.Reason != "TIMEOUT" {
			t.Errorf("timed-out instance: reason %q result %q; want TIMEOUT", in.Reason, in.Result)
		}
		if !testkit.Poll(connect, func() bool { return len(processesRunning("sleep "+marker)) == 0 }) {
			t.Errorf("sleep %s still runs after the timeout: pids %v", marker, processesRunning("sleep "+marker))
		}

		// stopInstance: STOPPED, and the process is killed.
		marker2 := "1" + marker
		long := cl.job(t, map[string]any{"name": "long", "processorType": "SHELL", "processor": "sleep " + marker2})
		id := cl.run(t, long)
		cl.wait(t, id, "RUNNING")
		if !testkit.Poll(connect, func() bool { return len(processesRunning("sleep "+marker2)) > 0 }) {
			t.Fatalf("sleep %s is not running", marker2)
		}
		if err := cl.c.Do(`mutation($id: ID!) { stopInstance(id: $id) { status } }`, map[string]any{"id": id}, nil); err != nil {
			t.Fatal(err)
		}
		cl.wait(t, id, "STOPPED")
		if !testkit.Poll(connect, func() bool { return len(processesRunning("sleep "+marker2)) == 0 }) {
			t.Errorf("sleep %s still runs after stopInstance", marker2)
		}
		err := cl.c.Do(`mutation($id: ID!) { stopInstance(id: $id) { status } }`, map[string]any{"id": id}, nil)
		if errs, ok := errors.AsType[harness.Errors](err); !ok || errs.Code() != "CONFLICT" {
			t.Errorf("stopping a stopped instance: %v; want CONFLICT", err)
		}

		// deleteJob: the job goes with its history, and its running
		// instance is stopped on the worker.
		marker3 := "2" + marker
		doomed := cl.job(t, map[string]any{"name": "doomed", "processorType": "SHELL", "processor": "sleep " + marker3})
		doomedInstance := cl.run(t, doomed)
		cl.wait(t, doomedInstance, "RUNNING")
		if !testkit.Poll(connect, func() bool { return len(processesRunning("sleep "+marker3)) > 0 }) {
			t.Fatalf("sleep %s is not running", marker3)
		}
		if err := cl.c.Do(`mutation($id: ID!) { deleteJob(id: $id) }`, map[string]any{"id": doomed}, nil); err != nil {
			t.Fatal(err)
		}
		if !testkit.Poll(connect, func() bool { return len(processesRunning("sleep "+marker3)) == 0 }) {
			t.Errorf("sleep %s still runs after its job was deleted", marker3)
		}
		if _, err := cl.c.Instance(doomedInstance); err == nil {
			t.Errorf("the deleted job's instance is still there")
		}

		// maxInstances: 1 on a 1s FIXED_RATE job that takes 3s: the fires
		// in between are CANCELED, and two never run at once.
		busy := cl.job(t, map[string]any{"name": "busy", "scheduleType": "FIXED_RATE", "scheduleExpression": "1s",
			"processorType": "SHELL", "processor": "sleep 3", "maxInstances": 1})
		harness.Elapse(t, 8*time.Second, "a 1s job that takes 3s firing")
		cl.setEnabled(t, busy, false)
		cl.waitIdle(t, busy)
		var ran []harness.Instance
		canceled := 0
		for _, in := range cl.instancesOf(t, busy) {
			switch in.Status {
			case "CANCELED":
				canceled++
				if in.Reason != "MAX_INSTANCES" {
					t.Errorf("canceled fire %s: reason %q", in.ID, in.Reason)
				}
			case "SUCCEEDED":
				ran = append(ran, in)
			default:
				t.Errorf("busy instance %s is %s", in.ID, in.Status)
			}
		}
		if canceled == 0 || len(ran) == 0 {
			t.Errorf("maxInstances: %d ran, %d canceled; want both", len(ran), canceled)
		}
		for i := 1; i < len(ran); i++ {
			if ran[i].StartedTime.Before(*ran[i-1].FinishedTime) {
				t.Errorf("instances %s and %s overlapped despite maxInstances 1", ran[i-1].ID, ran[i].ID)
			}
		}
	})
}

// TestMisfireAfterDowntime: the server is stopped for 20 s and restarted;
// each job's missed fires follow its misfire policy, none fires twice.
func TestMisfireAfterDowntime(t *testing.T) {
	t.Parallel()
	dialects(t, func(t *testing.T, dbURL string) {
		cl := newCluster(t, dbURL, 1)
		jobs := map[string]string{}
		for _, policy := range []string{"FIRE_ONCE", "SKIP", "FIRE_ALL"} {
			// maxInstances 30: the catch-up runs start together, and this
			// test is about the misfire policy, not the concurrency limit.
			jobs[policy] = cl.job(t, map[string]any{"name": "every2s-" + policy, "scheduleType": "CRON", "scheduleExpression": "0/2 * * * * ?",
				"processorType": "SHELL", "processor": "true", "misfirePolicy": policy, "maxInstances": 30})
		}
		harness.Elapse(t, 5*time.Second, "the every-2s jobs firing before the downtime")
		if err := cl.srv.Stop(harness.StopTimeout); err != nil {
			t.Fatal(err)
		}
		harness.Elapse(t, 20*time.Second, "the server's downtime")
		cl.srv.Restart()
		// The agent reconnects by itself (with back-off); the runs caught up
		// wait for it rather than fail.
		if _, err := cl.c.WaitWorkers(cl.app, 1, connect); err != nil {
			t.Fatal(err)
		}
		harness.Elapse(t, 5*time.Second, "the catch-up runs and the jobs firing again")
		for _, id := range jobs {
			cl.setEnabled(t, id, false)
		}
		for _, id := range jobs {
			cl.waitIdle(t, id)
		}
		for policy, id := range jobs {
			list := cl.instancesOf(t, id)
			misfires := 0
			seen := map[time.Time]bool{}
			for _, in := range list {
				if seen[*in.ExpectedTriggerTime] {
					t.Errorf("%s: fire at %v recorded twice", policy, *in.ExpectedTriggerTime)
				}
				seen[*in.ExpectedTriggerTime] = true
				switch {
				case in.Status == "CANCELED" && in.Reason == "MISFIRE":
					// A fire recorded ahead that came due while the server was
					// down, and that the policy does not run.
					if policy == "FIRE_ALL" {
						t.Errorf("FIRE_ALL skipped the missed fire at %v", *in.ExpectedTriggerTime)
					}
				case in.Status != "SUCCEEDED":
					t.Errorf("%s: instance %s is %s (%s)", policy, in.ID, in.Status, in.Result)
				case in.TriggerType == "MISFIRE":
					misfires++
				}
			}
			switch policy {
			case "FIRE_ONCE":
				if misfires != 1 {
					t.Errorf("FIRE_ONCE caught up %d missed fires; want 1", misfires)
				}
			case "SKIP":
				if misfires != 0 {
					t.Errorf("SKIP caught up %d missed fires; want 0", misfires)
				}
			case "FIRE_ALL":
				// 20 s down at one fire per 2 s: about 10 fires came due, every
				// one runs (those recorded ahead before the stop, and those
				// never recorded), so the grid has no hole.
				if misfires < 7 {
					t.Errorf("FIRE_ALL caught up %d missed fires; want every one (about 9)", misfires)
				}
				for i := 1; i < len(list); i++ {
					if gap := list[i].ExpectedTriggerTime.Sub(*list[i-1].ExpectedTriggerTime); gap != 2*time.Second {
						t.Errorf("FIRE_ALL: a hole of %v before %v", gap, *list[i].ExpectedTriggerTime)
					}
				}
			}
		}
	})
}

// processesRunning returns the pids whose command line contains s.
func processesRunning(s string) []string {
	var pids []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), s) {
			pids = append(pids, filepath.Base(d))
		}
	}
	return pids
}
