package workflow

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/expr-lang/expr"

	"github.com/jobwheel/jobwheel/server/runtime/workflow/wfexpr"
)

// Expressions of DECISION and FOREACH nodes are expr-lang, evaluated on the
// server over {context, upstream}: context is the instance's context as the node
// starts, upstream maps each direct predecessor's key to its result (a
// string; fromJSON(upstream.x) reads a JSON result). They compile with the
// options saving checked them with (package wfexpr), so what was accepted
// runs. expr-lang has no I/O and no access to the server: an expression
// reads what it is given. Its size is bounded at compile time and its
// memory at run time (expr's budget), so a hostile expression cannot take
// the server down.

// exprEnv is what an expression sees.
func exprEnv(context map[string]any, upstream map[string]string) map[string]any {
	up := make(map[string]any, len(upstream))
	for k, v := range upstream {
		up[k] = v
	}
	return wfexpr.Env(context, up)
}

// evalDecision evaluates a DECISION's expression to the label of the
// branch it takes: a boolean is "true" or "false", a string itself, a
// number its decimal form.
func evalDecision(src string, context map[string]any, upstream map[string]string) (string, error) {
	v, err := wi(src, context, upstream)
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x), nil
	case string:
		return x, nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case nil:
		return "", errors.New("evaluated to nil; a decision needs a boolean, a string or a number")
	}
	return "", fmt.Errorf("evaluated to a %T; a decision needs a boolean, a string or a number", v)
}

// maxForeachItems bounds the elements one FOREACH runs.
const maxForeachItems = 10000

// evalList evaluates a FOREACH's expression to its elements.
func evalList(src string, context map[string]any, upstream map[string]string) ([]any, error) {
	v, err := wi(src, context, upstream)
	if err != nil {
		return nil, err
	}
	var out []any
	switch x := v.(type) {
	case []any:
		out = x
	case []string:
		for _, s := range x {
			out = append(out, s)
		}
	case []int:
		for _, n := range x {
			out = append(out, n)
		}
	case []float64:
		for _, n := range x {
			out = append(out, n)
		}
	default:
		return nil, fmt.Errorf("evaluated to a %T; FOREACH needs a list", v)
	}
	if len(out) > maxForeachItems {
		return nil, fmt.Errorf("gave %d elements; at most %d", len(out), maxForeachItems)
	}
	return out, nil
}

func wi(src string, context map[string]any, upstream map[string]string) (v any, err error) {
	prog, err := wfexpr.Compile(src)
	if err != nil {
		return nil, err
	}
	defer func() {
		// expr recovers its own panics; this is a last guard, since an
		// expression is user input evaluated on the server.
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("failed: %v", r)
		}
	}()
	return expr.Run(prog, exprEnv(context, upstream))
}
