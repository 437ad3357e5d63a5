package graph

import (
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestAppStatsHasACost (issue 25, item 4): the dashboard's figures cost
// what they read, aliases each counted, so 200 aliases of appStats are
// refused before any of them runs (BAD_INPUT naming the budget), while the
// console's own query passes; and the lag, which reads up to 20,000
// instances, is read once for every viewer asking within a few seconds.
func TestAppStatsHasACost(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.SQLite)
	counter := countQueries(d)
	api := newAPI(t, d, apiOptions{})
	admin := api.admin(t)
	api.createApp(t, admin, "orders")
	viewer := api.createUser(t, admin, "vera")
	api.setRole(t, admin, "orders", "vera", "VIEWER")

	var q strings.Builder
	q.WriteString("{")
	for i := range 200 {
		q.WriteString(" a")
		q.WriteString(strings.Repeat("x", i%3))
		q.WriteString(string(rune('a'+i%26)) + string(rune('a'+i/26)))
		q.WriteString(`: appStats(app: "orders", hours: 168) { lag { samples } latestFailures { id } }`)
	}
	q.WriteString(" }")
	var r *response
	n, queries := counter.count(func() { r = api.do(t, viewer, q.String(), nil, nil) })
	if r.code() != CodeBadInput || !strings.Contains(r.Errors[0].Message, "complexity") || !strings.Contains(r.Errors[0].Message, "50000") {
		t.Fatalf("200 aliases of appStats: %+v; want BAD_INPUT naming the complexity budget", r.Errors)
	}
	for _, s := range queries {
		if strings.Contains(s, "finished_at") || strings.Contains(s, "\"instances\"") {
			t.Fatalf("the refused request read instances (%d statements): %s", n, s)
		}
	}
	// Plain appStats under aliases: 201 are over the budget too.
	q.Reset()
	q.WriteString("{")
	for i := range 201 {
		q.WriteString(" s" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)) + `: appStats(app: "orders") { jobs }`)
	}
	q.WriteString(" }")
	if r := api.do(t, viewer, q.String(), nil, nil); r.code() != CodeBadInput {
		t.Fatalf("201 aliases of appStats: %+v", r.Errors)
	}

	// The console's query passes; the lag is read once for two viewers.
	const onCall = `{ appStats(app: "orders", hours: 168) { jobs outcomes { start } capacity { workers }
		lag { samples triggerLateness { p50 } buckets { start } } latestFailures(first: 10) { id } nextFires(first: 10) { time } } }`
	timings := func(list []string) int {
		c := 0
		for _, s := range list {
			if strings.Contains(s, "LIMIT 20000") {
				c++
			}
		}
		return c
	}
	_, first := counter.count(func() { api.must(t, viewer, onCall, nil, nil) })
	_, second := counter.count(func() { api.must(t, admin, onCall, nil, nil) })
	if timings(first) != 1 || timings(second) != 0 {
		t.Fatalf("the lag read its instances %d then %d times; want once, then served again", timings(first), timings(second))
	}
}
