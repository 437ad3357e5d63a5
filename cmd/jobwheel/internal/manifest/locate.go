package manifest

import (
	"regexp"
	"strings"
)

var inputEntry = regexp.MustCompile(`^((?:calendars|jobs|workflows)\[\d+\])(?:\.(.*))?$`)

// Locate turns a field of applyConfig's input that the server named in a
// BAD_INPUT error (e.g. "jobs[3].scheduleExpression") into an Error about
// the document it came from, naming the field as the document has it
// ("spec.scheduleExpression", "metadata.name"). ok is false for a field of
// no document.
func (in *Input) Locate(field, reason string) (e *Error, ok bool) {
	m := inputEntry.FindStringSubmatch(field)
	if m == nil {
		return nil, false
	}
	d := in.Index[m[1]]
	if d == nil {
		return nil, false
	}
	path := "metadata"
	switch rest := m[2]; {
	case rest == "name" || rest == "app":
		path = "metadata." + rest
	case rest != "":
		path = "spec." + rest
	}
	return &Error{File: d.Source.File, Index: d.Source.Index, Line: d.Source.lineOf(path), Object: d.Object(), Path: path,
		Reason: reason}, true
}

// lineOf is the line of path in the document, or of the nearest
// enclosing field it has, or the document's.
func (s Source) lineOf(path string) int {
	for p := path; p != ""; {
		if l, ok := s.Lines[p]; ok {
			return l
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return s.Line
}
