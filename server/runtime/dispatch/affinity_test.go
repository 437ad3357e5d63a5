package dispatch

import (
	"fmt"
	"testing"

	"github.com/jobwheel/jobwheel/db"
)

func pool(n int) []*Worker {
	out := make([]*Worker, n)
	for i := range out {
		out[i] = &Worker{ID: fmt.Sprintf("w-%d", i), Host: fmt.Sprintf("h%d", i), Types: []string{"SHELL"}, Slots: 4}
	}
	return out
}

func keyOf(s string) func() string { return func() string { return s } }

// CONSISTENT_HASH sends one key to one worker across 100 runs, spreads
// keys over the workers, and when a worker leaves only its keys move.
func TestConsistentHash(t *testing.T) {
	ws := pool(4)
	p := NewPicker()
	first := p.PickFor(db.DispatchConsistentHash, keyOf(Key(7, `{"key": "customer-42"}`)), ws)
	for i := range 100 {
		w := p.PickFor(db.DispatchConsistentHash, keyOf(Key(7, `{"key": "customer-42", "run": `+fmt.Sprint(i)+`}`)), ws)
		if w != first {
			t.Fatalf("run %d went to %s; the key's worker is %s", i, w.ID, first.ID)
		}
	}
	// Keys spread, and removing one worker moves only the keys it had.
	before := map[string]string{}
	spread := map[string]int{}
	for i := range 1000 {
		k := fmt.Sprintf("k%d", i)
		w := p.PickFor(db.DispatchConsistentHash, keyOf(k), ws)
		before[k] = w.ID
		spread[w.ID]++
	}
	for _, w := range ws {
		if spread[w.ID] < 150 {
			t.Fatalf("keys per worker %v: %s has too few for a spread", spread, w.ID)
		}
	}
	gone := ws[1].ID
	rest := []*Worker{ws[0], ws[2], ws[3]}
	for k, was := range before {
		now := p.PickFor(db.DispatchConsistentHash, keyOf(k), rest)
		if was != gone && now.ID != was {
			t.Fatalf("key %s moved from %s to %s though %s stayed", k, was, now.ID, was)
		}
	}
	// A busy key's worker makes its task wait instead of going elsewhere.
	busy := pool(2)
	target := p.PickFor(db.DispatchConsistentHash, keyOf("x"), busy)
	target.Busy = target.Slots
	if w := p.PickFor(db.DispatchConsistentHash, keyOf("x"), busy); w != nil {
		t.Fatalf("picked %s while the key's worker %s is full", w.ID, target.ID)
	}
}

func TestKey(t *testing.T) {
	for _, c := range []struct {
		params, want string
	}{
		{`{"key": "customer-42"}`, "key:customer-42"},
		{`{"key": 42}`, "key:42"},
		{`{"other": 1}`, "job:7"},
		{`not json`, "job:7"},
		{``, "job:7"},
		{`{"key": ""}`, "job:7"},
	} {
		if got := Key(7, c.params); got != c.want {
			t.Errorf("Key(%q) = %q; want %q", c.params, got, c.want)
		}
	}
}

// LEAST_RECENTLY_USED takes the free worker picked longest ago: a fresh
// worker first, then in turn; a full worker is passed over.
func TestLeastRecentlyUsed(t *testing.T) {
	ws := pool(3)
	p := NewPicker()
	var got []string
	for range 6 {
		got = append(got, p.Pick(db.DispatchLeastRecentlyUsed, ws).ID)
	}
	if fmt.Sprint(got) != "[w-0 w-1 w-2 w-0 w-1 w-2]" {
		t.Fatalf("picks %v", got)
	}
	// w-1 was used by another strategy meanwhile: it is now the most recent.
	p.Pick(db.DispatchRoundRobin, []*Worker{ws[1]})
	if w := p.Pick(db.DispatchLeastRecentlyUsed, ws); w.ID != "w-0" {
		t.Fatalf("picked %s; want w-0", w.ID)
	}
	if w := p.Pick(db.DispatchLeastRecentlyUsed, ws); w.ID != "w-2" {
		t.Fatalf("picked %s; want w-2", w.ID)
	}
	ws[0].Busy = ws[0].Slots
	if w := p.Pick(db.DispatchLeastRecentlyUsed, ws); w.ID != "w-1" {
		t.Fatalf("picked %s; want w-1 (w-0 is full)", w.ID)
	}
}
