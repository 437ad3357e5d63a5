// Package fault holds the errors a server package returns when the caller,
// not the server, is at fault. The API layer turns each kind into its error
// code (BAD_INPUT, NOT_FOUND, …) and shows the message as it is; anything
// else is an internal error whose details are logged and never shown.
package fault

import (
	"errors"
	"fmt"
	"time"
)

// Input says one input field is wrong and why.
type Input struct {
	Field  string // the input field's name as the caller spelt it, e.g. "scheduleExpression"
	Reason string
}

func (e *Input) Error() string { return e.Field + ": " + e.Reason }

// BadInput returns an *Input for field with a formatted reason.
func BadInput(field, format string, args ...any) error {
	return &Input{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Kinds of failure that are not about one field. Test with errors.Is.
var (
	ErrUnauthenticated = errors.New("not logged in: log in, or send 'Authorization: Bearer <token>'")
	ErrForbidden       = errors.New("not allowed")
	ErrNotFound        = errors.New("not found")
	ErrConflict        = errors.New("conflict")
)

// kinded is an error of one kind with its own message.
type kinded struct {
	kind error
	msg  string
}

func (e *kinded) Error() string { return e.msg }
func (e *kinded) Unwrap() error { return e.kind }

// Unauthenticated says why the caller is not authenticated.
func Unauthenticated(format string, args ...any) error {
	return &kinded{ErrUnauthenticated, fmt.Sprintf(format, args...)}
}

// NotFound says which thing was not found: NotFound("job 12") is "job 12 not found".
func NotFound(what string) error { return &kinded{ErrNotFound, what + " not found"} }

// Conflict says what conflicts.
func Conflict(format string, args ...any) error {
	return &kinded{ErrConflict, fmt.Sprintf(format, args...)}
}

// Forbidden says what the caller may not do.
func Forbidden(format string, args ...any) error {
	return &kinded{ErrForbidden, "forbidden: " + fmt.Sprintf(format, args...)}
}

// ErrRateLimited is the kind of RateLimited errors.
var ErrRateLimited = errors.New("rate limited")

// Limited says the caller must wait before trying again.
type Limited struct {
	RetryAfter time.Duration
	msg        string
}

func (e *Limited) Error() string { return e.msg }
func (e *Limited) Unwrap() error { return ErrRateLimited }

// RateLimited says the caller tried too often and may try again after
// retryAfter.
func RateLimited(retryAfter time.Duration, format string, args ...any) error {
	return &Limited{RetryAfter: retryAfter, msg: fmt.Sprintf(format, args...)}
}
