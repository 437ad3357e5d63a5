package db

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun/schema"
)

// Bulk statements on PostgreSQL take their rows as ONE parameter, a JSON
// array read by json_to_recordset, instead of a VALUES list of literals.
// PostgreSQL parses and plans every literal of a VALUES list, and plans a
// join against it without knowing its size: an UPDATE … FROM (VALUES …)
// of 1,000 rows cost 50 µs of CPU per row and was planned as a hash join
// over a sequential scan of the whole table; the same statement over
// json_to_recordset costs 17 µs per row and walks the primary key (its
// row estimate is a constant, so the planner picks the index). Inserts of
// 1,000 rows went from 50 to 25 µs per row. SQLite keeps the VALUES
// statements: it has no such planner and no json_to_recordset.
//
// An insert's JSON is a bind parameter ($1), not a literal in the text:
// its text is then the same at every call from one call site, and
// PostgreSQL runs it as a statement prepared and planned once per
// connection (prepare.go, run by Store.bulk) instead of parsing and
// planning it anew. An update's (UPDATE … FROM the rows) is still
// formatted into the text by bun and planned at every run: its plan
// depends on the size of the table it joins, which a plan kept for the
// connection's life would not follow (prepare.go).

// recordset renders list (a slice of structs, or of pointers to structs,
// with bun tags) as `ROWS FROM (json_to_recordset(<param>::json) AS (col type,
// …)) WITH ORDINALITY AS d(col, …, ord)` and its one argument, with every
// field of the struct but those named in skip; a NULL field is left out of
// its row's object (json_to_recordset reads a missing key as NULL). It returns the columns in
// order, quoted. ord numbers the rows from 1 in the order of list. param
// is the argument's placeholder: "?" for bun to format the JSON into the
// text, "$1" to bind it (Store.bulk).
func (s *Store) recordset(param string, list any, skip ...string) (from string, arg string, cols []string) {
	v := reflect.ValueOf(list)
	typ := v.Type().Elem()
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	table := s.idb.Dialect().Tables().Get(typ)
	var fields []*schema.Field
	for _, f := range table.Fields {
		if !contains(skip, f.Name) {
			fields = append(fields, f)
		}
	}
	var defs []string
	for _, f := range fields {
		cols = append(cols, string(f.SQLName))
		defs = append(defs, string(f.SQLName)+" "+sqlType(f))
	}
	b := make([]byte, 0, 256*v.Len())
	b = append(b, '[')
	for i := 0; i < v.Len(); i++ {
		if i > 0 {
			b = append(b, ',')
		}
		row := v.Index(i)
		if row.Kind() == reflect.Pointer {
			row = row.Elem()
		}
		b = append(b, '{')
		first := true
		for _, f := range fields {
			mark := len(b)
			if !first {
				b = append(b, ',')
			}
			b = appendJSONString(b, f.Name)
			b = append(b, ':')
			at := len(b)
			b = appendJSONValue(b, f.Value(row))
			if string(b[at:]) == "null" {
				// A key left out reads as NULL, as null does; PostgreSQL
				// lexes and looks up every key of every row, and most of
				// an instance's or a transition's columns are NULL.
				b = b[:mark]
				continue
			}
			first = false
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = string(f.SQLName)
	}
	from = "ROWS FROM (json_to_recordset(" + param + "::json) AS (" + strings.Join(defs, ", ") + ")) WITH ORDINALITY AS d(" +
		strings.Join(names, ", ") + ", ord)"
	return from, string(b), cols
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sqlType is the PostgreSQL type a field's value is read as.
func sqlType(f *schema.Field) string {
	if f.UserSQLType != "" {
		switch strings.ToLower(f.UserSQLType) {
		case "json", "jsonb":
			return "jsonb"
		}
		return f.UserSQLType
	}
	switch t := f.IndirectType; {
	case t == reflect.TypeOf(time.Time{}):
		return "timestamptz"
	case t.Kind() == reflect.String:
		return "text"
	case t.Kind() == reflect.Bool:
		return "boolean"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "bigint"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "double precision"
	}
	return "jsonb"
}

// appendJSONValue appends a field's value as JSON: null for a nil pointer,
// times in RFC 3339 with their fraction, anything else through
// encoding/json (JSON columns).
func appendJSONValue(b []byte, v reflect.Value) []byte {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return append(b, "null"...)
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return appendJSONString(b, v.String())
	case reflect.Bool:
		return strconv.AppendBool(b, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(b, v.Uint(), 10)
	}
	if t, ok := v.Interface().(time.Time); ok {
		b = append(b, '"')
		b = t.AppendFormat(b, time.RFC3339Nano)
		return append(b, '"')
	}
	if (v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.IsNil() {
		return append(b, "null"...)
	}
	enc, err := json.Marshal(v.Interface())
	if err != nil {
		panic(fmt.Sprintf("db: encoding a %s for a bulk statement: %v", v.Type(), err))
	}
	return append(b, enc...)
}

// appendJSONString appends s as a JSON string. PostgreSQL's json refuses
// \u0000 in text, as it refuses NUL in text columns anyway.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// quoted joins SQL names with commas, each prefixed (e.g. "d.").
func quoted(prefix string, cols []string) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = prefix + c
	}
	return strings.Join(out, ", ")
}

// insertRecordset inserts list (a slice of model structs or of pointers to
// them) into table in one statement, without the columns in skip (the
// serial id), in list's order. tail follows the SELECT (ON CONFLICT …,
// RETURNING …); with a RETURNING, dest receives its rows (Scan's
// destinations), else dest is nil.
func (s *Store) insertRecordset(ctx context.Context, table string, list any, skip []string, tail string, dest ...any) error {
	from, arg, cols := s.recordset("$1", list, skip...)
	return s.bulk(ctx, `INSERT INTO `+table+` (`+strings.Join(cols, ", ")+`) SELECT `+quoted("d.", cols)+` FROM `+from+
		` ORDER BY d.ord `+tail, arg, dest...)
}

// bulk runs a bulk statement on PostgreSQL: query reads its rows from $1,
// bound to arg (recordset's JSON). With a RETURNING, dest receives its
// rows (Scan's destinations), else dest is nil. The statement goes through
// bun, so its hooks (metrics, the benchmark's statement count) see it, but
// with arg as a bind parameter (prepare.go). query's text must be the
// same at every call from one call site (recordset's is: it depends on
// the row type alone), or each text would be prepared on its own.
func (s *Store) bulk(ctx context.Context, query, arg string, dest ...any) error {
	conn, err := s.sqlConn()
	if err != nil {
		return err
	}
	q := s.idb.NewRaw(query).Conn(bind{conn: conn, args: []any{arg}})
	if len(dest) == 0 {
		_, err := q.Exec(ctx)
		return err
	}
	return q.Scan(ctx, dest...)
}
