// Package wfexpr compiles the expressions of workflow nodes (docs/design.md
// §6.9): a DECISION's choice and the list a FOREACH runs over. They are
// expr-lang/expr expressions over two variables, `context` (the instance's
// context) and `upstream` (the direct predecessors' results by node key).
// expr has no I/O and no reflection into Go values beyond what it is
// given, which is why it is used instead of a scripting language.
//
// What one evaluation may cost is bounded (Eval, Limits): its text and
// syntax tree when it compiles, and when it runs its CPU time and the
// bytes it allocates, counted by a meter the expression is instrumented to
// call (meter.go): expr's VM has no hook to interrupt a program.
//
// The API compiles an expression when a workflow is saved and refuses one
// that does not compile or is over the limits whatever its input (Compile);
// the engine compiles it again with the same options to run it (Eval), so
// what was accepted runs.
package wfexpr

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// Limits on an expression.
const (
	// MaxBytes bounds an expression's text.
	MaxBytes = 2 << 10
	// MaxNodes bounds its syntax tree (expr's default is 10,000).
	MaxNodes = 1000
)

// Limits bound one evaluation.
type Limits struct {
	// CPU is the CPU time it may use (default 100 ms): past it the
	// evaluation stops with ReasonTimeout.
	CPU time.Duration
	// Bytes is what it may allocate in all (default 8 MiB): strings it
	// makes, lists and maps; past it the evaluation stops with
	// ReasonTooLarge.
	Bytes int
}

// Defaults of Limits.
const (
	DefaultCPU   = 100 * time.Millisecond
	DefaultBytes = 8 << 20
)

// OrDefaults fills unset limits.
func (l Limits) OrDefaults() Limits {
	if l.CPU <= 0 {
		l.CPU = DefaultCPU
	}
	if l.Bytes <= 0 {
		l.Bytes = DefaultBytes
	}
	return l
}

// env is the expressions' environment as the compiler sees it: both
// variables are JSON objects whose members' types are known only at run
// time.
var env = map[string]any{"context": map[string]any{}, "upstream": map[string]any{}}

// compile compiles text for m: instrumented, every loop iteration and
// every allocation goes through m. With static, what can be refused before
// running (a constant range or repeat over the limits) is refused.
func compile(text string, m *meter, static bool) (*vm.Program, error) {
	if len(text) > MaxBytes {
		return nil, fmt.Errorf("the expression is %d bytes; at most %d", len(text), MaxBytes)
	}
	r := &ranges{maxElems: int64(m.lim.Bytes) / 16, maxBytes: int64(m.lim.Bytes)}
	p, err := expr.Compile(text, expr.Env(env), expr.MaxNodes(MaxNodes), functions(m), expr.Patch(r), expr.Patch(instrument{}))
	if err != nil {
		// expr's message goes on to quote the text with a caret under the
		// position; the first line already names the position.
		msg, _, _ := strings.Cut(err.Error(), "\n")
		return nil, errors.New(msg)
	}
	if static {
		if problems := r.problems(); len(problems) > 0 {
			return nil, errors.New(strings.Join(problems, "; "))
		}
	}
	return p, nil
}

// Compile checks an expression over `context` and `upstream` as saving
// does, with the default limits.
func Compile(text string) (*vm.Program, error) {
	return compile(text, &meter{lim: Limits{}.OrDefaults()}, true)
}

// CompileList compiles a FOREACH's expression, which must yield a list:
// an expression whose type is known when it compiles (a number, a string,
// a map) and is not a list is refused; one whose type is known only at run
// time (a member of the context) is checked then.
func CompileList(text string) (*vm.Program, error) {
	p, err := Compile(text)
	if err != nil {
		return nil, err
	}
	if t := p.Node().Type(); t != nil {
		switch t.Kind() {
		case reflect.Slice, reflect.Array, reflect.Interface:
		default:
			return nil, fmt.Errorf("the expression yields %s, not a list", t)
		}
	}
	return p, nil
}

// Eval evaluates an expression over env within lim. It runs on the calling
// goroutine, locked to its OS thread so that the thread's CPU time is the
// evaluation's; cancelling ctx stops it within a loop iteration. A limit
// reached is a *LimitError.
func Eval(ctx context.Context, text string, env map[string]any, lim Limits) (v any, err error) {
	lim = lim.OrDefaults()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	m := &meter{lim: lim, cpu: threadCPU}
	m.start = m.cpu()
	m.lastCheck = time.Now()
	stop := context.AfterFunc(ctx, func() { m.canceled.Store(true) })
	defer stop()
	p, err := compile(text, m, false)
	if err != nil {
		return nil, err
	}
	defer func() {
		// expr recovers its own panics; this is a last guard, since an
		// expression is user input evaluated on the server.
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("failed: %v", r)
		}
		if m.err != nil {
			v, err = nil, m.err
		}
	}()
	machine := vm.VM{MemoryBudget: uint(lim.Bytes / 16)}
	v, err = machine.Run(p, env)
	if err != nil && m.err == nil && strings.Contains(err.Error(), "memory budget exceeded") {
		m.err = &LimitError{Reason: ReasonTooLarge, Msg: fmt.Sprintf("the expression would allocate more than %d bytes", lim.Bytes)}
	}
	if err == nil && m.err == nil {
		if err := m.tick(); err != nil {
			return nil, err
		}
		// The CPU is read at most once a millisecond during the run: read
		// it once more at the end.
		if used := m.cpu() - m.start; used > lim.CPU {
			m.err = &LimitError{Reason: ReasonTimeout, Msg: fmt.Sprintf("the expression used more than %v of CPU and was stopped", lim.CPU)}
		}
	}
	return v, err
}

// StaticLen is the length of the list an expression yields if it is known
// without running it: a constant range (a..b) or a list literal.
func StaticLen(text string) (int, bool) {
	tree, err := parser.Parse(text)
	if err != nil {
		return 0, false
	}
	switch n := tree.Node.(type) {
	case *ast.BinaryNode:
		a, okA := n.Left.(*ast.IntegerNode)
		b, okB := n.Right.(*ast.IntegerNode)
		if n.Operator == ".." && okA && okB {
			return max(b.Value-a.Value+1, 0), true
		}
	case *ast.ArrayNode:
		return len(n.Nodes), true
	}
	return 0, false
}

// UpstreamRefs are the names an expression reads from upstream by a
// constant member (upstream.x, upstream["x"]), in the order they appear;
// what it reads by a computed name (upstream[context.k]) is not known before
// it runs.
func UpstreamRefs(text string) []string {
	tree, err := parser.Parse(text)
	if err != nil {
		return nil
	}
	v := &upstreamRefs{seen: map[string]bool{}}
	ast.Walk(&tree.Node, v)
	return v.refs
}

type upstreamRefs struct {
	refs []string
	seen map[string]bool
}

func (v *upstreamRefs) Visit(node *ast.Node) {
	m, ok := (*node).(*ast.MemberNode)
	if !ok {
		return
	}
	id, ok := m.Node.(*ast.IdentifierNode)
	if !ok || id.Value != "upstream" {
		return
	}
	if p, ok := m.Property.(*ast.StringNode); ok && !v.seen[p.Value] {
		v.seen[p.Value] = true
		v.refs = append(v.refs, p.Value)
	}
}

// Env is the value an expression runs over.
func Env(context map[string]any, upstream map[string]any) map[string]any {
	if context == nil {
		context = map[string]any{}
	}
	if upstream == nil {
		upstream = map[string]any{}
	}
	return map[string]any{"context": context, "upstream": upstream}
}

// wallCPU is the process's elapsed time, for platforms without a thread
// CPU clock.
func wallCPU() time.Duration { return time.Since(processStart) }

var processStart = time.Now()
