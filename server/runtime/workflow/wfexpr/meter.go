package wfexpr

import (
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/expr-lang/expr/ast"
)

// LimitError says an evaluation was stopped at one of its limits. The
// engine fails the node with Reason.
type LimitError struct {
	// Reason is ReasonTimeout (CPU), ReasonTooLarge (bytes allocated or
	// the value returned) or ReasonCanceled (the caller gave up: a stop,
	// a server shutting down).
	Reason string
	Msg    string
}

func (e *LimitError) Error() string { return e.Msg }

// Reasons of a LimitError; the first two are the reasons a node fails with.
const (
	ReasonTimeout  = "EXPRESSION_TIMEOUT"
	ReasonTooLarge = "EXPRESSION_TOO_LARGE"
	ReasonCanceled = "CANCELED"
)

// meter is one evaluation's account of CPU and bytes. Every loop of an
// expression runs a closure body, and every node that allocates (a string
// +, a builtin's result, an array or map literal) is wrapped by the
// instrumenting patcher in a call that charges the meter; expr's VM has no
// hook of its own to interrupt a program, so these calls are where it is
// interrupted: a limit reached makes them return a LimitError, which ends
// the VM's run.
type meter struct {
	lim      Limits
	bytes    int64
	canceled atomic.Bool
	// cpu reads the CPU time the evaluating thread has used; start is its
	// value when the evaluation began.
	cpu   func() time.Duration
	start time.Duration
	// lastCheck is the monotonic time CPU was last read: it is read at
	// most once a millisecond, which bounds what checking costs.
	lastCheck time.Time
	err       *LimitError
	// patterns are the instructions of the patterns scan has compiled.
	patterns map[string]int64
}

func (m *meter) fail(e *LimitError) error {
	if m.err == nil {
		m.err = e
	}
	return m.err
}

// tick is called once per loop iteration and per allocating node: it
// stops the evaluation once it is canceled or has used its CPU.
func (m *meter) tick() error {
	if m.err != nil {
		return m.err
	}
	if m.canceled.Load() {
		return m.fail(&LimitError{Reason: ReasonCanceled, Msg: "the evaluation was canceled"})
	}
	if now := time.Now(); now.Sub(m.lastCheck) >= time.Millisecond {
		m.lastCheck = now
		if used := m.cpu() - m.start; used > m.lim.CPU {
			return m.fail(&LimitError{Reason: ReasonTimeout,
				Msg: fmt.Sprintf("the expression used more than %v of CPU and was stopped", m.lim.CPU)})
		}
	}
	return nil
}

// charge accounts n bytes about to be (or just) allocated.
func (m *meter) charge(n int64) error {
	if n < 0 || m.bytes+n > int64(m.lim.Bytes) {
		return m.fail(&LimitError{Reason: ReasonTooLarge,
			Msg: fmt.Sprintf("the expression would allocate more than %d bytes", m.lim.Bytes)})
	}
	m.bytes += n
	return m.tick()
}

// room is how many bytes may still be allocated.
func (m *meter) room() int64 { return int64(m.lim.Bytes) - m.bytes }

// shallow is what a value just made costs: a string its bytes, a list or
// map its slots. What the slots hold was charged when it was made (or came
// with the context, which is bounded on its own).
func shallow(v any) int64 {
	switch x := v.(type) {
	case nil, bool, int, int64, float64:
		return 0
	case string:
		return int64(len(x))
	case []any:
		return int64(len(x)) * 16
	case []string:
		return int64(len(x)) * 16
	case []int:
		return int64(len(x)) * 8
	case []float64:
		return int64(len(x)) * 8
	case map[string]any:
		return int64(len(x)) * 48
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Slice, reflect.Array:
		return int64(r.Len()) * int64(max(r.Type().Elem().Size(), 8))
	case reflect.Map:
		return int64(r.Len()) * 48
	case reflect.String:
		return int64(r.Len())
	}
	return 16
}

// errOverBudget ends a deep walk early.
var errOverBudget = errors.New("over budget")

// deepSize estimates what v takes written out (as JSON, indented, or by
// fmt): it stops counting once the estimate passes limit, so it costs at
// most O(limit) however large v is (shared sublists count each time they
// appear, as they do when written).
func deepSize(v any, limit int64) (int64, error) {
	var n int64
	var walk func(v any, depth int64) error
	walk = func(v any, depth int64) error {
		n += 2*depth + 8
		if n > limit {
			return errOverBudget
		}
		switch x := v.(type) {
		case string:
			n += int64(len(x))
		case []any:
			for _, e := range x {
				if err := walk(e, depth+1); err != nil {
					return err
				}
			}
		case map[string]any:
			for k, e := range x {
				n += int64(len(k))
				if err := walk(e, depth+1); err != nil {
					return err
				}
			}
		default:
			r := reflect.ValueOf(v)
			switch r.Kind() {
			case reflect.Slice, reflect.Array:
				for i := 0; i < r.Len(); i++ {
					if err := walk(r.Index(i).Interface(), depth+1); err != nil {
						return err
					}
				}
			case reflect.Map:
				it := r.MapRange()
				for it.Next() {
					if err := walk(it.Key().Interface(), depth+1); err != nil {
						return err
					}
					if err := walk(it.Value().Interface(), depth+1); err != nil {
						return err
					}
				}
			case reflect.String:
				n += int64(r.Len())
			}
		}
		if n > limit {
			return errOverBudget
		}
		return nil
	}
	err := walk(v, 0)
	return n, err
}

// Names of the calls the instrumenting patcher inserts; "$" keeps them
// apart from anything an expression can name.
const (
	fnTick   = "$tick"
	fnCharge = "$charge"
	fnScan   = "$scan"
)

// instrument is the patcher that inserts the meter's calls: a closure's
// body (one loop iteration) is wrapped in $tick, a node that allocates in
// $charge. It runs once, before type checking.
type instrument struct{}

func (instrument) Visit(node *ast.Node) {
	wrap := func(fn string, n ast.Node) ast.Node {
		return &ast.CallNode{Callee: &ast.IdentifierNode{Value: fn}, Arguments: []ast.Node{n}}
	}
	switch n := (*node).(type) {
	case *ast.PredicateNode:
		n.Node = wrap(fnTick, n.Node)
	case *ast.BinaryNode:
		switch n.Operator {
		case "+":
			ast.Patch(node, wrap(fnCharge, n))
		case "matches":
			// One match is one call the meter cannot interrupt, whose time
			// grows with the text times the pattern: $scan(text, pattern)
			// checks what it would cost before it runs (scanCost).
			n.Left = &ast.CallNode{Callee: &ast.IdentifierNode{Value: fnScan}, Arguments: []ast.Node{n.Left, n.Right}}
		}
	case *ast.BuiltinNode:
		ast.Patch(node, wrap(fnCharge, n))
	case *ast.ArrayNode, *ast.MapNode:
		ast.Patch(node, wrap(fnCharge, n))
	}
}

// ranges collects what can be refused before an expression runs: ranges
// with constant bounds that would make a list over the budget (those on the
// right of `in`, which expr checks without making the list, excepted) and
// repeat() with constant arguments over it.
type ranges struct {
	maxElems int64
	maxBytes int64
	big      []*ast.BinaryNode
	inRange  map[*ast.BinaryNode]bool
	errs     []string
}

func (r *ranges) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BinaryNode:
		switch n.Operator {
		case "..":
			a, okA := n.Left.(*ast.IntegerNode)
			b, okB := n.Right.(*ast.IntegerNode)
			if okA && okB && int64(b.Value)-int64(a.Value)+1 > r.maxElems {
				r.big = append(r.big, n)
			}
		case "in", "not in":
			if rn, ok := n.Right.(*ast.BinaryNode); ok && rn.Operator == ".." {
				if r.inRange == nil {
					r.inRange = map[*ast.BinaryNode]bool{}
				}
				r.inRange[rn] = true
			}
		}
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok && id.Value == "repeat" && len(n.Arguments) == 2 {
			s, okS := n.Arguments[0].(*ast.StringNode)
			c, okC := n.Arguments[1].(*ast.IntegerNode)
			if okS && okC && int64(len(s.Value))*int64(c.Value) > r.maxBytes {
				r.errs = append(r.errs, fmt.Sprintf("repeat(…, %d) makes a string of %d bytes; an expression may allocate at most %d",
					c.Value, int64(len(s.Value))*int64(c.Value), r.maxBytes))
			}
		}
	}
}

func (r *ranges) problems() []string {
	out := r.errs
	for _, n := range r.big {
		if r.inRange[n] {
			continue
		}
		a, b := n.Left.(*ast.IntegerNode).Value, n.Right.(*ast.IntegerNode).Value
		out = append(out, fmt.Sprintf("the range %d..%d has %d elements; at most %d", a, b, int64(b)-int64(a)+1, r.maxElems))
	}
	return out
}
