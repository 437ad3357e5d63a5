package node

import (
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// Every setting's bad value is refused naming the variable (or flag) it
// came from and saying what is wrong with it — a value that does not parse
// is named as such, not turned into something else first (LEASE_TTL=abc
// used to say "-1ns is shorter than 3s").
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		env  string // NAME=value
		want string
	}{
		{"JOBWHEEL_DATABASE_URL=mysql://root:hunter2@x/db", `JOBWHEEL_DATABASE_URL: "mysql://root:xxxxx@x/db": jobwheel stores its data in PostgreSQL or SQLite, not "mysql"; use postgres://`},
		{"JOBWHEEL_DATABASE_URL=sqlite:", `JOBWHEEL_DATABASE_URL: "sqlite:": no SQLite file named; use sqlite:<file>`},
		{"JOBWHEEL_HTTP_ADDR=7700", `JOBWHEEL_HTTP_ADDR: "7700": not host:port, such as :7700`},
		{"JOBWHEEL_HTTP_ADDR=:http-ish", `JOBWHEEL_HTTP_ADDR: ":http-ish": the port "http-ish" is not a number from 0 to 65535`},
		{"JOBWHEEL_HTTP_ADDR=:70000", `the port "70000" is not`},
		{"JOBWHEEL_ADVERTISE_URL=jobwheel-1:7700", `JOBWHEEL_ADVERTISE_URL: "jobwheel-1:7700" is not an http:// or https:// URL`},
		{"JOBWHEEL_ADMIN_PASSWORD=short", `JOBWHEEL_ADMIN_PASSWORD: must be at least 8 characters`},
		{"JOBWHEEL_SERVER_ID=" + strings.Repeat("s", 65), `JOBWHEEL_SERVER_ID: "sss`},
		{"JOBWHEEL_LOG_LEVEL=loud", `JOBWHEEL_LOG_LEVEL: "loud" is not debug, info, warn or error`},
		{"JOBWHEEL_LOG_FORMAT=xml", `JOBWHEEL_LOG_FORMAT: "xml" is not text or json`},
		{"JOBWHEEL_ALLOWED_ORIGINS=https://console.example.com", `JOBWHEEL_ALLOWED_ORIGINS: "https://console.example.com": give host[:port] patterns without a scheme`},
		{"JOBWHEEL_ALLOWED_ORIGINS=ok.example.com,[bad", `JOBWHEEL_ALLOWED_ORIGINS: "[bad" is not a valid pattern`},
		{"JOBWHEEL_DEMO=maybe", `JOBWHEEL_DEMO: "maybe" is not true or false`},
		{"JOBWHEEL_RETENTION=a week", `JOBWHEEL_RETENTION: "a week" is not a duration such as 15s`},
		{"JOBWHEEL_RETENTION=-1h", `JOBWHEEL_RETENTION: -1h is negative (0 keeps everything)`},
		{"JOBWHEEL_SMTP_URL=smtp://ops:pw@mail.example.com?from=a@b", `JOBWHEEL_SMTP_URL: "smtp://ops:xxxxx@mail.example.com?from=a@b": no port; use smtp://`},
		{"JOBWHEEL_SMTP_URL=mail.example.com", `JOBWHEEL_SMTP_URL: "mail.example.com": not smtp://user:password@host:port?from=address`},
		{"JOBWHEEL_DISPATCH_AHEAD=soon", `JOBWHEEL_DISPATCH_AHEAD: "soon" is not a duration such as 15s`},
		{"JOBWHEEL_DISPATCH_AHEAD=5s", `JOBWHEEL_DISPATCH_AHEAD: 5s is not from 0s to 3s`},
		{"JOBWHEEL_DISPATCH_AHEAD=-1s", `JOBWHEEL_DISPATCH_AHEAD: -1s is not from 0s to 3s`},
		{"JOBWHEEL_LEASE_TTL=abc", `JOBWHEEL_LEASE_TTL: "abc" is not a duration such as 15s`},
		{"JOBWHEEL_LEASE_TTL=2s", `JOBWHEEL_LEASE_TTL: 2s is shorter than 3s`},
		{"JOBWHEEL_DEBUG_ADDR=6060", `JOBWHEEL_DEBUG_ADDR: "6060": not host:port, such as :7700`},
		{"JOBWHEEL_DEBUG_ADDR=:7700", `JOBWHEEL_DEBUG_ADDR: ":7700": port 7700 is the HTTP listener's`},
		{"JOBWHEEL_METRICS_ADDR=9090", `JOBWHEEL_METRICS_ADDR: "9090": not host:port, such as :7700`},
		{"JOBWHEEL_METRICS_ADDR=:7700", `JOBWHEEL_METRICS_ADDR: ":7700": port 7700 is the HTTP listener's; the metrics listener`},
		{"JOBWHEEL_ALARM_ALLOW_NETWORKS=10.0.0.0/8,intranet", `JOBWHEEL_ALARM_ALLOW_NETWORKS: "intranet" is neither an address nor a CIDR range`},
		{"JOBWHEEL_ALARM_ALLOW_NETWORKS=10.0.0.0/33", `JOBWHEEL_ALARM_ALLOW_NETWORKS: "10.0.0.0/33" is neither`},
		{"JOBWHEEL_TRUSTED_PROXIES=proxy.internal", `JOBWHEEL_TRUSTED_PROXIES: "proxy.internal" is neither an address nor a CIDR range`},
		{"JOBWHEEL_DB_RUNTIME_CONNS=0", `JOBWHEEL_DB_RUNTIME_CONNS: 0 is not from 1 to 1000`},
		{"JOBWHEEL_DB_API_CONNS=many", `JOBWHEEL_DB_API_CONNS: "many" is not`},
		{"JOBWHEEL_MAX_REQUESTS_PER_USER=0", `JOBWHEEL_MAX_REQUESTS_PER_USER: 0 is not from 1 to 100000`},
	} {
		name, value, _ := strings.Cut(tc.env, "=")
		_, err := ParseConfig(nil, env(map[string]string{name: value}), io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want one containing %q", tc.env, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the error shows the password: %v", tc.env, err)
		}
	}
}

// A bad value given by flag is named by the flag.
func TestConfigErrorNamesTheFlag(t *testing.T) {
	_, err := ParseConfig([]string{"-lease-ttl", "abc"}, env(map[string]string{"JOBWHEEL_LEASE_TTL": "20s"}), io.Discard)
	if err == nil || !strings.HasPrefix(err.Error(), `-lease-ttl: "abc" is not a duration`) {
		t.Errorf("error %v", err)
	}
}

func TestConfigDefaultsEnvironmentAndFlags(t *testing.T) {
	cfg, err := ParseConfig(nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DatabaseURL != "sqlite:jobwheel.db" || cfg.HTTPAddr != "127.0.0.1:7700" || cfg.Demo || cfg.Retention != 168*time.Hour ||
		cfg.LeaseTTL != 4*time.Second || cfg.LogFormat != "text" || cfg.LogLevel.String() != "INFO" || cfg.DebugAddr != "" ||
		cfg.RuntimeConns != 20 || cfg.APIConns != 10 || cfg.MaxRequestsPerUser != 32 || cfg.DispatchAhead != 500*time.Millisecond {
		t.Errorf("defaults %+v", cfg)
	}
	if cfg, err := ParseConfig(nil, env(map[string]string{"JOBWHEEL_DB_RUNTIME_CONNS": "40", "JOBWHEEL_DB_API_CONNS": "5"}), io.Discard); err != nil ||
		cfg.RuntimeConns != 40 || cfg.APIConns != 5 {
		t.Errorf("the pools' sizes: %+v, %v", cfg, err)
	}
	cfg, err = ParseConfig([]string{"-demo", "-lease-ttl", "4s"}, env(map[string]string{
		"JOBWHEEL_LEASE_TTL":    "abc", // the flag wins: never parsed
		"JOBWHEEL_DATABASE_URL": "postgres://u@db:5432/x", "JOBWHEEL_RETENTION": "0", "JOBWHEEL_ALLOWED_ORIGINS": "a.example.com, *.b.example.com:8443",
		"JOBWHEEL_ADVERTISE_URL": "http://jobwheel-1:7700/", "JOBWHEEL_LOG_LEVEL": "DEBUG", "JOBWHEEL_SMTP_URL": "smtp://ops:pw@mail:587?from=a@b",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Demo || cfg.LeaseTTL != 4*time.Second || cfg.Retention != 0 || cfg.DatabaseURL != "postgres://u@db:5432/x" ||
		len(cfg.AllowedOrigins) != 2 || cfg.AdvertiseURL != "http://jobwheel-1:7700" || cfg.LogLevel.String() != "DEBUG" {
		t.Errorf("config %+v", cfg)
	}
	// The debug listener is on loopback unless a host is named.
	for in, want := range map[string]string{":6060": "127.0.0.1:6060", "0.0.0.0:6060": "0.0.0.0:6060", "[::1]:6060": "[::1]:6060"} {
		cfg, err := ParseConfig(nil, env(map[string]string{"JOBWHEEL_DEBUG_ADDR": in}), io.Discard)
		if err != nil || cfg.DebugAddr != want {
			t.Errorf("JOBWHEEL_DEBUG_ADDR=%s: %+v, %v; want %s", in, cfg, err, want)
		}
	}
	// So is the metrics listener.
	for in, want := range map[string]string{":9090": "127.0.0.1:9090", "0.0.0.0:9090": "0.0.0.0:9090"} {
		cfg, err := ParseConfig(nil, env(map[string]string{"JOBWHEEL_METRICS_ADDR": in}), io.Discard)
		if err != nil || cfg.MetricsAddr != want {
			t.Errorf("JOBWHEEL_METRICS_ADDR=%s: %+v, %v; want %s", in, cfg, err, want)
		}
	}
	for _, v := range []string{"0", "false", "1", "true"} {
		cfg, err := ParseConfig(nil, env(map[string]string{"JOBWHEEL_DEMO": v}), io.Discard)
		if err != nil || cfg.Demo != (v == "1" || v == "true") {
			t.Errorf("JOBWHEEL_DEMO=%s: demo %v, error %v", v, cfg != nil && cfg.Demo, err)
		}
	}
}

// -h lists every variable and never prints a secret given by environment.
func TestConfigHelp(t *testing.T) {
	var out strings.Builder
	_, err := ParseConfig([]string{"-h"}, env(map[string]string{"JOBWHEEL_ADMIN_PASSWORD": "topsecret1", "JOBWHEEL_SMTP_URL": "smtp://u:topsecret2@m:25?from=a@b"}), &out)
	if err == nil {
		t.Fatal("-h gave no error")
	}
	for _, v := range []string{"JOBWHEEL_DATABASE_URL", "JOBWHEEL_HTTP_ADDR", "JOBWHEEL_ADVERTISE_URL", "JOBWHEEL_ADMIN_PASSWORD",
		"JOBWHEEL_SERVER_ID", "JOBWHEEL_LOG_LEVEL", "JOBWHEEL_LOG_FORMAT", "JOBWHEEL_ALLOWED_ORIGINS", "JOBWHEEL_DEMO",
		"JOBWHEEL_RETENTION", "JOBWHEEL_SMTP_URL", "JOBWHEEL_LEASE_TTL", "JOBWHEEL_DEBUG_ADDR", "JOBWHEEL_METRICS_ADDR",
		"JOBWHEEL_ALARM_ALLOW_NETWORKS", "JOBWHEEL_TRUSTED_PROXIES"} {
		if !strings.Contains(out.String(), v) {
			t.Errorf("-h does not mention %s", v)
		}
	}
	if strings.Contains(out.String(), "topsecret") {
		t.Errorf("-h prints a secret:\n%s", out.String())
	}
}

// Single sign-on and tracing settings: read as documented (docs/sso.md,
// docs/tracing.md), and each mistake named by its variable.
func TestConfigSSOAndTraces(t *testing.T) {
	dir := t.TempDir()
	roles := dir + "/roles.json"
	if err := os.WriteFile(roles, []byte(`{"ops": ["admin"], "dev": ["payments:EDITOR"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{
		"JOBWHEEL_ADVERTISE_URL":     "https://jw.example.com",
		"JOBWHEEL_SSO_ISSUER":        "https://idp.example.com/realms/acme",
		"JOBWHEEL_SSO_CLIENT_ID":     "jobwheel",
		"JOBWHEEL_SSO_CLIENT_SECRET": "s3cret",
		"JOBWHEEL_SSO_GROUP_ROLES":   "@" + roles,
		"JOBWHEEL_SSO_SCOPES":        "groups",
		"JOBWHEEL_PASSWORD_LOGIN":    "false",
		"JOBWHEEL_OTLP_ENDPOINT":     "http://127.0.0.1:4318",
		"JOBWHEEL_TRACE_SAMPLE":      "0.25",
		"JOBWHEEL_TRACE_URL":         "https://jaeger.example.com/trace/{traceId}",
	}
	cfg, err := ParseConfig(nil, env(base), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.SSO
	if s.RedirectURL != "https://jw.example.com/auth/sso/callback" || s.GroupsClaim != "groups" || s.Recheck != time.Minute ||
		!cfg.NoPasswords || len(s.Grants["dev"]) != 1 || s.Grants["dev"][0].App != "payments" || s.Scopes[0] != "groups" {
		t.Errorf("sso config %+v (no passwords %v)", s, cfg.NoPasswords)
	}
	if cfg.Tracing.Endpoint != "http://127.0.0.1:4318" || cfg.Tracing.Sample != 0.25 || cfg.TraceURL == "" {
		t.Errorf("tracing %+v, url %q", cfg.Tracing, cfg.TraceURL)
	}
	if cfg, err := ParseConfig(nil, env(nil), io.Discard); err != nil || cfg.SSO.Issuer != "" || cfg.NoPasswords || cfg.Tracing.Endpoint != "" {
		t.Errorf("defaults: %+v, %v; want single sign-on and tracing off, passwords on", cfg, err)
	}
	for change, want := range map[string]string{
		"JOBWHEEL_SSO_GROUP_ROLES=[1]":                        "JOBWHEEL_SSO_GROUP_ROLES: not a JSON object",
		"JOBWHEEL_SSO_GROUP_ROLES=@/nonexistent.json":         "JOBWHEEL_SSO_GROUP_ROLES: reading /nonexistent.json",
		`JOBWHEEL_SSO_GROUP_ROLES={"dev": ["payments"]}`:      `JOBWHEEL_SSO_GROUP_ROLES: group "dev": "payments" is neither`,
		"JOBWHEEL_SSO_CLIENT_SECRET=":                         "JOBWHEEL_SSO_CLIENT_SECRET: must be set",
		"JOBWHEEL_SSO_RECHECK=often":                          `JOBWHEEL_SSO_RECHECK: "often" is not a duration`,
		"JOBWHEEL_SSO_REDIRECT_URL=https://jw.example.com/cb": "JOBWHEEL_SSO_REDIRECT_URL: the path \"/cb\" must be under /auth/",
		"JOBWHEEL_SSO_ISSUER=":                                "JOBWHEEL_PASSWORD_LOGIN: is false, but single sign-on is not configured",
		"JOBWHEEL_OTLP_ENDPOINT=collector:4318":               `JOBWHEEL_OTLP_ENDPOINT: "collector:4318": not an http:// or https:// URL`,
		"JOBWHEEL_TRACE_SAMPLE=2":                             `JOBWHEEL_TRACE_SAMPLE: "2" is not a number from 0 to 1`,
		"JOBWHEEL_TRACE_URL=https://jaeger.example.com":       "JOBWHEEL_TRACE_URL: \"https://jaeger.example.com\" is not an http:// or https:// URL with {traceId}",
	} {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		name, value, _ := strings.Cut(change, "=")
		m[name] = value
		_, err := ParseConfig(nil, env(m), io.Discard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", change, err, want)
		}
	}
}

// The server listens on loopback unless told otherwise, and its greeting
// names the address it really listens on: a first `make run` exposes
// nothing, and a server open to the network says so instead of printing
// "localhost" (issue 28).
func TestListensOnLoopbackByDefault(t *testing.T) {
	cfg, err := ParseConfig(nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ := net.SplitHostPort(cfg.HTTPAddr)
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		t.Fatalf("default HTTP address %q is not loopback", cfg.HTTPAddr)
	}
	open, err := ParseConfig([]string{"-http-addr", "0.0.0.0:8080"}, env(map[string]string{"JOBWHEEL_HTTP_ADDR": ":9"}), io.Discard)
	if err != nil || open.HTTPAddr != "0.0.0.0:8080" {
		t.Fatalf("-http-addr 0.0.0.0:8080: %+v, %v", open, err)
	}
	if open, err = ParseConfig(nil, env(map[string]string{"JOBWHEEL_HTTP_ADDR": ":7700"}), io.Discard); err != nil || open.HTTPAddr != ":7700" {
		t.Fatalf("JOBWHEEL_HTTP_ADDR=:7700: %+v, %v", open, err)
	}

	for _, tc := range []struct {
		listen     string
		advertise  string
		url, reach string
	}{
		{"127.0.0.1:7700", "", "console and API at http://127.0.0.1:7700 ", "Listening on 127.0.0.1:7700: this machine only; JOBWHEEL_HTTP_ADDR=:7700"},
		{"[::1]:7711", "", "at http://[::1]:7711 ", "Listening on [::1]:7711: this machine only"},
		{"[::]:7700", "", "at http://localhost:7700 ", "Listening on every interface ([::]:7700)"},
		{"0.0.0.0:7700", "https://jobs.example.com", "at https://jobs.example.com ", "Listening on every interface (0.0.0.0:7700)"},
		{"10.1.2.3:7700", "", "at http://10.1.2.3:7700 ", "Listening on 10.1.2.3:7700 only."},
	} {
		addr, err := net.ResolveTCPAddr("tcp", tc.listen)
		if err != nil {
			t.Fatal(err)
		}
		got := greeting(addr, &Config{AdvertiseURL: tc.advertise})
		if !strings.Contains(got, tc.url) || !strings.Contains(got, tc.reach) {
			t.Errorf("listening on %s: %q; want %q and %q", tc.listen, got, tc.url, tc.reach)
		}
	}
}
