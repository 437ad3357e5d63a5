//go:build quartzoracle

// Tests against the real Quartz 2.3.2, through the Java program in
// testdata/quartz-oracle. They need Java and the Quartz jar, so they only
// build with -tags quartzoracle; see testdata/quartz-oracle/README.md.

package cron

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	oracleClasspath = flag.String("quartz.classpath",
		"/usr/share/java/quartz2.jar:/usr/share/java/slf4j-api.jar:/usr/share/java/slf4j-nop.jar",
		"class path holding Quartz (and slf4j) for the oracle")
	sweepN     = flag.Int("sweep.n", 3000, "number of random queries in TestQuartzSweep")
	sweepSeed  = flag.Int64("sweep.seed", 1, "seed of TestQuartzSweep")
	sweepWrite = flag.Bool("sweep.write", false, "TestQuartzSweep: write the agreed answers to testdata/quartz-sweep.tsv")
	printTable = flag.Bool("quartz.print", false, "TestQuartzTable: print Quartz's answers as Go table rows")
)

type oracleQuery struct {
	expr, zone, start string // start: RFC 3339 or Unix seconds
	n                 int
}

// oracleAnswer is one line of the oracle's output.
type oracleAnswer struct {
	offsets []int    // with epoch: Java's UTC offset at each time
	err     string   // Quartz's ParseException message, if it rejected the expression
	times   []string // fire times (RFC 3339, or Unix seconds with epoch)
	end     bool     // getTimeAfter returned null
	exc     string   // getTimeAfter threw
	timeout bool     // getTimeAfter did not return within the oracle's limit
}

var (
	oracleOnce sync.Once
	oracleDir  string
	oracleErr  error
)

func compileOracle(t testing.TB) string {
	oracleOnce.Do(func() {
		oracleDir, oracleErr = os.MkdirTemp("", "quartz-oracle")
		if oracleErr != nil {
			return
		}
		cmd := exec.Command("javac", "-d", oracleDir, "-cp", *oracleClasspath, "testdata/quartz-oracle/Oracle.java")
		if out, err := cmd.CombinedOutput(); err != nil {
			oracleErr = fmt.Errorf("javac: %v\n%s", err, out)
		}
	})
	if oracleErr != nil {
		t.Fatalf("-tags quartzoracle needs Java and the Quartz jar (see testdata/quartz-oracle/README.md): %v", oracleErr)
	}
	return oracleDir
}

// askQuartz runs the oracle on qs. The oracle exits after a query that makes
// Quartz loop; askQuartz then restarts it on the remaining queries.
func askQuartz(t testing.TB, qs []oracleQuery, epoch bool) []oracleAnswer {
	dir := compileOracle(t)
	var answers []oracleAnswer
	for len(answers) < len(qs) {
		var in bytes.Buffer
		for _, q := range qs[len(answers):] {
			fmt.Fprintf(&in, "%s\t%s\t%s\t%d\n", q.expr, q.zone, q.start, q.n)
		}
		args := []string{"-cp", dir + ":" + *oracleClasspath, "Oracle"}
		if epoch {
			args = append(args, "--epoch", "--offsets")
		}
		cmd := exec.Command("java", args...)
		cmd.Stdin = &in
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 3) {
			t.Fatalf("oracle: %v\n%s", err, stderr.String())
		}
		before := len(answers)
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			answers = append(answers, parseAnswer(sc.Text()))
		}
		if len(answers) == before {
			t.Fatalf("oracle made no progress\n%s", stderr.String())
		}
	}
	return answers
}

func parseAnswer(line string) oracleAnswer {
	f := strings.Split(line, "\t")
	var a oracleAnswer
	switch f[0] {
	case "ERR":
		a.err = strings.Join(f[1:], " ")
		if a.err == "" {
			a.err = "(no message)"
		}
	case "TIMEOUT":
		a.timeout = true
	case "OK":
		for _, s := range f[1:] {
			switch {
			case s == "END":
				a.end = true
			case strings.HasPrefix(s, "EXC "):
				a.exc = s
			default:
				if t, off, ok := strings.Cut(s, ":"); ok && !strings.Contains(s, "T") {
					o, _ := strconv.Atoi(off)
					a.offsets = append(a.offsets, o)
					s = t
				}
				a.times = append(a.times, s)
			}
		}
	default:
		a.exc = "bad oracle line: " + line
	}
	return a
}

// TestQuartzTable checks every row of the Go tables against Quartz.
func TestQuartzTable(t *testing.T) {
	var qs []oracleQuery
	for _, c := range nextCases {
		qs = append(qs, oracleQuery{c.expr, c.zone, c.start, max(len(c.want), 1) + 1})
	}
	// The oracle reads one query per line, so expressions holding a line
	// break cannot be sent; those rows are checked by hand (Quartz splits on
	// spaces and tabs only and rejects them).
	var rejects []rejectCase
	for _, c := range rejectCases {
		if !strings.ContainsAny(c.expr, "\n\r") {
			rejects = append(rejects, c)
			qs = append(qs, oracleQuery{c.expr, "UTC", "2026-01-01T00:00:00Z", 1})
		}
	}
	answers := askQuartz(t, qs, false)

	agreed, deliberate := 0, 0
	for i, c := range nextCases {
		a := answers[i]
		// Quartz's answer, cut to the length of the row (plus END if the
		// sequence ends there).
		got := a.times
		if len(got) > len(c.want) {
			got = got[:len(c.want)]
		}
		end := a.end && len(a.times) == len(c.want)
		quartzText := strings.Join(got, " ")
		if end {
			quartzText += " END"
		}
		wantText := strings.Join(c.want, " ")
		if c.end {
			wantText += " END"
		}
		if *printTable {
			fmt.Printf("// %s | %s | %s\n// quartz: %s%s%s\n", c.expr, c.zone, c.start, quartzText, a.err, a.exc)
		}
		switch {
		case a.err != "" || a.exc != "" || a.timeout:
			if c.quartzDiffers == "" {
				t.Errorf("%s: %q: Quartz fails: err=%q exc=%q timeout=%v", c.name, c.expr, a.err, a.exc, a.timeout)
			} else {
				deliberate++
			}
		case quartzText != wantText:
			if c.quartzDiffers == "" {
				t.Errorf("%s: %q in %s after %s:\n  table:  %s\n  Quartz: %s", c.name, c.expr, c.zone, c.start, wantText, quartzText)
			} else {
				deliberate++
				t.Logf("deliberate difference %s: %q (%s)\n  ours:   %s\n  Quartz: %s", c.name, c.expr, c.quartzDiffers, wantText, quartzText)
			}
		default:
			if c.quartzDiffers != "" {
				t.Errorf("%s: marked as differing from Quartz but Quartz agrees", c.name)
			}
			agreed++
		}
	}
	rejAgreed, rejLenient := 0, 0
	for i, c := range rejects {
		a := answers[len(nextCases)+i]
		switch {
		case a.err != "":
			if c.quartzAccepts {
				t.Errorf("reject %q: marked as accepted by Quartz but Quartz says %q", c.expr, a.err)
			}
			rejAgreed++
		case c.quartzAccepts:
			rejLenient++
		default:
			t.Errorf("reject %q: Quartz accepts it (times %v, exc %q, timeout %v)", c.expr, a.times, a.exc, a.timeout)
		}
	}
	t.Logf("next cases: %d agree with Quartz 2.3.2, %d differ deliberately", agreed, deliberate)
	t.Logf("reject cases: %d rejected by Quartz too, %d accepted by Quartz (deliberately stricter)", rejAgreed, rejLenient)
}

// sweepRow is one query of the differential sweep and what both sides said.
type sweepRow struct {
	expr, zone string
	start      int64 // Unix seconds
	ms         int   // and milliseconds
	n          int
}

// TestQuartzSweep compares random expressions × zones × start times with
// Quartz. Every difference must fall into one of the documented categories;
// with -sweep.write the rows are saved for TestQuartzSweepReplay.
func TestQuartzSweep(t *testing.T) {
	rows := generateSweep(*sweepSeed, *sweepN)
	qs := make([]oracleQuery, len(rows))
	for i, r := range rows {
		qs[i] = oracleQuery{r.expr, r.zone, fmt.Sprintf("%d.%03d", r.start, r.ms), r.n}
	}
	answers := askQuartz(t, qs, true)

	counts := map[string]int{}
	var lines []string
	for i, r := range rows {
		a := answers[i]
		cat, ours := classify(r, a)
		counts[cat]++
		if testing.Verbose() && strings.HasPrefix(cat, "quartz-") {
			t.Logf("%s: %q zone=%s start=%d.%03d (%s)\n  ours:   %s\n  Quartz: %v",
				cat, r.expr, r.zone, r.start, r.ms, time.Unix(r.start, 0).In(loadZone(t, r.zone)).Format(time.RFC3339), ours, a.times)
		}
		if strings.HasPrefix(cat, "BUG") {
			t.Errorf("%s: %q zone=%s start=%d (%s)\n  ours:   %s\n  Quartz: %v err=%q exc=%q timeout=%v",
				cat, r.expr, r.zone, r.start, time.Unix(r.start, 0).UTC().Format(time.RFC3339), ours, a.times, a.err, a.exc, a.timeout)
		}
		switch cat {
		case "agree":
			lines = append(lines, fmt.Sprintf("%s\t%s\t%d.%03d\t%d\t%s", r.expr, r.zone, r.start, r.ms, r.n, ours))
		case "agree-reject":
			lines = append(lines, fmt.Sprintf("%s\t%s\t%d.%03d\t%d\tERR", r.expr, r.zone, r.start, r.ms, r.n))
		case "stricter":
			lines = append(lines, fmt.Sprintf("%s\t%s\t%d.%03d\t%d\tSTRICTER", r.expr, r.zone, r.start, r.ms, r.n))
		}
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-40s %6d", k, counts[k])
	}
	if *sweepWrite {
		header := fmt.Sprintf("# Differential sweep against Quartz 2.3.2 (seed %d, %d queries; rows where we agree).\n"+
			"# Generated by: go test -tags quartzoracle -run TestQuartzSweep -sweep.write ./server/schedule/cron/\n"+
			"# expr\tzone\tstart (Unix s.ms)\tn\tfire times (Unix s) [END] | ERR (both reject) | STRICTER (Quartz accepts, we reject on purpose)\n",
			*sweepSeed, len(rows))
		err := os.WriteFile(filepath.Join("testdata", "quartz-sweep.tsv"), []byte(header+strings.Join(lines, "\n")+"\n"), 0o644)
		if err != nil {
			t.Fatal(err)
		}
	}
}

// classify compares our answer for r with Quartz's and names the outcome.
// Categories starting with BUG fail the test.
func classify(r sweepRow, a oracleAnswer) (category, ours string) {
	loc, err := time.LoadLocation(r.zone)
	if err != nil {
		return "BUG: zone", ""
	}
	e, perr := Parse(r.expr, loc)
	if perr != nil {
		pe := perr.(*ParseError)
		switch {
		case a.err != "":
			return "agree-reject", "ERR " + perr.Error()
		case pe.quartzAccepts:
			return "stricter", "ERR " + perr.Error()
		default:
			return "BUG: we reject, Quartz accepts", "ERR " + perr.Error()
		}
	}
	if a.err != "" {
		return "BUG: we accept, Quartz rejects", ""
	}
	var times []string
	var ourEnd bool
	after := time.Unix(r.start, int64(r.ms)*1e6)
	for range r.n {
		next, ok := e.Next(after)
		if !ok {
			ourEnd = true
			break
		}
		times = append(times, strconv.FormatInt(next.Unix(), 10))
		after = next
	}
	ours = strings.Join(append(times[:len(times):len(times)], endMark(ourEnd)...), " ")
	quartz := strings.Join(append(a.times[:len(a.times):len(a.times)], endMark(a.end)...), " ")
	if a.timeout || a.exc != "" {
		// Quartz loops (e.g. "L-30W" in February) or throws.
		if e.dom.kind == domLastWeekday && e.dom.n >= 28 {
			return "quartz-hangs (L-nW, n>=28)", ours
		}
		// Samoa skipped 30 December 2011; Quartz's "W" search loops there.
		if r.zone == "Pacific/Apia" && (e.dom.kind == domNearestWeekday || e.dom.kind == domLastWeekday) &&
			r.start < time.Date(2012, 1, 1, 0, 0, 0, 0, time.UTC).Unix() && r.start > time.Date(2011, 1, 1, 0, 0, 0, 0, time.UTC).Unix() {
			return "quartz-hangs (W, Samoa's skipped day)", ours
		}
		return "BUG: Quartz hangs or throws", ours
	}
	if quartz == ours {
		return "agree", ours
	}
	// Java and Go carry their own copies of the tz database; old history
	// in particular has been revised (e.g. Asia/Tehran in 1978).
	for i, v := range toInts(a.times) {
		if _, off := time.Unix(v, 0).In(loc).Zone(); i < len(a.offsets) && off != a.offsets[i] {
			return "tzdata-differs", ours
		}
	}
	// Quartz (run in 2026) lets "*" years run to 2126; we stop at 2099.
	if len(a.times) > len(times) && ourEnd && commonPrefix(a.times, times) {
		if first, _ := strconv.ParseInt(a.times[len(times)], 10, 64); time.Unix(first, 0).UTC().Year() >= maxYear {
			return "quartz-past-2099", ours
		}
	}
	// Quartz skips an "nW" fire on the month's last day when it reaches
	// the month by rolling over from the previous month's "nW" day (see
	// nearestWeekday).
	ourT, theirT := toInts(times), toInts(a.times)
	if e.dom.kind == domNearestWeekday && onlySkips(ourT, theirT, func(u int64) bool {
		t := time.Unix(u, 0).In(e.loc)
		return t.AddDate(0, 0, 1).Day() == 1
	}) {
		return "quartz-W-rollover-skip", ours
	}
	// A gap that is not one whole hour (Lord Howe's 30-minute DST, Troll's
	// 2-hour DST, historical offset changes): Quartz's lenient shift, and its
	// "hour + 1" retry in setCalendarHour, jump past matching wall times
	// that do exist.
	if onlySkips(ourT, theirT, func(u int64) bool { return afterOddGap(e.loc, u) }) {
		return "quartz-odd-gap", ours
	}
	// Samoa skipped 30 December 2011; Quartz fires "30W" on the 29th there.
	if r.zone == "Pacific/Apia" && r.start < time.Date(2012, 1, 1, 0, 0, 0, 0, time.UTC).Unix() &&
		r.start > time.Date(2011, 1, 1, 0, 0, 0, 0, time.UTC).Unix() {
		return "quartz-samoa-skipped-day", ours
	}
	return "BUG: different times", ours
}

func toInts(ss []string) []int64 {
	var out []int64
	for _, s := range ss {
		v, _ := strconv.ParseInt(s, 10, 64)
		out = append(out, v)
	}
	return out
}

// onlySkips reports whether theirs is ours with some times left out (and
// possibly more times after ours end), each left-out time satisfying ok.
func onlySkips(ours, theirs []int64, ok func(int64) bool) bool {
	if len(ours) == 0 {
		return false
	}
	in := map[int64]bool{}
	for _, v := range ours {
		in[v] = true
	}
	last := ours[len(ours)-1]
	have := map[int64]bool{}
	for _, v := range theirs {
		if v <= last && !in[v] {
			return false
		}
		have[v] = true
	}
	skipped := 0
	for _, v := range ours {
		if !have[v] {
			if !ok(v) {
				return false
			}
			skipped++
		}
	}
	return skipped > 0
}

// afterOddGap reports whether instant u lies within a day after a forward
// zone transition that is not exactly one hour starting on the hour, or
// that ends at midnight.
func afterOddGap(loc *time.Location, u int64) bool {
	start, _ := time.Unix(u, 0).In(loc).ZoneBounds()
	if start.IsZero() || u-start.Unix() > 86400 {
		return false
	}
	_, offAfter := start.Zone()
	_, offBefore := start.Add(-time.Second).Zone()
	before := start.Add(-time.Second).In(loc)
	after := start.In(loc)
	return offAfter > offBefore && (offAfter-offBefore != 3600 || before.Minute() != 59 ||
		// A gap that ends at midnight (Nuuk: 23:00 -> 00:00): Quartz's
		// setCalendarHour retries "hour + 1" on the already normalized
		// next day and skips that whole day.
		after.Hour() == 0 && after.Minute() == 0)
}

func commonPrefix(long, short []string) bool {
	for i := range short {
		if long[i] != short[i] {
			return false
		}
	}
	return true
}

func endMark(end bool) []string {
	if end {
		return []string{"END"}
	}
	return nil
}
