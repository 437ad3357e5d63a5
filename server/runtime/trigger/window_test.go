package trigger

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/server/schedule"
)

// A FIXED_RATE job restricted to a daily window fires only inside it
// across the start of summer time, with the loop driven by the fake
// clock: its schedule comes from the job row (schedule.JobSpec), so the
// window reaches the loop with nothing more to read.
func TestWindowedJobFiresOnlyInsideAcrossDST(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		b := setup(t, d)
		// Europe/Berlin, 2030-03-31: 02:00 CET (01:00Z) jumps to 03:00 CEST.
		from := time.Date(2030, 3, 30, 23, 30, 0, 0, time.UTC)
		until := time.Date(2030, 3, 31, 23, 0, 0, 0, time.UTC)
		b.clk.Set(from)
		j := &db.Job{AppID: b.app, Name: "night", Enabled: true, ScheduleType: db.ScheduleFixedRate, ScheduleExpression: "20m",
			TimeZone: "Europe/Berlin", ScheduleWindow: &db.ScheduleWindow{Start: "01:00", End: "04:00"},
			ExecutionMode: db.ModeStandalone, ProcessorType: db.ProcessorShell, Processor: "true", MaxInstances: 1,
			TaskConcurrency: 1, DispatchStrategy: db.DispatchRandom, MisfirePolicy: db.MisfireFireOnce}
		sch, err := schedule.Parse(schedule.JobSpec(j))
		if err != nil {
			t.Fatal(err)
		}
		first, _ := sch.Next(from)
		j.NextTriggerAt = &first
		if err := d.JobCreate(ctx, j); err != nil {
			t.Fatal(err)
		}
		l := b.loop(t, &firer{})
		b.svc.Passed.Wait(t)
		for {
			cur, err := d.JobGet(ctx, j.ID)
			if err != nil {
				t.Fatal(err)
			}
			if cur.NextTriggerAt == nil || cur.NextTriggerAt.After(until) {
				break
			}
			b.clk.Set(*cur.NextTriggerAt)
			l.Wake()
			b.svc.Passed.Wait(t)
		}
		var got []string
		for _, in := range b.instances(t, j) {
			if in.ExpectedTriggerAt.After(from) {
				got = append(got, in.ExpectedTriggerAt.UTC().Format("01-02T15:04Z"))
			}
		}
		slices.Sort(got)
		// 01:00 … 01:40 CET, then 03:00 … 04:00 CEST, then 01:00 CEST next day.
		want := []string{"03-31T00:00Z", "03-31T00:20Z", "03-31T00:40Z", "03-31T01:00Z", "03-31T01:20Z", "03-31T01:40Z",
			"03-31T02:00Z", "03-31T23:00Z"}
		if !slices.Equal(got, want) {
			t.Fatalf("fires\n got %v\nwant %v", got, want)
		}
	})
}
