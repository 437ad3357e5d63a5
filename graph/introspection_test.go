package graph

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestIntrospectionForExplorer: the introspection query GraphiQL sends
// (graphql-js's getIntrospectionQuery, 15 levels deep with its ofType
// chain) and the fullest one a code generator sends both answer the
// schema for a logged-in user, while the API's own fields stay held to
// MaxDepth and introspection cannot be made into a cost bomb.
func TestIntrospectionForExplorer(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{})
	admin := api.admin(t)
	api.createApp(t, admin, "orders")
	viewer := api.createUser(t, admin, "vera")

	for _, file := range []string{"introspection-graphiql.graphql", "introspection-full.graphql"} {
		q, err := os.ReadFile("testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		for name, token := range map[string]string{"admin": admin, "a user with no app": viewer} {
			var out struct {
				Schema struct {
					QueryType struct{ Name string }
					Types     []struct {
						Name   string
						Fields []struct {
							Name string
							Type struct {
								Kind   string
								OfType *struct{ Kind, Name string }
							}
						}
					}
				} `json:"__schema"`
			}
			r := api.do(t, token, string(q), nil, &out)
			if len(r.Errors) > 0 {
				t.Fatalf("%s as %s: %+v", file, name, r.Errors)
			}
			found := false
			for _, ty := range out.Schema.Types {
				if ty.Name != "Job" {
					continue
				}
				for _, f := range ty.Fields {
					if f.Name == "id" && f.Type.Kind == "NON_NULL" && f.Type.OfType != nil && f.Type.OfType.Name == "ID" {
						found = true
					}
				}
			}
			if out.Schema.QueryType.Name != "Query" || !found {
				t.Fatalf("%s as %s: no Query root or no Job.id: ID! in %d types", file, name, len(out.Schema.Types))
			}
		}
	}

	// Anonymous callers learn nothing of the schema.
	if r := api.do(t, "", `{ __schema { types { name } } }`, nil, nil); r.code() != CodeUnauthenticated {
		t.Fatalf("anonymous introspection: %+v, want UNAUTHENTICATED", r.Errors)
	}

	refused := []struct{ name, query, message string }{
		{"the API's own fields 15 levels deep", nested(13), "nested 15 levels deep; the limit is 12"},
		{"the API's own fields beside introspection", `{ __schema { queryType { name } } ` + strings.TrimPrefix(nested(13), "{"), "nested 15 levels deep"},
		{"lists multiplied without end", `{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }`, "introspection"},
		{"lists multiplied through __type", `{ __type(name: "Job") { fields { type { fields { type { fields { type { fields { name } } } } } } } } }`, "introspection"},
		{"lists multiplied through args", `{ __schema { directives { args { type { fields { args { name } } } } } } }`, "more than 3 lists"},
		{"a list repeated under aliases", `{ __schema { types { a: fields { name } b: fields { name } } } }`, "may not be aliased (a: fields)"},
		{"the schema asked for many times", "{ " + repeat(11, "s%d: __schema { types { name } } ") + "}", "10 times at most"},
		{"ofType beyond any type's wrapping", ofTypes(40), "more than 32 levels deep"},
		{"fragments spread exponentially", spreads(40), "too complex"},
	}
	for _, tc := range refused {
		r := api.do(t, admin, tc.query, nil, nil)
		if r.code() != CodeBadInput || !strings.Contains(r.Errors[0].Message, tc.message) {
			t.Errorf("%s: %+v, want BAD_INPUT saying %q", tc.name, r.Errors, tc.message)
		}
		if len(r.Data) > 0 && string(r.Data) != "null" {
			t.Errorf("%s: answered data %s", tc.name, r.Data)
		}
	}
	// Within the limit, the API's own fields and introspection together
	// pass (the run does not exist: a resolver's answer, not the limits').
	var out struct {
		Type struct{ Name string } `json:"__type"`
	}
	r := api.do(t, admin, `{ __type(name: "Job") { name } `+strings.TrimPrefix(nested(10), "{"), nil, &out)
	if r.code() != CodeNotFound || out.Type.Name != "Job" {
		t.Fatalf("12 levels beside introspection: %+v, __type %+v", r.Errors, out.Type)
	}
}

func repeat(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

// ofTypes asks for a type's wrappers n levels down.
func ofTypes(n int) string {
	return `{ __type(name: "Job") { fields { type { ` + strings.Repeat("ofType { ", n) + "name " + strings.Repeat("} ", n+3) + "}"
}

// spreads is an operation whose n fragments each spread the next one
// twice: valid, and 2^n selections when expanded.
func spreads(n int) string {
	var b strings.Builder
	b.WriteString("{ ...F0 }\n")
	for i := range n {
		fmt.Fprintf(&b, "fragment F%d on Query { ...F%d ...F%d }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "fragment F%d on Query { me { id } }\n", n)
	return b.String()
}
