// Package model holds the GraphQL-only types and scalars; domain types from
// package db are bound directly where they fit.
package model

import (
	"fmt"
	"io"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
)

// MarshalID64 writes an int64 id as a GraphQL ID, which is a string.
func MarshalID64(id int64) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = io.WriteString(w, strconv.Quote(strconv.FormatInt(id, 10)))
	})
}

// UnmarshalID64 reads a numeric id given as a string or a number.
func UnmarshalID64(v any) (int64, error) {
	switch v := v.(type) {
	case string:
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			return 0, fmt.Errorf("%q is not an id: ids are positive integers", v)
		}
		return id, nil
	case int64:
		return v, nil
	case int:
		return int64(v), nil
	}
	return 0, fmt.Errorf("%v is not an id", v)
}
