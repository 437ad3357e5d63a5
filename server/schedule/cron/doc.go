// Package cron computes the fire times of Quartz cron expressions, the way
// Quartz 2.x's org.quartz.CronExpression.getTimeAfter does, in a given IANA
// time zone. jobwheel's scheduler and the previewSchedule query use it for
// jobs with schedule type CRON.
//
// # Syntax
//
// An expression has 6 or 7 fields separated by spaces or tabs:
//
//	seconds  minutes  hours  day-of-month  month     day-of-week  [year]
//	0-59     0-59     0-23   1-31          1-12      1-7          1970-2099
//	                                       JAN-DEC   SUN-SAT (1 = SUN)
//
// Names and letters are case-insensitive. Every field takes "*", a value
// "a", a range "a-b", a step "*/n", "a/n" (a, a+n, ... up to the field's
// maximum) or "a-b/n", and comma lists of these. A range whose end is before
// its start wraps around: "22-2" hours, "50-10" seconds, "NOV-FEB",
// "FRI-MON" and "6-2/2" (6, 1) work as in Quartz. A missing year means any.
//
// Exactly one of day-of-month and day-of-week must be "?" ("no specific
// value"): Quartz does not support both, and "?" is allowed nowhere else.
// The day fields also take, each alone in its field:
//
//	day-of-month  L      last day of the month
//	              L-n    n days before the last day (n <= 30); no fire in
//	                     months too short for it
//	              nW     the weekday (Mon-Fri) nearest day n, never leaving
//	                     the month: Saturday the 1st fires Monday the 3rd,
//	                     Sunday the last day fires Friday
//	              LW     last weekday of the month; L-nW likewise from L-n
//	day-of-week   L      on its own: 7 (SAT), as the Quartz docs say
//	              nL     last day n of the month ("6L", "FRIL" = last Friday)
//	              n#k    k-th day n of the month, k = 1-5 ("6#3" = third
//	                     Friday); no fire in months without one
//
// Parse errors are *ParseError values naming the field and saying what is
// wrong in plain words, e.g. `day-of-week: "8" is out of range 1-7 (SUN-SAT)`.
//
// # Fire times
//
// Next(after) returns the first fire time strictly after `after`, working in
// whole seconds as Quartz does (the sub-second part of after is dropped, so
// the search starts at the next whole second). A day 29-31 fires only in
// months that have it, so "0 0 0 29 2 ?" fires on leap days only. Next is
// fast: it jumps field by field and a day rule is a table lookup, so even an
// expression that never fires costs one step per month up to 2099 (about
// 2µs).
//
// # Time zones and daylight saving time
//
// Quartz evaluates expressions on the wall clock of the expression's zone
// and converts the wall time it finds to an instant with Java's lenient
// calendar. We do the same:
//
//   - Spring forward: a wall time that does not exist does not fire. With
//     America/New_York, "0 30 2 * * ?" does not run on the day clocks jump
//     from 02:00 to 03:00, and "0 0/15 * * * ?" goes 01:45 EST, 03:00 EDT.
//     (Java's calendar does map 02:30 to 03:30 EDT, but Quartz then sees hour
//     3 where it wanted 2 and moves on to the next day; we checked this with
//     Quartz 2.3.2, and Quartz never fires at a shifted time.)
//   - Fall back: a wall time that occurs twice fires once, at its second
//     occurrence (standard time), because Java resolves an ambiguous wall
//     time to the later offset. "0 30 1 * * ?" fires at 01:30 EST on the
//     fall-back day, "0 0/15 * * * ?" goes 00:45 EDT, 01:00 EST, 01:15 EST,
//     and none of 01:00-01:45 EDT fires. A search that starts inside the
//     first occurrence continues from its wall time, so from 01:40 EDT the
//     next "0 30 1 * * ?" is the next day's. This is Quartz's behaviour and
//     we keep it, so that schedules agree with Quartz.
//
// Formally: Next finds the first wall time at or after the wall time of
// after+1s that matches every field and exists in the zone, and returns it
// at the zone's offset in force at that wall time, where a transition takes
// effect at the wall time "transition instant + new offset" (Java's rule).
// Matches(t) holds exactly when Next(t-1s) == t, like Quartz's
// isSatisfiedBy.
//
// # Where we differ from Quartz 2.3.2 on purpose
//
// The tests compare this package with the real Quartz 2.3.2 (see
// testdata/quartz-oracle); these are the only differences, all of them
// Quartz bugs or documented limits:
//
//   - Years: we accept 1970-2099, the range the Quartz tutorial documents.
//     Quartz 2.3.2 accepts any year number and lets "*" run to the current
//     year + 100.
//   - We reject text that Quartz accepts but silently misreads: steps after
//     names ("MON-FRI/2" is MON-FRI to Quartz), step 0 ("*/0" is "*", "1-5/0"
//     is "1"), trailing junk ("5LFOO", "5-10X", "15WW", extra fields), empty
//     list elements, "?" inside a list, "W" on a list or range ("1W,15"), "#"
//     together with other days ("6#3,2" means Monday#3 to Quartz), days out
//     of range before "#" or "W" ("9#2", "0W" - on which Quartz loops
//     forever), "L" in fields that do not support it, and range ends below
//     the minimum ("5-0" months). ParseError says why.
//   - "L-nW" where L-n falls before the 1st (e.g. "L-30W" in February): no
//     fire that month. Quartz loops forever.
//   - "nW" for a day n past the month's end: Quartz treats the missing day
//     as a day of the next month, so "31W" fires on the 30th when the 1st of
//     the next month is a Saturday (Friday 30 April 2027). We do that too,
//     for every month; Quartz itself skips such a fire when it reaches the
//     month from the previous month's fire ("29W" from 29 January 2025 goes
//     to 28 March, though it fires on 28 February 2025 when started in
//     February).
//   - Sub-second starts with "W"/"LW": Quartz compares against the wall
//     clock's current milliseconds and answers at random; we ignore the
//     sub-second part as it does everywhere else.
//   - Gaps that are not one whole hour starting on the hour (Lord Howe's
//     30-minute DST, Troll's 2-hour DST, historical offset changes) and gaps
//     that end at midnight (America/Nuuk): Quartz's lenient shift and its
//     "try hour + 1" retry jump past wall times that do exist (Lord Howe
//     "0 20,40 * * * ?" skips 02:40; Nuuk skips the whole day after the
//     gap). We fire at every existing matching wall time. Samoa's skipped
//     30 December 2011 makes Quartz loop or fire on the wrong day; we skip
//     the missing day.
//
// Java and Go also carry separate copies of the tz database; where their
// history differs (e.g. Asia/Tehran in 1978) the answers follow Go's.
package cron
