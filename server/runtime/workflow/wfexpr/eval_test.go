package wfexpr_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/server/runtime/workflow/wfexpr"
)

// Issue 25, items 1 and 2: what an expression may cost. A loop that would
// run for minutes stops at its CPU budget, string or list growth stops at
// its byte budget before the memory is taken, and cancelling stops an
// evaluation under way; ordinary expressions are untouched.
func TestEvalLimits(t *testing.T) {
	t.Parallel()
	env := wfexpr.Env(map[string]any{"n": 3.0, "items": []any{"a", "b"}}, map[string]any{"check": "ok"})
	lim := wfexpr.Limits{CPU: 50 * time.Millisecond, Bytes: 1 << 20}
	for _, tc := range []struct {
		text   string
		reason string // "" succeeds
		want   any
	}{
		{text: `upstream.check == "ok" && context.n > 2`, want: true},
		{text: `map(context.items, # + "!")`, want: []any{"a!", "b!"}},
		{text: `all(1..1000, # > 0)`, want: true},
		{text: `let r = 1..40000; all(r, all(r, true))`, reason: wfexpr.ReasonTimeout},
		{text: `let r = 1..3000; any(r, any(r, any(r, false)))`, reason: wfexpr.ReasonTimeout},
		{text: `let a = repeat("a", 999999); let b = a+a; let c = b+b; let d = c+c; len(d) > 0`, reason: wfexpr.ReasonTooLarge},
		{text: `let a = repeat("a", 60000); let b = a+a; let c = b+b; let d = c+c; let e = d+d; let f = e+e; len(f) > 0`, reason: wfexpr.ReasonTooLarge},
		{text: `repeat(repeat("ab", 1000), 1000000)`, reason: wfexpr.ReasonTooLarge},
		{text: `reduce(1..100000, #acc + "xxxxxxxxxx", "") != ""`, reason: wfexpr.ReasonTooLarge},
		{text: `join(map(1..50000, "a"), repeat("-", 1000))`, reason: wfexpr.ReasonTooLarge},
		{text: `replace(repeat("a", 100000), "", repeat("b", 100))`, reason: wfexpr.ReasonTooLarge},
		{text: `let a = 1..1000; let b = [a,a,a,a,a,a,a,a,a,a]; let c = [b,b,b,b,b,b,b,b,b,b]; len(toJSON([c,c,c,c,c,c,c,c,c,c]))`, reason: wfexpr.ReasonTooLarge},
		{text: `let a = 1..1000; let b = [a,a,a,a,a,a,a,a,a,a]; let c = [b,b,b,b,b,b,b,b,b,b]; len(flatten([c,c,c,c,c,c,c,c,c,c]))`, reason: wfexpr.ReasonTooLarge},
		{text: `len(map(1..1000, 1..1000))`, reason: wfexpr.ReasonTooLarge},
		{text: `string(now()) contains "m="`, want: false},
	} {
		lim := lim
		if tc.reason == wfexpr.ReasonTooLarge {
			// Which budget an expression meets first must not depend on
			// the machine's speed: these are stopped by their bytes.
			lim.CPU = 10 * time.Second
		}
		v, err := wfexpr.Eval(context.Background(), tc.text, env, lim)
		var le *wfexpr.LimitError
		switch {
		case tc.reason == "" && err != nil:
			t.Errorf("%.60q: %v", tc.text, err)
		case tc.reason == "" && !equal(v, tc.want):
			t.Errorf("%.60q = %v; want %v", tc.text, v, tc.want)
		case tc.reason != "" && !errors.As(err, &le):
			t.Errorf("%.60q: %v, %v; want a limit error %s", tc.text, v, err, tc.reason)
		case tc.reason != "" && le.Reason != tc.reason:
			t.Errorf("%.60q: %v; want reason %s", tc.text, err, tc.reason)
		}
	}
}

func equal(a, b any) bool {
	if as, ok := a.([]any); ok {
		bs, ok := b.([]any)
		if !ok || len(as) != len(bs) {
			return false
		}
		for i := range as {
			if as[i] != bs[i] {
				return false
			}
		}
		return true
	}
	return a == b
}

// The memory an evaluation over its byte budget takes stays near that
// budget: the doubling that took a server from 56 MB to 1 GB is stopped
// before its allocations.
func TestEvalBytesBounded(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := wfexpr.Eval(context.Background(), `let a = repeat("a", 999999); let b = a+a; let c = b+b; let d = c+c; let e = d+d; let f = e+e; let g = f+f; let h = g+g; let i = h+h; len(i) > 0`,
		wfexpr.Env(nil, nil), wfexpr.Limits{})
	runtime.ReadMemStats(&after)
	var le *wfexpr.LimitError
	if !errors.As(err, &le) || le.Reason != wfexpr.ReasonTooLarge {
		t.Fatalf("err %v; want %s", err, wfexpr.ReasonTooLarge)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4*wfexpr.DefaultBytes {
		t.Fatalf("the evaluation allocated %d bytes; its budget is %d", grew, wfexpr.DefaultBytes)
	}
}

// Cancelling stops an evaluation under way (a stop, a server shutting
// down), with a reason that says so.
func TestEvalCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := wfexpr.Eval(ctx, `let r = 1..40000; all(r, all(r, true))`, wfexpr.Env(nil, nil), wfexpr.Limits{CPU: time.Hour})
		done <- err
	}()
	cancel()
	err := <-done
	var le *wfexpr.LimitError
	if !errors.As(err, &le) || le.Reason != wfexpr.ReasonCanceled {
		t.Fatalf("err %v; want %s", err, wfexpr.ReasonCanceled)
	}
}

// Saving refuses what cannot run within the limits whatever the context.
func TestCompileStaticLimits(t *testing.T) {
	t.Parallel()
	for _, text := range []string{`let r = 1..999999; all(r, true)`, `len(repeat("a", 99999999)) > 1`, `1..1000000`} {
		if _, err := wfexpr.Compile(text); err == nil || !strings.Contains(err.Error(), "at most") {
			t.Errorf("%q: %v; want it refused", text, err)
		}
	}
	for _, text := range []string{`context.n in 1..1000000`, `all(1..1000, # > 0)`} {
		if _, err := wfexpr.Compile(text); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// The attacker probe (docs/security.md, "Attacker probe"): one `matches`
// is one call the meter cannot interrupt, and its time grows with the text
// times the pattern: a 4 MB text against a pattern of a few hundred
// instructions took 7 s of a server's CPU, one made at run time 200 KB
// long took 90 MB to compile. Both are refused before they run, whatever
// the CPU budget; ordinary matches are untouched.
func TestMatchesIsBounded(t *testing.T) {
	t.Parallel()
	env := wfexpr.Env(map[string]any{"name": "nightly-etl"}, nil)
	lim := wfexpr.Limits{CPU: time.Second, Bytes: 8 << 20}
	for _, tc := range []struct {
		text   string
		reason string // "" succeeds
		want   any
	}{
		{text: `context.name matches "^[a-z-]+$"`, want: true},
		{text: `context.name not matches "^[0-9]+$"`, want: true},
		{text: `context.missing matches "x"`, want: false},
		{text: `repeat("ab", 10000) matches "^(ab)+$"`, want: true},
		{text: `let p = "^" + "night"; context.name matches p`, want: true},
		{text: `repeat("ab", 1000000) matches "` + strings.Repeat("(a|b)*", 50) + `z"`, reason: wfexpr.ReasonTimeout},
		{text: `let s = repeat("ab", 1000000); any(["x", "y"], s matches "[ab]*" + # + repeat("(a|b)*", 30) + "z")`, reason: wfexpr.ReasonTimeout},
		{text: `"aaaa" matches repeat("(a|b)*", 40000)`, reason: wfexpr.ReasonTooLarge},
	} {
		v, err := wfexpr.Eval(context.Background(), tc.text, env, lim)
		var le *wfexpr.LimitError
		switch {
		case tc.reason == "" && err != nil:
			t.Errorf("%.60q: %v", tc.text, err)
		case tc.reason == "" && !equal(v, tc.want):
			t.Errorf("%.60q = %v; want %v", tc.text, v, tc.want)
		case tc.reason != "" && !errors.As(err, &le):
			t.Errorf("%.60q: %v, %v; want a limit error %s", tc.text, v, err, tc.reason)
		case tc.reason != "" && (le.Reason != tc.reason || !strings.HasPrefix(le.Msg, "matches: ")):
			t.Errorf("%.60q: %v; want reason %s from matches", tc.text, err, tc.reason)
		}
	}
}
