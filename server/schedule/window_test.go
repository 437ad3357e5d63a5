package schedule

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

func preview(t *testing.T, spec Spec, after string, n int) []string {
	t.Helper()
	s, err := Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range s.Preview(mustTime(after), n) {
		out = append(out, f.UTC().Format(time.RFC3339))
	}
	return out
}

func TestWindowsAndCalendars(t *testing.T) {
	berlin := "Europe/Berlin" // summer time 2026-03-29 02:00→03:00, back 2026-10-25 03:00→02:00
	weekdays := []string{"MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"}
	cases := []struct {
		name  string
		spec  Spec
		after string
		want  []string
	}{
		{"office hours end on Friday, resume on Monday in summer time",
			Spec{Type: db.ScheduleFixedRate, Expression: "30m", TimeZone: berlin, Window: &db.ScheduleWindow{Start: "09:00", End: "17:30", Days: weekdays}},
			"2026-03-27T16:00:00Z", // Friday 17:00 CET
			[]string{"2026-03-27T16:30:00Z", "2026-03-30T07:00:00Z", "2026-03-30T07:30:00Z"}},
		{"every 30 s from 09:00: the first fires of the day",
			Spec{Type: db.ScheduleFixedRate, Expression: "30s", TimeZone: berlin, Window: &db.ScheduleWindow{Start: "09:00", End: "17:30"}},
			"2026-06-01T00:00:00Z",
			[]string{"2026-06-01T07:00:00Z", "2026-06-01T07:00:30Z", "2026-06-01T07:01:00Z"}},
		{"the skipped hour has no fires",
			Spec{Type: db.ScheduleFixedRate, Expression: "20m", TimeZone: berlin, Window: &db.ScheduleWindow{Start: "01:00", End: "04:00"}},
			"2026-03-28T23:00:00Z",
			[]string{"2026-03-29T00:00:00Z", "2026-03-29T00:20:00Z", "2026-03-29T00:40:00Z", "2026-03-29T01:00:00Z",
				"2026-03-29T01:20:00Z", "2026-03-29T01:40:00Z", "2026-03-29T02:00:00Z", "2026-03-29T23:00:00Z"}},
		{"a window inside the repeated hour fires in both passes, never outside",
			Spec{Type: db.ScheduleFixedRate, Expression: "10m", TimeZone: berlin, Window: &db.ScheduleWindow{Start: "02:00", End: "02:30"}},
			"2026-10-24T23:00:00Z",
			[]string{"2026-10-25T00:00:00Z", "2026-10-25T00:10:00Z", "2026-10-25T00:20:00Z", "2026-10-25T00:30:00Z",
				"2026-10-25T01:00:00Z", "2026-10-25T01:10:00Z", "2026-10-25T01:20:00Z", "2026-10-25T01:30:00Z", "2026-10-26T01:00:00Z"}},
		{"a window opening in the skipped hour opens when the clock jumps",
			Spec{Type: db.ScheduleFixedRate, Expression: "15m", TimeZone: berlin, Window: &db.ScheduleWindow{Start: "02:30", End: "03:20"}},
			"2026-03-28T23:00:00Z",
			[]string{"2026-03-29T01:00:00Z", "2026-03-29T01:15:00Z", "2026-03-30T00:30:00Z"}},
		{"cron skips the calendar's dates",
			Spec{Type: db.ScheduleCron, Expression: "0 0 12 * * ?", Excluded: []string{"2026-12-25", "2026-12-26"}},
			"2026-12-24T13:00:00Z",
			[]string{"2026-12-27T12:00:00Z", "2026-12-28T12:00:00Z"}},
		{"cron: excluded dates are the job's zone's",
			Spec{Type: db.ScheduleCron, Expression: "0 30 0 * * ?", TimeZone: "Asia/Tokyo", Excluded: []string{"2026-01-01"}},
			"2025-12-31T00:00:00Z", // the 00:30 JST fire of Jan 1 is 15:30Z on Dec 31
			[]string{"2026-01-01T15:30:00Z"}},
		{"fixed rate keeps its grid past an excluded day",
			Spec{Type: db.ScheduleFixedRate, Expression: "6h", TimeZone: berlin, Excluded: []string{"2026-12-25"}},
			"2026-12-24T18:00:00Z",
			[]string{"2026-12-26T00:00:00Z", "2026-12-26T06:00:00Z"}},
		{"a windowed job skips an excluded Monday",
			Spec{Type: db.ScheduleFixedRate, Expression: "4h", TimeZone: berlin, Window: &db.ScheduleWindow{Start: "09:00", End: "17:00", Days: weekdays},
				Excluded: []string{"2026-04-06"}},
			"2026-04-03T15:00:00Z", // Friday 17:00 CEST: the last fire was at it
			[]string{"2026-04-07T07:00:00Z", "2026-04-07T11:00:00Z", "2026-04-07T15:00:00Z", "2026-04-08T07:00:00Z"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := preview(t, c.spec, c.after, len(c.want)); !slices.Equal(got, c.want) {
				t.Fatalf("fires\n got %v\nwant %v", got, c.want)
			}
		})
	}
}

// TestWindowFiresOnlyInside walks a year of fires in zones with summer
// time (one with a 30-minute shift, one switching at midnight): every fire
// is inside the window by the wall clock, on an open day, not excluded,
// later than the one before, and on its day's grid.
func TestWindowFiresOnlyInside(t *testing.T) {
	for _, tz := range []string{"Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "UTC"} {
		for _, w := range []db.ScheduleWindow{
			{Start: "00:00", End: "03:30", Days: []string{"SUNDAY", "SATURDAY"}},
			{Start: "01:30", End: "02:45"},
			{Start: "09:00", End: "17:30", Days: []string{"MONDAY", "WEDNESDAY", "FRIDAY"}},
		} {
			s, err := Parse(Spec{Type: db.ScheduleFixedRate, Expression: "7m", TimeZone: tz, Window: &w, Excluded: []string{"2026-04-05", "2026-10-04"}})
			if err != nil {
				t.Fatal(err)
			}
			loc, _ := time.LoadLocation(tz)
			pw, _ := parseWindow(&w)
			prev := mustTime("2026-01-01T00:00:00Z")
			var dayOpen time.Time
			for prev.Before(mustTime("2027-01-01T00:00:00Z")) {
				next, ok := s.Next(prev)
				if !ok {
					t.Fatalf("%s %v: no fire after %v", tz, w, prev)
				}
				local := next.In(loc)
				c := civilOf(local)
				d := sinceMidnight(local)
				switch {
				case !next.After(prev):
					t.Fatalf("%s %v: %v is not after %v", tz, w, next, prev)
				case d < time.Duration(pw.start)*time.Second || d > time.Duration(pw.end)*time.Second:
					t.Fatalf("%s %v: %v (%v local) is outside the window", tz, w, next, local)
				case !pw.days[local.Weekday()]:
					t.Fatalf("%s %v: %v falls on %v", tz, w, next, local.Weekday())
				case c.String() == "2026-04-05" || c.String() == "2026-10-04":
					t.Fatalf("%s %v: %v falls on an excluded date", tz, w, next)
				}
				if civilOf(prev.In(loc)) != c || dayOpen.IsZero() {
					dayOpen = opening(c, pw.start, loc)
				}
				if next.Sub(dayOpen)%(7*time.Minute) != 0 {
					t.Fatalf("%s %v: %v is off the grid of the day's opening %v", tz, w, next, dayOpen)
				}
				prev = next
			}
		}
	}
}

func TestWindowErrors(t *testing.T) {
	cases := []struct {
		spec  Spec
		field string
		want  string
	}{
		{Spec{Type: db.ScheduleCron, Expression: "* * * * * ?", Window: &db.ScheduleWindow{Start: "09:00", End: "10:00"}}, "scheduleWindow", "only FIXED_RATE"},
		{Spec{Type: db.ScheduleFixedRate, Expression: "1m", Window: &db.ScheduleWindow{Start: "9am", End: "10:00"}}, "scheduleWindow.start", "not a time of day"},
		{Spec{Type: db.ScheduleFixedRate, Expression: "1m", Window: &db.ScheduleWindow{Start: "09:00", End: "25:00"}}, "scheduleWindow.end", "not a time of day"},
		{Spec{Type: db.ScheduleFixedRate, Expression: "1m", Window: &db.ScheduleWindow{Start: "22:00", End: "06:00"}}, "scheduleWindow.end", "does not cross midnight"},
		{Spec{Type: db.ScheduleFixedRate, Expression: "1m", Window: &db.ScheduleWindow{Start: "09:00", End: "10:00", Days: []string{"MON"}}}, "scheduleWindow.days", "not one of"},
		{Spec{Type: db.ScheduleFixedDelay, Expression: "1m", Excluded: []string{"2026-12-25"}}, "calendar", "only CRON and FIXED_RATE"},
		{Spec{Type: db.ScheduleCron, Expression: "* * * * * ?", Excluded: []string{"25.12.2026"}}, "calendar", "not a date"},
	}
	for _, c := range cases {
		_, err := Parse(c.spec)
		var in *fault.Input
		if !errors.As(err, &in) || in.Field != c.field || !strings.Contains(in.Reason, c.want) {
			t.Errorf("Parse(%+v) = %v; want a %s error containing %q", c.spec, err, c.field, c.want)
		}
	}
}
