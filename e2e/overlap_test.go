//go:build linux

package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// Overlap policies and the retry back-off on a real server and agent over
// PostgreSQL (docs/design.md §5.5, §6.5). Times are the recorded ones;
// the only bounds asserted are lower ones.

// overlapInstance is an instance as these tests read it.
type overlapInstance struct {
	ID                  string
	Status              string
	Reason              string
	Result              string
	ExpectedTriggerTime *time.Time
	StartedTime         *time.Time
	FinishedTime        *time.Time
	NextAttemptAt       *time.Time
	Attempts            []struct {
		Attempt                   int
		Status, Reason            string
		StartedTime, FinishedTime *time.Time
	}
}

func overlapInstances(t *testing.T, c *harness.Client, app, jobID string) []overlapInstance {
	t.Helper()
	var out struct {
		Instances struct {
			Edges []struct{ Node overlapInstance }
		}
	}
	if err := c.Do(`query($app: String!, $job: ID) { instances(app: $app, jobId: $job, first: 500) { edges { node {
		id status reason result expectedTriggerTime startedTime finishedTime nextAttemptAt
		attempts { attempt status reason startedTime finishedTime } } } } }`,
		map[string]any{"app": app, "job": jobID}, &out); err != nil {
		t.Fatal(err)
	}
	list := make([]overlapInstance, len(out.Instances.Edges))
	for i, e := range out.Instances.Edges {
		list[i] = e.Node
	}
	return list
}

func overlapCluster(t *testing.T, app string) (*harness.Client, *harness.Server) {
	t.Helper()
	srv := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbtest.NewSchema(t)})
	c := srv.Client()
	_, secret, err := c.CreateApp(app)
	if err != nil {
		t.Fatal(err)
	}
	harness.StartAgent(t, harness.AgentOptions{Servers: []string{srv.URL}, App: app, Secret: secret, Slots: 4})
	if _, err := c.WaitWorkers(app, 1, connect); err != nil {
		t.Fatal(err)
	}
	return c, srv
}

// TestOverlapQueueRunsFiresInOrderWithoutOverlap: a QUEUE job whose runs
// take 3 s, fired every second for 8 s, runs its fires one at a time in
// fire order, each starting after the previous ended; the fires beyond
// maxQueued are CANCELED with QUEUE_FULL naming the limit; nothing else
// happens to any fire.
func TestOverlapQueueRunsFiresInOrderWithoutOverlap(t *testing.T) {
	t.Parallel()
	c, _ := overlapCluster(t, "queued")
	end := time.Now().Add(8 * time.Second).UTC()
	jobID, err := c.CreateJob(map[string]any{"app": "queued", "name": "slow", "scheduleType": "FIXED_RATE", "scheduleExpression": "1s",
		"processorType": "SHELL", "processor": "sleep 3", "maxInstances": 1, "overlapPolicy": "QUEUE", "maxQueued": 2,
		"lifecycle": map[string]any{"end": end.Format(time.RFC3339Nano)}})
	if err != nil {
		t.Fatal(err)
	}
	var runs []overlapInstance
	testkit.EventuallyWithin(t, 2*time.Minute, "every fire of the window to end", func() bool {
		if time.Now().Before(end.Add(time.Second)) {
			return false
		}
		runs = overlapInstances(t, c, "queued", jobID)
		return len(runs) > 0 && !slices.ContainsFunc(runs, func(r overlapInstance) bool {
			return r.Status == "WAITING" || r.Status == "DISPATCHED" || r.Status == "RUNNING"
		})
	})
	slices.SortFunc(runs, func(a, b overlapInstance) int { return a.ExpectedTriggerTime.Compare(*b.ExpectedTriggerTime) })
	var ran []overlapInstance
	canceled := 0
	for _, r := range runs {
		switch {
		case r.Status == "SUCCEEDED":
			ran = append(ran, r)
		case r.Status == "CANCELED" && r.Reason == "QUEUE_FULL" && strings.Contains(r.Result, "maxQueued 2"):
			canceled++
		default:
			t.Fatalf("fire %s ended %s (%s: %s); want SUCCEEDED, or CANCELED for QUEUE_FULL naming maxQueued", r.ID, r.Status, r.Reason, r.Result)
		}
	}
	if len(ran) < 3 || canceled == 0 {
		t.Fatalf("%d fires ran and %d were canceled; want the first and the queued ones to run and the overflow canceled", len(ran), canceled)
	}
	for i := 1; i < len(ran); i++ {
		prev, r := ran[i-1], ran[i]
		if r.StartedTime.Before(*prev.FinishedTime) {
			t.Fatalf("fire %s (due %v) started %v, before fire %s (due %v) ended %v: runs overlapped or ran out of order",
				r.ID, r.ExpectedTriggerTime, r.StartedTime, prev.ID, prev.ExpectedTriggerTime, prev.FinishedTime)
		}
	}
	t.Logf("%d fires ran one after another in fire order, %d overflowed", len(ran), canceled)
}

// TestOverlapReplaceStopsTheRunningInstance: a REPLACE job's second run
// stops the first — STOPPED with reason REPLACED, its process gone from
// the worker's machine — and runs itself.
func TestOverlapReplaceStopsTheRunningInstance(t *testing.T) {
	t.Parallel()
	c, _ := overlapCluster(t, "replaced")
	jobID, err := c.CreateJob(map[string]any{"app": "replaced", "name": "long", "scheduleType": "API",
		"processorType": "SHELL", "processor": `sleep "$2"`, "maxInstances": 1, "overlapPolicy": "REPLACE"})
	if err != nil {
		t.Fatal(err)
	}
	// Each run sleeps a duration no other process on the machine does, so
	// its process can be found by its command line.
	first, second := fmt.Sprint(3000+time.Now().UnixNano()%1000), fmt.Sprint(5000+time.Now().UnixNano()%1000)
	id1, err := c.RunJob(jobID, first)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitInstance(id1, settle, "RUNNING"); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the first run's process", func() bool { return len(processesRunning("sleep "+first)) == 1 })

	id2, err := c.RunJob(jobID, second)
	if err != nil {
		t.Fatal(err)
	}
	old, err := c.WaitInstance(id1, settle, "STOPPED", "SUCCEEDED", "FAILED", "CANCELED")
	if err != nil {
		t.Fatal(err)
	}
	if old.Status != "STOPPED" || old.Reason != "REPLACED" || !strings.Contains(old.Result, "instance "+id2) {
		t.Fatalf("first run: %s (%s: %s); want STOPPED for REPLACED naming instance %s", old.Status, old.Reason, old.Result, id2)
	}
	testkit.Eventually(t, "the first run's process to be gone", func() bool { return len(processesRunning("sleep "+first)) == 0 })
	if _, err := c.WaitInstance(id2, settle, "RUNNING"); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the second run's process", func() bool { return len(processesRunning("sleep "+second)) == 1 })
	if err := c.Do(`mutation($id: ID!) { stopInstance(id: $id) { id } }`, map[string]any{"id": id2}, nil); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the second run's process to be gone", func() bool { return len(processesRunning("sleep "+second)) == 0 })
}

// TestRetryBackoffStartsAttemptsAfterTheirDelays: with retryDelayMs 2000
// and retryBackoff 2, a failing instance's second attempt starts at least
// 2 s after the first failed and its third at least 4 s after the second
// failed (recorded times); while it waits, the instance says when its next
// attempt is due.
func TestRetryBackoffStartsAttemptsAfterTheirDelays(t *testing.T) {
	t.Parallel()
	c, _ := overlapCluster(t, "backoff")
	jobID, err := c.CreateJob(map[string]any{"app": "backoff", "name": "flaky", "scheduleType": "API",
		"processorType": "SHELL", "processor": "exit 3", "instanceRetries": 2, "retryDelayMs": 2000, "retryBackoff": 2})
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.RunJob(jobID, "")
	if err != nil {
		t.Fatal(err)
	}
	var waiting overlapInstance
	testkit.Eventually(t, "the instance to wait for its second attempt", func() bool {
		for _, r := range overlapInstances(t, c, "backoff", jobID) {
			if r.ID == id && r.Status == "WAITING" && r.NextAttemptAt != nil {
				waiting = r
				return true
			}
		}
		return false
	})
	if len(waiting.Attempts) == 0 || waiting.Attempts[0].FinishedTime == nil ||
		waiting.NextAttemptAt.Sub(*waiting.Attempts[0].FinishedTime) < 2*time.Second {
		t.Fatalf("waiting instance: next attempt due %v after attempts %+v; want at least 2 s after the failure", waiting.NextAttemptAt, waiting.Attempts)
	}
	if _, err := c.WaitInstance(id, 2*time.Minute, "FAILED"); err != nil {
		t.Fatal(err)
	}
	var run overlapInstance
	for _, r := range overlapInstances(t, c, "backoff", jobID) {
		if r.ID == id {
			run = r
		}
	}
	if len(run.Attempts) != 3 {
		t.Fatalf("attempts %+v; want 3", run.Attempts)
	}
	for i, want := range []time.Duration{2 * time.Second, 4 * time.Second} {
		prev, next := run.Attempts[i], run.Attempts[i+1]
		if prev.FinishedTime == nil || next.StartedTime == nil {
			t.Fatalf("attempt %d or %d has no recorded time: %+v", prev.Attempt, next.Attempt, run.Attempts)
		}
		if gap := next.StartedTime.Sub(*prev.FinishedTime); gap < want {
			t.Fatalf("attempt %d started %v after attempt %d failed; want at least %v", next.Attempt, gap, prev.Attempt, want)
		} else {
			t.Logf("attempt %d started %v after attempt %d failed (back-off %v)", next.Attempt, gap, prev.Attempt, want)
		}
	}
	if run.NextAttemptAt != nil {
		t.Fatalf("a FAILED instance has a next attempt due %v", run.NextAttemptAt)
	}
}
