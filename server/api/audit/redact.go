package audit

import (
	"encoding/json"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jobwheel/jobwheel/db"
)

// Redacted stands for a value kept out of the record.
const Redacted = "[redacted]"

// noise are fields a snapshot leaves out: hashes (never recorded), and
// what the scheduler changes by itself (so an update shows what the caller
// changed, not the next fire time).
var noise = map[string]bool{
	"secretHash": true, "passwordHash": true, "tokenHash": true,
	"createdAt": true, "updatedAt": true, "nextTriggerAt": true, "lastUsedAt": true,
	"id": true, "appId": true,
}

// secretKey says whether a field or argument name is one whose value is a
// secret.
func secretKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"password", "secret", "token", "authorization", "apikey", "api_key", "credential", "privatekey", "cookie"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// Snapshot turns an object into its recorded fields: JSON-shaped, field
// names in lower camel case, noise left out, secrets redacted.
func Snapshot(v any) map[string]any {
	m, ok := normalize(v).(map[string]any)
	if !ok {
		return nil
	}
	for k := range m {
		if noise[k] {
			delete(m, k)
		}
	}
	for k, val := range m {
		m[k] = Redact(k, val)
	}
	return m
}

// normalize turns a Go value into plain JSON values (maps, slices,
// strings, numbers, booleans) with lower-camel-case keys.
func normalize(v any) any {
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil
	}
	return lowerKeys(out)
}

func lowerKeys(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, val := range t {
			if k == "BaseModel" {
				continue
			}
			if len(k) > 2 && strings.HasSuffix(k, "ID") {
				k = k[:len(k)-2] + "Id" // AppID → appId, as the API spells it
			}
			m[lowerFirst(k)] = lowerKeys(val)
		}
		return m
	case []any:
		for i := range t {
			t[i] = lowerKeys(t[i])
		}
		return t
	}
	return v
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || unicode.IsLower(r) {
		return s
	}
	// ID, URL…: a leading run of capitals is lowered up to the last one
	// that starts a word.
	i := 0
	for i < len(s) && unicode.IsUpper(rune(s[i])) {
		i++
	}
	if i > 1 && i < len(s) {
		i--
	}
	return strings.ToLower(s[:i]) + s[i:]
}

// Redact returns v with every secret it holds replaced: values of
// secret-named keys at any depth, an HTTP processor's header values, and
// the path and query of webhook URLs.
func Redact(key string, v any) any {
	if secretKey(key) && v != nil && v != "" {
		return Redacted
	}
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, val := range t {
			switch {
			case strings.EqualFold(k, "headers"):
				m[k] = redactAll(val)
			case strings.EqualFold(k, "webhooks") || strings.EqualFold(k, "url") && strings.Contains(strings.ToLower(key), "alarm"),
				// An alarm channel's target: a chat URL with its key.
				strings.EqualFold(k, "target") && strings.EqualFold(key, "channels"):
				m[k] = redactURLs(val)
			default:
				m[k] = Redact(k, val)
			}
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i := range t {
			out[i] = Redact(key, t[i])
		}
		return out
	case string:
		// A processor or parameters may be JSON (an HTTP job's request):
		// redact inside it.
		if s := strings.TrimSpace(t); strings.HasPrefix(s, "{") {
			var inner any
			if json.Unmarshal([]byte(s), &inner) == nil {
				b, _ := json.Marshal(Redact(key, inner))
				return string(b)
			}
		}
		return t
	}
	return v
}

// redactAll keeps a map's keys (header names) and hides every value.
func redactAll(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return nil
		}
		return Redacted
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(m))
	for _, k := range keys {
		out[k] = Redacted
	}
	return out
}

// redactURLs keeps the scheme and host of URLs: chat webhooks carry their
// key in the path or the query.
func redactURLs(v any) any {
	switch t := v.(type) {
	case string:
		u, err := url.Parse(t)
		if err != nil || u.Host == "" {
			return Redacted
		}
		if u.Path == "" && u.RawQuery == "" && u.User == nil {
			return u.Scheme + "://" + u.Host
		}
		return u.Scheme + "://" + u.Host + "/" + Redacted
	case []any:
		out := make([]any, len(t))
		for i := range t {
			out[i] = redactURLs(t[i])
		}
		return out
	}
	return v
}

// Diff lists the fields whose values differ between before and after,
// sorted by name.
func Diff(before, after map[string]any) []db.AuditChange {
	keys := map[string]bool{}
	for k := range before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []db.AuditChange
	for _, k := range names {
		b, a := before[k], after[k]
		if reflect.DeepEqual(b, a) {
			continue
		}
		out = append(out, db.AuditChange{Field: k, Before: b, After: a})
	}
	return out
}
