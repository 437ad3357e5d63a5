package importer

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of jobwheel's names and texts (the API refuses more).
const (
	maxAppName     = 64
	maxObjectName  = 128
	maxDescription = 2000
	maxNodeName    = 128
)

// appName is a source app's name as a jobwheel app's: lower-case letters,
// digits, '-', '_' and '.', starting with a letter or digit, at most 64
// characters; "app-<id>" when nothing is left.
func appName(name string, id int64) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '-' || r == '_' || r == '.':
			if b.Len() > 0 {
				b.WriteRune(r)
			}
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
				b.WriteByte('-')
			}
		}
	}
	s := strings.TrimRight(b.String(), "-")
	if len(s) > maxAppName {
		s = strings.TrimRight(s[:maxAppName], "-_.")
	}
	if s == "" {
		s = fmt.Sprintf("app-%d", id)
	}
	return s
}

// objectName is a source name as a jobwheel job's or workflow's: one line
// (control characters become spaces), trimmed, at most 128 characters;
// fallback when nothing is left.
func objectName(name, fallback string) string {
	s := strings.Join(strings.FieldsFunc(name, unicode.IsControl), " ")
	s = strings.TrimSpace(s)
	if s == "" {
		return fallback
	}
	return truncate(s, maxObjectName)
}

// truncate cuts s to at most n runes.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n]))
}

// truncateBytes cuts s to at most n bytes, on a rune boundary, marking
// the cut.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = " …"
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// named is an object to name, its source name and id.
type named struct {
	obj  *Object
	name string
	id   int64
}

// uniqueNames names objects of one kind in one app: their source names
// made valid, and every name more than one of them would get suffixed
// with its source id (" #12"), so each name is unique and stays the same
// on every import of the same source. A name changed from the source's is
// noted.
func uniqueNames(list []named, table string) {
	count := map[string]int{}
	for i := range list {
		list[i].obj.Name = objectName(list[i].name, fmt.Sprintf("%s-%d", table, list[i].id))
		count[list[i].obj.Name]++
	}
	for _, n := range list {
		o := n.obj
		if base := o.Name; count[base] > 1 {
			suffix := fmt.Sprintf(" #%d", n.id)
			o.Name = truncate(base, maxObjectName-len(suffix)) + suffix
			o.approx("named %q: %d of the app's %ss share the name %q, so each has its id added", o.Name, count[base], strings.ToLower(o.Kind), base)
			continue
		}
		if o.Name != strings.TrimSpace(n.name) {
			if strings.TrimSpace(n.name) == "" {
				o.approx("named %q: it has no name in the source", o.Name)
			} else {
				o.approx("named %q: %q is not a jobwheel name (one line, at most %d characters)", o.Name, n.name, maxObjectName)
			}
		}
	}
}

// nodeName is a workflow node's name: one line, at most 128 characters.
func nodeName(s string) string {
	return truncate(objectName(s, ""), maxNodeName)
}
