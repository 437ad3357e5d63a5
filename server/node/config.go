package node

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/envflag"
	"github.com/jobwheel/jobwheel/server/api/alarm"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/netguard"
)

// Config is the server's configuration. Every flag has an environment
// variable of the same meaning (docs/design.md §10); a flag given on the command line
// wins over the environment.
type Config struct {
	DatabaseURL    string
	HTTPAddr       string
	AdvertiseURL   string
	AdminPassword  string
	ServerID       string
	LogLevel       slog.Level
	LogFormat      string
	AllowedOrigins []string
	// Demo creates the demo app and its example jobs on first start.
	Demo bool
	// Retention is how long finished instances (with their logs) are kept.
	Retention time.Duration
	// SMTPURL is the mail relay for email alarms.
	SMTPURL string
	// LeaseTTL is how long an app's lease lasts without renewal: how long
	// apps of a crashed server wait before another takes them.
	LeaseTTL time.Duration
	// AlarmAllowNetworks are the non-public ranges alarm webhooks may
	// reach (loopback, private and link-local are refused otherwise).
	AlarmAllowNetworks []netip.Prefix
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is
	// believed.
	TrustedProxies []netip.Prefix
	// DebugAddr is where net/http/pprof (CPU, heap, goroutine profiles and
	// the runtime trace) is served, on a listener of its own; empty: not
	// served. A port without a host means loopback.
	DebugAddr string
	// ExpressionCPU is the CPU time one evaluation of a DECISION's or
	// FOREACH's expression may use before its node fails with
	// EXPRESSION_TIMEOUT.
	ExpressionCPU time.Duration
	// Version is the binary's version, set by the command (at build time).
	Version string
}

// ParseConfig reads the configuration from the command line and the
// environment; -h prints every setting and returns flag.ErrHelp.
func ParseConfig(args []string, getenv func(string) string, stderr io.Writer) (*Config, error) {
	set := envflag.New("jobwheel-server", getenv, stderr)
	var (
		databaseURL = set.String("database-url", "JOBWHEEL_DATABASE_URL", "sqlite:jobwheel.db",
			"database: postgres://user:password@host:5432/db?sslmode=disable (or postgresql://) for PostgreSQL, or sqlite:<file> for SQLite")
		httpAddr = set.String("http-addr", "JOBWHEEL_HTTP_ADDR", ":7700",
			"host:port to serve the console, API and worker channel on")
		advertiseURL = set.String("advertise-url", "JOBWHEEL_ADVERTISE_URL", "",
			"URL workers and other servers reach this server at; default http://<hostname>:<port>")
		adminPassword = set.String("admin-password", "JOBWHEEL_ADMIN_PASSWORD", "",
			"password of the user 'admin' created on first start (8 to 72 bytes); generated and printed once if empty")
		serverID = set.String("server-id", "JOBWHEEL_SERVER_ID", "",
			"this server's id in the cluster (at most 64 characters); default <hostname>-<random>")
		logLevel  = set.String("log-level", "JOBWHEEL_LOG_LEVEL", "info", "debug, info, warn or error")
		logFormat = set.String("log-format", "JOBWHEEL_LOG_FORMAT", "text", "text or json")
		origins   = set.String("allowed-origins", "JOBWHEEL_ALLOWED_ORIGINS", "",
			"extra comma-separated host[:port] patterns (* wildcards, no scheme) allowed to open API websockets from a browser")
		demo = set.Bool("demo", "JOBWHEEL_DEMO", "false",
			"on first start, create the app \"demo\" with example jobs and write its secret to jobwheel-demo.secret; make run turns it on")
		retention = set.String("retention", "JOBWHEEL_RETENTION", "168h",
			"how long finished instances, with their tasks and log lines, are kept; 0 keeps them forever")
		smtpURL = set.String("smtp-url", "JOBWHEEL_SMTP_URL", "",
			"mail relay for email alarms: smtp://user:password@host:port?from=address; empty: webhook alarms only")
		leaseTTL = set.String("lease-ttl", "JOBWHEEL_LEASE_TTL", "4s",
			"how long an app's lease lasts without renewal, i.e. how soon another server takes over the apps of one that died; at least 3s")
		alarmAllow = set.String("alarm-allow-networks", "JOBWHEEL_ALARM_ALLOW_NETWORKS", "",
			"comma-separated address ranges (CIDR) alarm webhooks may reach although they are not public, e.g. 10.0.0.0/8; loopback, private, link-local and metadata addresses are refused otherwise")
		debugAddr = set.String("debug-addr", "JOBWHEEL_DEBUG_ADDR", "",
			"host:port to serve net/http/pprof profiles and the runtime trace on, on a listener of their own; a bare :port listens on loopback only; empty: off")
		exprCPU = set.String("expression-cpu", "JOBWHEEL_EXPRESSION_CPU", "100ms",
			"CPU time one evaluation of a workflow DECISION's or FOREACH's expression may use; past it the node fails with EXPRESSION_TIMEOUT (1ms to 10s)")
		proxies = set.String("trusted-proxies", "JOBWHEEL_TRUSTED_PROXIES", "",
			"comma-separated address ranges (CIDR) of reverse proxies whose X-Forwarded-For is believed, for the client addresses login limits count")
	)
	if err := set.Parse(args); err != nil {
		return nil, err
	}
	cfg := Config{
		DatabaseURL:   databaseURL.Value(),
		HTTPAddr:      httpAddr.Value(),
		AdvertiseURL:  strings.TrimRight(advertiseURL.Value(), "/"),
		AdminPassword: adminPassword.Value(),
		ServerID:      serverID.Value(),
		LogFormat:     logFormat.Value(),
		SMTPURL:       smtpURL.Value(),
	}
	if err := db.CheckURL(cfg.DatabaseURL); err != nil {
		return nil, databaseURL.Errorf("%q: %v", redactURL(cfg.DatabaseURL), err)
	}
	if err := checkListenAddr(cfg.HTTPAddr); err != nil {
		return nil, httpAddr.Errorf("%q: %v", cfg.HTTPAddr, err)
	}
	if cfg.AdvertiseURL != "" {
		u, err := url.Parse(cfg.AdvertiseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, advertiseURL.Errorf("%q is not an http:// or https:// URL such as http://jobwheel-1.internal:7700", cfg.AdvertiseURL)
		}
		if len(cfg.AdvertiseURL) > 512 {
			return nil, advertiseURL.Errorf("is %d characters; at most 512", len(cfg.AdvertiseURL))
		}
	}
	if cfg.AdminPassword != "" {
		if err := auth.ValidatePassword(adminPassword.Name(), cfg.AdminPassword); err != nil {
			return nil, err
		}
	}
	if id := cfg.ServerID; id != "" && (strings.TrimSpace(id) != id || len(id) > 64) {
		return nil, serverID.Errorf("%q must be 1 to 64 characters, without leading or trailing spaces", id)
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(logLevel.Value())); err != nil {
		return nil, logLevel.Errorf("%q is not debug, info, warn or error", logLevel.Value())
	}
	if cfg.LogFormat != "text" && cfg.LogFormat != "json" {
		return nil, logFormat.Errorf("%q is not text or json", cfg.LogFormat)
	}
	for _, o := range origins.List() {
		if strings.Contains(o, "://") {
			return nil, origins.Errorf("%q: give host[:port] patterns without a scheme, such as console.example.com or *.example.com:8443", o)
		}
		if _, err := path.Match(o, ""); err != nil {
			return nil, origins.Errorf("%q is not a valid pattern: %v", o, err)
		}
		cfg.AllowedOrigins = append(cfg.AllowedOrigins, o)
	}
	var err error
	if cfg.Demo, err = demo.Bool(); err != nil {
		return nil, err
	}
	if cfg.Retention, err = retention.Duration(); err != nil {
		return nil, err
	}
	if cfg.AlarmAllowNetworks, err = netguard.ParseAllow(alarmAllow.Value()); err != nil {
		return nil, alarmAllow.Errorf("%v", err)
	}
	if cfg.TrustedProxies, err = netguard.ParseAllow(proxies.Value()); err != nil {
		return nil, proxies.Errorf("%v", err)
	}
	if cfg.Retention < 0 {
		return nil, retention.Errorf("%s is negative (0 keeps everything)", retention.Value())
	}
	if cfg.SMTPURL != "" {
		if err := alarm.CheckSMTPURL(cfg.SMTPURL); err != nil {
			return nil, smtpURL.Errorf("%q: %v", redactURL(cfg.SMTPURL), err)
		}
	}
	if cfg.LeaseTTL, err = leaseTTL.Duration(); err != nil {
		return nil, err
	}
	if cfg.ExpressionCPU, err = exprCPU.Duration(); err != nil {
		return nil, err
	}
	if cfg.ExpressionCPU < time.Millisecond || cfg.ExpressionCPU > 10*time.Second {
		return nil, exprCPU.Errorf("%s is not from 1ms to 10s", exprCPU.Value())
	}
	if cfg.LeaseTTL < 3*time.Second {
		return nil, leaseTTL.Errorf("%s is shorter than 3s", leaseTTL.Value())
	}
	if a := debugAddr.Value(); a != "" {
		if err := checkListenAddr(a); err != nil {
			return nil, debugAddr.Errorf("%q: %v", a, err)
		}
		host, port, _ := net.SplitHostPort(a)
		httpHost, httpPort, _ := net.SplitHostPort(cfg.HTTPAddr)
		if port == httpPort && port != "0" && (host == httpHost || httpHost == "" || httpHost == "0.0.0.0" || httpHost == "::") {
			return nil, debugAddr.Errorf("%q: port %s is the HTTP listener's; the debug listener needs a port of its own", a, port)
		}
		// Profiles show the process's insides (and its command line): never
		// on every interface unless asked for by name.
		if host == "" {
			a = net.JoinHostPort("127.0.0.1", port)
		}
		cfg.DebugAddr = a
	}
	return &cfg, nil
}

// checkListenAddr says why addr is not a host:port to listen on, or nil.
func checkListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("not host:port, such as :7700 or 127.0.0.1:7700")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("the port %q is not a number from 0 to 65535", port)
	}
	return nil
}

// advertiseURL returns the configured URL, or one made of the host name and
// the port actually listened on.
func (c *Config) advertiseURL(listener net.Addr) string {
	if c.AdvertiseURL != "" {
		return strings.TrimRight(c.AdvertiseURL, "/")
	}
	host, _ := os.Hostname()
	if h, _, err := net.SplitHostPort(c.HTTPAddr); err == nil && h != "" && h != "0.0.0.0" && h != "::" {
		host = h
	}
	if host == "" {
		host = "localhost"
	}
	_, port, _ := net.SplitHostPort(listener.String())
	return "http://" + net.JoinHostPort(host, port)
}

func (c *Config) Logger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.LogLevel}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
