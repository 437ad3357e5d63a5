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
	"github.com/jobwheel/jobwheel/graph"
	"github.com/jobwheel/jobwheel/internal/envflag"
	"github.com/jobwheel/jobwheel/internal/tracing"
	"github.com/jobwheel/jobwheel/server/api/alarm"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/api/sso"
	"github.com/jobwheel/jobwheel/server/platform/netguard"
	"github.com/jobwheel/jobwheel/server/runtime/execution"
	"github.com/jobwheel/jobwheel/worker/protocol"
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
	// DispatchAhead is how long before its time a scheduled fire may be
	// dispatched, to be held on its worker until then (trigger.Config).
	DispatchAhead time.Duration
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
	// MetricsAddr is where /metrics, /healthz and /readyz are served on a
	// listener of their own, and then /metrics is not served on the HTTP
	// listener (it names every app, without a login); empty: all three on
	// the HTTP listener. A port without a host means loopback.
	MetricsAddr string
	// ExpressionCPU is the CPU time one evaluation of a DECISION's or
	// FOREACH's expression may use before its node fails with
	// EXPRESSION_TIMEOUT.
	ExpressionCPU time.Duration
	// BackfillMaxRuns is the most fire times one backfill may cover.
	BackfillMaxRuns int
	// MaxSocketsPerUser and MaxOperationsPerUser bound the API websockets
	// one user (or API token) may have open on this server, and the
	// operations under way across them.
	MaxSocketsPerUser, MaxOperationsPerUser int
	// MaxRequestsPerUser bounds the HTTP API requests one user (or API
	// token) may have under way on this server.
	MaxRequestsPerUser int
	// MapMaxTasks and MapMaxBytes bound the subtasks one instance's maps
	// may create, and their payload bytes.
	MapMaxTasks int
	MapMaxBytes int64
	// RuntimeConns and APIConns are the PostgreSQL connections of the
	// server's two pools: the scheduler's (leases, fires, dispatch, the
	// workflow engine, retention, the cluster registry, the worker
	// channel) and the API's (GraphQL and its services). API calls that
	// hold every connection of theirs do not delay a fire. SQLite has one
	// connection, shared.
	RuntimeConns, APIConns int
	// Version is the binary's version, set by the command (at build time).
	Version string
	// SSO is single sign-on (docs/sso.md); off when SSO.Issuer is "".
	SSO sso.Config
	// NoPasswords turns password logins off (single sign-on only).
	NoPasswords bool
	// Tracing exports traces over OTLP (docs/tracing.md); off when
	// Tracing.Endpoint is "".
	Tracing tracing.Config
	// TraceURL is the console's link from an instance to its trace, with
	// {traceId} where the trace id goes; "" shows no link.
	TraceURL string
}

// The pools' sizes by default: the scheduler keeps the 20 connections it
// had when it shared them with the API; the API gets 10 of its own, so a
// server holds at most 30 (mind PostgreSQL's max_connections, or
// PgBouncer's default_pool_size, times the servers).
const (
	DefaultRuntimeConns = 20
	DefaultAPIConns     = 10
)

// DefaultHTTPAddr is where a server listens unless told otherwise: on
// loopback, so that a first try (make run) exposes nothing to the network.
// Containers and clusters name every interface (:7700) explicitly.
const DefaultHTTPAddr = "127.0.0.1:7700"

// ParseConfig reads the configuration from the command line and the
// environment; -h prints every setting and returns flag.ErrHelp.
func ParseConfig(args []string, getenv func(string) string, stderr io.Writer) (*Config, error) {
	set := envflag.New("jobwheel-server", getenv, stderr)
	var (
		databaseURL = set.String("database-url", "JOBWHEEL_DATABASE_URL", "sqlite:jobwheel.db",
			"database: postgres://user:password@host:5432/db?sslmode=disable (or postgresql://) for PostgreSQL, or sqlite:<file> for SQLite")
		httpAddr = set.String("http-addr", "JOBWHEEL_HTTP_ADDR", DefaultHTTPAddr,
			"host:port to serve the console, API and worker channel on; the default serves this machine only, :7700 (or 0.0.0.0:7700) every interface, as a container or a cluster needs")
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
		dispatchAhead = set.String("dispatch-ahead", "JOBWHEEL_DISPATCH_AHEAD", "500ms",
			"how long before its time a scheduled fire may be sent to its worker, which holds it and starts it on time (workers that speak protocol feature start.at; 0s to 3s; 0s: at its time)")
		smtpURL = set.String("smtp-url", "JOBWHEEL_SMTP_URL", "",
			"mail relay for email alarms: smtp://user:password@host:port?from=address; empty: webhook alarms only")
		leaseTTL = set.String("lease-ttl", "JOBWHEEL_LEASE_TTL", "4s",
			"how long an app's lease lasts without renewal, i.e. how soon another server takes over the apps of one that died; at least 3s")
		alarmAllow = set.String("alarm-allow-networks", "JOBWHEEL_ALARM_ALLOW_NETWORKS", "",
			"comma-separated address ranges (CIDR) alarm webhooks may reach although they are not public, e.g. 10.0.0.0/8; loopback, private, link-local and metadata addresses are refused otherwise")
		debugAddr = set.String("debug-addr", "JOBWHEEL_DEBUG_ADDR", "",
			"host:port to serve net/http/pprof profiles and the runtime trace on, on a listener of their own; a bare :port listens on loopback only; empty: off")
		metricsAddr = set.String("metrics-addr", "JOBWHEEL_METRICS_ADDR", "",
			"host:port to serve /metrics (and /healthz, /readyz) on, on a listener of their own, and then not on the HTTP address; a bare :port listens on loopback only; empty: on the HTTP address")
		exprCPU = set.String("expression-cpu", "JOBWHEEL_EXPRESSION_CPU", "100ms",
			"CPU time one evaluation of a workflow DECISION's or FOREACH's expression may use; past it the node fails with EXPRESSION_TIMEOUT (1ms to 10s)")
		backfillMax = set.String("backfill-max-runs", "JOBWHEEL_BACKFILL_MAX_RUNS", "1000",
			"the most fire times one backfill of a workflow or job may cover (1 to 100000); a wider range is refused naming input.to")
		maxSockets = set.String("max-websockets-per-user", "JOBWHEEL_MAX_WEBSOCKETS_PER_USER", strconv.Itoa(graph.DefaultMaxSocketsPerUser),
			"API websockets one user's logins (or one API token) may have open on this server (1 to 100000); the next is closed with 1013 RATE_LIMITED")
		maxOps = set.String("max-operations-per-user", "JOBWHEEL_MAX_OPERATIONS_PER_USER", strconv.Itoa(graph.DefaultMaxOperationsPerUser),
			"subscriptions one user (or API token) may have under way across its websockets on this server (1 to 1000000); the next is refused with RATE_LIMITED")
		maxRequests = set.String("max-requests-per-user", "JOBWHEEL_MAX_REQUESTS_PER_USER", strconv.Itoa(graph.DefaultMaxRequestsPerUser),
			"HTTP API requests one user (or API token) may have under way on this server (1 to 100000); the next is refused with RATE_LIMITED before it runs")
		mapTasks = set.String("map-max-tasks-per-instance", "JOBWHEEL_MAP_MAX_TASKS_PER_INSTANCE", strconv.Itoa(execution.DefaultMapMaxTasks),
			"subtasks the maps of one MAP or MAP_REDUCE instance may create in all (1 to 1000000000); a map past it is refused to the worker (REFUSED) and stores nothing")
		mapBytes = set.String("map-max-bytes-per-instance", "JOBWHEEL_MAP_MAX_BYTES_PER_INSTANCE", strconv.FormatInt(execution.DefaultMapMaxBytes, 10),
			"payload bytes those subtasks may hold in all (at least 65536; default 4 GiB); a map past it is refused the same way")
		runtimeConns = set.String("db-runtime-conns", "JOBWHEEL_DB_RUNTIME_CONNS", strconv.Itoa(DefaultRuntimeConns),
			"PostgreSQL connections of the scheduler's pool: leases, fires, dispatch, the workflow engine, retention, workers (1 to 1000)")
		apiConns = set.String("db-api-conns", "JOBWHEEL_DB_API_CONNS", strconv.Itoa(DefaultAPIConns),
			"PostgreSQL connections of the API's pool (GraphQL, the console); API calls waiting for one never delay the scheduler (1 to 1000)")
		proxies = set.String("trusted-proxies", "JOBWHEEL_TRUSTED_PROXIES", "",
			"comma-separated address ranges (CIDR) of reverse proxies whose X-Forwarded-For is believed, for the client addresses login limits count")
		passwordLogin = set.Bool("password-login", "JOBWHEEL_PASSWORD_LOGIN", "true",
			"whether local users may log in with a password; false leaves single sign-on (and API tokens) only")
		ssoIssuer = set.String("sso-issuer", "JOBWHEEL_SSO_ISSUER", "",
			"OpenID Connect provider's issuer URL for single sign-on (docs/sso.md); empty: off")
		ssoClientID     = set.String("sso-client-id", "JOBWHEEL_SSO_CLIENT_ID", "", "single sign-on: the client id registered with the provider")
		ssoClientSecret = set.String("sso-client-secret", "JOBWHEEL_SSO_CLIENT_SECRET", "", "single sign-on: the client secret")
		ssoRedirect     = set.String("sso-redirect-url", "JOBWHEEL_SSO_REDIRECT_URL", "",
			"single sign-on: the callback URL registered with the provider, exactly; default <advertise-url>/auth/sso/callback")
		ssoName    = set.String("sso-name", "JOBWHEEL_SSO_NAME", "SSO", "single sign-on: the provider's name on the console's \"Sign in with …\" button")
		ssoScopes  = set.String("sso-scopes", "JOBWHEEL_SSO_SCOPES", "", "single sign-on: comma-separated scopes asked for besides openid, email, profile and offline_access (e.g. groups)")
		ssoDomains = set.String("sso-allowed-domains", "JOBWHEEL_SSO_ALLOWED_DOMAINS", "",
			"single sign-on: comma-separated email domains allowed to sign in; empty: any")
		ssoGroups = set.String("sso-allowed-groups", "JOBWHEEL_SSO_ALLOWED_GROUPS", "",
			"single sign-on: comma-separated provider groups allowed to sign in; empty: any")
		ssoClaim = set.String("sso-groups-claim", "JOBWHEEL_SSO_GROUPS_CLAIM", "groups", "single sign-on: the ID token claim listing the user's groups")
		ssoRoles = set.String("sso-group-roles", "JOBWHEEL_SSO_GROUP_ROLES", "",
			`single sign-on: what groups give, as JSON {"group": ["admin", "APP:OWNER|EDITOR|VIEWER", …]}, or @file holding it`)
		ssoRecheck = set.String("sso-recheck", "JOBWHEEL_SSO_RECHECK", "1m",
			"single sign-on: how often a session's groups are checked with the provider again (at the next request after); 0: at every request")
		otlpEndpoint = set.String("otlp-endpoint", "JOBWHEEL_OTLP_ENDPOINT", "",
			"OTLP/HTTP collector to send traces to, e.g. http://127.0.0.1:4318 (docs/tracing.md); empty: no tracing")
		traceSample = set.String("trace-sample", "JOBWHEEL_TRACE_SAMPLE", "1",
			"fraction of fires and API calls traced, from 0 to 1")
		traceURL = set.String("trace-url", "JOBWHEEL_TRACE_URL", "",
			"link from an instance to its trace in the console, with {traceId} for the trace id, e.g. https://jaeger.example.com/trace/{traceId}")
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
	if cfg.DispatchAhead, err = dispatchAhead.Duration(); err != nil {
		return nil, err
	}
	if cfg.DispatchAhead < 0 || cfg.DispatchAhead > 3*time.Second {
		return nil, dispatchAhead.Errorf("%s is not from 0s to 3s", dispatchAhead.Value())
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
	if cfg.BackfillMaxRuns, err = backfillMax.Int(); err != nil {
		return nil, err
	}
	if cfg.BackfillMaxRuns < 1 || cfg.BackfillMaxRuns > 100000 {
		return nil, backfillMax.Errorf("%s is not from 1 to 100000", backfillMax.Value())
	}
	if cfg.MaxSocketsPerUser, err = maxSockets.Int(); err != nil {
		return nil, err
	}
	if cfg.MaxSocketsPerUser < 1 || cfg.MaxSocketsPerUser > 100000 {
		return nil, maxSockets.Errorf("%s is not from 1 to 100000", maxSockets.Value())
	}
	if cfg.MaxOperationsPerUser, err = maxOps.Int(); err != nil {
		return nil, err
	}
	if cfg.MaxOperationsPerUser < 1 || cfg.MaxOperationsPerUser > 1000000 {
		return nil, maxOps.Errorf("%s is not from 1 to 1000000", maxOps.Value())
	}
	if cfg.MaxRequestsPerUser, err = maxRequests.Int(); err != nil {
		return nil, err
	}
	if cfg.MaxRequestsPerUser < 1 || cfg.MaxRequestsPerUser > 100000 {
		return nil, maxRequests.Errorf("%s is not from 1 to 100000", maxRequests.Value())
	}
	if cfg.MapMaxTasks, err = mapTasks.Int(); err != nil {
		return nil, err
	}
	if cfg.MapMaxTasks < 1 || cfg.MapMaxTasks > 1000000000 {
		return nil, mapTasks.Errorf("%s is not from 1 to 1000000000", mapTasks.Value())
	}
	n, err := mapBytes.Int()
	if err != nil {
		return nil, err
	}
	if cfg.MapMaxBytes = int64(n); cfg.MapMaxBytes < protocol.MaxPayloadBytes {
		return nil, mapBytes.Errorf("%s is less than one payload's %d bytes", mapBytes.Value(), protocol.MaxPayloadBytes)
	}
	if cfg.RuntimeConns, err = runtimeConns.Int(); err != nil {
		return nil, err
	}
	if cfg.RuntimeConns < 1 || cfg.RuntimeConns > 1000 {
		return nil, runtimeConns.Errorf("%s is not from 1 to 1000", runtimeConns.Value())
	}
	if cfg.APIConns, err = apiConns.Int(); err != nil {
		return nil, err
	}
	if cfg.APIConns < 1 || cfg.APIConns > 1000 {
		return nil, apiConns.Errorf("%s is not from 1 to 1000", apiConns.Value())
	}
	if cfg.LeaseTTL < 3*time.Second {
		return nil, leaseTTL.Errorf("%s is shorter than 3s", leaseTTL.Value())
	}
	// Profiles show the process's insides (and its command line), metrics
	// every app's name: never on every interface unless asked for by name.
	if cfg.DebugAddr, err = sideAddr(debugAddr.Value(), cfg.HTTPAddr, "debug"); err != nil {
		return nil, debugAddr.Errorf("%v", err)
	}
	if cfg.MetricsAddr, err = sideAddr(metricsAddr.Value(), cfg.HTTPAddr, "metrics"); err != nil {
		return nil, metricsAddr.Errorf("%v", err)
	}
	if cfg.DebugAddr != "" && cfg.DebugAddr == cfg.MetricsAddr && !strings.HasSuffix(cfg.DebugAddr, ":0") {
		return nil, metricsAddr.Errorf("%q: it is JOBWHEEL_DEBUG_ADDR's; the metrics listener needs a port of its own", metricsAddr.Value())
	}
	if err := cfg.parseSSO(readFile, ssoSettings{passwordLogin, ssoIssuer, ssoClientID, ssoClientSecret, ssoRedirect, ssoName,
		ssoScopes, ssoDomains, ssoGroups, ssoClaim, ssoRoles, ssoRecheck}); err != nil {
		return nil, err
	}
	if e := otlpEndpoint.Value(); e != "" {
		if err := tracing.CheckEndpoint(e); err != nil {
			return nil, otlpEndpoint.Errorf("%q: %v", e, err)
		}
		cfg.Tracing = tracing.Config{Endpoint: e, Service: "jobwheel-server"}
	}
	if cfg.Tracing.Sample, err = strconv.ParseFloat(traceSample.Value(), 64); err != nil || cfg.Tracing.Sample < 0 || cfg.Tracing.Sample > 1 {
		return nil, traceSample.Errorf("%q is not a number from 0 to 1", traceSample.Value())
	}
	if t := traceURL.Value(); t != "" {
		u, err := url.Parse(strings.ReplaceAll(t, "{traceId}", "0"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !strings.Contains(t, "{traceId}") {
			return nil, traceURL.Errorf("%q is not an http:// or https:// URL with {traceId} in it", t)
		}
		cfg.TraceURL = t
	}
	return &cfg, nil
}

// readFile reads the file a setting names with @file.
var readFile = os.ReadFile

type ssoSettings struct {
	passwordLogin, issuer, clientID, clientSecret, redirect, name, scopes, domains, groups, claim, roles, recheck *envflag.Setting
}

// parseSSO reads the single sign-on settings.
func (c *Config) parseSSO(read func(string) ([]byte, error), s ssoSettings) error {
	allowed, err := s.passwordLogin.Bool()
	if err != nil {
		return err
	}
	c.NoPasswords = !allowed
	if s.issuer.Value() == "" {
		if c.NoPasswords {
			return s.passwordLogin.Errorf("is false, but single sign-on is not configured (%s): nobody could log in", s.issuer.Name())
		}
		return nil
	}
	roles := s.roles.Value()
	if file, ok := strings.CutPrefix(roles, "@"); ok {
		b, err := read(file)
		if err != nil {
			return s.roles.Errorf("reading %s: %v", file, err)
		}
		roles = string(b)
	}
	grants, err := sso.ParseGrants(s.roles.Name(), roles)
	if err != nil {
		return err
	}
	recheck, err := s.recheck.Duration()
	if err != nil {
		return err
	}
	redirect := s.redirect.Value()
	if redirect == "" {
		if c.AdvertiseURL == "" {
			return s.redirect.Errorf("must be set (or JOBWHEEL_ADVERTISE_URL, for <advertise-url>/auth/sso/callback)")
		}
		redirect = c.AdvertiseURL + "/auth/sso/callback"
	}
	c.SSO = sso.Config{Issuer: s.issuer.Value(), ClientID: s.clientID.Value(), ClientSecret: s.clientSecret.Value(),
		RedirectURL: redirect, Name: s.name.Value(), Scopes: s.scopes.List(), AllowedDomains: s.domains.List(),
		AllowedGroups: s.groups.List(), GroupsClaim: s.claim.Value(), Grants: grants, Recheck: recheck}
	return sso.CheckConfig(&c.SSO)
}

// sideAddr checks the address of a listener of its own (what: "debug",
// "metrics") beside the HTTP one at httpAddr: host:port, not the HTTP
// port, loopback when the host is left out. Empty stays empty (off).
func sideAddr(a, httpAddr, what string) (string, error) {
	if a == "" {
		return "", nil
	}
	if err := checkListenAddr(a); err != nil {
		return "", fmt.Errorf("%q: %w", a, err)
	}
	host, port, _ := net.SplitHostPort(a)
	if host == "" {
		host = "127.0.0.1" // a bare :port means loopback here
	}
	httpHost, httpPort, _ := net.SplitHostPort(httpAddr)
	if port == httpPort && port != "0" && (host == httpHost || httpHost == "" || httpHost == "0.0.0.0" || httpHost == "::") {
		return "", fmt.Errorf("%q: port %s is the HTTP listener's; the %s listener needs a port of its own", a, port, what)
	}
	return net.JoinHostPort(host, port), nil
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
