package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// strictVariables refuses variables whose JSON type does not match their
// GraphQL type, before any resolver runs. The parser gqlgen uses lets a
// number through as a String (JSON numbers are decoded as json.Number, a
// string type underneath), a string of digits through as an Int, and does
// not look inside lists at all; the GraphQL specification's input
// coercion allows none of that. The error is a BAD_INPUT that names the
// variable in its message and the input field in extensions.field.
type strictVariables struct{ schema *ast.Schema }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = strictVariables{}

func (strictVariables) ExtensionName() string                          { return "StrictVariables" }
func (strictVariables) Validate(schema graphql.ExecutableSchema) error { return nil }

func (s strictVariables) MutateOperationContext(_ context.Context, rc *graphql.OperationContext) *gqlerror.Error {
	op := rc.Doc.Operations.ForName(rc.OperationName)
	if op == nil {
		return nil
	}
	for _, def := range op.VariableDefinitions {
		v, ok := rc.Variables[def.Variable]
		if !ok {
			continue
		}
		if problem, at := s.check(def.Type, v, nil); problem != "" {
			path := append(ast.Path{ast.PathName("variable"), ast.PathName(def.Variable)}, at...)
			field := def.Variable
			if len(at) > 0 {
				field = pathString(at)
			}
			where := ""
			if len(at) > 0 {
				where = " at " + pathString(at)
			}
			return &gqlerror.Error{
				Message:    fmt.Sprintf("variable $%s%s: %s", def.Variable, where, problem),
				Path:       path,
				Extensions: map[string]any{"code": CodeBadInput, "field": field},
			}
		}
	}
	return nil
}

// check says what is wrong with v as a value of typ ("" if nothing), and
// where inside it.
func (s strictVariables) check(typ *ast.Type, v any, at ast.Path) (string, ast.Path) {
	if v == nil {
		if typ.NonNull {
			return fmt.Sprintf("expected %s, got null", typ.String()), at
		}
		return "", nil
	}
	if typ.Elem != nil {
		list, ok := v.([]any)
		if !ok {
			// A single value stands for a list of one (input coercion).
			return s.check(typ.Elem, v, at)
		}
		for i, e := range list {
			if problem, where := s.check(typ.Elem, e, append(at, ast.PathIndex(i))); problem != "" {
				return problem, where
			}
		}
		return "", nil
	}
	def := s.schema.Types[typ.NamedType]
	if def == nil {
		return "", nil
	}
	switch def.Kind {
	case ast.Enum:
		if _, ok := v.(string); !ok {
			return fmt.Sprintf("expected one of the %s values as a string, got %s", def.Name, jsonKind(v)), at
		}
	case ast.InputObject:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Sprintf("expected a %s object, got %s", def.Name, jsonKind(v)), at
		}
		for _, f := range def.Fields {
			fv, present := m[f.Name]
			if !present {
				continue
			}
			if problem, where := s.check(f.Type, fv, append(at, ast.PathName(f.Name))); problem != "" {
				return problem, where
			}
		}
	case ast.Scalar:
		if !scalarFits(def.Name, v) {
			return fmt.Sprintf("expected %s, got %s", def.Name, jsonKind(v)), at
		}
	}
	return "", nil
}

// scalarFits reports whether a decoded JSON value is a value of a scalar.
func scalarFits(name string, v any) bool {
	switch name {
	case "String", "Time":
		_, ok := v.(string)
		return ok
	case "Boolean":
		_, ok := v.(bool)
		return ok
	case "Int":
		return isInteger(v)
	case "Float":
		switch n := v.(type) {
		case json.Number:
			_, err := n.Float64()
			return err == nil
		case float64, int64, int:
			return true
		}
		return false
	case "ID":
		_, isString := v.(string)
		return isString || isInteger(v)
	}
	return true // JSON and other custom scalars check themselves
}

func isInteger(v any) bool {
	switch n := v.(type) {
	case json.Number:
		_, err := strconv.ParseInt(string(n), 10, 64)
		return err == nil
	case int64, int:
		return true
	case float64:
		return n == float64(int64(n))
	}
	return false
}

// jsonKind names the JSON type of a decoded value.
func jsonKind(v any) string {
	switch x := v.(type) {
	case string:
		return "a string"
	case json.Number, float64, int64, int:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// pathString renders a path inside a variable: "workerFilter.tags[2]".
func pathString(p ast.Path) string {
	var b strings.Builder
	for _, el := range p {
		switch e := el.(type) {
		case ast.PathName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(e))
		case ast.PathIndex:
			fmt.Fprintf(&b, "[%d]", int(e))
		}
	}
	return b.String()
}
