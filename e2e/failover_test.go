package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// TestPrimaryFailover (issue 30): jobwheel on an HA PostgreSQL — Patroni
// with a primary and a synchronous standby, reached through HAProxy's
// check of Patroni's /primary — keeps its promises while the database
// fails over. Two jobs fire every second (FIRE_ALL) and an API caller runs
// a job five times a second while the primary is killed -9 mid-load
// (Patroni promotes the standby), the old primary rejoins as a standby,
// and a planned switchover hands the primary back. The server is never
// restarted. Then: every second fired exactly once, no task ran twice,
// every instance ended and succeeded, every runJob the API acknowledged
// exists, and every instance's log lines are there once and in order. The
// time from the primary's death to the first fire on the new one is
// logged (speed is reported, not asserted).
func TestPrimaryFailover(t *testing.T) {
	t.Parallel()
	if missing := harness.PatroniTools(); missing != "" {
		t.Fatalf("the HA PostgreSQL tier needs %s: `make system-deps` installs them (apt-get install -y patroni etcd-server haproxy)", missing)
	}
	pg := harness.StartPatroni(t)
	srv := harness.StartServer(t, harness.ServerOptions{DatabaseURL: pg.URL, Env: []string{"JOBWHEEL_LOG_LEVEL=info"}})
	c := srv.Client()
	audit := dbtest.OpenURL(t, pg.URL)
	record := filepath.Join(t.TempDir(), "ran")
	const app = "ha"
	a := harness.StartApp(t, c, app, 1, time.Minute, func(int) harness.AgentOptions {
		return harness.AgentOptions{Servers: []string{srv.URL}, Slots: 16, Env: []string{"FAILOVER_RECORD=" + record, "JOBWHEEL_LOG_LEVEL=warn"}}
	})
	// The task records what it runs (a line per start), then logs three
	// lines.
	script := `echo "$JOBWHEEL_INSTANCE_ID $JOBWHEEL_TASK_ID $JOBWHEEL_ATTEMPT" >> "$FAILOVER_RECORD"; for i in 1 2 3; do echo "line $i"; done`
	job := func(in map[string]any) string {
		in["app"], in["processorType"], in["processor"], in["maxInstances"], in["instanceRetries"] = app, "SHELL", script, 1000, 3
		id, err := c.CreateJob(in)
		if err != nil {
			t.Fatalf("creating %v: %v", in["name"], err)
		}
		return id
	}
	var cron []string
	for i := range 2 {
		cron = append(cron, job(map[string]any{"name": fmt.Sprintf("every-second-%d", i), "scheduleType": "CRON",
			"scheduleExpression": "* * * * * ?", "misfirePolicy": "FIRE_ALL"}))
	}
	apiJob := job(map[string]any{"name": "api", "scheduleType": "API"})
	begin := time.Now()

	// The API caller: what it is told was created must exist at the end.
	// Calls that fail during the failover are the caller's to retry; they
	// promised nothing.
	var acked []string
	var failed int
	stopCalls := make(chan struct{})
	var calls sync.WaitGroup
	calls.Go(func() {
		for {
			select {
			case <-stopCalls:
				return
			case <-time.After(200 * time.Millisecond):
			}
			if id, err := c.RunJob(apiJob, ""); err == nil {
				acked = append(acked, id)
			} else {
				failed++
			}
		}
	})

	harness.Elapse(t, 4*time.Second, "the jobs firing on the first primary")
	killedAt := time.Now()
	old := pg.KillPrimary()
	t.Logf("killed the primary %s (-9, its Patroni and every PostgreSQL process)", old.Name)
	// The first fire on the new primary is seen when a fire dispatched
	// after the death can be read through HAProxy: the old primary is gone,
	// so only the new one can answer it. (A fire's dispatch time alone is
	// the server's decision, which may come before a commit that only the
	// new primary took.)
	var firstFire time.Time
	if !testkit.Poll(60*time.Second, func() bool {
		recs, err := audit.FireRecordList(context.Background(), a.ID, begin.Add(-time.Minute), time.Now().Add(time.Minute))
		if err != nil {
			return false
		}
		for _, r := range recs {
			if r.ActualTriggerAt != nil && r.ActualTriggerAt.After(killedAt) {
				firstFire = time.Now()
				return true
			}
		}
		return false
	}) {
		t.Fatalf("nothing fired on the new primary within a minute of the old one's death")
	}
	t.Logf("primary death → first fire seen on the new primary %s: %s", pg.Primary().Name, firstFire.Sub(killedAt).Round(100*time.Millisecond))

	pg.WaitHealthy()
	pg.Rejoin(old)
	pg.WaitHealthy()
	t.Logf("%s rejoined as the synchronous standby", old.Name)
	harness.Elapse(t, 2*time.Second, "the jobs firing with the old primary back as a standby")
	to := pg.Switchover()
	switchedAt := time.Now()
	pg.WaitHealthy()
	t.Logf("planned switchover to %s", to.Name)
	harness.Elapse(t, 3*time.Second, "the jobs firing on the switched-over primary")
	close(stopCalls)
	calls.Wait()

	stopAt := time.Now()
	for _, id := range cron {
		if err := c.Do(`mutation($id: ID!) { setJobEnabled(id: $id, enabled: false) { id } }`, map[string]any{"id": id}, nil); err != nil {
			t.Fatalf("disabling job %s: %v", id, err)
		}
	}
	ctx := context.Background()
	var counts map[string]int
	testkit.EventuallyWithin(t, 2*time.Minute, "every instance ends", func() bool {
		var err error
		counts, err = audit.InstanceStatusCounts(ctx, a.ID)
		t.Logf("instances by status: %v %v", counts, err)
		return err == nil && counts[db.StatusWaiting]+counts[db.StatusDispatched]+counts[db.StatusRunning] == 0
	})

	// Every second from the first full one to the last before the jobs
	// were disabled fired exactly once, across both failovers.
	from, until := begin.Truncate(time.Second).Add(2*time.Second), stopAt.Truncate(time.Second).Add(-time.Second)
	recs, err := audit.FireRecordList(ctx, a.ID, from, until)
	if err != nil {
		t.Fatal(err)
	}
	fires := map[string]int{}
	for _, r := range recs {
		fires[fmt.Sprintf("%d@%d", r.JobID, r.ExpectedTriggerAt.Unix())]++
	}
	for _, j := range cron {
		for at := from; at.Before(until); at = at.Add(time.Second) {
			if n := fires[j+"@"+fmt.Sprint(at.Unix())]; n != 1 {
				t.Errorf("job %s's fire at %s was recorded %d times; want once", j, at.UTC().Format(time.TimeOnly), n)
			}
		}
	}
	if n, err := audit.InstanceCountRunTwice(ctx, a.ID); err != nil || n != 0 {
		t.Errorf("%d instances succeeded twice in one attempt (%v)", n, err)
	}
	// A fire already sent ahead to its worker when the test disabled its
	// job ends CANCELED as JOB_DISABLED (design.md §5.10): the test's
	// doing, not a failover's.
	var disabled int
	if err := audit.Bun().NewRaw(`SELECT count(*) FROM instances WHERE app_id = ? AND status = ? AND reason = ?`,
		a.ID, db.StatusCanceled, db.ReasonJobDisabled).Scan(ctx, &disabled); err != nil {
		t.Fatal(err)
	}
	counts[db.StatusCanceled] -= disabled
	for status, n := range counts {
		if status != db.StatusSucceeded && n != 0 {
			t.Errorf("%d instances ended %s (not counting %d fires canceled by disabling their jobs); want every one SUCCEEDED (%v)", n, status, disabled, counts)
		}
	}

	// The agent's own record: no task started twice.
	started := map[string]int{}
	f, err := os.Open(record)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 3 {
			started[fields[1]]++
		}
	}
	_ = f.Close()
	for task, n := range started {
		if n > 1 {
			t.Errorf("task %s started %d times", task, n)
		}
	}

	// Every acknowledged runJob exists; every first-attempt instance of
	// every job logged its three lines once and in order.
	for _, id := range acked {
		in, err := c.Instance(id)
		if err != nil {
			t.Errorf("runJob acknowledged instance %s, which is lost: %v", id, err)
			continue
		}
		checkLines(t, in)
	}
	for _, j := range cron {
		list, err := c.Instances(app, j)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range list {
			if in.Attempt == 1 {
				full, err := c.Instance(in.ID)
				if err != nil {
					t.Fatal(err)
				}
				checkLines(t, full)
			}
		}
	}
	t.Logf("%d fires checked (%d expected seconds × %d jobs), %d runJob calls acknowledged (%d failed during the faults), %d tasks run; switchover at +%s",
		len(recs), int(until.Sub(from)/time.Second), len(cron), len(acked), failed, len(started), switchedAt.Sub(begin).Round(time.Second))
}

// checkLines asserts a succeeded first-attempt instance's log holds its
// three lines once and in order.
func checkLines(t *testing.T, in *harness.Instance) {
	t.Helper()
	if in.Status != db.StatusSucceeded || in.Attempt != 1 {
		return
	}
	var got []string
	for _, l := range in.Logs.Lines {
		got = append(got, l.Text)
	}
	if strings.Join(got, "|") != "line 1|line 2|line 3" {
		t.Errorf("instance %s logged %q; want line 1..3 once and in order", in.ID, got)
	}
}
