// Package text checks the text fields people and programs send: a
// single-line field (a name, a host, a tag, an address) must not carry
// control characters, which would let it break out of the line it is
// shown or sent in (a mail header, a log line, a table cell), and no
// field may carry NUL, which PostgreSQL cannot store and which cuts
// environment variables and C strings short.
package text

import (
	"unicode/utf8"

	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// Line checks a single-line field: valid UTF-8 without control characters
// (C0, DEL, C1), line or paragraph separators, or bidirectional overrides
// (which make a name read differently from what it is).
func Line(field, s string) error {
	if !utf8.ValidString(s) {
		return fault.BadInput(field, "is not valid UTF-8")
	}
	for i, r := range s {
		if reason := lineBreaker(r); reason != "" {
			return fault.BadInput(field, "must not contain %s (%U at byte %d)", reason, r, i)
		}
	}
	return nil
}

// Block checks a multi-line field (a description): like Line, but tabs
// and line breaks are allowed.
func Block(field, s string) error {
	if !utf8.ValidString(s) {
		return fault.BadInput(field, "is not valid UTF-8")
	}
	for i, r := range s {
		if r == '\n' || r == '\r' || r == '\t' {
			continue
		}
		if reason := lineBreaker(r); reason != "" {
			return fault.BadInput(field, "must not contain %s (%U at byte %d)", reason, r, i)
		}
	}
	return nil
}

// Bytes checks free text handed to programs as it is (a script, run
// parameters): anything but NUL, which cannot be stored or passed on.
func Bytes(field, s string) error {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return fault.BadInput(field, "must not contain NUL (U+0000 at byte %d)", i)
		}
	}
	return nil
}

// lineBreaker says why r has no place in a single line, or "".
func lineBreaker(r rune) string {
	switch {
	case r == 0:
		return "NUL"
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return "control characters"
	case r == '\u2028' || r == '\u2029':
		return "line separators"
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return "bidirectional overrides"
	}
	return ""
}
