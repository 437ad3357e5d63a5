package alarm

import (
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// Outcome is what happened to a job's instance or a workflow's run, as the
// rules see it.
type Outcome int

const (
	// Failed: an instance ended FAILED (after its retries), or a run did.
	Failed Outcome = iota + 1
	// Succeeded: an instance or run ended SUCCEEDED.
	Succeeded
	// Started: an instance started (was dispatched); Observation.Late says
	// how long after its fire.
	Started
)

// Observation is one thing the rules judge.
type Observation struct {
	Outcome Outcome
	// Timeout: the failure was a TIMEOUT.
	Timeout bool
	// Late is fire → start lateness (Started only).
	Late time.Duration
}

// Decision is what one rule decided about an observation.
type Decision struct {
	Rule db.AlarmRule
	// Silenced: the rule matched within its silence window: recorded, not
	// sent.
	Silenced bool
	// Consecutive is the failures in a row so far (CONSECUTIVE_FAILURES).
	Consecutive int
}

// failureRules are the rules a success ends the storm of.
var failureRules = map[string]bool{db.AlarmFailure: true, db.AlarmConsecutive: true, db.AlarmTimeout: true}

// Evaluate applies an observation to the rules' states at now: it returns
// what each matching rule decided, in the rules' order, and the rules whose
// state changed. It is pure (the caller loads and saves the states, holding
// them), so it is tested on a fake clock.
//
//   - FAILURE matches every failure; TIMEOUT a failure by timeout;
//     CONSECUTIVE_FAILURES the Nth failure in a row and each after it until
//     a success; START_LATE a start later than its threshold (ms).
//   - A matching rule sends unless it sent less than its silenceSec ago:
//     then it is silenced (recorded, not sent). Sending starts a storm.
//   - A success ends the failure rules' storms and resets the count of
//     failures in a row. If one of them was storming (had alarmed), a
//     RECOVERY rule sends once, and the silence windows are cleared: a new
//     failure after a recovery alarms again at once.
//   - A start on time ends START_LATE's storm (no recovery alarm for it).
func Evaluate(rules []db.AlarmRule, states map[string]*db.AlarmState, o Observation, now time.Time) (out []Decision, changed []string) {
	state := func(rule string) *db.AlarmState {
		st := states[rule]
		if st == nil {
			st = &db.AlarmState{Rule: rule}
			states[rule] = st
		}
		return st
	}
	fire := func(r db.AlarmRule, st *db.AlarmState) Decision {
		d := Decision{Rule: r, Consecutive: st.Consecutive}
		window := time.Duration(r.SilenceSec) * time.Second
		if st.LastSentAt != nil && window > 0 && now.Sub(*st.LastSentAt) < window {
			d.Silenced = true
			return d
		}
		at := now
		st.LastSentAt, st.Storming = &at, true
		return d
	}
	switch o.Outcome {
	case Failed:
		for _, r := range rules {
			st := state(r.Type)
			match := false
			switch r.Type {
			case db.AlarmFailure:
				match = true
			case db.AlarmTimeout:
				match = o.Timeout
			case db.AlarmConsecutive:
				st.Consecutive++
				changed = append(changed, r.Type)
				match = int64(st.Consecutive) >= r.Threshold
			}
			if !match {
				continue
			}
			d := fire(r, st)
			if !d.Silenced && r.Type != db.AlarmConsecutive {
				changed = append(changed, r.Type)
			}
			out = append(out, d)
		}
	case Succeeded:
		recovered := false
		for _, r := range rules {
			if !failureRules[r.Type] {
				continue
			}
			st := state(r.Type)
			if st.Storming {
				recovered = true
			}
			if st.Storming || st.Consecutive > 0 {
				st.Storming, st.Consecutive = false, 0
				changed = append(changed, r.Type)
			}
		}
		var recovery *db.AlarmRule
		for i := range rules {
			if rules[i].Type == db.AlarmRecovery {
				recovery = &rules[i]
			}
		}
		if recovered && recovery != nil {
			out = append(out, Decision{Rule: *recovery})
			// Told it recovered, the team hears of the next failure at once.
			for _, r := range rules {
				if st := state(r.Type); failureRules[r.Type] && st.LastSentAt != nil {
					st.LastSentAt = nil
					changed = append(changed, r.Type)
				}
			}
		}
	case Started:
		for _, r := range rules {
			if r.Type != db.AlarmStartLate {
				continue
			}
			st := state(r.Type)
			if o.Late <= time.Duration(r.Threshold)*time.Millisecond {
				if st.Storming {
					st.Storming = false
					changed = append(changed, r.Type)
				}
				continue
			}
			d := fire(r, st)
			if !d.Silenced {
				changed = append(changed, r.Type)
			}
			out = append(out, d)
		}
	}
	return out, dedupe(changed)
}

func dedupe(list []string) []string {
	seen := make(map[string]bool, len(list))
	out := list[:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// watched are the rule types an observation can concern: the states
// AlarmStateUpdateMany must hold for it.
func watched(rules []db.AlarmRule, o Observation) []string {
	var out []string
	for _, r := range rules {
		switch {
		case o.Outcome == Started && r.Type == db.AlarmStartLate,
			o.Outcome != Started && failureRules[r.Type]:
			out = append(out, r.Type)
		}
	}
	return out
}
