// Package wfexpr compiles the expressions of workflow nodes (docs/design.md
// §6.9): a DECISION's choice and the list a FOREACH runs over. They are
// expr-lang/expr expressions over two variables, `context` (the instance's
// context) and `upstream` (the direct predecessors' results by node key).
// expr has no I/O and no reflection into Go values beyond what it is
// given, which is why it is used instead of a scripting language; its
// compile-time node budget and run-time memory budget bound what one
// expression may cost.
//
// The API compiles an expression when a workflow is saved and refuses one
// that does not compile; the engine compiles it again with the same
// options (Compile) to run it, so what was accepted runs.
package wfexpr

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
)

// Limits on an expression.
const (
	// MaxBytes bounds an expression's text.
	MaxBytes = 2 << 10
	// MaxNodes bounds its syntax tree (expr's default is 10,000).
	MaxNodes = 1000
)

// env is the expressions' environment as the compiler sees it: both
// variables are JSON objects whose members' types are known only at run
// time.
var env = map[string]any{"context": map[string]any{}, "upstream": map[string]any{}}

// Compile compiles an expression over `context` and `upstream`.
func Compile(text string) (*vm.Program, error) {
	if len(text) > MaxBytes {
		return nil, fmt.Errorf("the expression is %d bytes; at most %d", len(text), MaxBytes)
	}
	p, err := expr.Compile(text, expr.Env(env), expr.MaxNodes(MaxNodes))
	if err != nil {
		// expr's message goes on to quote the text with a caret under the
		// position; the first line already names the position.
		msg, _, _ := strings.Cut(err.Error(), "\n")
		return nil, errors.New(msg)
	}
	return p, nil
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
