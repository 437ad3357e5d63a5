package importer

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Open connects to a MySQL (or MariaDB) database, given as the driver's
// DSN (user:password@tcp(host:3306)/db) or as a URL
// (mysql://user:password@host:3306/db), and checks that it answers. It
// returns the address to name it by, without the password.
func Open(ctx context.Context, dsn string) (*sql.DB, string, error) {
	cfg, err := parseDSN(dsn)
	if err != nil {
		return nil, "", err
	}
	if cfg.DBName == "" {
		return nil, "", fmt.Errorf("the database's address names no database: end it with /NAME (e.g. root@tcp(127.0.0.1:3306)/xxl_job)")
	}
	// DATETIME columns are read as text and parsed in the source's zone.
	cfg.ParseTime = false
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, "", err
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(2)
	name := fmt.Sprintf("%s@%s/%s", cfg.User, cfg.Addr, cfg.DBName)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, "", fmt.Errorf("connecting to %s: %w", name, err)
	}
	return db, name, nil
}

// parseDSN reads either form of a database's address.
func parseDSN(dsn string) (*mysql.Config, error) {
	if !strings.HasPrefix(dsn, "mysql://") && !strings.HasPrefix(dsn, "mariadb://") {
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			return nil, fmt.Errorf("the database's address %q: %w (e.g. user:password@tcp(host:3306)/xxl_job, or mysql://user:password@host:3306/xxl_job)", redact(dsn), err)
		}
		return cfg, nil
	}
	_, rest, _ := strings.Cut(dsn, "://")
	cfg := mysql.NewConfig()
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		user, pass, hasPass := strings.Cut(rest[:at], ":")
		cfg.User = user
		if hasPass {
			cfg.Passwd = pass
		}
		rest = rest[at+1:]
	}
	host, db, _ := strings.Cut(rest, "/")
	db, _, _ = strings.Cut(db, "?")
	if host == "" {
		host = "127.0.0.1:3306"
	}
	if !strings.Contains(host, ":") {
		host += ":3306"
	}
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", host, db
	return cfg, nil
}

// redact hides a DSN's password in messages.
func redact(dsn string) string {
	at := strings.LastIndex(dsn, "@")
	if at < 0 {
		return dsn
	}
	user, _, ok := strings.Cut(dsn[:at], ":")
	if !ok {
		return dsn
	}
	return user + ":***" + dsn[at:]
}

// source reads the tables of one database.
type source struct {
	db  *sql.DB
	loc *time.Location
	// cols caches each table's columns.
	cols map[string]map[string]bool
}

// columns are a table's columns (lower case); none if it does not exist.
func (s *source) columns(ctx context.Context, table string) (map[string]bool, error) {
	if c, ok := s.cols[table]; ok {
		return c, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT LOWER(COLUMN_NAME) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND LOWER(TABLE_NAME) = ?`, table)
	if err != nil {
		return nil, fmt.Errorf("reading the columns of %s: %w", table, err)
	}
	defer func() { _ = rows.Close() }()
	out := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out[c] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if s.cols == nil {
		s.cols = map[string]map[string]bool{}
	}
	s.cols[table] = out
	return out, nil
}

// row is one row, every column as text (NULL: absent). Columns a version
// of the source lacks are absent too, so one reader reads every version.
type row map[string]*string

// query reads the wanted columns of table's rows matching where (with
// args), ordered by order; a wanted column the table lacks reads as NULL.
func (s *source) query(ctx context.Context, table string, want []string, where, order string, args ...any) ([]row, error) {
	have, err := s.columns(ctx, table)
	if err != nil {
		return nil, err
	}
	if len(have) == 0 {
		return nil, fmt.Errorf("the database has no table %s", table)
	}
	sel := make([]string, len(want))
	for i, c := range want {
		if have[c] {
			sel[i] = "`" + c + "`"
		} else {
			sel[i] = "NULL"
		}
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM `" + table + "`"
	if where != "" {
		q += " WHERE " + where
	}
	if order != "" {
		q += " ORDER BY " + order
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", table, err)
	}
	defer func() { _ = rows.Close() }()
	var out []row
	for rows.Next() {
		vals := make([]sql.RawBytes, len(want))
		ptrs := make([]any, len(want))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("reading %s: %w", table, err)
		}
		r := row{}
		for i, c := range want {
			if vals[i] != nil {
				r[c] = new(string(vals[i]))
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", table, err)
	}
	return out, nil
}

// str is a column's text, trimmed ("" for NULL).
func (r row) str(c string) string {
	if v := r[c]; v != nil {
		return strings.TrimSpace(*v)
	}
	return ""
}

// raw is a column's text as stored (a script keeps its whitespace).
func (r row) raw(c string) string {
	if v := r[c]; v != nil {
		return *v
	}
	return ""
}

// has says whether a column holds a value (not NULL, not blank).
func (r row) has(c string) bool { return r.str(c) != "" }

// int64 is a column's integer; 0 for NULL or text that is no number
// (ok false then, for a non-NULL value).
func (r row) int64(c string) (int64, bool) {
	s := r.str(c)
	if s == "" {
		return 0, true
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return int64(f), true
	}
	return 0, false
}

func (r row) int(c string) int {
	n, _ := r.int64(c)
	return int(n)
}

// float is a column's number (0 for NULL).
func (r row) float(c string) float64 {
	f, _ := strconv.ParseFloat(r.str(c), 64)
	return f
}

// bool reads BIT(1), TINYINT and text flags.
func (r row) bool(c string) bool {
	v := r[c]
	if v == nil {
		return false
	}
	switch *v {
	case "\x01", "1", "true", "TRUE", "b'1'":
		return true
	}
	return false
}

// time reads a DATETIME (in the source's zone); nil for NULL or an
// unreadable value.
func (s *source) time(r row, c string) *time.Time {
	v := r.str(c)
	if v == "" || strings.HasPrefix(v, "0000-00-00") {
		return nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999", "2006-01-02 15:04:05", time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, v, s.loc); err == nil {
			return &t
		}
	}
	return nil
}

// splitList splits a comma list, trimming and dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '，' || r == ';' }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
