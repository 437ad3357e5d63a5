package jobs_test

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/server/api/jobs"
)

// appStats reads the hours the roll-up pass summed instead of their
// instances (issue 25), and answers exactly what it answered reading the
// instances: outcomes per hour, and the lag's counts, percentiles and
// hourly buckets, for every window, on a week of seeded instances.
func TestRollupAnswersEqualTheInstances(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		w := newWorld(t, d)
		j, err := w.svc.Create(w.ed, cronJob("a", "seeded"))
		if err != nil {
			t.Fatal(err)
		}
		// 171 hours back from a little after now, 0 to 30 instances an hour
		// (some hours none), every final status, some without the times
		// the lag needs, and some not finished.
		rng := rand.New(rand.NewPCG(25, 25))
		start := now.Add(-171 * time.Hour).Truncate(time.Hour)
		var list []*db.Instance
		for at := start; at.Before(now.Add(time.Hour)); at = at.Add(time.Hour) {
			for range rng.IntN(31) {
				fin := db.Stamp(at.Add(time.Duration(rng.Int64N(int64(time.Hour)))))
				expected := fin.Add(-time.Duration(rng.IntN(120000)) * time.Millisecond)
				actual := expected.Add(time.Duration(rng.IntN(3000)-200) * time.Millisecond)
				started := actual.Add(time.Duration(rng.IntN(900)) * time.Millisecond)
				in := &db.Instance{AppID: w.a.ID, JobID: j.ID, TriggerType: db.TriggerSchedule, TriggerAt: expected, Params: "{}",
					Status: []string{db.StatusSucceeded, db.StatusSucceeded, db.StatusFailed, db.StatusStopped, db.StatusCanceled}[rng.IntN(5)]}
				in.FinishedAt = &fin
				switch rng.IntN(6) {
				case 0: // never fired on the clock (an API run)
					in.ActualTriggerAt, in.StartedAt = &actual, &started
				case 1: // never started
					in.ExpectedTriggerAt, in.ActualTriggerAt = &expected, &actual
				case 2: // still running
					in.Status, in.FinishedAt = db.StatusRunning, nil
					in.ExpectedTriggerAt, in.ActualTriggerAt, in.StartedAt = &expected, &actual, &started
				default:
					in.ExpectedTriggerAt, in.ActualTriggerAt, in.StartedAt = &expected, &actual, &started
				}
				list = append(list, in)
			}
		}
		if err := d.InstanceCreateMany(ctx, list); err != nil {
			t.Fatal(err)
		}

		// Each window read from the service is compared with what the
		// figures were before roll-ups, read from the instances at the same
		// time. The lag is remembered for 10 s: each read is 11 s later.
		check := func(round string) {
			for _, hours := range []int{1, 2, 6, 24, 168} {
				w.clk.Advance(11 * time.Second)
				at := w.clk.Now()
				st, err := w.svc.Stats(w.vi, "a", hours)
				if err != nil {
					t.Fatal(err)
				}
				lag, err := w.svc.Lag(w.vi, st)
				if err != nil {
					t.Fatal(err)
				}
				outcomes, err := d.InstanceOutcomes(ctx, w.a.ID, db.Stamp(at).Add(-time.Duration(hours)*time.Hour).Truncate(time.Hour))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(st.Outcomes, outcomes) {
					t.Errorf("%s, %d hours: outcomes\n%+v\nfrom the instances\n%+v", round, hours, st.Outcomes, outcomes)
				}
				if want := referenceLag(t, d, w.a.ID, at, hours); !reflect.DeepEqual(lag, want) {
					t.Errorf("%s, %d hours: lag\n%+v\nfrom the instances\n%+v", round, hours, lag, want)
				}
			}
		}
		check("before roll-ups")
		if n, err := d.InstanceRollUp(ctx, w.a.ID, w.clk.Now().Add(-5*time.Minute), db.RollupMaxHours); err != nil || n < 160 {
			t.Fatalf("summed %d hours: %v", n, err)
		}
		mark, err := d.InstanceRollupMark(ctx, w.a.ID)
		if err != nil || !mark.Equal(w.clk.Now().Add(-5*time.Minute).Truncate(time.Hour)) {
			t.Fatalf("mark %v, %v", mark, err)
		}
		// Again: nothing more to sum in this hour.
		if n, err := d.InstanceRollUp(ctx, w.a.ID, w.clk.Now().Add(-5*time.Minute), db.RollupMaxHours); err != nil || n != 0 {
			t.Fatalf("a second pass summed %d hours: %v", n, err)
		}
		check("from roll-ups")
		// What it reads of the summed hours is their rows: with the hours'
		// instances gone, the week's outcomes are the same.
		w.clk.Advance(11 * time.Second)
		before, err := w.svc.Stats(w.vi, "a", 168)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Bun().NewDelete().Model((*db.Instance)(nil)).Where("app_id = ? AND finished_at < ?", w.a.ID, mark).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		w.clk.Advance(11 * time.Second)
		after, err := w.svc.Stats(w.vi, "a", 168)
		if err != nil {
			t.Fatal(err)
		}
		if len(before.Outcomes) < 160 || !reflect.DeepEqual(after.Outcomes, before.Outcomes) {
			t.Errorf("the outcomes read the summed hours' instances: %d hours, then %d without them", len(before.Outcomes), len(after.Outcomes))
		}
		// The roll-ups are what was read: an hour summed and then deleted
		// is missing from the answer (retention deletes both).
		if _, err := d.InstanceRollupDeleteBefore(ctx, w.a.ID, mark.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		w.clk.Advance(11 * time.Second)
		st, err := w.svc.Stats(w.vi, "a", 168)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Outcomes) == 0 || !st.Outcomes[0].Start.Equal(mark.Add(-time.Hour)) {
			t.Fatalf("after deleting the roll-ups before %v the outcomes start %+v", mark.Add(-time.Hour), st.Outcomes[:1])
		}
	})
}

// referenceLag is the lag as appStats computed it before roll-ups: the
// window's finished instances read, their milliseconds listed, sorted and
// ranked.
func referenceLag(t *testing.T, d *db.DB, appID int64, at time.Time, hours int) *jobs.Lag {
	t.Helper()
	rows, err := d.InstanceTimings(context.Background(), appID, db.Stamp(at).Add(-time.Duration(hours)*time.Hour), 20000)
	if err != nil {
		t.Fatal(err)
	}
	type acc struct{ late, start []float64 }
	all := acc{}
	byHour := map[time.Time]*acc{}
	for _, r := range rows {
		h := r.FinishedAt.UTC().Truncate(time.Hour)
		b := byHour[h]
		if b == nil {
			b = &acc{}
			byHour[h] = b
		}
		if r.ExpectedTriggerAt != nil && r.ActualTriggerAt != nil {
			ms := max(0, float64(r.ActualTriggerAt.Sub(*r.ExpectedTriggerAt).Milliseconds()))
			all.late, b.late = append(all.late, ms), append(b.late, ms)
		}
		if r.ActualTriggerAt != nil && r.StartedAt != nil {
			ms := max(0, float64(r.StartedAt.Sub(*r.ActualTriggerAt).Milliseconds()))
			all.start, b.start = append(all.start, ms), append(b.start, ms)
		}
	}
	summarize := func(v []float64) jobs.Summary {
		if len(v) == 0 {
			return jobs.Summary{}
		}
		slices.Sort(v)
		rank := func(p float64) *float64 {
			i := int(p*float64(len(v))+0.999999) - 1
			x := v[min(max(i, 0), len(v)-1)]
			return &x
		}
		mx := v[len(v)-1]
		return jobs.Summary{Count: len(v), P50: rank(0.5), P99: rank(0.99), Max: &mx}
	}
	lag := &jobs.Lag{Samples: len(rows), Lateness: summarize(all.late), FireToStart: summarize(all.start)}
	for h, b := range byHour {
		lag.Buckets = append(lag.Buckets, jobs.LagBucket{Start: h, Lateness: summarize(b.late), FireToStart: summarize(b.start)})
	}
	slices.SortFunc(lag.Buckets, func(a, b jobs.LagBucket) int { return a.Start.Compare(b.Start) })
	return lag
}
