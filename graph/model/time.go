package model

import (
	"fmt"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// MarshalTime writes the Time scalar: RFC 3339 with nanoseconds.
func MarshalTime(t time.Time) graphql.Marshaler { return graphql.MarshalTime(t) }

// UnmarshalTime reads the Time scalar, an RFC 3339 string. Anything else
// is the caller's mistake (BAD_INPUT at the argument), not the server's.
func UnmarshalTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, &fault.Input{Reason: fmt.Sprintf("a Time is an RFC 3339 string such as \"2026-11-21T12:00:00Z\", not %T", v)}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, &fault.Input{Reason: fmt.Sprintf("%q is not an RFC 3339 time such as \"2026-11-21T12:00:00Z\"", s)}
	}
	// Year 0 parses but is no year of the databases' calendars (PostgreSQL
	// refuses it); the years a database stores are 1 to 9999.
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return time.Time{}, &fault.Input{Reason: fmt.Sprintf("%q is outside the years 0001 to 9999", s)}
	}
	return t, nil
}
