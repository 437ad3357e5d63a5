package dbtest

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/jobwheel/jobwheel/db"
)

// A migrated database costs 18 migrations: ~0.1 s on SQLite and 1–4 s on
// PostgreSQL on a busy 2-core machine, for each of the hundreds of tests
// that want an empty one. So tests are handed databases migrated once:
//
//   - SQLite: a file migrated once per test process, copied for each test.
//   - PostgreSQL: a pool of migrated schemas, reused across tests and test
//     processes, as River's riverdbtest does. A schema is named after the
//     migrations' digest and a number (jwtest_<digest>_<n>); a test takes the
//     first one whose advisory lock it gets, creating and migrating it if it
//     does not exist yet, and empties it (TRUNCATE … RESTART IDENTITY). The
//     lock, held on one connection per process, keeps every other test
//     process off the schema until the test ends or the process dies (the
//     lock goes with its connection). Schemas of older digests are dropped
//     by the first process that can lock them.

// sqliteTemplate is the SQLite file migrated once per process.
var sqliteTemplate struct {
	once sync.Once
	path string
	err  error
}

// newSQLiteCopy returns a fresh, migrated SQLite file in the test's temp dir.
func newSQLiteCopy(tb testing.TB) string {
	tb.Helper()
	sqliteTemplate.once.Do(func() {
		dir, err := os.MkdirTemp("", "jobwheel-sqlite-template-")
		if err != nil {
			sqliteTemplate.err = err
			return
		}
		path := filepath.Join(dir, "template.db")
		ctx := context.Background()
		d, err := db.Open(ctx, "sqlite:"+path)
		if err != nil {
			sqliteTemplate.err = err
			return
		}
		if err := d.Migrate(ctx); err != nil {
			_ = d.Close()
			sqliteTemplate.err = err
			return
		}
		// Everything into the main file, so one file is the whole database.
		if _, err := d.Bun().ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			_ = d.Close()
			sqliteTemplate.err = err
			return
		}
		sqliteTemplate.err = d.Close()
		sqliteTemplate.path = path
	})
	if sqliteTemplate.err != nil {
		tb.Fatalf("migrating the SQLite template: %v", sqliteTemplate.err)
	}
	dst := filepath.Join(tb.TempDir(), "jobwheel.db")
	if err := copyFile(sqliteTemplate.path, dst); err != nil {
		tb.Fatalf("copying the SQLite template: %v", err)
	}
	return "sqlite:" + dst
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// schemaPool hands out migrated PostgreSQL schemas (see the top of the file).
type schemaPool struct {
	once   sync.Once
	err    error
	admin  *db.DB
	conn   bun.Conn // holds this process's advisory locks
	prefix string   // jwtest_<digest>_

	mu   sync.Mutex // guards conn and held
	held map[int]bool
}

var pool schemaPool

func (p *schemaPool) init(base string) error {
	p.once.Do(func() {
		ctx := context.Background()
		if p.admin, p.err = db.Open(ctx, base); p.err != nil {
			return
		}
		if p.conn, p.err = p.admin.Bun().Conn(ctx); p.err != nil {
			return
		}
		// The layout version (2: seed copies kept) and the migrations digest
		// name the pool: a change to either starts a new one.
		p.prefix = "jwtest_2" + db.MigrationsDigest()[:11] + "_"
		p.held = map[int]bool{}
		p.dropStale(ctx)
	})
	return p.err
}

// lockKey is a schema's advisory lock key.
func lockKey(schema string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("jobwheel dbtest " + schema))
	return int64(h.Sum64())
}

// tryLock takes the schema's advisory lock on the pool's connection.
func (p *schemaPool) tryLock(ctx context.Context, schema string) (bool, error) {
	var ok bool
	err := p.conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock(?)", lockKey(schema)).Scan(&ok)
	return ok, err
}

func (p *schemaPool) unlock(ctx context.Context, schema string) {
	_, _ = p.conn.ExecContext(ctx, "SELECT pg_advisory_unlock(?)", lockKey(schema))
}

// dropStale drops the pool schemas of other migration digests that no
// process is using.
func (p *schemaPool) dropStale(ctx context.Context) {
	var stale []string
	err := p.admin.Bun().NewSelect().ColumnExpr("nspname").TableExpr("pg_namespace").
		Where("nspname LIKE 'jwtest\\_%' AND nspname NOT LIKE ?", p.prefix+"%").Scan(ctx, &stale)
	if err != nil {
		return
	}
	for _, s := range stale {
		if ok, err := p.tryLock(ctx, s); err == nil && ok {
			_ = p.admin.SchemaDrop(ctx, s)
			p.unlock(ctx, s)
		}
	}
}

// take returns the URL of an empty, migrated schema, released when the test
// ends.
func (p *schemaPool) take(tb testing.TB) string {
	tb.Helper()
	base := PostgresURL(tb)
	if err := p.init(base); err != nil {
		tb.Fatalf("preparing the test schema pool: %v", err)
	}
	ctx := context.Background()
	p.mu.Lock()
	var schema string
	var n int
	for n = 0; ; n++ {
		if p.held[n] {
			continue
		}
		schema = fmt.Sprintf("%s%d", p.prefix, n)
		ok, err := p.tryLock(ctx, schema)
		if err != nil {
			p.mu.Unlock()
			tb.Fatalf("locking test schema %s: %v", schema, err)
		}
		if ok {
			p.held[n] = true
			break
		}
	}
	p.mu.Unlock()
	release := func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if tb.Failed() {
			// A failed test may have left it half-migrated: start afresh.
			_ = p.admin.SchemaDrop(context.Background(), schema)
		}
		p.unlock(context.Background(), schema)
		delete(p.held, n)
	}
	url := db.WithSearchPath(base, schema)
	if err := p.prepare(ctx, schema, url); err != nil {
		release()
		tb.Fatalf("preparing test schema %s: %v", schema, err)
	}
	tb.Cleanup(release)
	return url
}

// seedPrefix names the copies of the rows the migrations seed (counters,
// say), kept beside the tables so an emptied schema gets them back.
const seedPrefix = "dbtest_seed__"

// prepare creates and migrates the schema if it is new, and empties it:
// every table back to what the migrations left in it, every sequence
// restarted.
func (p *schemaPool) prepare(ctx context.Context, schema, url string) error {
	var exists bool
	if err := p.admin.Bun().NewSelect().ColumnExpr("EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = ?)", schema).Scan(ctx, &exists); err != nil {
		return err
	}
	d, err := db.Open(ctx, url)
	if err != nil {
		return err
	}
	defer func() { _ = d.Close() }()
	if !exists {
		if err := p.admin.SchemaCreate(ctx, schema); err != nil {
			return err
		}
		err := d.Migrate(ctx)
		if err == nil {
			err = keepSeeds(ctx, d, schema)
		}
		if err != nil {
			// A half-made schema must not be handed out later.
			_ = p.admin.SchemaDrop(ctx, schema)
		}
		return err
	}
	// Empty only the tables the last test wrote to (most tests touch a few
	// of them), put back what the migrations seeded, and restart every
	// sequence: ids start at 1 again.
	used, err := nonEmptyTables(ctx, d, schema)
	if err != nil {
		return err
	}
	if len(used) > 0 {
		if _, err := d.Bun().ExecContext(ctx, "TRUNCATE "+strings.Join(used, ", ")+" CASCADE"); err != nil {
			return err
		}
	}
	var seeds []string
	if err := d.Bun().NewSelect().ColumnExpr("tablename").TableExpr("pg_tables").
		Where("schemaname = ? AND tablename LIKE ?", schema, seedPrefix+"%").Scan(ctx, &seeds); err != nil {
		return err
	}
	for _, seed := range seeds {
		table := strings.TrimPrefix(seed, seedPrefix)
		if _, err := d.Bun().ExecContext(ctx, "DELETE FROM ?; INSERT INTO ? SELECT * FROM ?",
			bun.Ident(table), bun.Ident(table), bun.Ident(seed)); err != nil {
			return fmt.Errorf("restoring the rows the migrations seeded in %s: %w", table, err)
		}
	}
	_, err = d.Bun().ExecContext(ctx, `DO $$ DECLARE s record; BEGIN
		FOR s IN SELECT sequence_schema, sequence_name FROM information_schema.sequences WHERE sequence_schema = current_schema() LOOP
			EXECUTE format('ALTER SEQUENCE %I.%I RESTART', s.sequence_schema, s.sequence_name);
		END LOOP; END $$`)
	return err
}

// nonEmptyTables lists the schema's tables (not the migrator's, not the
// seed copies) that hold a row, in one statement.
func nonEmptyTables(ctx context.Context, d *db.DB, schema string) ([]string, error) {
	var tables []string
	err := d.Bun().NewSelect().ColumnExpr("quote_ident(tablename)").TableExpr("pg_tables").
		Where("schemaname = ? AND tablename NOT LIKE 'jobwheel\\_migration%' AND tablename NOT LIKE ?", schema, seedPrefix+"%").
		Scan(ctx, &tables)
	if err != nil || len(tables) == 0 {
		return nil, err
	}
	probes := make([]string, len(tables))
	for i, t := range tables {
		probes[i] = fmt.Sprintf("SELECT '%s' WHERE EXISTS (SELECT 1 FROM %s)", strings.ReplaceAll(t, "'", "''"), t)
	}
	var used []string
	err = d.Bun().NewRaw(strings.Join(probes, " UNION ALL ")).Scan(ctx, &used)
	return used, err
}

// keepSeeds copies the rows a freshly migrated schema holds (what the
// migrations seed) beside their tables.
func keepSeeds(ctx context.Context, d *db.DB, schema string) error {
	seeded, err := nonEmptyTables(ctx, d, schema)
	if err != nil {
		return err
	}
	for _, t := range seeded {
		name := strings.Trim(t, `"`)
		if _, err := d.Bun().ExecContext(ctx, "CREATE TABLE ? AS TABLE ?", bun.Ident(seedPrefix+name), bun.Ident(name)); err != nil {
			return fmt.Errorf("keeping the rows the migrations seeded in %s: %w", name, err)
		}
	}
	return nil
}
