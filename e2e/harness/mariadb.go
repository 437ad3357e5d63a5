package harness

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"os/exec"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/jobwheel/jobwheel/internal/testkit"
)

// MariaDBEnv names the MariaDB (or MySQL) server the importer's tests use,
// as a DSN without a database; default root@tcp(127.0.0.1:3306)/, the
// server these machines run (Debian's mariadb-server, `make deps`
// installs it).
const MariaDBEnv = "JOBWHEEL_TEST_MYSQL"

// mariadbd is Debian's server binary, started as the machines start it.
const mariadbd = "/usr/sbin/mariadbd"

// mariaDBFailsafe bounds waiting for a server that was just started; no
// assertion on speed.
const mariaDBFailsafe = 2 * time.Minute

// MariaDB returns the test MariaDB server's configuration (no database
// chosen), starting Debian's mariadbd the way the machines start it if
// nothing answers on the default address.
func MariaDB(tb TB) *mysql.Config {
	tb.Helper()
	dsn := os.Getenv(MariaDBEnv)
	if dsn == "" {
		dsn = "root@tcp(127.0.0.1:3306)/"
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		tb.Fatalf("%s=%q: %v", MariaDBEnv, dsn, err)
	}
	cfg.MultiStatements = true
	if ping(cfg) == nil {
		return cfg
	}
	if os.Getenv(MariaDBEnv) == "" {
		if _, err := os.Stat(mariadbd); err == nil {
			tb.Logf("no MariaDB answers at %s: starting %s", cfg.Addr, mariadbd)
			out, err := exec.Command("start-stop-daemon", "--start", "--oknodo", "--background", "--exec", mariadbd).CombinedOutput()
			if err != nil {
				tb.Fatalf("starting %s: %v\n%s", mariadbd, err, out)
			}
			testkit.Poll(mariaDBFailsafe, func() bool { return ping(cfg) == nil })
		}
	}
	if err := ping(cfg); err != nil {
		tb.Fatalf("no MariaDB at %s (%v): install Debian's mariadb-server (make deps), or name a server in %s", cfg.Addr, err, MariaDBEnv)
	}
	return cfg
}

func ping(cfg *mysql.Config) error {
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer func() { _ = db.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return db.PingContext(ctx)
}

// MariaDBDatabase creates a database of its own on the test MariaDB
// server, runs the SQL script (its statements, ';'-separated) in it, and
// returns its DSN; the database is dropped when the test ends.
func MariaDBDatabase(tb TB, script string) string {
	tb.Helper()
	cfg := MariaDB(tb)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "jwtest_import_" + hex.EncodeToString(b)
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		tb.Fatalf("mariadb: %v", err)
	}
	admin := sql.OpenDB(conn)
	tb.Cleanup(func() { _ = admin.Close() })
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE `"+name+"` CHARACTER SET utf8mb4"); err != nil {
		tb.Fatalf("mariadb: creating database %s: %v", name, err)
	}
	tb.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
			tb.Logf("mariadb: dropping database %s: %v", name, err)
		}
	})
	dbCfg := cfg.Clone()
	dbCfg.DBName = name
	conn, err = mysql.NewConnector(dbCfg)
	if err != nil {
		tb.Fatalf("mariadb: %v", err)
	}
	db := sql.OpenDB(conn)
	defer func() { _ = db.Close() }()
	if _, err := db.ExecContext(ctx, script); err != nil {
		tb.Fatalf("mariadb: loading database %s: %v", name, err)
	}
	dbCfg.MultiStatements = false
	return dbCfg.FormatDSN()
}
