package alarm

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// judge runs observations through Evaluate on one set of states, the
// clock advancing by each step's wait, and says per step what was decided:
// "-" nothing, else the rules, each SENT or SILENCED.
type step struct {
	wait time.Duration
	o    Observation
	want string
}

var (
	fail    = Observation{Outcome: Failed}
	timeout = Observation{Outcome: Failed, Timeout: true}
	success = Observation{Outcome: Succeeded}
)

func late(d time.Duration) Observation { return Observation{Outcome: Started, Late: d} }

func run(t *testing.T, rules []db.AlarmRule, steps []step) {
	t.Helper()
	now := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC) // the fake clock
	states := map[string]*db.AlarmState{}
	for i, s := range steps {
		now = now.Add(s.wait)
		out, _ := Evaluate(rules, states, s.o, now)
		var got []string
		for _, d := range out {
			what := "SENT"
			if d.Silenced {
				what = "SILENCED"
			}
			got = append(got, d.Rule.Type+" "+what)
		}
		g := strings.Join(got, ", ")
		if g == "" {
			g = "-"
		}
		if g != s.want {
			t.Fatalf("step %d (%+v at +%s): decided %q, want %q", i, s.o, s.wait, g, s.want)
		}
	}
}

// TestFailureSilenceWindow: a failing job alarms once per silence window;
// the window runs from the alarm sent, not from the last failure.
func TestFailureSilenceWindow(t *testing.T) {
	rules := []db.AlarmRule{{Type: db.AlarmFailure, SilenceSec: 60}}
	run(t, rules, []step{
		{0, fail, "FAILURE SENT"},
		{10 * time.Second, fail, "FAILURE SILENCED"},
		{40 * time.Second, fail, "FAILURE SILENCED"},
		{10 * time.Second, fail, "FAILURE SENT"}, // 60 s after the first
		{59 * time.Second, fail, "FAILURE SILENCED"},
	})
	// Without a window, every failure alarms.
	run(t, []db.AlarmRule{{Type: db.AlarmFailure}}, []step{{0, fail, "FAILURE SENT"}, {0, fail, "FAILURE SENT"}})
}

// TestConsecutiveFailures: the Nth failure in a row alarms; a success
// starts the count again; with a window, the storm after N alarms once.
func TestConsecutiveFailures(t *testing.T) {
	rules := []db.AlarmRule{{Type: db.AlarmConsecutive, Threshold: 3, SilenceSec: 3600}}
	run(t, rules, []step{
		{0, fail, "-"},
		{time.Second, fail, "-"},
		{time.Second, success, "-"}, // two, then a success: counting again
		{time.Second, fail, "-"},
		{time.Second, fail, "-"},
		{time.Second, fail, "CONSECUTIVE_FAILURES SENT"},
		{time.Second, fail, "CONSECUTIVE_FAILURES SILENCED"},
		{time.Hour, fail, "CONSECUTIVE_FAILURES SENT"},
	})
	states := map[string]*db.AlarmState{}
	now := time.Now()
	for i := 1; i <= 3; i++ {
		out, changed := Evaluate(rules, states, fail, now)
		if !slices.Contains(changed, db.AlarmConsecutive) || states[db.AlarmConsecutive].Consecutive != i {
			t.Fatalf("failure %d: changed %v, count %d", i, changed, states[db.AlarmConsecutive].Consecutive)
		}
		if i == 3 && (len(out) != 1 || out[0].Consecutive != 3) {
			t.Fatalf("third failure decided %+v", out)
		}
	}
}

// TestRecoveryOncePerStorm: the first success after an alarm sends one
// recovery; further successes do not; a success after failures that never
// alarmed (below N) recovers nothing; after a recovery, the next failure
// alarms at once although within the window.
func TestRecoveryOncePerStorm(t *testing.T) {
	rules := []db.AlarmRule{{Type: db.AlarmFailure, SilenceSec: 3600}, {Type: db.AlarmRecovery}}
	run(t, rules, []step{
		{0, success, "-"},
		{time.Second, fail, "FAILURE SENT"},
		{time.Second, fail, "FAILURE SILENCED"},
		{time.Second, success, "RECOVERY SENT"},
		{time.Second, success, "-"},
		{time.Second, fail, "FAILURE SENT"},
		{time.Second, success, "RECOVERY SENT"},
	})
	// Only a storm that alarmed recovers.
	run(t, []db.AlarmRule{{Type: db.AlarmConsecutive, Threshold: 3}, {Type: db.AlarmRecovery}}, []step{
		{0, fail, "-"},
		{time.Second, fail, "-"},
		{time.Second, success, "-"},
		{time.Second, fail, "-"},
		{time.Second, fail, "-"},
		{time.Second, fail, "CONSECUTIVE_FAILURES SENT"},
		{time.Second, success, "RECOVERY SENT"},
	})
	// A silenced storm still recovers once.
	run(t, []db.AlarmRule{{Type: db.AlarmFailure, SilenceSec: 60}, {Type: db.AlarmRecovery}}, []step{
		{0, fail, "FAILURE SENT"},
		{time.Second, success, "RECOVERY SENT"},
		{time.Second, fail, "FAILURE SENT"},
		{time.Second, fail, "FAILURE SILENCED"},
	})
}

// TestTimeoutRule: TIMEOUT matches timeouts only; with FAILURE too, a
// timeout is judged by both (one message names both; see judgeOne).
func TestTimeoutRule(t *testing.T) {
	run(t, []db.AlarmRule{{Type: db.AlarmTimeout, SilenceSec: 60}}, []step{
		{0, fail, "-"},
		{0, timeout, "TIMEOUT SENT"},
		{time.Second, timeout, "TIMEOUT SILENCED"},
	})
	run(t, []db.AlarmRule{{Type: db.AlarmFailure}, {Type: db.AlarmTimeout}}, []step{
		{0, timeout, "FAILURE SENT, TIMEOUT SENT"},
		{0, fail, "FAILURE SENT"},
	})
}

// TestStartLate: a start later than the threshold alarms, within its
// window once; a start on time ends the storm without a recovery alarm.
func TestStartLate(t *testing.T) {
	rules := []db.AlarmRule{{Type: db.AlarmStartLate, Threshold: 5000, SilenceSec: 600}, {Type: db.AlarmFailure}, {Type: db.AlarmRecovery}}
	run(t, rules, []step{
		{0, late(time.Second), "-"},
		{0, late(5 * time.Second), "-"}, // not more than the threshold
		{0, late(6 * time.Second), "START_LATE SENT"},
		{time.Minute, late(time.Minute), "START_LATE SILENCED"},
		{time.Minute, late(0), "-"},
		{time.Minute, success, "-"}, // no failure alarmed: nothing recovers
		{10 * time.Minute, late(10 * time.Second), "START_LATE SENT"},
	})
}

// TestEvaluateStateChanges: the rules reported changed are exactly those
// whose state differs, so only they are written.
func TestEvaluateStateChanges(t *testing.T) {
	rules := []db.AlarmRule{{Type: db.AlarmFailure, SilenceSec: 60}, {Type: db.AlarmTimeout, SilenceSec: 60}, {Type: db.AlarmRecovery}}
	states := map[string]*db.AlarmState{}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	snapshot := func() map[string]db.AlarmState {
		m := map[string]db.AlarmState{}
		for k, v := range states {
			m[k] = *v
		}
		return m
	}
	for i, o := range []Observation{fail, fail, timeout, success, success, fail} {
		before := snapshot()
		_, changed := Evaluate(rules, states, o, now.Add(time.Duration(i)*time.Second))
		after := snapshot()
		var diff []string
		for k, v := range after {
			was, ok := before[k]
			if !ok {
				was = db.AlarmState{Rule: k} // made on first use: not a change
			}
			if fmt.Sprint(was) != fmt.Sprint(v) {
				diff = append(diff, k)
			}
		}
		slices.Sort(diff)
		got := slices.Clone(changed)
		slices.Sort(got)
		if !slices.Equal(diff, got) {
			t.Fatalf("observation %d: changed %v, but the states that differ are %v", i, got, diff)
		}
	}
}
