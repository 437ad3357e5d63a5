package schedule

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

var fuzzZones = []string{"", "UTC", "Europe/Berlin", "America/Santiago", "Australia/Lord_Howe", "Local", "Mars/Olympus", "../etc/passwd"}

// FuzzSchedule (issue 19, item 2): any schedule type, expression (cron
// or duration), zone and lifecycle either parses or is refused with a
// BAD_INPUT naming one of the spec's fields; what parses yields fires
// strictly after the start point, strictly increasing, on whole
// milliseconds, inside the lifecycle, and FIXED_RATE/FIXED_DELAY ones a
// whole interval apart. `go test -fuzz FuzzSchedule ./server/schedule/`
// explores.
func FuzzSchedule(f *testing.F) {
	for i, s := range []struct {
		typ, expr string
	}{
		{db.ScheduleCron, "0 0/5 * * * ?"}, {db.ScheduleCron, "*/2 * * * * ?"}, {db.ScheduleCron, "0 0 0 L-3W * ? 2030"},
		{db.ScheduleFixedRate, "30s"}, {db.ScheduleFixedRate, "1h30m"}, {db.ScheduleFixedRate, "999ms"},
		{db.ScheduleFixedRate, "8784h0m1s"}, {db.ScheduleFixedDelay, "1.5s"}, {db.ScheduleFixedDelay, "-5s"},
		{db.ScheduleFixedDelay, "9223372036854775807ns"}, {db.ScheduleAPI, ""}, {db.ScheduleAPI, "1s"},
		{db.ScheduleWorkflow, ""}, {"DAILY", "1d"}, {db.ScheduleFixedRate, " 2s "}, {db.ScheduleCron, ""},
	} {
		f.Add(s.typ, s.expr, uint8(i), int64(1772953200000), int64(i*3_600_000), int64(i*60_000), uint8(i%4))
	}
	f.Fuzz(func(t *testing.T, typ, expr string, zone uint8, afterMs, startOff, endOff int64, bounds uint8) {
		// Times within a few centuries of now, as the API's Time scalar
		// carries them (milliseconds) — and sub-millisecond ones too, as a
		// caller in Go might pass.
		base := time.UnixMilli(afterMs % (1 << 43)).Add(time.Duration(afterMs%1000) * time.Microsecond)
		spec := Spec{Type: typ, Expression: expr, TimeZone: fuzzZones[int(zone)%len(fuzzZones)]}
		if bounds&1 != 0 {
			s := base.Add(time.Duration(startOff%(1<<40)) * time.Microsecond)
			spec.Start = &s
		}
		if bounds&2 != 0 {
			e := base.Add(time.Duration(endOff%(1<<40)) * time.Microsecond)
			spec.End = &e
		}
		s, err := Parse(spec)
		if err != nil {
			var in *fault.Input
			if !errors.As(err, &in) || !slices.Contains([]string{"scheduleType", "scheduleExpression", "timeZone", "lifecycle"}, in.Field) || in.Reason == "" {
				t.Fatalf("Parse(%+v) refused with %v (%T); want a BAD_INPUT naming a field of the spec", spec, err, err)
			}
			return
		}
		prev := base
		for i, next := range s.Preview(base, 20) {
			switch {
			case !next.After(prev):
				t.Fatalf("%+v after %s: fire %d at %s is not after %s", spec, base, i, next, prev)
			case next.Nanosecond()%int(time.Millisecond) != 0:
				t.Fatalf("%+v: fire %s is not on a whole millisecond", spec, next)
			case spec.Start != nil && next.Before(spec.Start.Truncate(time.Millisecond)):
				t.Fatalf("%+v: fire %s before the lifecycle's start", spec, next)
			case spec.End != nil && next.After(*spec.End):
				t.Fatalf("%+v: fire %s after the lifecycle's end", spec, next)
			case i > 0 && s.Interval() > 0 && next.Sub(prev) != s.Interval():
				t.Fatalf("%+v: fires %s and %s are not %s apart", spec, prev, next, s.Interval())
			}
			prev = next
		}
	})
}
