package db

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/uptrace/bun"
)

// What PostgreSQL counts of the work done in one database: the benchmarks
// (e2e/bench) read it before and after a scenario's measured phase to say
// what each instance or task cost the database — commits, rows written per
// table, and the CPU of the backends serving it. Nothing in the server
// reads these.

// DatabaseStats is a reading of PostgreSQL's cumulative statistics for the
// connected database and its current schema's tables.
type DatabaseStats struct {
	// Commits and Rollbacks are transactions ended in the database (every
	// statement outside a transaction is one, reads included).
	Commits, Rollbacks int64
	// WALRecords and WALBytes are the write-ahead log the whole cluster
	// wrote (pg_stat_wal: other databases' work too, if any runs).
	WALRecords, WALBytes int64
	// Tables are the current schema's tables by name.
	Tables map[string]TableStats
	// Backends are the backends connected to the database now (the
	// server's pool, the benchmark's own, autovacuum).
	Backends []Backend
}

// Backend is one PostgreSQL backend process.
type Backend struct {
	PID int `bun:"pid"`
	// Application is the application_name it connected with.
	Application string `bun:"application_name"`
}

// TableStats counts the rows written to one table.
type TableStats struct {
	Inserted int64 `bun:"n_tup_ins"`
	Updated  int64 `bun:"n_tup_upd"`
	// HOTUpdated are the updates that changed no indexed column and found
	// room on their page, so no index was written.
	HOTUpdated int64 `bun:"n_tup_hot_upd"`
	Deleted    int64 `bun:"n_tup_del"`
}

// DatabaseStatsRead reads the statistics. PostgreSQL 15 publishes a
// backend's counts at the end of a transaction at most once a second, and
// an idle backend's pending counts after 10 s: a reading is exact only that
// long after the work it counts.
func (d *DB) DatabaseStatsRead(ctx context.Context) (*DatabaseStats, error) {
	if d.dialect != Postgres {
		return nil, fmt.Errorf("reading database statistics: %s keeps none", d.dialect)
	}
	out := &DatabaseStats{Tables: map[string]TableStats{}}
	err := d.bun.NewRaw("SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = current_database()").
		Scan(ctx, &out.Commits, &out.Rollbacks)
	if err != nil {
		return nil, wrap(err, "reading pg_stat_database")
	}
	err = d.bun.NewRaw("SELECT wal_records, wal_bytes::bigint FROM pg_stat_wal").Scan(ctx, &out.WALRecords, &out.WALBytes)
	if err != nil {
		return nil, wrap(err, "reading pg_stat_wal")
	}
	var tables []struct {
		Name string `bun:"relname"`
		TableStats
	}
	err = d.bun.NewRaw("SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del FROM pg_stat_user_tables WHERE schemaname = current_schema()").
		Scan(ctx, &tables)
	if err != nil {
		return nil, wrap(err, "reading pg_stat_user_tables")
	}
	for _, t := range tables {
		out.Tables[t.Name] = t.TableStats
	}
	err = d.bun.NewRaw("SELECT pid, application_name FROM pg_stat_activity WHERE datname = current_database()").Scan(ctx, &out.Backends)
	return out, wrap(err, "reading pg_stat_activity")
}

// DatabaseCreate creates a PostgreSQL database, for benchmarks that count
// what their database did (pg_stat_database is per database).
func (d *DB) DatabaseCreate(ctx context.Context, name string) error {
	_, err := d.bun.ExecContext(ctx, "CREATE DATABASE ?", bun.Ident(name))
	return wrap(err, "creating database "+name)
}

// DatabaseDrop drops a PostgreSQL database, ending its connections.
func (d *DB) DatabaseDrop(ctx context.Context, name string) error {
	_, err := d.bun.ExecContext(ctx, "DROP DATABASE IF EXISTS ? WITH (FORCE)", bun.Ident(name))
	return wrap(err, "dropping database "+name)
}

// WithDatabase returns a PostgreSQL URL naming another database on the
// same server.
func WithDatabase(rawURL, name string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("not a valid PostgreSQL URL (%s)", urlProblem(err))
	}
	u.Path = "/" + strings.TrimPrefix(name, "/")
	return u.String(), nil
}
