package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/graph/generated"
)

// setComplexity makes paged lists count their selection once per item
// they may return, clamped to each list's own limit (a larger page is
// refused by the resolver anyway, and clamping keeps the products from
// overflowing).
func setComplexity(c *generated.Config) {
	q := &c.Complexity
	q.Query.Instances = func(child int, _ string, _ *string, _ []string, _, _ *time.Time, first *int, _ *string) int {
		return 1 + times(page(first, 50, 500), child)
	}
	q.Query.Jobs = func(child int, _ string, first *int, _ *string, _ *string) int {
		return 1 + times(page(first, 50, 500), child)
	}
	q.Query.Workflows = func(child int, _ string, _ *string, first *int, _ *string) int {
		return 1 + times(page(first, 50, 500), child)
	}
	q.Query.WorkflowInstances = func(child int, _ string, _ *string, _ []string, first *int, _ *string) int {
		return 1 + times(page(first, 50, 500), child)
	}
	q.Instance.TaskList = func(child int, _ []string, first *int, _ *string) int {
		return 1 + times(page(first, 50, 500), child)
	}
	q.Instance.Logs = func(child int, _ *int, first *int) int {
		return 1 + times(page(first, 200, 1000), child)
	}
	q.Job.Versions = func(child int, first *int) int {
		return 1 + times(page(first, 50, 500), child)
	}
	q.Job.Upcoming = func(child int, count *int) int {
		return 1 + page(count, 5, 100)
	}
	// The dashboard's figures read more than they return: an app's counts
	// and outcomes read a row per hour of the week summed (db/rollups.go)
	// and count the instances of the hour or so not summed yet, and its lag
	// reads those rows with their histograms and up to 20,000 of the
	// instances not summed (all of its window's, 20,000 at most, before a
	// server's first roll-up pass). Each costs what such reads are worth
	// against the budget, aliases each counted, so a request may hold tens
	// of them, never hundreds (issue 25, item 4).
	q.Query.AppStats = func(child int, _ string, _ *int) int { return AppStatsCost + child }
	q.AppStats.Lag = func(child int) int { return LagCost + child }
	q.AppStats.LatestFailures = func(child int, first *int) int { return 10 + times(page(first, 10, 100), child) }
	q.AppStats.NextFires = func(child int, first *int) int { return 10 + times(page(first, 10, 100), child) }
	q.AppStats.Capacity = func(child int) int { return 10 + child }
	q.Job.Stats = func(child int, _ *int) int { return JobStatsCost + child }
	q.Query.PreviewSchedule = func(child int, _ string, _ string, _ *string, count *int, _ *time.Time, _ *db.ScheduleWindow, _, _ *string) int {
		return 1 + page(count, 5, 100)
	}
}

// Costs of the expensive fields against MaxComplexity.
const (
	// AppStatsCost is appStats' own: its counts and outcomes, about 170
	// rows and the last hour's instances (MaxComplexity allows about 200
	// in one request).
	AppStatsCost = 250
	// LagCost is appStats.lag's: up to 170 rows of histograms and the
	// instances not summed (about 20 in one request).
	LagCost = 2000
	// JobStatsCost is Job.stats' (a job's outcomes): a page of 500 jobs
	// with their stats passes.
	JobStatsCost = 20
)

func page(n *int, def, limit int) int {
	switch {
	case n == nil:
		return def
	case *n < 1:
		return 1
	case *n > limit:
		return limit
	}
	return *n
}

// times multiplies, saturating far above any limit.
func times(a, b int) int {
	const ceiling = 1 << 40
	if a > 0 && b > ceiling/a {
		return ceiling
	}
	return a * b
}

// oneLogin refuses an operation that calls login more than once (under
// aliases, say): each login is a password guess, and the rate limit
// counts requests' guesses one at a time.
type oneLogin struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = oneLogin{}

func (oneLogin) ExtensionName() string                          { return "OneLogin" }
func (oneLogin) Validate(schema graphql.ExecutableSchema) error { return nil }

func (oneLogin) MutateOperationContext(_ context.Context, rc *graphql.OperationContext) *gqlerror.Error {
	op := rc.Doc.Operations.ForName(rc.OperationName)
	if op == nil || op.Operation != ast.Mutation {
		return nil
	}
	if n := countRootField(op.SelectionSet, rc.Doc.Fragments, "login", 0); n > 1 {
		return &gqlerror.Error{
			Message:    fmt.Sprintf("at most one login per request; this one has %d", n),
			Extensions: map[string]any{"code": CodeBadInput, "field": "login"},
		}
	}
	return nil
}

// countRootField counts the root fields named name, through fragments.
func countRootField(set ast.SelectionSet, frags ast.FragmentDefinitionList, name string, depth int) int {
	if depth > 64 { // fragment cycles are refused by validation; this is a guard
		return 0
	}
	n := 0
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if s.Name == name {
				n++
			}
		case *ast.InlineFragment:
			n += countRootField(s.SelectionSet, frags, name, depth+1)
		case *ast.FragmentSpread:
			if f := frags.ForName(s.Name); f != nil {
				n += countRootField(f.SelectionSet, frags, name, depth+1)
			}
		}
	}
	return n
}
