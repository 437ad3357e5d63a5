package cron

// Day rules. Whether a day of a month fires depends only on the month's
// length and on the weekday its 1st falls on, so Parse evaluates the rule
// once for each of the 4×7 combinations and Next just looks the answer up.

type domKind uint8

const (
	domAny            domKind = iota // "?"
	domSet                           // plain list: 1-31, "*", ranges, steps
	domLast                          // "L", "L-n": n days before the last day
	domLastWeekday                   // "LW", "L-nW": weekday nearest L-n
	domNearestWeekday                // "nW": weekday nearest day n
)

type domSpec struct {
	kind domKind
	set  uint32 // domSet: bit d set for day d
	n    int    // domLast/domLastWeekday: offset; domNearestWeekday: day
}

type dowKind uint8

const (
	dowAny  dowKind = iota // "?"
	dowSet                 // plain list, bit d set for Quartz day d (1=SUN..7=SAT)
	dowLast                // "nL": last day-of-week n of the month
	dowNth                 // "n#k": k-th day-of-week n of the month
)

type dowSpec struct {
	kind dowKind
	set  uint8 // dowSet
	day  int   // dowLast/dowNth: Quartz day 1=SUN..7=SAT
	n    int   // dowNth: 1..5
}

const (
	sunday   = 0 // weekdays here are time.Weekday values: 0=Sunday..6=Saturday
	saturday = 6
)

// buildDayTable fills e.days for every month length (28-31) and weekday of
// the 1st.
func (e *Expression) buildDayTable() {
	for ldom := 28; ldom <= 31; ldom++ {
		for wd1 := 0; wd1 < 7; wd1++ {
			var mask uint32
			for d := 1; d <= ldom; d++ {
				if e.dayMatches(d, ldom, wd1) {
					mask |= 1 << uint(d)
				}
			}
			e.days[ldom-28][wd1] = mask
		}
	}
}

// dayMatches reports whether day d of a month with ldom days whose 1st is
// weekday wd1 is selected by the day-of-month/day-of-week fields. It is only
// used to build the table, so it favours clarity over speed.
func (e *Expression) dayMatches(d, ldom, wd1 int) bool {
	// weekday of day x of this month; x may run past the end of the month,
	// into the next month, which nearestWeekday relies on.
	weekday := func(x int) int { return (wd1 + x - 1) % 7 }

	switch e.dom.kind {
	case domSet:
		return e.dom.set&(1<<uint(d)) != 0
	case domLast:
		return d == ldom-e.dom.n
	case domLastWeekday:
		target := ldom - e.dom.n
		if target < 1 {
			// "L-30W" in February: there is no such day, so no fire. (Quartz
			// 2.3.2 loops forever here.)
			return false
		}
		return d == nearestWeekday(target, ldom, weekday(target))
	case domNearestWeekday:
		return d == nearestWeekday(e.dom.n, ldom, weekday(e.dom.n))
	}

	switch e.dow.kind {
	case dowSet:
		return e.dow.set&(1<<uint(weekday(d)+1)) != 0
	case dowLast:
		return weekday(d) == e.dow.day-1 && d+7 > ldom
	case dowNth:
		return weekday(d) == e.dow.day-1 && (d+6)/7 == e.dow.n
	}
	return false
}

// nearestWeekday is Quartz's "W" rule: the weekday (Monday-Friday) nearest
// day n without leaving the month: a Saturday moves back to Friday, except
// that Saturday the 1st moves forward to Monday the 3rd; a Sunday moves
// forward to Monday, except that a Sunday on the last day moves back to
// Friday. wd is the weekday of day n.
//
// Quartz does not special-case an n past the end of the month ("31W" in
// April): its lenient calendar treats the missing day as a day of the next
// month and applies the same rule. The only time the result lands inside the
// month is when n is one past the last day and that day is a Saturday, e.g.
// "31W" fires on Friday 30 April 2027 because "31 April" is Saturday 1 May.
// We reproduce that (it is what Quartz does when it enters the month at its
// start); in all other cases the month simply has no fire, as with a plain
// "31".
func nearestWeekday(n, ldom, wd int) int {
	switch {
	case wd == saturday && n == 1:
		return 3
	case wd == saturday:
		return n - 1
	case wd == sunday && n == ldom:
		return n - 2
	case wd == sunday:
		return n + 1
	}
	return n
}
