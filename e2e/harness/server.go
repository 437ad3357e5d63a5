package harness

import (
	"context"
	"path/filepath"
	"time"
)

// ServerOptions configure a server process.
type ServerOptions struct {
	// DatabaseURL defaults to a fresh SQLite file in a temp dir.
	DatabaseURL string
	// AdminPassword defaults to DefaultAdminPassword.
	AdminPassword string
	// Addr defaults to a free loopback port.
	Addr string
	// Env adds environment variables (KEY=value).
	Env []string
	// Dir is the working directory; a temp dir by default.
	Dir string
	// Name labels the process in output; "server" by default.
	Name string
}

// DefaultAdminPassword is the admin password of harness servers.
const DefaultAdminPassword = "e2e-admin-password"

// Server is a running jobwheel server.
type Server struct {
	*Process
	URL           string
	Addr          string
	AdminPassword string
	DatabaseURL   string
	opts          ServerOptions
	tb            TB
}

// StartServer starts a server and waits until it is ready. It is stopped
// (SIGTERM) when the test ends.
func StartServer(tb TB, opts ServerOptions) *Server {
	tb.Helper()
	Build(tb)
	if opts.Dir == "" {
		opts.Dir = tb.TempDir()
	}
	if opts.DatabaseURL == "" {
		opts.DatabaseURL = "sqlite:" + filepath.Join(opts.Dir, "jobwheel.db")
	}
	if opts.AdminPassword == "" {
		opts.AdminPassword = DefaultAdminPassword
	}
	if opts.Addr == "" {
		opts.Addr = FreeAddr(tb)
	}
	if opts.Name == "" {
		opts.Name = "server"
	}
	s := &Server{URL: "http://" + opts.Addr, Addr: opts.Addr, AdminPassword: opts.AdminPassword, DatabaseURL: opts.DatabaseURL, opts: opts, tb: tb}
	s.start()
	tb.Cleanup(func() {
		if !s.Exited() {
			if err := s.Stop(20 * time.Second); err != nil {
				tb.Logf("%v", err)
			}
		}
	})
	return s
}

func (s *Server) start() {
	s.tb.Helper()
	env := append([]string{
		"JOBWHEEL_DATABASE_URL=" + s.opts.DatabaseURL,
		"JOBWHEEL_HTTP_ADDR=" + s.opts.Addr,
		"JOBWHEEL_ADMIN_PASSWORD=" + s.opts.AdminPassword,
		"JOBWHEEL_ADVERTISE_URL=" + s.URL,
		"JOBWHEEL_LOG_LEVEL=debug",
	}, s.opts.Env...)
	s.Process = startProcess(s.tb, s.opts.Name, Build(s.tb).Server, nil, env, s.opts.Dir)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := waitHTTP(ctx, s.URL+"/readyz"); err != nil {
		s.Kill()
		s.tb.Fatalf("server did not start: %v\noutput:\n%s", err, s.Output())
	}
}

// Restart starts the server again on the same address and database after
// it was stopped or killed.
func (s *Server) Restart() {
	s.tb.Helper()
	if !s.Exited() {
		s.tb.Fatalf("Restart: %s is still running", s.Name)
	}
	s.start()
}

// Client returns a GraphQL client for this server, logged in as admin.
func (s *Server) Client() *Client {
	s.tb.Helper()
	c := NewClient(s.URL)
	if err := c.Login("admin", s.AdminPassword); err != nil {
		s.tb.Fatalf("logging in as admin: %v", err)
	}
	return c
}
