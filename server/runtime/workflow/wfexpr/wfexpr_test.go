package wfexpr_test

import (
	"strings"
	"testing"

	"github.com/expr-lang/expr"

	"github.com/jobwheel/jobwheel/server/runtime/workflow/wfexpr"
)

// What saving accepts and refuses, and that an accepted expression runs
// over an instance's context and upstream results.
func TestCompile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text   string
		list   bool
		refuse string // part of the error; "" accepts
	}{
		{text: `context.region == "eu"`},
		{text: `upstream.check == "ok" ? "go" : "stop"`},
		{text: `context.items`, list: true},
		{text: `map(context.items, # * 2)`, list: true},
		{text: `[1, 2, 3]`, list: true},
		{text: `1 + 1`, list: true, refuse: "not a list"},
		{text: `"a"`, list: true, refuse: "not a list"},
		{text: `region == "eu"`, refuse: "unknown name region"},
		{text: `context.`, refuse: "unexpected"},
		{text: strings.Repeat("1+", 1200) + "1", refuse: "at most 2048"},
		{text: strings.Repeat("1+", 700) + "1", refuse: "maximum allowed nodes"},
	} {
		compile := wfexpr.Compile
		if tc.list {
			compile = wfexpr.CompileList
		}
		_, err := compile(tc.text)
		switch {
		case tc.refuse == "" && err != nil:
			t.Errorf("%q: %v", tc.text, err)
		case tc.refuse != "" && (err == nil || !strings.Contains(err.Error(), tc.refuse)):
			t.Errorf("%.40q: %v; want an error about %q", tc.text, err, tc.refuse)
		}
	}
	p, err := wfexpr.Compile(`upstream.check == "ok" && context.n > 2`)
	if err != nil {
		t.Fatal(err)
	}
	v, err := expr.Run(p, wfexpr.Env(map[string]any{"n": 3.0}, map[string]any{"check": "ok"}))
	if err != nil || v != true {
		t.Fatalf("run: %v, %v", v, err)
	}
}
