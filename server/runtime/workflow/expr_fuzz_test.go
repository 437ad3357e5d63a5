package workflow

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/server/runtime/workflow/wfexpr"
)

// FuzzExpression (issue 19, item 2): a DECISION's or FOREACH's expression
// is user input the server evaluates. Whatever the text, the instance's context
// (any JSON) and the upstream results: saving's check (wfexpr) and the
// engine agree — what does not compile is refused by both, without a
// panic reaching the engine's last guard —, an evaluation ends promptly
// with a value or an error, a decision's value is a label and a list at
// most maxForeachItems long. `go test -fuzz FuzzExpression ./server/runtime/workflow/`
// explores.
func FuzzExpression(f *testing.F) {
	for _, s := range []struct{ expr, ctx, up string }{
		{`context.x > 1`, `{"x": 2}`, ``},
		{`upstream.a == "ok" ? "go" : "stop"`, `{}`, `ok`},
		{`fromJSON(upstream.a).items`, `{}`, `{"items": [1, 2, 3]}`},
		{`context.items`, `{"items": ["a", {"b": 1}, null, 1e308]}`, ``},
		{`map(1..100000000, {#})`, `{}`, ``},
		{`reduce(1..1000000, #acc + #, 0)`, `{}`, ``},
		{`len(toJSON(context)) > 10`, `{"deep": [[[[[[[[[[1]]]]]]]]]]}`, ``},
		{`repeat("ab", 100000000)`, `{}`, ``},
		{`context["a"]["b"]["c"]`, `{"a": {"b": null}}`, ``},
		{`1/0`, `{}`, ``},
		{`int("x")`, `{}`, ``},
		{`now().Year()`, `{}`, ``},
		{`upstream.a * 1e308 * 10`, `{}`, `1`},
		{`filter(context.list, # > 1)`, `{"list": "not a list"}`, ``},
		{`sortBy(context.list, .k)`, `{"list": [{"k": 2}, {"k": "1"}]}`, ``},
		{`max(context.a)`, `{"a": []}`, ``},
		{`split(upstream.a, "")`, `{}`, `xyz`},
		{`context.x ?? "none"`, `{}`, ``},
	} {
		f.Add(s.expr, []byte(s.ctx), s.up)
	}
	f.Fuzz(func(t *testing.T, src string, rawCtx []byte, up string) {
		var ctx map[string]any
		if json.Unmarshal(rawCtx, &ctx) != nil {
			ctx = nil
		}
		upstream := map[string]string{"a": up, "b": ""}
		_, compileErr := wfexpr.Compile(src)
		_, listErr := wfexpr.CompileList(src)
		for _, eval := range []struct {
			name string
			wi   func() (any, error)
			err  error // what saving said of it
		}{
			{"decision", func() (any, error) { return evalDecision(src, ctx, upstream) }, compileErr},
			{"list", func() (any, error) { return evalList(src, ctx, upstream) }, listErr},
		} {
			start := time.Now()
			v, err := eval.wi()
			// Generous: fuzzing machines are busy; a runaway evaluation
			// takes far longer.
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("%s %q took %v", eval.name, src, d)
			}
			if err != nil {
				if strings.HasPrefix(err.Error(), "failed: ") {
					t.Fatalf("%s %q panicked into the engine's guard: %v", eval.name, src, err)
				}
				continue
			}
			if compileErr != nil {
				t.Fatalf("%s %q ran though saving refused it: %v", eval.name, src, compileErr)
			}
			switch x := v.(type) {
			case string:
				if eval.name != "decision" {
					t.Fatalf("list %q gave a string", src)
				}
			case []any:
				if eval.name != "list" || len(x) > maxForeachItems {
					t.Fatalf("%s %q gave %d elements", eval.name, src, len(x))
				}
			default:
				t.Fatalf("%s %q gave a %T", eval.name, src, v)
			}
		}
	})
}
