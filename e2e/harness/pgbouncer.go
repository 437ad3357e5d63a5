package harness

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/internal/testkit"
)

// PgBouncerPath returns Debian's pgbouncer binary, or "" if it is not
// installed (`make test-deps` installs it).
func PgBouncerPath() string {
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/pgbouncer"); err == nil {
		return "/usr/sbin/pgbouncer"
	}
	return ""
}

// StartPgBouncer starts PgBouncer in transaction pooling mode on a free
// loopback port, in front of the PostgreSQL database of dbURL, and returns
// the URL a jobwheel server connects through it with (pool_mode=transaction
// set). A search_path in dbURL — the harness gives each test a schema of
// its own — cannot travel through a transaction pooler as a session
// setting, so PgBouncer sets it on each of its server connections instead
// (connect_query), as a deployment would with ALTER ROLE … SET search_path.
// It is stopped when the test ends.
func StartPgBouncer(tb TB, dbURL string) string {
	tb.Helper()
	bin := PgBouncerPath()
	if bin == "" {
		tb.Fatalf("pgbouncer is not installed: run `make test-deps` (apt-get install -y pgbouncer)")
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		tb.Fatalf("pgbouncer: database url: %v", err)
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		host, port = u.Hostname(), "5432"
	}
	dbname := strings.TrimPrefix(u.Path, "/")
	username := u.User.Username()
	password, _ := u.User.Password()
	schema := u.Query().Get("search_path")

	dir, err := os.MkdirTemp("", "jobwheel-pgbouncer-")
	if err != nil {
		tb.Fatalf("pgbouncer: %v", err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	target := fmt.Sprintf("host=%s port=%s dbname=%s user=%s", host, port, dbname, username)
	if password != "" {
		target += " password=" + password
	}
	if schema != "" {
		target += fmt.Sprintf(" connect_query='SET search_path TO %s'", schema)
	}
	listen := FreeAddr(tb)
	_, listenPort, _ := net.SplitHostPort(listen)
	ini := strings.Join([]string{
		"[databases]",
		"jobwheel = " + target,
		"[pgbouncer]",
		"listen_addr = 127.0.0.1",
		"listen_port = " + listenPort,
		"unix_socket_dir =",
		"auth_type = trust",
		"auth_file = " + filepath.Join(dir, "userlist.txt"),
		"pool_mode = transaction",
		"max_client_conn = 1000",
		// Four servers of up to 20 connections each share these: what a
		// pooler is for.
		"default_pool_size = 30",
		"ignore_startup_parameters = extra_float_digits",
		"",
	}, "\n")
	files := map[string]string{
		"pgbouncer.ini": ini,
		"userlist.txt":  fmt.Sprintf("%q %q\n", username, ""),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			tb.Fatalf("pgbouncer: %v", err)
		}
	}
	// PgBouncer refuses to run as root: as root, it switches to postgres
	// itself (-u), so the process killed at the end is PgBouncer's.
	args := []string{bin}
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("postgres"); err != nil {
			tb.Fatalf("pgbouncer: running as root and there is no postgres user to run it as: %v", err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			tb.Fatalf("pgbouncer: %v", err)
		}
		args = append(args, "-u", "postgres")
	}
	args = append(args, filepath.Join(dir, "pgbouncer.ini"))
	out := &syncBuffer{}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting pgbouncer: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		err := <-exited
		log := out.String()
		tb.Logf("pgbouncer stopped (%v); the end of its log:\n%s", err, log[max(0, len(log)-4000):])
	})
	if !testkit.Poll(10*time.Second, func() bool {
		select {
		case err := <-exited:
			exited <- err
			return true
		default:
		}
		c, err := net.Dial("tcp", listen)
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	}) {
		tb.Fatalf("pgbouncer did not listen on %s:\n%s", listen, out.String())
	}
	select {
	case err := <-exited:
		exited <- err
		tb.Fatalf("pgbouncer exited: %v\n%s", err, out.String())
	default:
	}
	tb.Logf("pgbouncer (transaction pooling) on %s in front of %s:%s/%s", listen, host, port, dbname)
	return fmt.Sprintf("postgres://%s@%s/jobwheel?sslmode=disable&pool_mode=transaction", url.User(username).String(), listen)
}
