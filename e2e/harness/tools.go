package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Third-party programs the end-to-end tests run as real services: an
// OpenID Connect provider (Dex) and a trace collector (Jaeger). Each is
// pinned in a module of its own under tools/ and built from the Go module
// proxy into bin/ (`make e2e-tools`, which `make test` starts in the
// background at its beginning); a test that finds one missing builds it.
// Neither their code nor their binaries are committed.

// tool is one such program: its module directory under tools/ and the
// package of its command.
type tool struct{ dir, pkg string }

var (
	toolDex    = tool{"tools/dex", "github.com/dexidp/dex/cmd/dex"}
	toolJaeger = tool{"tools/jaeger", "github.com/jaegertracing/jaeger/cmd/jaeger"}
)

var toolBuilds sync.Map // binary path → *sync.Once

// toolPath returns bin/<name>, building it if it is not there.
func toolPath(tb TB, name string, t tool) string {
	tb.Helper()
	root, err := RepoRoot()
	if err != nil {
		tb.Fatalf("%v", err)
	}
	bin := filepath.Join(root, "bin", name)
	once, _ := toolBuilds.LoadOrStore(bin, new(sync.Once))
	var buildErr error
	once.(*sync.Once).Do(func() {
		if _, err := os.Stat(bin); err == nil {
			return
		}
		tb.Logf("building %s from %s (pinned in %s/go.mod); make e2e-tools builds it ahead", bin, t.pkg, t.dir)
		cmd := exec.Command("go", "build", "-C", t.dir, "-o", bin, t.pkg)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build %s: %w\n%s", t.pkg, err, b)
		}
	})
	if buildErr != nil {
		tb.Fatalf("%v", buildErr)
	}
	if _, err := os.Stat(bin); err != nil {
		tb.Fatalf("%s is missing: run make e2e-tools", bin)
	}
	return bin
}

// DexUser is a user of the test provider, with the groups it puts in
// their ID tokens.
type DexUser struct {
	Email    string
	Password string
	Username string
	UserID   string
	Groups   []string
}

// Dex is a running Dex (an OpenID Connect provider) on loopback with
// static users and one client. Its state (signing keys, refresh tokens)
// is kept in a SQLite file, so a restart (SetGroups) keeps sessions.
type Dex struct {
	*Process
	Issuer       string
	ClientID     string
	ClientSecret string
	tb           TB
	dir, addr    string
	redirect     string
	users        []DexUser
}

// StartDex starts Dex with users and a client allowed to redirect to
// redirectURL exactly.
func StartDex(tb TB, redirectURL string, users []DexUser) *Dex {
	tb.Helper()
	addr := FreeAddr(tb)
	d := &Dex{Issuer: "http://" + addr + "/dex", ClientID: "jobwheel", ClientSecret: "jobwheel-e2e-client-secret",
		tb: tb, dir: tb.TempDir(), addr: addr, redirect: redirectURL, users: users}
	d.start()
	tb.Cleanup(func() {
		if d.Process != nil && !d.Exited() {
			_ = d.Stop(10 * time.Second)
		}
	})
	return d
}

func (d *Dex) start() {
	d.tb.Helper()
	bin := toolPath(d.tb, "dex", toolDex)
	var passwords []map[string]any
	for _, u := range d.users {
		hash, err := bcrypt.GenerateFromPassword([]byte(u.Password), 10) // Dex refuses costs below 10
		if err != nil {
			d.tb.Fatalf("hashing a password: %v", err)
		}
		groups := u.Groups
		if groups == nil {
			groups = []string{}
		}
		passwords = append(passwords, map[string]any{"email": u.Email, "hash": string(hash), "username": u.Username,
			"userID": u.UserID, "groups": groups})
	}
	// JSON is YAML: Dex reads this as its config file.
	cfg := map[string]any{
		"issuer":  d.Issuer,
		"storage": map[string]any{"type": "sqlite3", "config": map[string]any{"file": filepath.Join(d.dir, "dex.db")}},
		"web":     map[string]any{"http": d.addr},
		"oauth2":  map[string]any{"skipApprovalScreen": true},
		"staticClients": []map[string]any{{"id": d.ClientID, "secret": d.ClientSecret, "name": "jobwheel",
			"redirectURIs": []string{d.redirect}}},
		"enablePasswordDB": true,
		"staticPasswords":  passwords,
		"logger":           map[string]any{"level": "debug"},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	path := filepath.Join(d.dir, "config.yaml")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		d.tb.Fatalf("writing Dex's config: %v", err)
	}
	d.Process = startProcess(d.tb, "dex", bin, []string{"serve", path}, nil, d.dir)
	if err := waitHTTPFor(d.Issuer+"/.well-known/openid-configuration", 60*time.Second); err != nil {
		d.tb.Fatalf("Dex did not start: %v\n%s", err, d.Output())
	}
}

// SetGroups changes a user's groups in the provider: Dex reads static
// users from its config file, so it is restarted with the new one (its
// keys and refresh tokens are kept).
func (d *Dex) SetGroups(email string, groups []string) {
	d.tb.Helper()
	for i := range d.users {
		if d.users[i].Email == email {
			d.users[i].Groups = groups
		}
	}
	d.Signal(syscall.SIGTERM)
	if _, exited := d.Wait(10 * time.Second); !exited {
		d.Kill()
	}
	d.start()
}

// Jaeger is a running Jaeger (v2, all in one, spans kept in memory) on
// loopback: OTLP over HTTP in, its query API out.
type Jaeger struct {
	*Process
	// OTLP is the OTLP/HTTP base URL to export to.
	OTLP string
	// Query is the base URL of the query API and UI.
	Query string
}

// StartJaeger starts Jaeger.
func StartJaeger(tb TB) *Jaeger {
	tb.Helper()
	bin := toolPath(tb, "jaeger", toolJaeger)
	dir := tb.TempDir()
	otlp, query, queryGRPC, health := FreeAddr(tb), FreeAddr(tb), FreeAddr(tb), FreeAddr(tb)
	cfg := map[string]any{
		"service": map[string]any{
			"extensions": []string{"jaeger_storage", "jaeger_query", "healthcheckv2"},
			"pipelines": map[string]any{"traces": map[string]any{
				"receivers": []string{"otlp"}, "processors": []string{"batch"}, "exporters": []string{"jaeger_storage_exporter"}}},
			"telemetry": map[string]any{"metrics": map[string]any{"level": "none"}, "logs": map[string]any{"level": "info"}},
		},
		"extensions": map[string]any{
			"jaeger_query": map[string]any{"storage": map[string]any{"traces": "mem"},
				"http": map[string]any{"endpoint": query}, "grpc": map[string]any{"endpoint": queryGRPC}},
			"jaeger_storage": map[string]any{"backends": map[string]any{"mem": map[string]any{"memory": map[string]any{"max_traces": 10000}}}},
			"healthcheckv2":  map[string]any{"use_v2": true, "http": map[string]any{"endpoint": health}},
		},
		"receivers":  map[string]any{"otlp": map[string]any{"protocols": map[string]any{"http": map[string]any{"endpoint": otlp}}}},
		"processors": map[string]any{"batch": map[string]any{"timeout": "100ms"}},
		"exporters":  map[string]any{"jaeger_storage_exporter": map[string]any{"trace_storage": "mem"}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		tb.Fatalf("writing Jaeger's config: %v", err)
	}
	j := &Jaeger{OTLP: "http://" + otlp, Query: "http://" + query}
	j.Process = startProcess(tb, "jaeger", bin, []string{"--config", path}, nil, dir)
	tb.Cleanup(func() {
		if !j.Exited() {
			_ = j.Stop(10 * time.Second)
		}
	})
	if err := waitHTTPFor(j.Query+"/api/services", 60*time.Second); err != nil {
		tb.Fatalf("Jaeger did not start: %v\n%s", err, j.Output())
	}
	return j
}

// waitHTTPFor waits up to timeout until GET url answers 200.
func waitHTTPFor(url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return waitHTTP(ctx, url)
}
