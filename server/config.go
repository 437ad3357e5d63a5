package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/server/netguard"
)

// config is the server's configuration. Every flag has an environment
// variable of the same meaning (DESIGN §9); a flag given on the command line
// wins over the environment.
type config struct {
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
}

func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("jobwheel-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	var (
		cfg        config
		level      string
		origins    string
		alarmAllow string
		proxies    string
	)
	fs.StringVar(&cfg.DatabaseURL, "database-url", env("JOBWHEEL_DATABASE_URL", "sqlite:jobwheel.db"),
		"database: postgres://user@host:5432/db?sslmode=disable, or sqlite:<file> (env JOBWHEEL_DATABASE_URL)")
	fs.StringVar(&cfg.HTTPAddr, "http-addr", env("JOBWHEEL_HTTP_ADDR", ":7700"),
		"address to serve the console, API and worker channel on (env JOBWHEEL_HTTP_ADDR)")
	fs.StringVar(&cfg.AdvertiseURL, "advertise-url", env("JOBWHEEL_ADVERTISE_URL", ""),
		"URL workers and other servers reach this server at; default http://<hostname>:<port> (env JOBWHEEL_ADVERTISE_URL)")
	fs.StringVar(&cfg.AdminPassword, "admin-password", env("JOBWHEEL_ADMIN_PASSWORD", ""),
		"password of the user 'admin' created on first start; generated and printed once if empty (env JOBWHEEL_ADMIN_PASSWORD)")
	fs.StringVar(&cfg.ServerID, "server-id", env("JOBWHEEL_SERVER_ID", ""),
		"this server's id in the cluster; default <hostname>-<random> (env JOBWHEEL_SERVER_ID)")
	fs.StringVar(&level, "log-level", env("JOBWHEEL_LOG_LEVEL", "info"), "debug, info, warn or error (env JOBWHEEL_LOG_LEVEL)")
	fs.StringVar(&cfg.LogFormat, "log-format", env("JOBWHEEL_LOG_FORMAT", "text"), "text or json (env JOBWHEEL_LOG_FORMAT)")
	fs.StringVar(&origins, "allowed-origins", env("JOBWHEEL_ALLOWED_ORIGINS", ""),
		"extra comma-separated host[:port] patterns allowed to open API websockets from a browser (env JOBWHEEL_ALLOWED_ORIGINS)")
	fs.BoolVar(&cfg.Demo, "demo", env("JOBWHEEL_DEMO", "") == "1" || env("JOBWHEEL_DEMO", "") == "true",
		"on first start, create the app \"demo\" with example jobs and write its secret to jobwheel-demo.secret (env JOBWHEEL_DEMO=1); `make run` turns it on")
	fs.DurationVar(&cfg.Retention, "retention", envDuration(getenv, "JOBWHEEL_RETENTION", 7*24*time.Hour),
		"how long finished instances, with their tasks and log lines, are kept; 0 keeps them forever (env JOBWHEEL_RETENTION)")
	fs.StringVar(&cfg.SMTPURL, "smtp-url", env("JOBWHEEL_SMTP_URL", ""),
		"mail relay for email alarms: smtp://user:password@host:port?from=address; empty: webhook alarms only (env JOBWHEEL_SMTP_URL)")
	fs.DurationVar(&cfg.LeaseTTL, "lease-ttl", envDuration(getenv, "JOBWHEEL_LEASE_TTL", 15*time.Second),
		"how long an app's lease lasts without renewal, i.e. how soon another server takes over the apps of one that died; at least 3s (env JOBWHEEL_LEASE_TTL)")
	fs.StringVar(&alarmAllow, "alarm-allow-networks", env("JOBWHEEL_ALARM_ALLOW_NETWORKS", ""),
		"comma-separated address ranges (CIDR) alarm webhooks may reach although they are not public, e.g. 10.0.0.0/8; loopback, private, link-local and metadata addresses are refused otherwise (env JOBWHEEL_ALARM_ALLOW_NETWORKS)")
	fs.StringVar(&proxies, "trusted-proxies", env("JOBWHEEL_TRUSTED_PROXIES", ""),
		"comma-separated address ranges (CIDR) of reverse proxies whose X-Forwarded-For is believed, for the client addresses login limits count (env JOBWHEEL_TRUSTED_PROXIES)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("-log-level: %q is not one of debug, info, warn, error", level)
	}
	if cfg.LogFormat != "text" && cfg.LogFormat != "json" {
		return nil, fmt.Errorf("-log-format: %q is not text or json", cfg.LogFormat)
	}
	for _, o := range strings.Split(origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			cfg.AllowedOrigins = append(cfg.AllowedOrigins, o)
		}
	}
	var err error
	if cfg.AlarmAllowNetworks, err = netguard.ParseAllow(alarmAllow); err != nil {
		return nil, fmt.Errorf("-alarm-allow-networks: %w", err)
	}
	if cfg.TrustedProxies, err = netguard.ParseAllow(proxies); err != nil {
		return nil, fmt.Errorf("-trusted-proxies: %w", err)
	}
	if _, _, err := net.SplitHostPort(cfg.HTTPAddr); err != nil {
		return nil, fmt.Errorf("-http-addr: %q is not host:port: %w", cfg.HTTPAddr, err)
	}
	if cfg.Retention < 0 {
		return nil, fmt.Errorf("-retention: must not be negative (0 keeps everything)")
	}
	if cfg.LeaseTTL < 3*time.Second {
		return nil, fmt.Errorf("-lease-ttl: %s is shorter than 3s", cfg.LeaseTTL)
	}
	if cfg.DatabaseURL == "" {
		return nil, errors.New("-database-url: must not be empty")
	}
	return &cfg, nil
}

// advertiseURL returns the configured URL, or one made of the host name and
// the port actually listened on.
func (c *config) advertiseURL(listener net.Addr) string {
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

func (c *config) logger(w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.LogLevel}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// envDuration reads a duration from the environment, or def; a bad value
// is left for the flag package to report.
func envDuration(getenv func(string) string, name string, def time.Duration) time.Duration {
	if v := getenv(name); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
		return -1
	}
	return def
}
