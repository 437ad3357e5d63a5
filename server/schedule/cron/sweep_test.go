package cron

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestQuartzSweepReplay replays testdata/quartz-sweep.tsv: random
// expressions × zones × start times on which the real Quartz 2.3.2 and this
// package were compared (see TestQuartzSweep, which needs Java). Each row
// holds the agreed fire times, or ERR where both reject the expression, or
// STRICTER where Quartz accepts text that we reject on purpose.
func TestQuartzSweepReplay(t *testing.T) {
	f, err := os.Open("testdata/quartz-sweep.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows, locs := 0, map[string]*time.Location{}
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rows++
		p := strings.Split(line, "\t")
		if len(p) != 5 {
			t.Fatalf("bad row %q", line)
		}
		expr, zone, want := p[0], p[1], p[4]
		loc, ok := locs[zone]
		if !ok {
			loc = loadZone(t, zone)
			locs[zone] = loc
		}
		sec, msText, _ := strings.Cut(p[2], ".")
		s, err1 := strconv.ParseInt(sec, 10, 64)
		ms, err2 := strconv.Atoi(msText)
		n, err3 := strconv.Atoi(p[3])
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Fatalf("bad row %q: %v", line, err)
		}
		e, err := Parse(expr, loc)
		switch want {
		case "ERR", "STRICTER":
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("%q: accepted, want rejected (Quartz: %s)", expr, want)
			} else if want == "STRICTER" && !pe.quartzAccepts {
				// (For ERR rows the reasons may differ: an expression
				// can have several faults, and Quartz reports another.)
				t.Errorf("%q: %v: Quartz accepts this, but the error is not marked as a deliberate difference", expr, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", expr, err)
			continue
		}
		var got []string
		after := time.Unix(s, int64(ms)*1e6)
		for range n {
			next, ok := e.Next(after)
			if !ok {
				got = append(got, "END")
				break
			}
			got = append(got, strconv.FormatInt(next.Unix(), 10))
			after = next
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%q in %s after %s:\n  got  %s\n  want %s (Quartz 2.3.2)", expr, zone, p[2], g, want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows < 1000 {
		t.Fatalf("only %d rows", rows)
	}
	t.Logf("%d rows agree with Quartz 2.3.2", rows)
}
