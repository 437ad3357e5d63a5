package db

import (
	"fmt"
	"net/url"
)

// PgBouncer and other connection poolers in transaction pooling mode hand
// each transaction (and each statement outside one) whatever server
// connection is free, so nothing tied to a session survives from one
// statement to the next: LISTEN (notifications arrive on a connection that
// may be serving someone else), session advisory locks (taken on one
// connection, released — or not — on another), SET (search_path) and named
// prepared statements. jobwheel is told by the URL parameter
//
//	pool_mode=transaction
//
// (stripped before connecting; `session`, the default, is a direct
// connection or a session-pooling PgBouncer) and then relies on none of
// them: no statement is prepared — the bulk inserts, which run as named
// prepared statements on a session's connection (prepare.go), go out as
// simple queries with their bind parameter substituted by pgdriver on the
// client, as every other statement does (bun formats them); the bus
// carries hints in-process only, every consumer polling the database as it
// does after a lost notification (server/platform/bus); migrations are serialized by
// a transaction-level advisory lock (Migrate), which lives exactly as long
// as a transaction and so works the same behind the pooler; and a session
// setting in the URL (search_path, statement_timeout…) is refused, since
// pgdriver SETs it per session — give it to the role instead (ALTER ROLE …
// SET search_path), or to PgBouncer (connect_query in its [databases]
// entry).

// Pool modes of the pool_mode URL parameter.
const (
	PoolSession     = "session"
	PoolTransaction = "transaction"
)

// poolModeParam is the URL parameter naming the pool mode.
const poolModeParam = "pool_mode"

// connectionParams are the URL parameters pgdriver uses to connect (TLS,
// timeouts, the application name it sends at startup); it turns every
// other one into a session setting (SET name TO value) on each new
// connection, which a transaction pooler does not keep.
var connectionParams = map[string]bool{
	"sslmode": true, "sslrootcert": true, "sslcert": true, "sslkey": true, "application_name": true,
	"timeout": true, "dial_timeout": true, "connect_timeout": true, "read_timeout": true, "write_timeout": true,
}

// splitPoolMode returns a PostgreSQL URL without its pool_mode parameter,
// and that mode.
func splitPoolMode(rawURL string) (string, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", "", fmt.Errorf("not a valid PostgreSQL URL (%s)", urlProblem(err))
	}
	q := u.Query()
	mode := q.Get(poolModeParam)
	if !q.Has(poolModeParam) {
		return rawURL, PoolSession, nil
	}
	switch mode {
	case PoolSession, PoolTransaction:
	default:
		return "", "", fmt.Errorf("%s=%q: use %s=%s behind PgBouncer in transaction pooling mode, or leave it out", poolModeParam, mode, poolModeParam, PoolTransaction)
	}
	if mode == PoolTransaction {
		for name := range q {
			if !connectionParams[name] && name != poolModeParam {
				return "", "", fmt.Errorf("%s cannot be used with pool_mode=transaction: pgdriver sets it per session with SET, and the pooler hands each transaction another session; "+
					"set it for the role instead (ALTER ROLE … SET %s TO …) or in PgBouncer's [databases] entry (connect_query='SET %s TO …')", name, name, name)
			}
		}
	}
	q.Del(poolModeParam)
	u.RawQuery = q.Encode()
	return u.String(), mode, nil
}

// TransactionPooling says the database is reached through a pooler in
// transaction pooling mode (pool_mode=transaction): nothing tied to a
// session may be relied on, LISTEN/NOTIFY included.
func (d *DB) TransactionPooling() bool { return d.poolMode == PoolTransaction }
