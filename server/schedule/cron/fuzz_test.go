package cron

import (
	"errors"
	"testing"
	"time"
)

var fuzzZones = []string{"UTC", "America/New_York", "Europe/London", "Europe/Berlin", "Australia/Sydney",
	"Asia/Kolkata", "America/Santiago", "Australia/Lord_Howe", "Pacific/Apia", "America/Nuuk", "Antarctica/Troll"}

// FuzzParseNext: for any accepted expression, zone and start, the fire times
// are strictly increasing, each one Matches and is what Next(t-1s) returns,
// and Next neither panics nor runs away. `go test` runs the seeds below;
// `go test -fuzz FuzzParseNext ./server/schedule/cron/` explores further.
func FuzzParseNext(f *testing.F) {
	seeds := []string{
		"0 0 12 * * ?", "0 15 10 ? * *", "0 15 10 * * ? 2005", "0 0/5 14,18 * * ?", "0 10,44 14 ? 3 WED",
		"0 15 10 ? * MON-FRI", "0 15 10 L * ?", "0 15 10 L-2 * ?", "0 15 10 ? * 6L", "0 15 10 ? * 6#3",
		"0 0 12 1/5 * ?", "0 11 11 11 11 ?", "*/15 * * * * ?", "50-10 * * * * ?", "0 50-10/5 * * * ?",
		"0 0 22-2 * * ?", "0 0 0 1 NOV-FEB ?", "0 0 0 ? * FRI-MON", "0 0 0 ? * 7-1", "0 0 0 25-5 * ?",
		"0 0 0 LW * ?", "0 0 0 L-3W * ?", "0 0 0 L-30W * ?", "0 0 0 L-30 * ?", "0 0 0 1W * ?", "0 0 0 31W * ?",
		"0 0 0 29W 2 ?", "0 0 0 29 2 ?", "0 0 0 30 2 ?", "0 0 0 ? * L", "0 0 0 ? * SATL", "0 0 0 ? * 2#5",
		"0 0 0 1 1 ? 2030-2032", "0 0 0 31 12 ? 2099", "0 30 2 * * ?", "0 30 1 * * ?", "* * * * * ?",
		"0 0/15 * * * ?", "0 20,40 * * * ?", "0 0 4,23 * * ?", "0 30 2 ? 3 1#2", "59 59 23 L 12 ? 2099",
		"0 0 0 ? * ?", "0 0 12 * * *", "0 0 ? * * ?", "0 0 0 L-31 * ?", "0 0 0 0W * ?", "", "bad",
		"*/0 * * * * ?", "0 0 0 ? * MON-FRI/2", "0 0 0 1,,2 * ?", "0-59/100 * * ? * 1", "/5 * * * * ?",
	}
	starts := []int64{0, -86400 * 365 * 20, 1772953200, 1793508000, 1325109600, 4102444799, 4102444800, 1700000000}
	for i, s := range seeds {
		f.Add(s, uint8(i), starts[i%len(starts)], uint16(i*37))
	}
	f.Fuzz(func(t *testing.T, expr string, zone uint8, start int64, ms uint16) {
		loc, err := time.LoadLocation(fuzzZones[int(zone)%len(fuzzZones)])
		if err != nil {
			t.Fatalf("time zone %s does not load (is tzdata installed?): %v", fuzzZones[int(zone)%len(fuzzZones)], err)
		}
		e, err := Parse(expr, loc)
		if err != nil {
			if _, ok := errors.AsType[*ParseError](err); !ok {
				t.Fatalf("Parse(%q) returned %T", expr, err)
			}
			return
		}
		if again, err := Parse(e.String(), loc); err != nil || *again != *e {
			t.Fatalf("String() %q of %q does not parse back the same: %v", e.String(), expr, err)
		}
		// Keep starts within a few centuries of the supported years.
		start %= 1 << 34
		after := time.Unix(start, int64(ms%1000)*1e6)
		for i := 0; i < 25; i++ {
			t0 := time.Now()
			next, ok := e.Next(after)
			if d := time.Since(t0); d > time.Second { // generous: fuzzing machines are busy; a runaway loop takes far longer
				t.Fatalf("%q: Next(%s) took %v", expr, after, d)
			}
			if !ok {
				break
			}
			if !next.After(after) || next.Nanosecond() != 0 {
				t.Fatalf("%q in %s: Next(%s) = %s, not strictly after on a whole second", expr, loc, after, next)
			}
			if next.Unix() != after.Unix()+1 && i == 0 && e.Matches(time.Unix(after.Unix()+1, 0)) {
				t.Fatalf("%q in %s: Next(%s) = %s skips the matching %s", expr, loc, after, next, time.Unix(after.Unix()+1, 0))
			}
			if !e.Matches(next) {
				t.Fatalf("%q in %s: fire time %s does not Match", expr, loc, next)
			}
			if again, ok := e.Next(next.Add(-time.Second)); !ok || !again.Equal(next) {
				t.Fatalf("%q in %s: Next(%s - 1s) = %s, want %s", expr, loc, next, again, next)
			}
			after = next
		}
	})
}
