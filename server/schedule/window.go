package schedule

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// Weekdays are the names a window's days take, Sunday first as
// time.Weekday counts.
var Weekdays = []string{"SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY"}

// MaxExcludedDates bounds a calendar.
const MaxExcludedDates = 5000

// window is a parsed daily window: seconds of the day, and the days it
// opens on.
type window struct {
	start, end int
	days       [7]bool
}

// civil is a date on the wall calendar of the schedule's zone.
type civil struct {
	y int
	m time.Month
	d int
}

func civilOf(t time.Time) civil { y, m, d := t.Date(); return civil{y, m, d} }

// addDays moves a date by n days (noon UTC keeps the arithmetic clear of
// any zone's transitions).
func (c civil) addDays(n int) civil {
	return civilOf(time.Date(c.y, c.m, c.d+n, 12, 0, 0, 0, time.UTC))
}

func (c civil) weekday() time.Weekday {
	return time.Date(c.y, c.m, c.d, 12, 0, 0, 0, time.UTC).Weekday()
}

func (c civil) String() string { return fmt.Sprintf("%04d-%02d-%02d", c.y, c.m, c.d) }

// parseWindow validates a window; the fields it names are under
// scheduleWindow.
func parseWindow(w *db.ScheduleWindow) (*window, error) {
	start, err := timeOfDay(w.Start)
	if err != nil {
		return nil, fault.BadInput("scheduleWindow.start", "%v", err)
	}
	end, err := timeOfDay(w.End)
	if err != nil {
		return nil, fault.BadInput("scheduleWindow.end", "%v", err)
	}
	if end <= start {
		return nil, fault.BadInput("scheduleWindow.end", "%s is not after the start %s (a window does not cross midnight: use two jobs)", w.End, w.Start)
	}
	out := &window{start: start, end: end}
	if len(w.Days) == 0 {
		out.days = [7]bool{true, true, true, true, true, true, true}
	}
	for _, d := range w.Days {
		i := slices.Index(Weekdays, d)
		if i < 0 {
			return nil, fault.BadInput("scheduleWindow.days", "%q is not one of %s", d, strings.Join(Weekdays, ", "))
		}
		out.days[i] = true
	}
	return out, nil
}

// timeOfDay parses "HH:MM" or "HH:MM:SS" into seconds of the day.
func timeOfDay(s string) (int, error) {
	for _, layout := range []string{"15:04", "15:04:05"} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t.Hour()*3600 + t.Minute()*60 + t.Second(), nil
		}
	}
	return 0, fmt.Errorf("%q is not a time of day such as 09:00 or 17:30:15", s)
}

// parseDates validates excluded dates ("YYYY-MM-DD") under field.
func parseDates(field string, dates []string) (map[civil]bool, error) {
	if len(dates) > MaxExcludedDates {
		return nil, fault.BadInput(field, "has %d dates; at most %d", len(dates), MaxExcludedDates)
	}
	out := make(map[civil]bool, len(dates))
	for _, s := range dates {
		t, err := time.Parse(time.DateOnly, strings.TrimSpace(s))
		if err != nil {
			return nil, fault.BadInput(field, "%q is not a date such as 2026-12-25", s)
		}
		out[civilOf(t)] = true
	}
	return out, nil
}

// NormalizeDates checks dates and returns them sorted, each once, as
// YYYY-MM-DD.
func NormalizeDates(field string, dates []string) ([]string, error) {
	set, err := parseDates(field, dates)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c.String())
	}
	slices.Sort(out)
	return out, nil
}

// sinceMidnight is how far the wall clock of t (in its location) is past
// midnight.
func sinceMidnight(t time.Time) time.Duration {
	h, m, s := t.Clock()
	return time.Duration(h*3600+m*60+s)*time.Second + time.Duration(t.Nanosecond())
}

// wall returns the instants at which the wall clock of loc shows date c at
// sec seconds past midnight, earliest first: one, two where a repeated
// hour (the end of summer time) shows it twice, none where a skipped hour
// (its start) never shows it; then gap is the instant the clock jumped
// past it.
func wall(c civil, sec int, loc *time.Location) (at []time.Time, gap time.Time) {
	naive := time.Date(c.y, c.m, c.d, 0, 0, 0, 0, time.UTC).Add(time.Duration(sec) * time.Second)
	var offsets []int
	for _, probe := range []time.Duration{-26 * time.Hour, 0, 26 * time.Hour} {
		_, off := naive.Add(probe).In(loc).Zone()
		if !slices.Contains(offsets, off) {
			offsets = append(offsets, off)
		}
	}
	for _, off := range offsets {
		u := naive.Add(-time.Duration(off) * time.Second).In(loc)
		if civilOf(u) == c && sinceMidnight(u) == time.Duration(sec)*time.Second && !slices.ContainsFunc(at, u.Equal) {
			at = append(at, u)
		}
	}
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	if len(at) == 0 {
		// Read with the offset before the jump, the wall time lands after
		// it: the zone in effect there started at the jump.
		_, before := naive.Add(-26 * time.Hour).In(loc).Zone()
		gap, _ = naive.Add(-time.Duration(before) * time.Second).In(loc).ZoneBounds()
	}
	return at, gap
}

// opening is the first instant of date c whose wall clock shows sec or
// later; closing the last that shows sec or earlier.
func opening(c civil, sec int, loc *time.Location) time.Time {
	at, gap := wall(c, sec, loc)
	if len(at) > 0 {
		return at[0]
	}
	return gap
}

func closing(c civil, sec int, loc *time.Location) time.Time {
	at, gap := wall(c, sec, loc)
	if len(at) > 0 {
		return at[len(at)-1]
	}
	return gap.Add(-time.Millisecond)
}

// nextDay is the first instant of the day after t's (in t's location).
func nextDay(t time.Time) time.Time {
	return opening(civilOf(t).addDays(1), 0, t.Location())
}

// excluded reports whether t falls on an excluded date of the zone.
func (s *Schedule) excluded(t time.Time) bool {
	return len(s.dates) > 0 && s.dates[civilOf(t.In(s.loc))]
}

// skips bounds the searches past excluded dates and closed days: each
// round passes at least one excluded date, and a week has at least one
// open day.
func (s *Schedule) skips() int { return 7 * (len(s.dates) + 2) }

// nextCron is the cron's next fire after `after` not on an excluded date.
func (s *Schedule) nextCron(after time.Time) (time.Time, bool) {
	for range s.skips() {
		t, ok := s.cron.Next(after)
		if !ok || !s.excluded(t) {
			return t, ok
		}
		after = nextDay(t.In(s.loc)).Add(-time.Nanosecond)
		if end := s.spec.End; end != nil && after.After(*end) {
			return time.Time{}, false
		}
	}
	return time.Time{}, false
}

// nextRate is the grid's next point after `after` (a point of the grid)
// not on an excluded date: an excluded day's points are skipped, the grid
// kept.
func (s *Schedule) nextRate(after time.Time) (time.Time, bool) {
	t := after.Add(s.interval)
	for range s.skips() {
		if !s.excluded(t) {
			return t, true
		}
		gap := nextDay(t.In(s.loc)).Sub(t)
		t = t.Add((gap + s.interval - 1) / s.interval * s.interval)
		if end := s.spec.End; end != nil && t.After(*end) {
			return time.Time{}, false
		}
	}
	return time.Time{}, false
}

// nextInWindow is the first fire after `after` inside the daily window:
// each open day's fires are the window's opening plus whole intervals, up
// to and including its closing, at instants whose wall clock is inside
// the window. Instants, not wall-clock readings, are stepped, so the hour
// skipped when summer time starts has no fires and a window across the
// hour repeated when it ends fires through both (the clock shows a time
// in the window all along).
func (s *Schedule) nextInWindow(after time.Time) (time.Time, bool) {
	w := s.win
	lo, hi := time.Duration(w.start)*time.Second, time.Duration(w.end)*time.Second
	day := civilOf(after.In(s.loc))
	for range s.skips() {
		c := day
		day = day.addDays(1)
		if !w.days[c.weekday()] || s.dates[c] {
			continue
		}
		open, shut := opening(c, w.start, s.loc), closing(c, w.end, s.loc)
		if end := s.spec.End; end != nil && open.After(*end) {
			return time.Time{}, false
		}
		if !after.Before(shut) {
			continue
		}
		t := open
		if !after.Before(open) {
			t = open.Add((after.Sub(open)/s.interval + 1) * s.interval)
		}
		for ; !t.After(shut); t = t.Add(s.interval) {
			local := t.In(s.loc)
			if d := sinceMidnight(local); civilOf(local) == c && d >= lo && d <= hi && t.Truncate(time.Millisecond).After(after) {
				return t, true
			}
		}
	}
	return time.Time{}, false
}
