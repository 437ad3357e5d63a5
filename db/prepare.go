package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
)

// Prepared statements on PostgreSQL.
//
// bun formats every statement on the client and pgdriver sends it with the
// simple query protocol, so PostgreSQL parses, analyses and plans each one
// anew: at small batches a third of its CPU in the api scenario
// (docs/design.md §13.1). The bulk inserts (bulk.go: instances, tasks,
// attempts, audit entries) have a text fixed per call site and only their
// one JSON parameter varies, so that work is the same every time. They are
// sent instead with the JSON as a bind parameter ($1, the bind type
// below), and a connection opened in session pool mode
// (preparingConnector) runs every statement that comes with bind
// parameters as a named prepared statement, prepared the first time that
// connection sees its text and reused after. PostgreSQL parses and
// analyses it once per connection, and after five runs keeps a generic
// plan: an INSERT … SELECT from json_to_recordset has one plan whatever
// the tables hold (no join, no scan; conflicts are found through their
// unique index, foreign keys and triggers run their own cached plans).
//
// The bulk updates (UPDATE … FROM the rows) are not prepared. Their plan
// joins json_to_recordset, whose estimate is a constant 100 rows, to the
// table: a sequential scan and a hash join while the table has a few
// thousand rows, its primary key beyond. A generic plan is kept until an
// ANALYZE or DDL invalidates it, so one made while instances, or a new
// generation's tasks partition (partitions.go), was small went on scanning
// all of it as it grew: replaying an API run's statements in batches of 10
// into a fresh schema with every bulk statement prepared, the CPU per
// instance rose from 340 to 1,107 µs over 18,000 instances while the
// simple statements' stayed at 280–630 µs. Prepared but planned at every
// run (plan_cache_mode = force_custom_plan) they saved nothing measurable,
// so they stay simple queries, planned for the tables as they are.
//
// A prepared statement lives in one server session, and so in one driver
// connection: a connection lost (a failover, a restart, an idle timeout)
// takes its statements with it, and the one database/sql opens instead
// prepares them anew. Behind a pooler in transaction pooling mode
// (pool_mode=transaction, pooling.go) the next statement may run on
// another server session, so there the connector is pgdriver's own: it
// substitutes the bind parameters into the text on the client and sends a
// simple query, as before. SQLite does not run these statements.

// maxPreparedPerConn bounds the statements one connection keeps prepared.
// jobwheel's bulk inserts are a few texts; a connection asked for more
// (a tool sending statements of its own with parameters) runs the rest
// unprepared rather than grow without end.
const maxPreparedPerConn = 100

// preparingConnector opens pgdriver connections that prepare statements
// sent with bind parameters. Driver() is pgdriver's, which
// pgdriver.NewListener relies on.
type preparingConnector struct {
	*pgdriver.Connector
}

func (c preparingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	pc, ok := cn.(*pgdriver.Conn)
	if !ok {
		_ = cn.Close()
		return nil, fmt.Errorf("db: pgdriver returned a %T connection", cn)
	}
	return &preparingConn{Conn: pc, stmts: map[string]preparedStmt{}}, nil
}

// preparedStmt is what pgdriver's prepared statements implement.
type preparedStmt interface {
	driver.StmtExecContext
	driver.StmtQueryContext
}

// preparingConn is a pgdriver connection whose statements with bind
// parameters run as named prepared statements, one per text, prepared on
// first use. Everything else is pgdriver's: a statement without parameters
// (all of bun's: it formats them into the text) goes out as a simple query.
// database/sql uses a connection from one goroutine at a time, so stmts
// needs no lock.
type preparingConn struct {
	*pgdriver.Conn
	stmts map[string]preparedStmt
}

func (c *preparingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	st, err := c.prepared(ctx, query, args)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.Conn.ExecContext(ctx, query, args)
	}
	res, err := st.ExecContext(ctx, args)
	return res, c.check(err)
}

func (c *preparingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	st, err := c.prepared(ctx, query, args)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return c.Conn.QueryContext(ctx, query, args)
	}
	rows, err := st.QueryContext(ctx, args)
	return rows, c.check(err)
}

// prepared returns query's prepared statement on this connection,
// preparing it the first time; nil (and no error) when the statement is
// to go as a simple query: it has no bind parameters, or the connection
// holds maxPreparedPerConn statements already.
func (c *preparingConn) prepared(ctx context.Context, query string, args []driver.NamedValue) (preparedStmt, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	if len(c.stmts) >= maxPreparedPerConn {
		return nil, nil
	}
	ds, err := c.Conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, c.check(err)
	}
	st, ok := ds.(preparedStmt)
	if !ok {
		_ = ds.Close()
		return nil, fmt.Errorf("db: pgdriver's %T cannot run with a context", ds)
	}
	c.stmts[query] = st
	return st, nil
}

// check closes the connection after an error that may have left it out of
// step with the server, and returns err. pgdriver reads a statement's
// answer to its end even when the answer is an error, but a timeout or a
// broken socket stops it halfway: the rest of that answer would be read as
// the next statement's. pgdriver closes its connection on such errors
// after a simple query (its isBadConn: any error that is not PostgreSQL's,
// a FATAL or PANIC one, a transaction already aborted, a cancelled
// statement) but not after a prepared statement's; this applies the same
// rule to those. A closed connection is dropped by database/sql (IsValid),
// and the next one prepares its statements anew.
func (c *preparingConn) check(err error) error {
	if err == nil {
		return nil
	}
	var pgErr pgdriver.Error
	lost := !errors.As(err, &pgErr)
	if !lost {
		switch pgErr.Field('V') {
		case "FATAL", "PANIC":
			lost = true
		}
		switch pgErr.Field('C') {
		case "25P02", "57014":
			lost = true
		}
	}
	if lost {
		_ = c.Close()
	}
	return err
}

// bind is a bun connection (bun.IConn) that sends each statement with args
// as its bind parameters ($1, …) rather than in its text: bun formats the
// text (with no arguments of its own) and runs its hooks, and database/sql
// hands the parameters to the driver, which prepares the statement
// (preparingConn) or, behind a transaction pooler, substitutes them on the
// client.
type bind struct {
	conn bun.IConn // the *sql.DB or *sql.Tx under the Store
	args []any
}

func (b bind) QueryContext(ctx context.Context, query string, _ ...any) (*sql.Rows, error) {
	return b.conn.QueryContext(ctx, query, b.args...)
}

func (b bind) ExecContext(ctx context.Context, query string, _ ...any) (sql.Result, error) {
	return b.conn.ExecContext(ctx, query, b.args...)
}

func (b bind) QueryRowContext(ctx context.Context, query string, _ ...any) *sql.Row {
	return b.conn.QueryRowContext(ctx, query, b.args...)
}

// sqlConn is the database/sql handle under s: the pool's *sql.DB, or the
// transaction's *sql.Tx (a savepoint's too: bun nests them in one).
func (s *Store) sqlConn() (bun.IConn, error) {
	switch idb := s.idb.(type) {
	case *bun.DB:
		return idb.DB, nil
	case bun.Tx:
		return idb.Tx, nil
	}
	return nil, fmt.Errorf("db: no database/sql handle under a %T", s.idb)
}
