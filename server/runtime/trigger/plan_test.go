package trigger

import (
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/schedule"
)

// planOf plans with the default threshold (2s) and FIRE_ALL bound (100).
func planOf(j *db.Job, sch *schedule.Schedule, now, until time.Time) ([]fire, *time.Time) {
	var cfg Config
	cfg.defaults()
	fires, next, _ := plan(jobDue(j), sch, now, until, cfg.MisfireThreshold, cfg.FireAllLimit)
	return fires, next
}

func job(typ, expr, policy string, next time.Time) (*db.Job, *schedule.Schedule) {
	j := &db.Job{ID: 1, ScheduleType: typ, ScheduleExpression: expr, TimeZone: "UTC", MisfirePolicy: policy, NextTriggerAt: &next}
	sch, err := schedule.Parse(schedule.Spec{Type: typ, Expression: expr, TimeZone: "UTC"})
	if err != nil {
		panic(err)
	}
	return j, sch
}

func summarize(fires []fire) (missed, onTime int, first, last time.Time) {
	for i, f := range fires {
		if f.missed {
			missed++
		} else {
			onTime++
		}
		if i == 0 {
			first = f.at
		}
		last = f.at
	}
	return
}

// A server down for 20s applies each misfire policy; fires within the
// threshold (2s) are late, not missed, and run normally.
func TestPlanMisfirePolicies(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	until := now.Add(5 * time.Second)
	down := now.Add(-20 * time.Second)
	for _, c := range []struct {
		policy         string
		missed, onTime int
		firstMissed    time.Time
	}{
		// Every second from now-20s: now-20s … now-3s are missed (18), now-2s … now+5s are on time (8).
		{db.MisfireFireAll, 18, 8, down},
		{db.MisfireFireOnce, 1, 8, now.Add(-3 * time.Second)},
		{db.MisfireSkip, 0, 8, time.Time{}},
	} {
		t.Run(c.policy, func(t *testing.T) {
			j, sch := job("CRON", "* * * * * ?", c.policy, down)
			fires, next := planOf(j, sch, now, until)
			missed, onTime, first, last := summarize(fires)
			if missed != c.missed || onTime != c.onTime {
				t.Fatalf("missed %d on time %d; want %d and %d", missed, onTime, c.missed, c.onTime)
			}
			if c.missed > 0 && !first.Equal(c.firstMissed) {
				t.Fatalf("first missed fire %v; want %v", first, c.firstMissed)
			}
			if !last.Equal(until) || next == nil || !next.Equal(until.Add(time.Second)) {
				t.Fatalf("last fire %v next %v; want %v then %v", last, next, until, until.Add(time.Second))
			}
			// Each fire recorded once, in order.
			for i := 1; i < len(fires); i++ {
				if !fires[i].at.After(fires[i-1].at) {
					t.Fatalf("fires not strictly increasing: %v", fires)
				}
			}
		})
	}
}

func TestPlanFireAllIsBounded(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	j, sch := job("CRON", "* * * * * ?", db.MisfireFireAll, now.Add(-24*time.Hour))
	fires, _ := planOf(j, sch, now, now)
	missed, _, first, _ := summarize(fires)
	if missed != 100 || !first.Equal(now.Add(-time.Duration(100+2)*time.Second)) {
		t.Fatalf("FIRE_ALL after a day down caught up %d fires from %v; want the latest %d", missed, first, 100)
	}
}

func TestPlanFixedRateKeepsItsGrid(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	grid := now.Add(-time.Hour - 300*time.Millisecond)
	j, sch := job("FIXED_RATE", "7s", db.MisfireSkip, grid)
	fires, next := planOf(j, sch, now, now.Add(5*time.Second))
	for _, f := range append(fires, fire{at: *next}) {
		if f.at.Sub(grid)%(7*time.Second) != 0 {
			t.Fatalf("fire %v is off the 7s grid from %v", f.at, grid)
		}
	}
}

func TestPlanFixedDelay(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	// On time: one fire, and nothing next until it ends.
	j, sch := job("FIXED_DELAY", "10s", db.MisfireFireOnce, now.Add(time.Second))
	fires, next := planOf(j, sch, now, now.Add(5*time.Second))
	if len(fires) != 1 || fires[0].missed || next != nil {
		t.Fatalf("fixed delay on time: %v next %v", fires, next)
	}
	// Missed while down: FIRE_ONCE owes one run; SKIP arms the next.
	j, sch = job("FIXED_DELAY", "10s", db.MisfireFireOnce, now.Add(-time.Minute))
	if fires, next := planOf(j, sch, now, now.Add(5*time.Second)); len(fires) != 1 || !fires[0].missed || next != nil {
		t.Fatalf("fixed delay missed, FIRE_ONCE: %v next %v", fires, next)
	}
	j, sch = job("FIXED_DELAY", "10s", db.MisfireSkip, now.Add(-time.Minute))
	if fires, next := planOf(j, sch, now, now.Add(5*time.Second)); len(fires) != 0 || next == nil || !next.Equal(now.Add(10*time.Second)) {
		t.Fatalf("fixed delay missed, SKIP: %v next %v", fires, next)
	}
}
