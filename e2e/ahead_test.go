package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// TestDispatchAheadThroughFailover: three servers that send scheduled
// fires to their workers 2 s ahead (-dispatch-ahead, design.md §5.10), one
// app with two agents and ten every-second jobs. Fires are sent before
// their time and none starts before it. Kill -9 the owner, then SIGTERM
// the next: the tasks held on the agents are adopted by the next owner,
// so every fire is recorded once, runs once, and none fails for a lost
// worker; disabling the jobs cancels the fires already held.
func TestDispatchAheadThroughFailover(t *testing.T) {
	t.Parallel()
	f := newFleetVia(t, 3, false, "JOBWHEEL_DISPATCH_AHEAD=2s")
	// maxInstances 50: the fires a take-over catches up on start together
	// with the next one (CI: five at once, the sixth CANCELED at
	// maxInstances 5), and a run late on a loaded machine is not this
	// test's subject either (a fire at maxInstances is decided at its time,
	// as always).
	f.addAppWith("early", 10, map[string]any{"maxInstances": 50})
	first := f.settled("early", "")
	harness.Elapse(t, 6*time.Second, "fires sent ahead by the first owner")
	killed := time.Now()
	f.server(first).Kill()
	second := f.settled("early", first)
	harness.Elapse(t, 6*time.Second, "fires sent ahead by the second owner")
	if err := f.server(second).Stop(harness.StopTimeout); err != nil {
		t.Fatal(err)
	}
	third := f.settled("early", second)
	harness.Elapse(t, 6*time.Second, "fires sent ahead by the third owner")
	for _, id := range f.jobs["early"] {
		if err := f.api().Do(`mutation($id: ID!) { setJobEnabled(id: $id, enabled: false) { id } }`, map[string]any{"id": id}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if !testkit.Poll(settle, func() bool {
		for _, id := range f.jobs["early"] {
			for _, in := range f.fires("early", id) {
				if in.Status == "WAITING" || in.Status == "DISPATCHED" || in.Status == "RUNNING" {
					return false
				}
			}
		}
		return true
	}) {
		t.Fatal("the jobs still have unfinished fires after they were disabled")
	}
	t.Logf("owners %s (killed at %s), %s (stopped), %s", first, killed.Format("15:04:05.000"), second, third)

	ran := 0
	for _, id := range f.jobs["early"] {
		var story []string
		bad := false
		for _, in := range f.fires("early", id) {
			story = append(story, fmt.Sprintf("%s %s %s %s", in.ExpectedTriggerTime.Format("15:04:05"), in.TriggerType, in.Status, in.Reason))
			switch {
			case in.Status == "SUCCEEDED":
				ran++
				// Held until its time: never started before it (both
				// clocks are this machine's).
				if in.TriggerType == "SCHEDULE" && in.StartedTime.Truncate(time.Millisecond).Before(in.ExpectedTriggerTime.Truncate(time.Millisecond)) {
					t.Errorf("job %s: the fire due at %v started at %v, before its time", id, *in.ExpectedTriggerTime, *in.StartedTime)
				}
			case in.Status == "CANCELED" && (in.Reason == "JOB_DISABLED" || in.Reason == "MISFIRE"):
				// Disabled while held or waiting; or a second no owner ran
				// after the kill, settled by the misfire policy.
			default:
				bad = true
			}
		}
		if bad {
			t.Errorf("job %s: a fire neither ran nor was canceled by the test or the misfire policy:\n%s", id, strings.Join(story, "\n"))
		}
	}
	if ran == 0 {
		t.Fatal("no fire ran")
	}
	f.assertNothingRanTwice()

	// Sent ahead by each owner: the fire's first task was dispatched
	// before the fire's time, under each owner's lease epoch.
	var epochs []int64
	err := f.db.Bun().NewRaw(`SELECT i.epoch FROM instances i JOIN tasks t ON t.instance_id = i.id
		JOIN apps a ON a.id = i.app_id
		WHERE a.name = 'early' AND i.trigger_type = 'SCHEDULE' AND t.kind = 'ROOT' AND t.dispatched_at < i.expected_trigger_at
		GROUP BY i.epoch ORDER BY i.epoch`).Scan(context.Background(), &epochs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d fires ran; fires were sent ahead under the lease epochs %v", ran, epochs)
	if len(epochs) < 3 {
		t.Errorf("fires were sent ahead under the lease epochs %v; want under each of the three owners'", epochs)
	}
	for _, agents := range f.agents {
		for _, a := range agents {
			if a.Exited() {
				t.Errorf("an agent exited:\n%s", tail(a.Output(), 20))
			}
		}
	}
}
