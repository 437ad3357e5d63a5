package cron

import "time"

// Local (wall-clock) times are handled as "civil seconds": the number of
// seconds from 1970-01-01T00:00:00 to the wall time, as if the wall time were
// UTC. That makes them easy to compare and to step, independent of zones.

// maxOffset bounds the UTC offset of any zone, with room to spare (the
// largest real ones are about ±15h).
const maxOffset = 26 * 3600

// resolve maps wall time w (civil seconds) in loc to an instant (Unix
// seconds) the way Java's lenient GregorianCalendar does, which is what
// Quartz's CronExpression uses:
//
//   - a zone transition takes effect at the wall time "transition instant +
//     new offset";
//   - so a wall time that occurs twice (fall-back overlap) gets the new,
//     later offset: 01:30 on the fall-back day in New York is 01:30 EST;
//   - and a wall time that does not exist (spring-forward gap) keeps the old
//     offset and lands after the gap: 02:30 EST on the spring-forward day is
//     03:30 EDT.
//
// ok is false for a wall time in a gap; next is then the first wall time
// after the gap (the end of the gap, in civil seconds).
func resolve(loc *time.Location, w int64) (inst int64, ok bool, next int64) {
	if loc == time.UTC {
		return w, true, 0
	}
	// Walk the zone periods that can contain w's instant and keep the last
	// one whose wall-clock start (start + offset) is not after w.
	t := time.Unix(w-maxOffset, 0).In(loc)
	_, off := t.Zone()
	end := periodEnd(t)
	for !end.IsZero() && end.Unix() <= w+maxOffset {
		nt := end.In(loc)
		_, noff := nt.Zone()
		if end.Unix()+int64(noff) > w {
			// Later periods start even later (offsets differ by less than
			// the distance between transitions in every real zone).
			if end.Unix() <= w-int64(off) {
				// w-off is past the end of the chosen period: w is in the
				// gap before the next one.
				return w - int64(off), false, end.Unix() + int64(noff)
			}
			break
		}
		off = noff
		end = periodEnd(nt)
	}
	return w - int64(off), true, 0
}

// periodEnd returns the end of the zone period containing t (zero if it
// never ends). time.Time.ZoneBounds can report an end that is not after t
// for zones whose current DST rule spans New Year (southern hemisphere,
// after the last explicit transition, e.g. America/Santiago in 2040: the
// period containing 2041-01-01T00:00Z "ends" at that instant); step past it.
func periodEnd(t time.Time) time.Time {
	_, end := t.ZoneBounds()
	for i := 0; !end.IsZero() && !end.After(t) && i < 4; i++ {
		t = t.Add(time.Second)
		_, end = t.ZoneBounds()
	}
	if !end.IsZero() && !end.After(t) {
		return time.Time{}
	}
	return end
}

// civilOf returns the wall time of instant u (Unix seconds) in loc, in civil
// seconds.
func civilOf(loc *time.Location, u int64) int64 {
	if loc == time.UTC {
		return u
	}
	_, off := time.Unix(u, 0).In(loc).Zone()
	return u + int64(off)
}
