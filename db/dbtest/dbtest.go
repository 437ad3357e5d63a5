// Package dbtest gives tests a migrated, isolated database in either
// dialect. PostgreSQL is real: JOBWHEEL_TEST_DATABASE_URL, else the local
// default, else a throwaway cluster started with initdb/pg_ctl. Tests never
// skip for want of a database; they fail saying how to get one.
//
// Open hands out databases migrated once, not per test (template.go): a
// copied SQLite file, or an emptied schema from a pool of migrated
// PostgreSQL schemas shared by every test process. NewSchema gives an
// empty, unmigrated schema, for tests of migrating itself and for servers
// started by the end-to-end tests.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// DefaultURL is where tests look for PostgreSQL first.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// throwawayPort is where a cluster started by the harness listens.
const throwawayPort = "55432"

var (
	pgOnce sync.Once
	pgURL  string
	pgErr  error
)

// TB is the part of testing.TB that PostgresURL, NewSchema and OpenURL use,
// so commands outside `go test` (the benchmarks, the soak) get a database
// the same way tests do.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// PostgresURL returns the URL of a PostgreSQL that answers, starting a
// throwaway cluster if none does. It fails the test if it cannot.
func PostgresURL(tb TB) string {
	tb.Helper()
	url, err := FindPostgres()
	if err != nil {
		tb.Fatalf("no PostgreSQL for tests: %v\n"+
			"Start one on 127.0.0.1:5432 (user postgres, trust auth, database test), "+
			"set JOBWHEEL_TEST_DATABASE_URL, or install PostgreSQL's server binaries "+
			"(Debian: apt-get install postgresql) so the harness can start a throwaway cluster.", err)
	}
	return url
}

// FindPostgres returns the URL of a PostgreSQL that answers, starting a
// throwaway cluster if none does (for callers outside tests, e.g. the
// benchmarks).
func FindPostgres() (string, error) {
	pgOnce.Do(func() { pgURL, pgErr = findPostgres() })
	return pgURL, pgErr
}

func findPostgres() (string, error) {
	if u := os.Getenv("JOBWHEEL_TEST_DATABASE_URL"); u != "" {
		if err := answers(u); err != nil {
			return "", fmt.Errorf("JOBWHEEL_TEST_DATABASE_URL=%s does not answer: %w", u, err)
		}
		return u, nil
	}
	if answers(DefaultURL) == nil {
		return DefaultURL, nil
	}
	throwaway := "postgres://postgres@127.0.0.1:" + throwawayPort + "/postgres?sslmode=disable"
	if answers(throwaway) == nil {
		return throwaway, nil
	}
	if err := startThrowaway(); err != nil {
		return "", fmt.Errorf("nothing answers at %s and starting a throwaway cluster failed: %w", DefaultURL, err)
	}
	return throwaway, answers(throwaway)
}

func answers(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	conn, err := net.DialTimeout("tcp", u.Host, 2*time.Second)
	if err != nil {
		return err
	}
	_ = conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := db.Open(ctx, rawURL)
	if err != nil {
		return err
	}
	return d.Close()
}

// startThrowaway initialises a cluster under the temp dir (kept between
// runs) and starts it on throwawayPort. initdb refuses to run as root, so as
// root it runs as the postgres user.
func startThrowaway() error {
	initdb, err := findPGBinary("initdb")
	if err != nil {
		return err
	}
	pgctl, err := findPGBinary("pg_ctl")
	if err != nil {
		return err
	}
	dir := filepath.Join(os.TempDir(), "jobwheel-test-pg")
	var asUser []string
	if os.Geteuid() == 0 {
		pgUser, err := user.Lookup("postgres")
		if err != nil {
			return fmt.Errorf("running as root and there is no postgres user to run initdb as: %w", err)
		}
		asUser = []string{"runuser", "-u", "postgres", "--"}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		if err := exec.Command("chown", pgUser.Username, dir).Run(); err != nil {
			return fmt.Errorf("chown %s: %w", dir, err)
		}
	}
	run := func(args ...string) ([]byte, error) {
		full := append(append([]string{}, asUser...), args...)
		return exec.Command(full[0], full[1:]...).CombinedOutput()
	}
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err != nil {
		if out, err := run(initdb, "-D", dir, "-U", "postgres", "--auth=trust", "--no-sync"); err != nil {
			return fmt.Errorf("initdb: %w: %s", err, out)
		}
	}
	opts := "-p " + throwawayPort + " -c listen_addresses=127.0.0.1 -k " + dir + " -c fsync=off -c max_connections=300"
	if out, err := run(pgctl, "-D", dir, "-l", filepath.Join(dir, "log"), "-o", opts, "-w", "start"); err != nil {
		return fmt.Errorf("pg_ctl start: %w: %s", err, out)
	}
	return nil
}

func findPGBinary(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(matches) > 0 {
		return matches[len(matches)-1], nil
	}
	return "", fmt.Errorf("%s is not installed", name)
}

// NewSchema creates an empty schema in the test PostgreSQL, drops it when
// the test ends, and returns a URL whose connections use it.
func NewSchema(tb TB) string {
	tb.Helper()
	base := PostgresURL(tb)
	ctx := context.Background()
	admin, err := db.Open(ctx, base)
	if err != nil {
		tb.Fatalf("opening test PostgreSQL: %v", err)
	}
	defer func() { _ = admin.Close() }()
	schema := "jw_" + randomHex(6)
	if err := admin.SchemaCreate(ctx, schema); err != nil {
		tb.Fatalf("creating schema: %v", err)
	}
	tb.Cleanup(func() {
		admin, err := db.Open(context.Background(), base)
		if err != nil {
			tb.Errorf("dropping schema %s: %v", schema, err)
			return
		}
		defer func() { _ = admin.Close() }()
		if err := admin.SchemaDrop(context.Background(), schema); err != nil {
			tb.Errorf("dropping schema %s: %v", schema, err)
		}
	})
	return db.WithSearchPath(base, schema)
}

// NewDatabase creates an empty database in the test PostgreSQL, drops it
// when the test ends, and returns its URL. The benchmarks use one rather
// than a schema: PostgreSQL counts commits per database, and a schema in
// the shared test database would count every other test's.
func NewDatabase(tb TB) string {
	tb.Helper()
	base := PostgresURL(tb)
	ctx := context.Background()
	admin, err := db.Open(ctx, base)
	if err != nil {
		tb.Fatalf("opening test PostgreSQL: %v", err)
	}
	defer func() { _ = admin.Close() }()
	name := "jw_" + randomHex(6)
	rawURL, err := db.WithDatabase(base, name)
	if err != nil {
		tb.Fatalf("%v", err)
	}
	if err := admin.DatabaseCreate(ctx, name); err != nil {
		tb.Fatalf("%v", err)
	}
	tb.Cleanup(func() {
		// DROP DATABASE waits for a checkpoint, which on a busy shared
		// server outlasts the driver's default read timeout of 10 s.
		admin, err := db.Open(context.Background(), withParam(base, "read_timeout", "5m"))
		if err != nil {
			tb.Errorf("dropping database %s: %v", name, err)
			return
		}
		defer func() { _ = admin.Close() }()
		if err := admin.DatabaseDrop(context.Background(), name); err != nil {
			tb.Errorf("%v", err)
		}
	})
	return rawURL
}

// withParam adds a query parameter to a URL.
func withParam(rawURL, name, value string) string {
	sep := "?"
	if strings.Contains(rawURL, "?") {
		sep = "&"
	}
	return rawURL + sep + name + "=" + url.QueryEscape(value)
}

// OpenURL opens the database at rawURL (e.g. one from NewSchema that a
// server migrated), closed when the test ends. It does not migrate.
func OpenURL(tb TB, rawURL string) *db.DB {
	tb.Helper()
	d, err := db.Open(context.Background(), rawURL)
	if err != nil {
		tb.Fatalf("opening the database: %v", err)
	}
	tb.Cleanup(func() { _ = d.Close() })
	return d
}

// NewSQLite returns the URL of a fresh SQLite file in the test's temp dir.
func NewSQLite(tb testing.TB) string {
	tb.Helper()
	return "sqlite:" + filepath.Join(tb.TempDir(), "jobwheel.db")
}

// Open returns a migrated, empty database of the dialect, closed when the
// test ends. It comes from a template (template.go): no migration runs per
// test.
func Open(tb testing.TB, dialect db.Dialect) *db.DB {
	tb.Helper()
	var u string
	switch dialect {
	case db.Postgres:
		u = pool.take(tb)
	case db.SQLite:
		u = newSQLiteCopy(tb)
	default:
		tb.Fatalf("unknown dialect %q", dialect)
	}
	d, err := db.Open(context.Background(), u)
	if err != nil {
		tb.Fatalf("opening %s: %v", dialect, err)
	}
	tb.Cleanup(func() { _ = d.Close() })
	return d
}

// Dialects are the databases every db test runs against.
var Dialects = []db.Dialect{db.SQLite, db.Postgres}

// Each runs fn as a parallel subtest on a fresh database of each dialect.
func Each(t *testing.T, fn func(t *testing.T, d *db.DB)) {
	t.Helper()
	for _, dialect := range Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			t.Parallel()
			fn(t, Open(t, dialect))
		})
	}
}

// OpenFresh is Open for a test that changes the schema's structure (drops
// history partitions, say), which an emptied pooled schema would hand on
// to the next test: on PostgreSQL it migrates a new schema of its own,
// dropped when the test ends (a few seconds); a SQLite copy is fresh
// anyway.
func OpenFresh(tb testing.TB, dialect db.Dialect) *db.DB {
	tb.Helper()
	if dialect != db.Postgres {
		return Open(tb, dialect)
	}
	d := OpenURL(tb, NewSchema(tb))
	if err := d.Migrate(context.Background()); err != nil {
		tb.Fatalf("migrating a fresh schema: %v", err)
	}
	return d
}

// EachFresh is Each with OpenFresh's databases.
func EachFresh(t *testing.T, fn func(t *testing.T, d *db.DB)) {
	t.Helper()
	for _, dialect := range Dialects {
		t.Run(string(dialect), func(t *testing.T) {
			t.Parallel()
			fn(t, OpenFresh(t, dialect))
		})
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
