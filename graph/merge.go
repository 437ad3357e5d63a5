package graph

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
)

// MaxMergePairs bounds the pairs of same-named fields in one selection
// (fragments spread into it included) a request may ask the validator to
// compare. GraphQL's "fields can be merged" rule compares every such pair,
// and gqlparser reports each conflicting pair as an error of its own: the
// attacker probe sent 3,000 `x: jobs(app: "a", first: N)` (110 KB), which
// took 52 s of validation and 7 GB of memory for 4.5 million errors, before
// any login or limit was looked at. A query written by a person repeats a
// name a few times (`id` in two fragments); 10,000 pairs is about 140
// fields of one name in one place.
const MaxMergePairs = 10_000

// mergeBudget refuses, before the query is validated, a request whose
// same-named fields would make the validator compare more than
// MaxMergePairs pairs. It parses the query on its own (gqlgen's parse
// comes with validation, after this): the 1 MiB body bounds that.
type mergeBudget struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = mergeBudget{}

func (mergeBudget) ExtensionName() string                          { return "MergeBudget" }
func (mergeBudget) Validate(schema graphql.ExecutableSchema) error { return nil }

func (mergeBudget) MutateOperationParameters(_ context.Context, p *graphql.RawParams) *gqlerror.Error {
	doc, err := parser.ParseQuery(&ast.Source{Input: p.Query})
	if err != nil {
		return nil // the executor parses it again and reports the error
	}
	c := &mergeCount{frags: map[string]*ast.FragmentDefinition{}}
	for _, f := range doc.Fragments {
		c.frags[f.Name] = f
	}
	for _, op := range doc.Operations {
		c.set(op.SelectionSet)
	}
	for _, f := range doc.Fragments {
		c.set(f.SelectionSet)
	}
	var msg string
	switch {
	case c.visits > maxShapeVisits:
		msg = "the operation is too large to validate (fragments spread too often)"
	case c.pairs > MaxMergePairs:
		msg = fmt.Sprintf("the field %q is asked %d times in one selection; same-named fields are compared pair by pair, at most %d pairs per request (this one: %d): use distinct aliases",
			c.worst, c.worstN, MaxMergePairs, c.pairs)
	default:
		return nil
	}
	e := gqlerror.Errorf("%s", msg)
	e.Extensions = map[string]any{"code": CodeBadInput}
	return e
}

// mergeCount adds up, for every selection set of a document, the pairs of
// fields that share a response name there (spreads expanded, as the rule
// does), within maxShapeVisits steps.
type mergeCount struct {
	frags  map[string]*ast.FragmentDefinition
	visits int
	pairs  int
	worst  string
	worstN int
}

func (c *mergeCount) set(set ast.SelectionSet) {
	if c.visits > maxShapeVisits || c.pairs > MaxMergePairs {
		return
	}
	names := map[string]int{}
	c.collect(set, names, map[string]bool{})
	for name, n := range names {
		c.pairs += n * (n - 1) / 2
		if n > c.worstN {
			c.worst, c.worstN = name, n
		}
	}
	c.nested(set, map[string]bool{})
}

// collect counts the fields of set by response name, through fragments
// (each fragment once per set: spreading it again adds no new pair that
// the rule does not already compare).
func (c *mergeCount) collect(set ast.SelectionSet, names map[string]int, seen map[string]bool) {
	for _, s := range set {
		c.visits++
		if c.visits > maxShapeVisits {
			return
		}
		switch s := s.(type) {
		case *ast.Field:
			key := s.Alias
			if key == "" {
				key = s.Name
			}
			names[key]++
		case *ast.InlineFragment:
			c.collect(s.SelectionSet, names, seen)
		case *ast.FragmentSpread:
			if f := c.frags[s.Name]; f != nil && !seen[s.Name] {
				seen[s.Name] = true
				c.collect(f.SelectionSet, names, seen)
			}
		}
	}
}

// nested counts the selection sets under set's fields (fragments' own
// sets are counted once, as definitions).
func (c *mergeCount) nested(set ast.SelectionSet, seen map[string]bool) {
	for _, s := range set {
		switch s := s.(type) {
		case *ast.Field:
			if len(s.SelectionSet) > 0 {
				c.set(s.SelectionSet)
			}
		case *ast.InlineFragment:
			c.nested(s.SelectionSet, seen)
		}
	}
}
