package cron

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/reugn/go-quartz/quartz"
)

// Expression is a parsed Quartz cron expression bound to a time zone. It is
// immutable after Parse and safe for concurrent use.
type Expression struct {
	text string
	loc  *time.Location

	seconds, minutes uint64 // bit v set if value v fires
	hours            uint32
	months           uint16 // bits 1-12
	years            [3]uint64
	dom              domSpec
	dow              dowSpec

	// days[ldom-28][wd] has bit d set if day d fires in a month of ldom days
	// whose 1st is weekday wd (0=Sunday).
	days [4][7]uint32
}

// Verify Expression can drive a go-quartz scheduler.
var _ quartz.Trigger = (*Expression)(nil)

// String returns the normalized expression text: upper case, fields
// separated by single spaces (a 6-field expression stays 6 fields).
func (e *Expression) String() string { return e.text }

// Location returns the time zone the expression is evaluated in.
func (e *Expression) Location() *time.Location { return e.loc }

// Description implements quartz.Trigger, in go-quartz's format for cron
// triggers.
func (e *Expression) Description() string {
	return fmt.Sprintf("CronTrigger%s%s%s%s", quartz.Sep, e.text, quartz.Sep, e.loc)
}

// NextFireTime implements quartz.Trigger: prev and the result are Unix
// nanoseconds. It returns quartz.ErrTriggerExpired when there is no later
// fire time.
func (e *Expression) NextFireTime(prev int64) (int64, error) {
	next, ok := e.Next(time.Unix(0, prev))
	if !ok {
		return 0, quartz.ErrTriggerExpired
	}
	return next.UnixNano(), nil
}

// Next returns the first fire time strictly after `after`, in e's location,
// and false if there is none (the years ran out). Like Quartz it works in
// whole seconds: the sub-second part of after is ignored, so the result is
// the first fire time at or after the next whole second.
func (e *Expression) Next(after time.Time) (time.Time, bool) {
	a := after.Unix() // floor to the second, also before 1970
	if a >= maxUnix {
		return time.Time{}, false
	}
	w := civilOf(e.loc, a+1)
	// Each turn of this loop either returns or steps past a gap in the
	// local time line (or, defensively, past one wall time); real zones have
	// a few gaps a year, so the bound is never reached.
	for range 1000 {
		var ok bool
		if w, ok = e.nextCivil(w); !ok {
			return time.Time{}, false
		}
		inst, exists, gapEnd := resolve(e.loc, w)
		switch {
		case !exists:
			// The wall time was skipped by a spring-forward change, so it
			// never happens and Quartz does not fire: it finds the
			// lenient instant (02:30 EST = 03:30 EDT), sees that the hour is
			// 3, not 2, and moves on. Resume at the end of the gap.
			w = max(gapEnd, w+1)
		case inst <= a:
			// Cannot happen with Java's resolution rule (see resolve);
			// kept so that Next is strictly increasing whatever the zone
			// data looks like.
			w++
		default:
			return time.Unix(inst, 0).In(e.loc), true
		}
	}
	return time.Time{}, false
}

// Matches reports whether t, truncated to the second, is a fire time: its
// wall time matches every field and it is the instant Next would pick for
// that wall time (during a fall-back overlap only the second occurrence
// fires). Matches(t) == true exactly when Next(t - 1s) == t, which is how
// Quartz defines isSatisfiedBy.
func (e *Expression) Matches(t time.Time) bool {
	u := t.Unix()
	if u >= maxUnix {
		return false
	}
	w := civilOf(e.loc, u)
	if next, ok := e.nextCivil(w); !ok || next != w {
		return false
	}
	inst, exists, _ := resolve(e.loc, w)
	return exists && inst == u
}

// maxUnix is the first instant after the year range in any zone.
var maxUnix = time.Date(maxYear+1, 1, 2, 0, 0, 0, 0, time.UTC).Unix()

// nextCivil returns the first wall time at or after w (civil seconds) that
// matches all fields, ignoring time zones. It jumps field by field, so it
// takes at most a few steps per month scanned; never-matching expressions
// (e.g. "0 0 0 30 2 ?") cost one step per month up to year 2099.
func (e *Expression) nextCivil(w int64) (int64, bool) {
	days := floorDiv(w, 86400)
	y, mo, d := civilFromDays(days)
	sod := int(w - days*86400)
	h, mi, s := sod/3600, sod/60%60, sod%60

	for {
		if y > maxYear {
			return 0, false
		}
		if y < minYear {
			y, mo, d, h, mi, s = minYear, 1, 1, 0, 0, 0
		}
		if !e.yearSet(y) {
			ny := e.nextYear(y)
			if ny < 0 {
				return 0, false
			}
			y, mo, d, h, mi, s = ny, 1, 1, 0, 0, 0
		}
		nmo := nextBit(uint64(e.months), mo)
		if nmo < 0 || nmo > 12 {
			y, mo, d, h, mi, s = y+1, 1, 1, 0, 0, 0
			continue
		}
		if nmo != mo {
			mo, d, h, mi, s = nmo, 1, 0, 0, 0
		}
		ldom := daysIn(y, mo)
		nd := nextBit(uint64(e.days[ldom-28][weekdayOf(y, mo, 1)]), d)
		if nd < 0 || nd > ldom {
			mo, d, h, mi, s = mo+1, 1, 0, 0, 0
			if mo > 12 {
				y, mo = y+1, 1
			}
			continue
		}
		if nd != d {
			d, h, mi, s = nd, 0, 0, 0
		}
		nh := nextBit(uint64(e.hours), h)
		if nh < 0 {
			d, h, mi, s = d+1, 0, 0, 0 // may pass the month's end: the day step handles it
			continue
		}
		if nh != h {
			h, mi, s = nh, 0, 0
		}
		nmi := nextBit(e.minutes, mi)
		if nmi < 0 {
			h, mi, s = h+1, 0, 0
			continue
		}
		if nmi != mi {
			mi, s = nmi, 0
		}
		ns := nextBit(e.seconds, s)
		if ns < 0 {
			mi, s = mi+1, 0
			continue
		}
		return daysFromCivil(y, mo, d)*86400 + int64(h*3600+mi*60+ns), true
	}
}

func (e *Expression) yearSet(y int) bool {
	i := y - minYear
	return e.years[i/64]&(1<<uint(i%64)) != 0
}

// nextYear returns the first selected year after y, or -1.
func (e *Expression) nextYear(y int) int {
	for i := y + 1 - minYear; i <= maxYear-minYear; {
		word := e.years[i/64] >> uint(i%64)
		if word != 0 {
			return minYear + i + bits.TrailingZeros64(word)
		}
		i = (i/64 + 1) * 64
	}
	return -1
}

// nextBit returns the smallest set bit of set at or above from, or -1.
func nextBit(set uint64, from int) int {
	if from >= 64 {
		return -1
	}
	rest := set >> uint(from)
	if rest == 0 {
		return -1
	}
	return from + bits.TrailingZeros64(rest)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// weekdayOf returns the weekday of a date, 0=Sunday.
func weekdayOf(y, m, d int) int {
	// 1970-01-01 was a Thursday.
	return int((daysFromCivil(y, m, d)%7 + 7 + 4) % 7)
}

// daysFromCivil returns the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(int64(y), 400)
	yoe := int64(y) - era*400
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	m = int(mp + 3)
	if m > 12 {
		m -= 12
	}
	y = int(yoe + era*400)
	if m <= 2 {
		y++
	}
	return y, m, d
}
