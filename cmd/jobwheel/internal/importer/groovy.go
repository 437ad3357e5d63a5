package importer

import (
	"fmt"
	"strconv"
	"strings"
)

// A PowerJob DECISION node's script is Groovy, evaluated with `context`
// bound to the workflow's context (a map of strings); a true (or positive
// number) result takes the edges whose property is "true", a false one
// the others. jobwheel's DECISION is an expr-lang expression over
// `context` whose value, as a string, picks the edges so labelled.
//
// decision translates the Groovy that has an exact counterpart — a
// literal true or false — and the Groovy whose counterpart differs only
// in what the context holds: comparisons of context values (context.k,
// context['k'], context.get('k'), .equals(…)) with string literals, null
// and each other, joined with &&, || and !. jobwheel's context holds JSON
// values where PowerJob's held strings, so such a translation is for a
// person to check. Anything else is not translated: the expression keeps
// the Groovy as comments and yields nil, which fails the node when it
// runs, saying the decision needs a value.
func decision(groovy string) (expr string, exact, translated bool) {
	src := strings.TrimSpace(groovy)
	if t, ok := translateGroovy(src); ok {
		return t, t == "true" || t == "false", true
	}
	return untranslated(src), false, false
}

// untranslated keeps the Groovy as comments of an expression yielding
// nil, within the 2 KiB an expression may have.
func untranslated(src string) string {
	const max = 2048
	head := "// PowerJob's Groovy decision, to be rewritten in expr-lang (docs/import.md):\n"
	tail := "nil"
	var b strings.Builder
	b.WriteString(head)
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		line := "// " + strings.TrimRight(l, "\r") + "\n"
		if b.Len()+len(line)+len(tail)+40 > max {
			fmt.Fprintf(&b, "// … %d more lines\n", len(lines)-i)
			break
		}
		b.WriteString(line)
	}
	b.WriteString(tail)
	return b.String()
}

// translateGroovy translates the supported subset, or says it cannot.
func translateGroovy(src string) (string, bool) {
	src = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(src), ";"))
	src = strings.TrimSpace(strings.TrimPrefix(src, "return "))
	toks, ok := lexGroovy(src)
	if !ok || len(toks) == 0 {
		return "", false
	}
	p := &groovyParser{toks: toks}
	out, ok := p.or()
	if !ok || p.i != len(p.toks) {
		return "", false
	}
	if out == "(true)" || out == "(false)" {
		out = strings.Trim(out, "()")
	}
	return out, true
}

type gtok struct {
	kind string // ident, str, num, op
	text string
}

// lexGroovy splits the subset's tokens; a statement separator, a GString
// interpolation or anything unknown ends it.
func lexGroovy(s string) ([]gtok, bool) {
	var out []gtok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '\'' || c == '"':
			j := i + 1
			var b strings.Builder
			for j < len(s) && s[j] != c {
				if s[j] == '\\' && j+1 < len(s) {
					switch s[j+1] {
					case '\\', '\'', '"':
						b.WriteByte(s[j+1])
					default:
						return nil, false
					}
					j += 2
					continue
				}
				if c == '"' && s[j] == '$' {
					return nil, false // a GString interpolates
				}
				b.WriteByte(s[j])
				j++
			}
			if j >= len(s) {
				return nil, false
			}
			out = append(out, gtok{"str", b.String()})
			i = j + 1
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			out = append(out, gtok{"num", s[i:j]})
			i = j
		case identByte(c):
			j := i
			for j < len(s) && (identByte(s[j]) || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			out = append(out, gtok{"ident", s[i:j]})
			i = j
		default:
			op := ""
			for _, o := range []string{"==", "!=", "&&", "||", "!", "(", ")", "[", "]", "."} {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, false
			}
			out = append(out, gtok{"op", op})
			i += len(op)
		}
	}
	return out, true
}

func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

type groovyParser struct {
	toks []gtok
	i    int
}

func (p *groovyParser) peek(text string) bool {
	return p.i < len(p.toks) && p.toks[p.i].kind == "op" && p.toks[p.i].text == text
}

func (p *groovyParser) next() (gtok, bool) {
	if p.i >= len(p.toks) {
		return gtok{}, false
	}
	p.i++
	return p.toks[p.i-1], true
}

func (p *groovyParser) expect(text string) bool {
	if !p.peek(text) {
		return false
	}
	p.i++
	return true
}

// The subset's grammar, with Groovy's precedence (! binds tighter than
// ==, which binds tighter than &&, then ||); the output has parentheses
// wherever expr-lang could read it otherwise. kinds: "bool" (a condition)
// or "value" (a context value, a string, null).
func (p *groovyParser) or() (string, bool) {
	l, ok := p.and()
	for ok && p.peek("||") {
		p.i++
		var r string
		if r, ok = p.and(); ok {
			l = l + " || " + r
		}
	}
	return l, ok
}

func (p *groovyParser) and() (string, bool) {
	l, ok := p.comparison()
	for ok && p.peek("&&") {
		p.i++
		var r string
		if r, ok = p.comparison(); ok {
			l = l + " && " + r
		}
	}
	return l, ok
}

// comparison is a condition, or two values compared with == or !=.
func (p *groovyParser) comparison() (string, bool) {
	l, lkind, ok := p.unary()
	if !ok {
		return "", false
	}
	if p.peek("==") || p.peek("!=") {
		op := p.toks[p.i].text
		p.i++
		r, rkind, ok := p.unary()
		if !ok || lkind != "value" || rkind != "value" {
			return "", false
		}
		return l + " " + op + " " + r, true
	}
	// A value alone would be Groovy's truth of a string.
	return l, lkind == "bool"
}

func (p *groovyParser) unary() (string, string, bool) {
	if p.peek("!") {
		p.i++
		x, kind, ok := p.unary()
		if !ok || kind != "bool" {
			return "", "", false
		}
		return "!(" + x + ")", "bool", true
	}
	return p.operand()
}

// operand is a literal, a context value, a parenthesised condition, or a
// value's .equals(value).
func (p *groovyParser) operand() (string, string, bool) {
	t, ok := p.next()
	if !ok {
		return "", "", false
	}
	switch {
	case t.kind == "op" && t.text == "(":
		x, ok := p.or()
		if !ok || !p.expect(")") {
			return "", "", false
		}
		return "(" + x + ")", "bool", true
	case t.kind == "str":
		return p.method(strconv.Quote(t.text))
	case t.kind == "ident" && (t.text == "true" || t.text == "false"):
		return t.text, "bool", true
	case t.kind == "ident" && t.text == "null":
		return "nil", "value", true
	case t.kind == "ident" && t.text == "context":
		key, ok := p.contextKey()
		if !ok {
			return "", "", false
		}
		return p.method("context[" + strconv.Quote(key) + "]")
	}
	return "", "", false
}

// contextKey reads .k, ['k'] or .get('k') after `context`.
func (p *groovyParser) contextKey() (string, bool) {
	switch {
	case p.expect("."):
		t, ok := p.next()
		if !ok || t.kind != "ident" {
			return "", false
		}
		if t.text != "get" {
			return t.text, true
		}
		if !p.expect("(") {
			return "get", true
		}
		k, ok := p.next()
		if !ok || k.kind != "str" || !p.expect(")") {
			return "", false
		}
		return k.text, true
	case p.expect("["):
		k, ok := p.next()
		if !ok || k.kind != "str" || !p.expect("]") {
			return "", false
		}
		return k.text, true
	}
	return "", false
}

// method reads an optional .equals(value) after a value.
func (p *groovyParser) method(x string) (string, string, bool) {
	if !p.peek(".") {
		return x, "value", true
	}
	p.i++
	t, ok := p.next()
	if !ok || t.kind != "ident" || t.text != "equals" || !p.expect("(") {
		return "", "", false
	}
	arg, kind, ok := p.operand()
	if !ok || kind != "value" || !p.expect(")") {
		return "", "", false
	}
	return "(" + x + " == " + arg + ")", "bool", true
}
