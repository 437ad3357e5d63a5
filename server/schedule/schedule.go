// Package schedule turns a job's time expression into fire times. It is the
// one place both the trigger loop and the API's previewSchedule compute
// them, so a preview shows exactly what will run.
//
//   - CRON: Quartz syntax with seconds, in the job's IANA time zone (package
//     cron).
//   - FIXED_RATE: every interval (a Go duration, at least 1s), on the grid
//     of the previous fire, however long runs take.
//   - FIXED_DELAY: the interval after the previous run ended; the first run
//     is one interval after the job is enabled.
//   - API and WORKFLOW: never by themselves.
//
// An optional lifecycle window [start, end] bounds every type. A FIXED_RATE
// schedule may be restricted to a daily window of wall-clock time on
// chosen weekdays (window.go), and CRON and FIXED_RATE schedules skip the
// dates of a calendar, both in the schedule's time zone.
package schedule

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/schedule/cron"
)

// MinInterval is the shortest FIXED_RATE or FIXED_DELAY interval.
const MinInterval = time.Second

// maxInterval keeps intervals sane (and their arithmetic far from overflow).
const maxInterval = 366 * 24 * time.Hour

// Spec is a schedule as a job stores it.
type Spec struct {
	Type       string
	Expression string
	TimeZone   string
	Start, End *time.Time
	// Window restricts FIXED_RATE to a daily window; nil: none.
	Window *db.ScheduleWindow
	// Excluded are dates (YYYY-MM-DD, in TimeZone) with no fires: a
	// calendar's, for CRON and FIXED_RATE.
	Excluded []string
}

// JobSpec is a job's schedule: what the trigger loop and the API parse,
// so both compute the same fires.
func JobSpec(j *db.Job) Spec {
	return Spec{Type: j.ScheduleType, Expression: j.ScheduleExpression, TimeZone: j.TimeZone,
		Start: j.LifecycleStart, End: j.LifecycleEnd, Window: j.ScheduleWindow, Excluded: j.ExcludedDates}
}

// Schedule computes fire times.
type Schedule struct {
	spec     Spec
	cron     *cron.Expression
	interval time.Duration
	loc      *time.Location
	win      *window
	dates    map[civil]bool
}

// Parse validates a spec. Errors are *fault.Input naming the field:
// scheduleType, scheduleExpression, timeZone or lifecycle.
func Parse(spec Spec) (*Schedule, error) {
	s := &Schedule{spec: spec}
	expr := strings.TrimSpace(spec.Expression)
	tz := spec.TimeZone
	if tz == "" {
		tz = "UTC"
	}
	loc, err := time.LoadLocation(tz)
	if err != nil || tz == "Local" {
		return nil, fault.BadInput("timeZone", "%q is not an IANA time zone name such as UTC or Europe/Berlin", spec.TimeZone)
	}
	s.loc = loc
	switch spec.Type {
	case db.ScheduleCron:
		if expr == "" {
			return nil, fault.BadInput("scheduleExpression", "a CRON job needs a Quartz cron expression with seconds, e.g. \"0 0/5 * * * ?\"")
		}
		c, err := cron.Parse(expr, loc)
		if err != nil {
			var pe *cron.ParseError
			if errors.As(err, &pe) && pe.Field == "expression" {
				return nil, fault.BadInput("scheduleExpression", "%s", pe.Reason)
			}
			return nil, fault.BadInput("scheduleExpression", "%v", err)
		}
		s.cron = c
	case db.ScheduleFixedRate, db.ScheduleFixedDelay:
		d, err := time.ParseDuration(expr)
		if err != nil {
			return nil, fault.BadInput("scheduleExpression", "%q is not a duration such as 30s, 5m or 1h30m", expr)
		}
		if d < MinInterval {
			return nil, fault.BadInput("scheduleExpression", "%s is shorter than the minimum interval of %s", d, MinInterval)
		}
		if d > maxInterval {
			return nil, fault.BadInput("scheduleExpression", "%s is longer than the maximum interval of %s", d, maxInterval)
		}
		// Fires are on whole milliseconds: a finer interval would be
		// rounded at each fire, so it is rounded once here and the fires
		// are exactly one interval apart.
		s.interval = d.Truncate(time.Millisecond)
	case db.ScheduleAPI, db.ScheduleWorkflow:
		if expr != "" {
			return nil, fault.BadInput("scheduleExpression", "must be empty for %s jobs, which run only when triggered", spec.Type)
		}
	default:
		return nil, fault.BadInput("scheduleType", "%q is not one of %s", spec.Type, strings.Join(db.ScheduleTypes, ", "))
	}
	// Fires are on whole milliseconds (what the database keeps), and so is
	// the window: a start between two milliseconds would otherwise yield
	// its millisecond below as a fire before the start — and again as the
	// next fire after it, for ever, since that fire is still before the
	// start. The start rounds up and the end down, so no fire leaves it.
	if spec.Start != nil {
		start := spec.Start.Truncate(time.Millisecond)
		if start.Before(*spec.Start) {
			start = start.Add(time.Millisecond)
		}
		s.spec.Start = &start
	}
	if spec.End != nil {
		end := spec.End.Truncate(time.Millisecond)
		s.spec.End = &end
	}
	if spec.Start != nil && spec.End != nil && !spec.End.After(*spec.Start) {
		return nil, fault.BadInput("lifecycle", "end (%s) must be after start (%s)", spec.End.Format(time.RFC3339), spec.Start.Format(time.RFC3339))
	}
	if spec.Window != nil {
		if spec.Type != db.ScheduleFixedRate {
			return nil, fault.BadInput("scheduleWindow", "only FIXED_RATE jobs take a daily window (a CRON expression names its hours itself)")
		}
		if s.win, err = parseWindow(spec.Window); err != nil {
			return nil, err
		}
	}
	if len(spec.Excluded) > 0 {
		if spec.Type != db.ScheduleCron && spec.Type != db.ScheduleFixedRate {
			return nil, fault.BadInput("calendar", "only CRON and FIXED_RATE jobs skip a calendar's dates")
		}
		if s.dates, err = parseDates("calendar", spec.Excluded); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Window is the lifecycle window as the schedule keeps it: on whole
// milliseconds, the start rounded up and the end down. A job stores it
// so, and every decision made from the job agrees with its fires.
func (s *Schedule) Window() (start, end *time.Time) { return s.spec.Start, s.spec.End }

// Fires reports whether the schedule fires by itself.
func (s *Schedule) Fires() bool { return s.cron != nil || s.interval > 0 }

// Interval is the FIXED_DELAY interval, or FIXED_RATE's where its fires
// are one uniform grid; 0 otherwise (CRON, and a FIXED_RATE in a daily
// window, whose grid starts afresh at each day's opening: Next from any
// time finds the next point of it).
func (s *Schedule) Interval() time.Duration {
	if s.win != nil {
		return 0
	}
	return s.interval
}

// Next returns the first fire strictly after `after`, inside the lifecycle
// window, and false if there is none. For FIXED_RATE `after` is a point of
// the grid (the previous fire); for FIXED_DELAY it is when the previous
// run ended.
//
// Excluded dates are skipped; a windowed FIXED_RATE fires only inside its
// window (its grid starts at each day's opening, so `after` may be any
// time).
func (s *Schedule) Next(after time.Time) (time.Time, bool) {
	if start := s.spec.Start; start != nil && after.Before(*start) {
		switch {
		case s.cron != nil || s.win != nil:
			after = start.Add(-time.Nanosecond)
		case s.interval > 0 && !s.excluded(*start):
			return s.within(*start)
		case s.interval > 0:
			after = *start // the grid runs from start, past its excluded days
		default:
			return time.Time{}, false
		}
	}
	var next time.Time
	var ok bool
	switch {
	case s.cron != nil:
		next, ok = s.nextCron(after)
	case s.win != nil:
		next, ok = s.nextInWindow(after)
	case s.interval > 0 && s.spec.Type == db.ScheduleFixedRate:
		next, ok = s.nextRate(after)
	case s.interval > 0:
		next, ok = after.Add(s.interval), true
	}
	if !ok {
		return time.Time{}, false
	}
	return s.within(next)
}

func (s *Schedule) within(t time.Time) (time.Time, bool) {
	if end := s.spec.End; end != nil && t.After(*end) {
		return time.Time{}, false
	}
	return t.UTC().Truncate(time.Millisecond), true
}

// Preview returns up to count fires strictly after `after`: exactly the
// times the trigger loop would use for a job saved now. FIXED_DELAY shows
// runs that take no time.
func (s *Schedule) Preview(after time.Time, count int) []time.Time {
	var out []time.Time
	t := after
	for len(out) < count {
		next, ok := s.Next(t)
		if !ok {
			break
		}
		out = append(out, next)
		t = next
	}
	return out
}

// String describes the schedule.
func (s *Schedule) String() string {
	return fmt.Sprintf("%s %q (%s)", s.spec.Type, s.spec.Expression, s.spec.TimeZone)
}
