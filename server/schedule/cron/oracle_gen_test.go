//go:build quartzoracle

package cron

import (
	"fmt"
	"math/rand"
	"strings"
	"time"
)

// sweepZones mixes ordinary DST zones, both hemispheres, no-DST zones and odd
// ones: half-hour DST (Lord Howe), midnight transitions (Santiago, Havana,
// Asuncion), a skipped day (Apia 2011), offset changes (Moscow, Caracas,
// Pyongyang), a 2-hour DST (Troll) and quarter-hour offsets.
var sweepZones = []string{
	"UTC", "America/New_York", "Europe/London", "Europe/Berlin", "Australia/Sydney",
	"Asia/Kolkata", "America/Santiago", "Australia/Lord_Howe", "America/Havana",
	"America/Asuncion", "Pacific/Apia", "Europe/Moscow", "America/Sao_Paulo",
	"Asia/Kathmandu", "America/St_Johns", "Pacific/Chatham", "Europe/Dublin",
	"America/Caracas", "Asia/Pyongyang", "Antarctica/Troll", "Asia/Tehran",
	"America/Los_Angeles", "Pacific/Auckland", "Asia/Tokyo", "America/Godthab",
}

func generateSweep(seed int64, n int) []sweepRow {
	r := rand.New(rand.NewSource(seed))
	rows := make([]sweepRow, 0, n)
	for len(rows) < n {
		expr := randomExpr(r)
		if r.Intn(6) == 0 {
			expr = mutateExpr(r, expr)
		}
		zone := sweepZones[r.Intn(len(sweepZones))]
		if r.Intn(3) == 0 {
			zone = sweepZones[r.Intn(4)] // weight the common ones
		}
		row := sweepRow{expr: expr, zone: zone, start: randomStart(r, zone), n: 6}
		// Sub-second starts, except with "W": Quartz compares against the
		// wall clock's milliseconds there and answers at random.
		if r.Intn(5) == 0 && !strings.Contains(strings.ToUpper(expr), "W ") {
			row.ms = r.Intn(1000)
		}
		rows = append(rows, row)
	}
	return rows
}

// randomStart picks a start instant, often shortly before a zone transition.
func randomStart(r *rand.Rand, zone string) int64 {
	loc, _ := time.LoadLocation(zone)
	var year int
	switch r.Intn(4) {
	case 0:
		year = 1971 + r.Intn(125)
	default:
		year = 2000 + r.Intn(40)
	}
	if zone == "Pacific/Apia" && r.Intn(2) == 0 {
		year = 2011
	}
	t := time.Date(year, time.Month(1+r.Intn(12)), 1+r.Intn(28), r.Intn(24), r.Intn(60), r.Intn(60), 0, loc)
	switch r.Intn(4) {
	case 0, 1:
		// Move to shortly before the next transition.
		if _, end := t.ZoneBounds(); !end.IsZero() {
			t = end.Add(-time.Duration(r.Intn(48*3600)) * time.Second)
		}
	case 2:
		// Move to within three hours of the next transition.
		if _, end := t.ZoneBounds(); !end.IsZero() {
			t = end.Add(time.Duration(r.Intn(6*3600)-3*3600) * time.Second)
		}
	}
	if r.Intn(10) == 0 {
		t = t.Truncate(time.Hour)
	}
	return t.Unix()
}

func pick(r *rand.Rand, xs ...string) string { return xs[r.Intn(len(xs))] }

func randomExpr(r *rand.Rand) string {
	sec := randomPlain(r, 0, 59, 59, nil, true)
	min := randomPlain(r, 0, 59, 59, nil, true)
	hour := randomPlain(r, 0, 23, 23, nil, false)
	month := "*"
	if r.Intn(3) == 0 {
		month = randomPlain(r, 1, 12, 12, fields[fMonth].names, false)
	}
	var dom, dow string
	if r.Intn(2) == 0 {
		dow = "?"
		switch r.Intn(10) {
		case 0:
			dom = "L"
		case 1:
			dom = fmt.Sprintf("L-%d", randSmall(r, 30))
		case 2:
			dom = "LW"
		case 3:
			dom = fmt.Sprintf("L-%dW", randSmall(r, 27))
		case 4, 5:
			dom = fmt.Sprintf("%dW", 1+r.Intn(31))
		default:
			dom = randomPlain(r, 1, 31, 31, nil, false)
		}
	} else {
		dom = "?"
		day := func() string {
			if r.Intn(3) == 0 {
				return fields[fDayOfWeek].names[r.Intn(7)]
			}
			return fmt.Sprint(1 + r.Intn(7))
		}
		switch r.Intn(10) {
		case 0:
			dow = "L"
		case 1, 2:
			dow = day() + "L"
		case 3, 4:
			dow = fmt.Sprintf("%s#%d", day(), 1+r.Intn(5))
		default:
			dow = randomPlain(r, 1, 7, 7, fields[fDayOfWeek].names, false)
		}
	}
	parts := []string{sec, min, hour, dom, month, dow}
	if r.Intn(4) == 0 {
		parts = append(parts, randomYear(r))
	}
	expr := strings.Join(parts, " ")
	if r.Intn(5) == 0 {
		expr = strings.ToLower(expr)
	}
	return expr
}

// randSmall favours small numbers but reaches max.
func randSmall(r *rand.Rand, max int) int {
	if r.Intn(4) == 0 {
		return r.Intn(max + 1)
	}
	return r.Intn(min(max, 5) + 1)
}

// randomPlain builds a plain field: single values, ranges (also wrapping),
// steps and lists. sparse makes "0" likely, to keep fire times meaningful.
func randomPlain(r *rand.Rand, lo, hi, maxStep int, names []string, sparse bool) string {
	val := func() string {
		v := lo + r.Intn(hi-lo+1)
		return fmt.Sprint(v)
	}
	name := func() string { return names[r.Intn(len(names))] }
	item := func() string {
		switch r.Intn(9) {
		case 0:
			return "*"
		case 1:
			return fmt.Sprintf("*/%d", 1+r.Intn(maxStep))
		case 2:
			return fmt.Sprintf("%s/%d", val(), 1+r.Intn(maxStep))
		case 3, 4:
			if names != nil && r.Intn(2) == 0 {
				return name() + "-" + name()
			}
			return val() + "-" + val() // may wrap
		case 5:
			return fmt.Sprintf("%s-%s/%d", val(), val(), 1+r.Intn(hi-lo+3))
		case 6:
			if names != nil {
				return name()
			}
			return val()
		default:
			return val()
		}
	}
	if sparse && r.Intn(3) != 0 {
		if r.Intn(4) == 0 {
			return pick(r, "0", "30", "0/15", "*/20", "0,30")
		}
		return "0"
	}
	n := 1
	if r.Intn(4) == 0 {
		n = 2 + r.Intn(2)
	}
	items := make([]string, n)
	for i := range items {
		items[i] = item()
	}
	return strings.Join(items, ",")
}

func randomYear(r *rand.Rand) string {
	y := func() int { return 1990 + r.Intn(100) }
	switch r.Intn(5) {
	case 0:
		return "*"
	case 1:
		return fmt.Sprint(y())
	case 2:
		a := y()
		return fmt.Sprintf("%d-%d", a, a+r.Intn(20))
	case 3:
		return fmt.Sprintf("%d/%d", y(), 1+r.Intn(10))
	default:
		return fmt.Sprintf("%d,%d", y(), y())
	}
}

// junk holds tokens that Quartz or we reject, or that Quartz misreads.
var junk = []string{
	"?", "L", "W", "#", "0", "60", "24", "32", "13", "8", "*/0", "*/60", "*/24", "*/32", "*/13", "*/8",
	"1,,2", "1,", ",1", "1-", "-1", "MON-FRI/2", "JAN/2", "5LFOO", "0W", "32W", "9#2", "0#2", "6#0", "6#6", "6#",
	"L-31", "L-30", "L-W", "L-", "1W,15", "15W,1", "6#3,2", "6L,2", "L,2", "FOO", "MONDAY", "JANUARY", "**",
	"5/", "5-10X", "1-5W", "?X", "?,5", "5,?", "L#2", "LW", "L-3W", "WED", "JUL", "FRIL", "FRI#2", "fri-mon",
	"nov-feb", "0-59/100", "5-0", "0-0", "2-MAR", "JAN-3", "1/0", "5/2X", "10-20/5X", "*5", "/5", "*/", "//",
	"1-2-3", "1--2", "3#", "#3", "LL", "WW", "15WW", "L-3WX", "2030-2020", "1969", "2100", "2099", "1970",
	"99999999999", "07", "007", "1.5", "+1", "1 ", "SUN-SAT", "SAT-SUN", "7-1", "22-2", "50-10",
}

func mutateExpr(r *rand.Rand, expr string) string {
	parts := strings.Fields(expr)
	switch r.Intn(10) {
	case 0:
		return strings.Join(parts[:5], " ")
	case 1:
		return expr + " " + pick(r, "*", "2030", "* *", "FOO")
	default:
		parts[r.Intn(len(parts))] = junk[r.Intn(len(junk))]
		return strings.Join(parts, " ")
	}
}
