package wfexpr

import (
	"fmt"
	"reflect"
	"regexp/syntax"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/vm/runtime"
)

// guarded are the builtins whose result can be far larger than their
// arguments: each is replaced by a function of the same name and types
// that charges the meter with what it is about to make before making it
// (the builtin's own work is then done by the builtin). A builtin not
// listed makes at most a few times what it is given and is charged after
// it returns, by the patcher's $charge.
var guarded = map[string]func(m *meter, args []any) error{
	"repeat": func(m *meter, args []any) error {
		s, _ := args[0].(string)
		n := runtime.ToInt(args[1])
		if n < 0 {
			return nil // the builtin refuses it
		}
		if len(s) > 0 && int64(n) > m.room()/int64(len(s)) {
			return m.charge(-1)
		}
		return m.charge(int64(len(s)) * int64(n))
	},
	"join": func(m *meter, args []any) error {
		var glue string
		if len(args) == 2 {
			glue, _ = args[1].(string)
		}
		var n, count int64
		switch x := args[0].(type) {
		case []string:
			for _, s := range x {
				n += int64(len(s))
			}
			count = int64(len(x))
		case []any:
			for _, s := range x {
				if s, ok := s.(string); ok {
					n += int64(len(s))
				}
			}
			count = int64(len(x))
		}
		if count > 1 && len(glue) > 0 && count-1 > m.room()/int64(len(glue)) {
			return m.charge(-1)
		}
		return m.charge(n + int64(len(glue))*max(count-1, 0))
	},
	"replace": func(m *meter, args []any) error {
		s, _ := args[0].(string)
		old, _ := args[1].(string)
		repl, _ := args[2].(string)
		var count int64
		if old == "" {
			count = int64(utf8.RuneCountInString(s)) + 1
		} else {
			count = int64(strings.Count(s, old))
		}
		if len(args) == 4 {
			if limit := int64(runtime.ToInt(args[3])); limit >= 0 {
				count = min(count, limit)
			}
		}
		if len(repl) > 0 && count > m.room()/int64(len(repl)) {
			return m.charge(-1)
		}
		return m.charge(int64(len(s)) + count*int64(len(repl)))
	},
	"split":      chargeSplit,
	"splitAfter": chargeSplit,
	"toJSON": func(m *meter, args []any) error {
		n, err := deepSize(args[0], m.room())
		if err != nil {
			return m.charge(-1)
		}
		return m.charge(n)
	},
	"string": func(m *meter, args []any) error {
		n, err := deepSize(args[0], m.room())
		if err != nil {
			return m.charge(-1)
		}
		return m.charge(n)
	},
	"fromJSON": func(m *meter, args []any) error {
		// Parsed, a JSON text takes up to about twelve times its bytes
		// ("1," is a slot and a boxed number).
		s, _ := args[0].(string)
		return m.charge(int64(len(s)) * 12)
	},
	"concat": func(m *meter, args []any) error {
		var n int64
		for _, a := range args {
			if r := reflect.ValueOf(a); r.Kind() == reflect.Slice || r.Kind() == reflect.Array {
				n += int64(r.Len()) * 16
			}
		}
		return m.charge(n)
	},
	"flatten": func(m *meter, args []any) error {
		n, err := deepSize(args[0], m.room())
		if err != nil {
			return m.charge(-1)
		}
		return m.charge(n)
	},
	"toPairs": func(m *meter, args []any) error {
		if r := reflect.ValueOf(args[0]); r.Kind() == reflect.Map {
			return m.charge(int64(r.Len()) * 80)
		}
		return nil
	},
}

func chargeSplit(m *meter, args []any) error {
	s, _ := args[0].(string)
	sep, _ := args[1].(string)
	var count int64
	if sep == "" {
		count = int64(utf8.RuneCountInString(s))
	} else {
		count = int64(strings.Count(s, sep)) + 1
	}
	if len(args) == 3 {
		if limit := int64(runtime.ToInt(args[2])); limit > 0 {
			count = min(count, limit)
		}
	}
	return m.charge(count * 16)
}

// functions are the options that give an expression the meter's calls and
// the guarded builtins, all bound to m.
func functions(m *meter) func(c *conf.Config) {
	return func(c *conf.Config) {
		same := func(args []reflect.Type) (reflect.Type, error) {
			if len(args) != 1 {
				return nil, fmt.Errorf("expects one argument")
			}
			return args[0], nil
		}
		c.Functions[fnTick] = &builtin.Function{Name: fnTick, Validate: same,
			Func: func(args ...any) (any, error) { return args[0], m.tick() }}
		c.Functions[fnCharge] = &builtin.Function{Name: fnCharge, Validate: same,
			Func: func(args ...any) (any, error) { return args[0], m.charge(shallow(args[0])) }}
		c.Functions[fnScan] = &builtin.Function{Name: fnScan,
			Validate: func(args []reflect.Type) (reflect.Type, error) {
				if len(args) != 2 {
					return nil, fmt.Errorf("expects two arguments")
				}
				return args[0], nil
			},
			Func: func(args ...any) (any, error) { return args[0], m.scan(args[0], args[1]) }}
		for name, check := range guarded {
			orig := builtin.Builtins[builtin.Index[name]]
			call := orig.Func
			if call == nil && orig.Safe != nil {
				safe := orig.Safe
				call = func(args ...any) (any, error) {
					v, _, err := safe(args...)
					return v, err
				}
			}
			if call == nil && orig.Fast != nil {
				fast := orig.Fast
				call = func(args ...any) (any, error) { return fast(args[0]), nil }
			}
			c.Functions[name] = &builtin.Function{Name: name, Types: orig.Types, Validate: orig.Validate, Deref: orig.Deref,
				Func: func(args ...any) (any, error) {
					if err := check(m, args); err != nil {
						return nil, err
					}
					return call(args...)
				}}
		}
		// now() without the monotonic clock reading (which fmt would show:
		// "m=+22.2"), so its value prints as a plain time.
		orig := builtin.Builtins[builtin.Index["now"]]
		now := orig.Func
		c.Functions["now"] = &builtin.Function{Name: "now", Validate: orig.Validate, Deref: orig.Deref,
			Func: func(args ...any) (any, error) {
				v, err := now(args...)
				if t, ok := v.(time.Time); ok {
					v = t.Round(0)
				}
				return v, err
			}}
	}
}

// ScanPerMs is how much matching (bytes of text times instructions of the
// compiled pattern) an evaluation may ask of one `matches` per millisecond
// of its CPU budget: 100,000 (10 ns a step, a few times what a loaded
// core takes), so 10,000,000 within the default 100 ms. A match
// is one call, which the meter cannot stop once it runs: a 4 MB text
// against a pattern of a few hundred instructions takes seconds.
const ScanPerMs = 100_000

// maxScanPatterns bounds the compiled patterns one evaluation keeps.
const maxScanPatterns = 64

// scan checks a `matches` before it runs: its pattern at most MaxBytes
// (compiling a pattern takes far more memory than its text, and a
// pattern made at run time could be megabytes) and the text's length times
// the pattern's instructions within the CPU budget (ScanPerMs). A text or
// pattern that is not a string is left to expr, which refuses it.
func (m *meter) scan(text, pattern any) error {
	if err := m.tick(); err != nil {
		return err
	}
	p, ok := pattern.(string)
	if !ok {
		return nil
	}
	var n int64
	switch t := text.(type) {
	case string:
		n = int64(len(t))
	case []byte:
		n = int64(len(t))
	default:
		return nil
	}
	if len(p) > MaxBytes {
		return m.fail(&LimitError{Reason: ReasonTooLarge,
			Msg: fmt.Sprintf("matches: the pattern is %d bytes; at most %d", len(p), MaxBytes)})
	}
	insts, ok := m.patterns[p]
	if !ok {
		re, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			return nil // expr reports the bad pattern
		}
		prog, err := syntax.Compile(re.Simplify())
		if err != nil {
			return nil
		}
		insts = int64(len(prog.Inst))
		if m.patterns == nil {
			m.patterns = map[string]int64{}
		}
		if len(m.patterns) < maxScanPatterns {
			m.patterns[p] = insts
		}
	}
	if limit := ScanPerMs * max(m.lim.CPU.Milliseconds(), 1); (n+1)*insts > limit {
		return m.fail(&LimitError{Reason: ReasonTimeout,
			Msg: fmt.Sprintf("matches: a text of %d bytes against a pattern of %d instructions is more than %v of CPU allows (at most %d bytes × instructions)",
				n, insts, m.lim.CPU, limit)})
	}
	return nil
}
