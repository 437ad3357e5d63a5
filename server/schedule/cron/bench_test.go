package cron

import (
	"testing"
	"time"
)

func BenchmarkNext(b *testing.B) {
	ny, _ := time.LoadLocation("America/New_York")
	syd, _ := time.LoadLocation("Australia/Sydney")
	for _, c := range []struct {
		name, expr string
		loc        *time.Location
	}{
		{"every-second-UTC", "* * * * * ?", time.UTC},
		{"quarter-hour-NewYork", "0 0/15 * * * ?", ny},
		{"weekdays-10:15-NewYork", "0 15 10 ? * MON-FRI", ny},
		{"last-friday-Sydney", "0 15 10 ? * 6L", syd},
		{"last-weekday-Sydney", "0 0 18 LW * ?", syd},
		{"leap-day", "0 0 0 29 2 ?", time.UTC},
		{"never-30-feb", "0 0 0 30 2 ?", time.UTC}, // scans every year to 2099
		{"one-year-2099", "0 0 0 31 12 ? 2099", ny},
	} {
		e := MustParse(c.expr, c.loc)
		start := time.Date(2026, 3, 7, 12, 0, 0, 0, c.loc)
		b.Run(c.name, func(b *testing.B) {
			after := start
			for b.Loop() {
				next, ok := e.Next(after)
				if !ok {
					next = start // start over
				}
				after = next
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		if _, err := Parse("0 0/5 14,18 L-3W JAN-MAR,NOV ? 2026-2030", time.UTC); err != nil {
			b.Fatal(err)
		}
	}
}
