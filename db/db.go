// Package db is jobwheel's storage: the bun models, the migrations and every
// query the server runs. No SQL lives outside this package.
//
// Two dialects are supported. PostgreSQL (pgdriver) is the production store
// and the only one several servers can share. SQLite (bun's sqliteshim, pure
// Go) is the embedded default for a single server. Queries are written once
// in the subset both understand; where they differ the Store asks Dialect.
package db

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/driver/sqliteshim"
	"github.com/uptrace/bun/migrate"
	"modernc.org/sqlite"
)

// Dialect names the database behind a DB.
type Dialect string

const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

// ErrNotFound is returned when a row looked up does not exist.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when a write would break a uniqueness rule.
var ErrConflict = errors.New("conflict")

//go:embed migrations/*.sql
var migrationFiles embed.FS

// DB is an open database with its migrations applied or pending.
type DB struct {
	Store
	bun *bun.DB
	url string
	// poolMode is PoolSession or PoolTransaction (pooling.go).
	poolMode string
}

// Store runs jobwheel's queries on either the pool or one transaction.
type Store struct {
	idb     bun.IDB
	dialect Dialect
}

// Open connects to the database named by rawURL:
//
//	postgres://user@host:5432/name?sslmode=disable   PostgreSQL
//	sqlite:path/to/file.db, file:…, or a plain path  SQLite
//	sqlite::memory:                                  SQLite in memory (tests)
//
// It does not migrate; call Migrate.
func Open(ctx context.Context, rawURL string) (*DB, error) {
	return OpenPool(ctx, rawURL, DefaultMaxConns)
}

// DefaultMaxConns is the most connections Open keeps to PostgreSQL.
const DefaultMaxConns = 20

// OpenPool is Open with at most maxConns connections to PostgreSQL (0:
// DefaultMaxConns). A server opens two pools over the same URL, one for
// its scheduling and one for its API, so that API calls holding every
// connection of theirs cannot delay a fire (server/node). SQLite always
// has one connection (below), whatever maxConns says.
func OpenPool(ctx context.Context, rawURL string, maxConns int) (*DB, error) {
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	if err := CheckURL(rawURL); err != nil {
		return nil, fmt.Errorf("database url: %w", err)
	}
	var (
		bdb      *bun.DB
		dialect  Dialect
		poolMode = PoolSession
	)
	switch {
	case isPostgresURL(rawURL):
		dsn, mode, err := splitPoolMode(rawURL)
		if err != nil {
			return nil, fmt.Errorf("database url: %w", err)
		}
		poolMode = mode
		// In session mode a connection is one server session throughout,
		// so it may keep prepared statements (prepare.go); behind a
		// transaction pooler it may not.
		pg := pgdriver.NewConnector(pgdriver.WithDSN(dsn))
		var connector driver.Connector = pg
		if mode == PoolSession {
			connector = preparingConnector{pg}
		}
		sqldb := sql.OpenDB(connector)
		sqldb.SetMaxOpenConns(maxConns)
		sqldb.SetMaxIdleConns(maxConns)
		sqldb.SetConnMaxIdleTime(5 * time.Minute)
		bdb = bun.NewDB(sqldb, pgdialect.New())
		dialect = Postgres
	default:
		dsn, err := sqliteDSN(rawURL)
		if err != nil {
			return nil, fmt.Errorf("database url: %w", err)
		}
		if err := sqliteDirExists(dsn); err != nil {
			return nil, err
		}
		sqldb, err := sql.Open(sqliteshim.ShimName, dsn)
		if err != nil {
			return nil, fmt.Errorf("opening sqlite %q: %w", rawURL, err)
		}
		// SQLite has one writer at a time. One connection turns lock waits
		// into ordinary queueing in database/sql instead of SQLITE_BUSY errors.
		sqldb.SetMaxOpenConns(1)
		sqldb.SetConnMaxIdleTime(0)
		sqldb.SetConnMaxLifetime(0)
		bdb = bun.NewDB(sqldb, sqlitedialect.New())
		dialect = SQLite
	}
	d := &DB{Store: Store{idb: bdb, dialect: dialect}, bun: bdb, url: rawURL, poolMode: poolMode}
	if err := d.Ping(ctx); err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("connecting to %s database: %w", dialect, err)
	}
	return d, nil
}

// CheckURL says why rawURL is not a database URL Open accepts, or nil. It
// does not echo the URL, which may hold a password.
func CheckURL(rawURL string) error {
	const accepted = "use postgres://user:password@host:5432/db?sslmode=disable (or postgresql://) for PostgreSQL, or sqlite:<file> (or a plain file path) for SQLite"
	switch {
	case strings.TrimSpace(rawURL) == "":
		return errors.New("empty; " + accepted)
	case isPostgresURL(rawURL):
		if _, err := url.Parse(rawURL); err != nil {
			return fmt.Errorf("not a valid PostgreSQL URL (%s); %s", urlProblem(err), accepted)
		}
		if _, _, err := splitPoolMode(rawURL); err != nil {
			return err
		}
		return nil
	case isSQLiteURL(rawURL):
		if _, err := sqliteDSN(rawURL); err != nil {
			return err
		}
		return nil
	}
	if m := schemeRE.FindStringSubmatch(rawURL); m != nil {
		return fmt.Errorf("jobwheel stores its data in PostgreSQL or SQLite, not %q; %s", m[1], accepted)
	}
	return nil // a plain SQLite file path
}

// schemeRE matches a URL scheme. A single letter is a Windows drive, so a
// scheme needs two.
var schemeRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]+):`)

func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

func isSQLiteURL(s string) bool {
	return strings.HasPrefix(s, "sqlite:") || strings.HasPrefix(s, "file:")
}

// urlProblem is what url.Parse objected to, without the URL it quotes.
func urlProblem(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return "unparsable"
}

// sqliteDSN turns sqlite:x, file:x or a path into a modernc DSN with the
// pragmas jobwheel relies on: WAL, a busy timeout and foreign keys.
func sqliteDSN(rawURL string) (string, error) {
	path := strings.TrimPrefix(rawURL, "sqlite://")
	path = strings.TrimPrefix(path, "sqlite:")
	path = strings.TrimPrefix(path, "file:")
	query := ""
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path, query = path[:i], path[i+1:]
	}
	if path == "" {
		return "", errors.New("no SQLite file named; use sqlite:<file>, such as sqlite:jobwheel.db")
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", fmt.Errorf("bad query string: %w", err)
	}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	if path != ":memory:" {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
	}
	q.Set("_time_format", "sqlite")
	return "file:" + path + "?" + q.Encode(), nil
}

// sqliteDirExists checks that the directory of a SQLite file exists: SQLite
// itself says only "unable to open database file: out of memory (14)".
func sqliteDirExists(dsn string) error {
	path := strings.TrimPrefix(dsn, "file:")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if path == ":memory:" {
		return nil
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("opening SQLite database %s: the directory %s does not exist", path, dir)
	}
	return nil
}

// Namespace is the PostgreSQL schema a search_path in the URL selects, ""
// if none: it tells clusters sharing one database apart.
func (d *DB) Namespace() string {
	u, err := url.Parse(d.url)
	if err != nil || d.dialect != Postgres {
		return ""
	}
	return u.Query().Get("search_path")
}

// Dialect says which database this is.
func (s *Store) Dialect() Dialect { return s.dialect }

// Bun exposes the underlying bun.DB to the db package's tests and tools.
func (d *DB) Bun() *bun.DB { return d.bun }

// Ping checks that the database answers.
func (d *DB) Ping(ctx context.Context) error {
	var one int
	if err := d.bun.NewSelect().ColumnExpr("1").Scan(ctx, &one); err != nil {
		return fmt.Errorf("pinging database: %w", err)
	}
	return nil
}

// Close closes the pool.
func (d *DB) Close() error { return d.bun.Close() }

// InTx runs fn in one transaction: committed if fn returns nil, rolled
// back otherwise.
func (d *DB) InTx(ctx context.Context, fn func(ctx context.Context, tx *Store) error) error {
	return d.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return fn(ctx, &Store{idb: tx, dialect: d.dialect})
	})
}

// TxFunc runs fn in one transaction, handing it the transaction as T: the
// caller's own small interface of the queries it runs there (which *Store
// implements). Code that decides inside a transaction takes a TxFunc, so a
// test can hand it a fake T and check the decisions without a database;
// production code gets one from InTxAs.
type TxFunc[T any] func(ctx context.Context, fn func(ctx context.Context, tx T) error) error

// Transactor is what InTxAs needs: *DB, or a consumer's Store interface
// that includes InTx.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context, tx *Store) error) error
}

// InTxAs returns d's transactions as T. *Store must implement T; a
// consumer states it at compile time with `var _ T = (*db.Store)(nil)`.
func InTxAs[T any](d Transactor) TxFunc[T] {
	return func(ctx context.Context, fn func(ctx context.Context, tx T) error) error {
		return d.InTx(ctx, func(ctx context.Context, tx *Store) error {
			t, ok := any(tx).(T)
			if !ok {
				return fmt.Errorf("db.InTxAs: *db.Store does not implement %T", (*T)(nil))
			}
			return fn(ctx, t)
		})
	}
}

// InSnapshot runs fn in a read-only transaction that sees one snapshot of
// the database throughout: a page and its total count read in it agree,
// whatever commits meanwhile. PostgreSQL needs REPEATABLE READ for that (in
// READ COMMITTED each statement sees its own snapshot); a SQLite
// transaction reads from one snapshot already.
func (d *DB) InSnapshot(ctx context.Context, fn func(ctx context.Context, tx *Store) error) error {
	var opts *sql.TxOptions
	if d.dialect == Postgres {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	return d.bun.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
		return fn(ctx, &Store{idb: tx, dialect: d.dialect})
	})
}

// MigrationsDigest identifies the schema the migrations build: a hash of
// every migration file's name and text. Test harnesses key reusable
// migrated databases on it, so a changed migration never reuses a stale one.
func MigrationsDigest() string {
	h := sha256.New()
	_ = fs.WalkDir(migrationFiles, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := migrationFiles.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

// migrationTemplate fills the dialect-specific types into the SQL migrations.
type migrationTemplate struct {
	ID, TS, JSON string
	// Postgres guards the few statements only one dialect has.
	Postgres bool
}

func (d *DB) migrations() (*migrate.Migrations, error) {
	m := migrate.NewMigrations()
	if err := m.Discover(migrationFiles); err != nil {
		return nil, fmt.Errorf("reading migrations: %w", err)
	}
	return m, nil
}

func (d *DB) migrator() (*migrate.Migrator, error) {
	m, err := d.migrations()
	if err != nil {
		return nil, err
	}
	return migrate.NewMigrator(d.bun, m, d.migratorOptions()...), nil
}

func (d *DB) migratorOptions() []migrate.MigratorOption {
	tmpl := migrationTemplate{ID: "INTEGER PRIMARY KEY AUTOINCREMENT", TS: "TIMESTAMP", JSON: "TEXT"}
	if d.dialect == Postgres {
		tmpl = migrationTemplate{ID: "BIGSERIAL PRIMARY KEY", TS: "TIMESTAMPTZ", JSON: "JSONB", Postgres: true}
	}
	return []migrate.MigratorOption{
		migrate.WithTableName("jobwheel_migrations"),
		migrate.WithLocksTableName("jobwheel_migration_locks"),
		// Without this a failed migration would be recorded as applied.
		migrate.WithMarkAppliedOnSuccess(true),
		migrate.WithTemplateData(tmpl),
	}
}

// migrateLockKey names the PostgreSQL advisory lock that serializes servers
// migrating the same schema at the same time; its second key is the
// schema's name, so clusters (and test databases) in other schemas of the
// same database migrate side by side.
const migrateLockKey = 0x6a6f6277 // "jobw"

// Migrate applies every pending migration. Several servers may call it at
// once against one PostgreSQL: an advisory lock lets one migrate while the
// others wait, then find nothing left to do.
//
// The lock is transaction-level (pg_advisory_xact_lock), held by a
// transaction kept open while the migrations run on other connections, and
// released when it ends. A session-level lock would break behind PgBouncer
// in transaction pooling mode (pooling.go): the lock and the unlock would
// each go to whichever server connection was free, leaving the lock held
// by a pooled session for good. A transaction keeps its one server
// connection throughout, through the pooler too; and whatever happens to
// this process, the lock goes with its transaction.
func (d *DB) Migrate(ctx context.Context) error {
	m, err := d.migrator()
	if err != nil {
		return err
	}
	if d.dialect == Postgres {
		lock, err := d.bun.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migrate: beginning the lock's transaction: %w", err)
		}
		defer func() { _ = lock.Rollback() }()
		if _, err := lock.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?, hashtext(current_schema()))", int32(migrateLockKey)); err != nil {
			return fmt.Errorf("migrate: taking the advisory lock: %w", err)
		}
	}
	if err := m.Init(ctx); err != nil {
		return fmt.Errorf("migrate: creating the migrations table: %w", err)
	}
	if _, err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// MigrateTo applies the pending migrations up to and including the one
// named (its timestamp, e.g. "20261129405000"), as one group: a test of a
// migration builds the schema it starts from with it, fills it, and then
// runs Migrate. It takes no lock.
func (d *DB) MigrateTo(ctx context.Context, name string) error {
	all, err := d.migrations()
	if err != nil {
		return err
	}
	upTo := migrate.NewMigrations()
	for _, m := range all.Sorted() {
		if m.Name <= name {
			upTo.Add(m)
		}
	}
	m := migrate.NewMigrator(d.bun, upTo, d.migratorOptions()...)
	if err := m.Init(ctx); err != nil {
		return fmt.Errorf("migrate: creating the migrations table: %w", err)
	}
	if _, err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate to %s: %w", name, err)
	}
	return nil
}

// RollbackLast rolls the last group of migrations back (the last Migrate
// that applied any).
func (d *DB) RollbackLast(ctx context.Context) error {
	m, err := d.migrator()
	if err != nil {
		return err
	}
	if _, err := m.Rollback(ctx); err != nil {
		return fmt.Errorf("rolling back migrations: %w", err)
	}
	return nil
}

// MigrateDown rolls every migration back; tests use it to prove the down
// migrations work.
func (d *DB) MigrateDown(ctx context.Context) error {
	m, err := d.migrator()
	if err != nil {
		return err
	}
	for {
		group, err := m.Rollback(ctx)
		if err != nil {
			return fmt.Errorf("rolling back migrations: %w", err)
		}
		if group.IsZero() {
			return nil
		}
	}
}

// isUniqueViolation reports whether err is a unique-constraint failure in
// either dialect.
func isUniqueViolation(err error) bool {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		return pgErr.Field('C') == "23505"
	}
	var sqliteErr *sqlite.Error
	if errors.As(err, &sqliteErr) {
		const constraintUnique, constraintPrimaryKey = 2067, 1555
		return sqliteErr.Code() == constraintUnique || sqliteErr.Code() == constraintPrimaryKey
	}
	return false
}

// IsRetryable reports whether err is PostgreSQL ending a transaction
// because of another (a deadlock, 40P01, or a serialization failure,
// 40001): the transaction did nothing and may simply be run again.
func IsRetryable(err error) bool {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		c := pgErr.Field('C')
		return c == "40P01" || c == "40001"
	}
	return false
}

// OutcomeUnknown reports whether a failed write may have committed all the
// same: the connection broke, timed out or was ended by the server (FATAL:
// shutdown, termination) while the transaction's COMMIT may already have
// taken effect — a primary killed or switched over at that moment. An
// error PostgreSQL answered a statement with (severity ERROR: a constraint,
// a serialization failure) rolled the transaction back, and any other error
// the caller's own code returned is its own: those are definite failures.
// So is a context that ended: database/sql rolls the transaction back
// rather than commit under a context that is done, and pgdriver runs the
// COMMIT itself without the context.
// A write whose outcome is unknown must be read back, never simply redone.
func OutcomeUnknown(err error) bool {
	if err == nil {
		return false
	}
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		severity := pgErr.Field('V') // not localized (PostgreSQL 9.6+)
		if severity == "" {
			severity = pgErr.Field('S')
		}
		return severity == "FATAL" || severity == "PANIC"
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false // a net.Error too, but a definite one (above)
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// IsDataError reports whether err is the database refusing a statement's
// data — a data exception (SQLSTATE class 22: a value out of range) or an
// integrity violation (23), or any SQLite error — which the same data would
// meet again. Other failures (a broken connection, a node that turned
// read-only in a switchover, 25006, a shutdown) pass with the database's
// trouble.
func IsDataError(err error) bool {
	var pgErr pgdriver.Error
	if errors.As(err, &pgErr) {
		c := pgErr.Field('C')
		return strings.HasPrefix(c, "22") || strings.HasPrefix(c, "23")
	}
	var sqliteErr *sqlite.Error
	return errors.As(err, &sqliteErr)
}

// wrap turns driver errors into the package's sentinels and says what was
// being done.
func wrap(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	case isUniqueViolation(err):
		return fmt.Errorf("%s: %w: %w", what, ErrConflict, err)
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
}

// Now is the database's notion of a timestamp: UTC, millisecond precision,
// which both dialects store exactly.
func Now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// Stamp is t as the database keeps it: UTC, to the millisecond, without a
// monotonic reading. Services read the time from their clock and stamp what
// they write, so a value read back compares equal to the one written.
func Stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// SchemaCreate creates a PostgreSQL schema, for tests and benchmarks that
// isolate themselves in one.
func (d *DB) SchemaCreate(ctx context.Context, name string) error {
	_, err := d.bun.ExecContext(ctx, "CREATE SCHEMA ?", bun.Ident(name))
	return wrap(err, "creating schema "+name)
}

// SchemaDrop drops a PostgreSQL schema and everything in it.
func (d *DB) SchemaDrop(ctx context.Context, name string) error {
	_, err := d.bun.ExecContext(ctx, "DROP SCHEMA IF EXISTS ? CASCADE", bun.Ident(name))
	return wrap(err, "dropping schema "+name)
}

// WithSearchPath returns a PostgreSQL URL whose connections use schema.
func WithSearchPath(rawURL, schema string) string {
	sep := "?"
	if strings.Contains(rawURL, "?") {
		sep = "&"
	}
	return rawURL + sep + "search_path=" + url.QueryEscape(schema)
}
