package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/runtime/workflow/wfexpr"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// Expressions of DECISION and FOREACH nodes are expr-lang, evaluated on the
// server over {context, upstream}: context is the instance's context as the node
// starts, upstream maps each direct predecessor's key to its result (a
// string; fromJSON(upstream.x) reads a JSON result). They compile with the
// options saving checked them with (package wfexpr), so what was accepted
// runs. expr-lang has no I/O and no access to the server: an expression
// reads what it is given. It is evaluated by the Evaluator, off the
// engine's goroutine and outside any transaction, within a CPU and a byte
// budget (wfexpr.Limits); what it returns is bounded too: a DECISION's
// label as a node result (protocol.MaxResultBytes), a FOREACH's list to
// maxForeachItems elements and MaxContextBytes as JSON.

// exprEnv is what an expression sees.
func exprEnv(vars map[string]any, upstream map[string]string) map[string]any {
	up := make(map[string]any, len(upstream))
	for k, v := range upstream {
		up[k] = v
	}
	return wfexpr.Env(vars, up)
}

// evalOutcome is what evaluating a node's expression gave: a DECISION's
// label or a FOREACH's elements, or why the node fails.
type evalOutcome struct {
	gen    int // the node's generation it was evaluated for
	label  string
	items  []any
	reason string // a node reason if it failed
	msg    string
}

// outcomeOf turns an evaluation's value or error into a node's outcome.
func outcomeOf(nodeType string, v any, err error) evalOutcome {
	var le *wfexpr.LimitError
	switch {
	case errors.As(err, &le):
		return evalOutcome{reason: le.Reason, msg: "expression " + le.Msg}
	case err != nil:
		return evalOutcome{reason: db.NodeReasonExpression, msg: "expression " + err.Error()}
	}
	if nodeType == db.NodeForeach {
		items, err := listOf(v)
		if err != nil {
			return evalOutcome{reason: reasonOf(err), msg: "expression " + err.Error()}
		}
		return evalOutcome{items: items}
	}
	label, err := labelOf(v)
	if err != nil {
		return evalOutcome{reason: reasonOf(err), msg: "expression " + err.Error()}
	}
	return evalOutcome{label: label}
}

// errTooLarge marks a value over what a node may keep.
var errTooLarge = errors.New("too large")

func reasonOf(err error) string {
	if errors.Is(err, errTooLarge) {
		return db.NodeReasonExpressionTooLarge
	}
	return db.NodeReasonExpression
}

// labelOf is a DECISION's value as the label of the branch it takes: a
// boolean is "true" or "false", a string itself, a number its decimal
// form. It is the node's result, so it is bounded like one.
func labelOf(v any) (string, error) {
	var label string
	switch x := v.(type) {
	case bool:
		label = strconv.FormatBool(x)
	case string:
		label = x
	case int:
		label = strconv.Itoa(x)
	case int64:
		label = strconv.FormatInt(x, 10)
	case float64:
		label = strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return "", errors.New("evaluated to nil; a decision needs a boolean, a string or a number")
	default:
		return "", fmt.Errorf("evaluated to a %T; a decision needs a boolean, a string or a number", v)
	}
	if len(label) > protocol.MaxResultBytes {
		return "", fmt.Errorf("evaluated to a value of %d bytes; a node's result holds at most %d: %w", len(label), protocol.MaxResultBytes, errTooLarge)
	}
	return label, nil
}

// maxForeachItems bounds the elements one FOREACH runs.
const maxForeachItems = 10000

// listOf is a FOREACH's value as its elements.
func listOf(v any) ([]any, error) {
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
	if b, err := json.Marshal(out); err != nil {
		return nil, fmt.Errorf("gave a list that is not JSON: %w", err)
	} else if len(b) > MaxContextBytes {
		return nil, fmt.Errorf("gave a list of %d bytes as JSON; at most %d: %w", len(b), MaxContextBytes, errTooLarge)
	}
	return out, nil
}

// evalDecision and evalList evaluate at once, on the caller's goroutine,
// within the default limits (tests and the fuzzer).
func evalDecision(src string, vars map[string]any, upstream map[string]string) (string, error) {
	o := evalNow(db.NodeDecision, src, vars, upstream)
	if o.reason != "" {
		return "", errors.New(strings.TrimPrefix(o.msg, "expression "))
	}
	return o.label, nil
}

func evalList(src string, vars map[string]any, upstream map[string]string) ([]any, error) {
	o := evalNow(db.NodeForeach, src, vars, upstream)
	if o.reason != "" {
		return nil, errors.New(strings.TrimPrefix(o.msg, "expression "))
	}
	return o.items, nil
}

func evalNow(nodeType, src string, vars map[string]any, upstream map[string]string) evalOutcome {
	v, err := wfexpr.Eval(context.Background(), src, exprEnv(vars, upstream), wfexpr.Limits{})
	return outcomeOf(nodeType, v, err)
}
