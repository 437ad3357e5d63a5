package graph

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Introspection (GraphiQL's Docs and autocomplete, a client's code
// generator) nests deeper than any query of the API's own fields: the
// standard introspection query follows a type's wrappers (ofType) nine
// levels down, 15 levels in all. So __schema and __type are not held to
// MaxDepth but to bounds on their shape, which keep their answer within a
// small multiple of the schema's own size however they are written:
const (
	// MaxIntrospectionDepth bounds how deeply __schema and __type may
	// nest. Nesting through one-to-one fields (type, ofType) costs a
	// field per level at most; the lists are bounded below.
	MaxIntrospectionDepth = 32
	// MaxIntrospectionLists bounds the lists nested on one path under
	// __schema or __type (types → fields → args is three): each list
	// multiplies the answer by a part of the schema, and __Type.fields →
	// type → fields… would multiply it without end.
	MaxIntrospectionLists = 3
	// MaxIntrospectionRoots bounds the __schema and __type fields of one
	// operation (under aliases, each would answer the whole schema again).
	MaxIntrospectionRoots = 10
	// maxShapeVisits bounds the work of measuring an operation: fragments
	// spread twice in each of a chain of fragments would be visited
	// exponentially often.
	maxShapeVisits = 100_000
)

// introspectionLists are the fields of the introspection types that
// answer a list of objects.
var introspectionLists = map[string]bool{
	"types": true, "directives": true, "fields": true, "args": true, "inputFields": true,
	"interfaces": true, "possibleTypes": true, "enumValues": true,
}

// depthLimit refuses, before any resolver runs, an operation whose own
// fields nest deeper than max, and introspection outside the bounds above.
type depthLimit struct{ max int }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit{}

func (depthLimit) ExtensionName() string                          { return "DepthLimit" }
func (depthLimit) Validate(schema graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	op := opCtx.Doc.Operations.ForName(opCtx.OperationName)
	if op == nil {
		return nil
	}
	m := &shape{frags: opCtx.Doc.Fragments, maxDepth: d.max}
	if msg := m.root(op.SelectionSet, 0); msg != "" {
		err := gqlerror.Errorf("%s", msg)
		err.Extensions = map[string]any{"code": CodeBadInput}
		return err
	}
	return nil
}

// shape measures one operation; each method returns why it is refused,
// or "".
type shape struct {
	frags    ast.FragmentDefinitionList
	maxDepth int
	roots    int // __schema and __type fields seen
	visits   int
}

// visit counts one step of the walk and reports whether the budget is
// spent.
func (m *shape) visit() bool {
	m.visits++
	return m.visits > maxShapeVisits
}

const tooComplex = "the operation is too complex to measure (fragments spread too often or nested too deeply)"

// deep reports whether fragments are nested more than 64 deep in one
// another (cycles are refused by validation already), and then spends the
// budget: what is not measured is not run.
func (m *shape) deep(guard int) bool {
	if guard > 64 {
		m.visits = maxShapeVisits + 1
		return true
	}
	return false
}

// root walks the operation's root fields, through fragments: its own
// fields are measured by depth, __schema and __type by introspection.
func (m *shape) root(set ast.SelectionSet, guard int) string {
	if m.deep(guard) {
		return tooComplex
	}
	for _, sel := range set {
		if m.visit() {
			return tooComplex
		}
		var msg string
		switch s := sel.(type) {
		case *ast.Field:
			switch s.Name {
			case "__schema", "__type":
				m.roots++
				if m.roots > MaxIntrospectionRoots {
					return fmt.Sprintf("an operation may ask for __schema and __type %d times at most", MaxIntrospectionRoots)
				}
				msg = m.introspection(s.SelectionSet, 1, 0, guard)
			default:
				depth := 1
				if len(s.SelectionSet) > 0 {
					depth = m.depth(s.SelectionSet, 1, guard)
				}
				if m.visits > maxShapeVisits {
					return tooComplex
				}
				if depth > m.maxDepth {
					msg = fmt.Sprintf("operation is nested %d levels deep; the limit is %d", depth, m.maxDepth)
				}
			}
		case *ast.InlineFragment:
			msg = m.root(s.SelectionSet, guard+1)
		case *ast.FragmentSpread:
			if f := m.frags.ForName(s.Name); f != nil {
				msg = m.root(f.SelectionSet, guard+1)
			}
		}
		if msg != "" {
			return msg
		}
	}
	return ""
}

// depth returns how deeply set nests below seen levels.
func (m *shape) depth(set ast.SelectionSet, seen, guard int) int {
	if seen > 64 || m.deep(guard) || m.visits > maxShapeVisits {
		return seen
	}
	deepest := seen
	for _, sel := range set {
		if m.visit() {
			return deepest
		}
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if len(s.SelectionSet) == 0 {
				d = seen + 1
			} else {
				d = m.depth(s.SelectionSet, seen+1, guard)
			}
		case *ast.InlineFragment:
			d = m.depth(s.SelectionSet, seen, guard+1)
		case *ast.FragmentSpread:
			if f := m.frags.ForName(s.Name); f != nil {
				d = m.depth(f.SelectionSet, seen, guard+1)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}

// introspection checks the selections under __schema or __type, seen
// levels deep with lists nested lists deep. Aliases are refused there:
// under one they would repeat a list at no cost in depth.
func (m *shape) introspection(set ast.SelectionSet, seen, lists, guard int) string {
	if m.deep(guard) {
		return tooComplex
	}
	for _, sel := range set {
		if m.visit() {
			return tooComplex
		}
		var msg string
		switch s := sel.(type) {
		case *ast.Field:
			switch {
			case s.Alias != "" && s.Alias != s.Name:
				msg = fmt.Sprintf("introspection fields may not be aliased (%s: %s)", s.Alias, s.Name)
			case seen+1 > MaxIntrospectionDepth:
				msg = fmt.Sprintf("introspection is nested more than %d levels deep", MaxIntrospectionDepth)
			case len(s.SelectionSet) > 0:
				l := lists
				if introspectionLists[s.Name] {
					l++
				}
				if l > MaxIntrospectionLists {
					msg = fmt.Sprintf("introspection nests more than %d lists (such as types, fields, args) in one another", MaxIntrospectionLists)
				} else {
					msg = m.introspection(s.SelectionSet, seen+1, l, guard)
				}
			}
		case *ast.InlineFragment:
			msg = m.introspection(s.SelectionSet, seen, lists, guard+1)
		case *ast.FragmentSpread:
			if f := m.frags.ForName(s.Name); f != nil {
				msg = m.introspection(f.SelectionSet, seen, lists, guard+1)
			}
		}
		if msg != "" {
			return msg
		}
	}
	return ""
}
