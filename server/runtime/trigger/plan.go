package trigger

import (
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/schedule"
)

// due is what planning needs of a job or workflow whose next trigger is
// due.
type due struct {
	next   time.Time
	typ    string // schedule type
	policy string // misfire policy
}

func jobDue(j *db.Job) due {
	return due{next: *j.NextTriggerAt, typ: j.ScheduleType, policy: j.MisfirePolicy}
}

// fire is one fire to record.
type fire struct {
	at     time.Time
	missed bool // caught up by the misfire policy
}

// maxWalk bounds how many missed fires of one job a pass walks through
// one by one; past it, the walk jumps to the present.
const maxWalk = 100000

// plan returns the fires to record for a due job, its next trigger after
// them (nil: none yet, for FIXED_DELAY, or ever), and how many fires were
// missed: those before now - threshold, which go through the job's misfire
// policy (FIRE_ALL keeps at most fireAllLimit of them, the latest). It is
// pure: the trigger loop records what it returns.
func plan(j due, sch *schedule.Schedule, now, until time.Time, threshold time.Duration, fireAllLimit int) (fires []fire, next *time.Time, missed int) {
	t := j.next
	cutoff := now.Add(-threshold)
	// Fires already missed (the server was down, or took the app over)
	// go through the misfire policy.
	var late []time.Time
	if t.Before(cutoff) {
		if j.typ == db.ScheduleFixedDelay {
			// One run was owed; the next is armed when it ends.
			if j.policy == db.MisfireSkip {
				next := now.Add(sch.Interval()).Truncate(time.Millisecond)
				return nil, &next, 1
			}
			return []fire{{at: t, missed: true}}, nil, 1
		}
		for t.Before(cutoff) {
			late = append(late, t)
			if len(late) > fireAllLimit {
				late = late[1:]
			}
			missed++
			next, ok := sch.Next(t)
			if !ok {
				return missedFires(j.policy, late), nil, missed
			}
			if missed >= maxWalk && next.Before(cutoff) {
				// Very long downtime: resume from the present. FIXED_RATE
				// keeps its grid by jumping whole intervals.
				if d := sch.Interval(); d > 0 {
					next = next.Add(cutoff.Sub(next) / d * d)
				} else if n, ok := sch.Next(cutoff.Add(-time.Second)); ok {
					next = n
				}
			}
			t = next
		}
	}
	fires = missedFires(j.policy, late)
	for !t.After(until) {
		fires = append(fires, fire{at: t})
		if j.typ == db.ScheduleFixedDelay {
			return fires, nil, missed
		}
		n, ok := sch.Next(t)
		if !ok {
			return fires, nil, missed
		}
		t = n
	}
	return fires, &t, missed
}

// missedFires applies the misfire policy to the fires missed, oldest first.
func missedFires(policy string, missed []time.Time) []fire {
	if len(missed) == 0 || policy == db.MisfireSkip {
		return nil
	}
	if policy != db.MisfireFireAll { // FIRE_ONCE: one catch-up run, for the latest missed fire
		missed = missed[len(missed)-1:]
	}
	out := make([]fire, len(missed))
	for i, t := range missed {
		out[i] = fire{at: t, missed: true}
	}
	return out
}
