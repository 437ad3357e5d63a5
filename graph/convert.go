package graph

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/graph/model"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// pointers returns pointers to the elements of list, the shape gqlgen's
// list resolvers return.
func pointers[T any](list []T) []*T {
	out := make([]*T, len(list))
	for i := range list {
		out[i] = &list[i]
	}
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// parseID reads a numeric id argument; a bad one is BAD_INPUT on field.
func parseID(field, s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || id <= 0 {
		return 0, fault.BadInput(field, "%q is not an id", s)
	}
	return id, nil
}

// Cursors are opaque to clients; inside they are the id of the last row.
func encodeCursor(id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("id:" + strconv.FormatInt(id, 10)))
}

func decodeCursor(field string, c *string) (int64, error) {
	if c == nil || *c == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(*c)
	if err == nil {
		if s, ok := strings.CutPrefix(string(b), "id:"); ok {
			if id, err := strconv.ParseInt(s, 10, 64); err == nil && id > 0 {
				return id, nil
			}
		}
	}
	return 0, fault.BadInput(field, "%q is not a cursor from this list", *c)
}

// pageSize checks a connection's `first`.
func pageSize(first *int, def, max int) (int, error) {
	if first == nil {
		return def, nil
	}
	if *first < 1 || *first > max {
		return 0, fault.BadInput("first", "must be between 1 and %d", max)
	}
	return *first, nil
}

// dbRole converts an optional API role.
func dbRole(r *model.AppRole) *db.Role {
	if r == nil {
		return nil
	}
	out := db.Role(*r)
	return &out
}

// msInt is a duration in milliseconds as a GraphQL Int (32 bits: up to 24
// days, clamped beyond).
func msInt(ms *int64) *int {
	if ms == nil {
		return nil
	}
	return new(int(min(*ms, math.MaxInt32)))
}
