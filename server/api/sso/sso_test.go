package sso

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
)

// TestParseGrants: the group mapping's format, and errors that name the
// setting and say what is wrong.
func TestParseGrants(t *testing.T) {
	g, err := ParseGrants("JOBWHEEL_SSO_GROUP_ROLES", `{"admins": ["admin"], "pay-dev": ["payments:EDITOR", "orders:viewer"], "pay-own": ["payments:OWNER"]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(g.Managed(), ","); got != "orders,payments" {
		t.Errorf("Managed = %s", got)
	}
	if !g.ManagesAdmin() {
		t.Error("ManagesAdmin = false")
	}
	r := g.For([]string{"pay-dev", "pay-own", "unknown"})
	if r.Admin || r.Roles["payments"] != db.RoleOwner || r.Roles["orders"] != db.RoleViewer {
		t.Errorf("For(pay-dev, pay-own) = %+v; want OWNER on payments (the highest), VIEWER on orders, not admin", r)
	}
	if r := g.For([]string{"admins"}); !r.Admin || len(r.Roles) != 0 {
		t.Errorf("For(admins) = %+v", r)
	}
	if r := g.For(nil); r.Admin || len(r.Roles) != 0 {
		t.Errorf("For(nothing) = %+v", r)
	}
	for text, want := range map[string]string{
		`["admin"]`:                       "not a JSON object",
		`{"g": ["payments"]}`:             `"payments" is neither "admin" nor APP:ROLE`,
		`{"g": ["payments:ADMIN"]}`:       `the role "ADMIN" is not OWNER, EDITOR or VIEWER`,
		`{"": ["admin"]}`:                 "a group name is empty",
		`{"g": [":EDITOR"]}`:              "neither",
		`{"g": ["admin"]} trailing stuff`: "",
	} {
		_, err := ParseGrants("JOBWHEEL_SSO_GROUP_ROLES", text)
		if want == "" {
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "JOBWHEEL_SSO_GROUP_ROLES") {
			t.Errorf("ParseGrants(%s) = %v; want an error naming the setting and saying %q", text, err, want)
		}
	}
}

// TestSafeNext: where a sign-in lands is a path of this server, never
// another site (no open redirect), nor the sign-in's own endpoints.
func TestSafeNext(t *testing.T) {
	for next, want := range map[string]string{
		"/apps/orders/jobs?x=1#y":  "/apps/orders/jobs?x=1#y",
		"":                         "/",
		"https://evil.example/":    "/",
		"//evil.example/":          "/",
		"/\\evil.example/":         "/",
		"\\\\evil.example":         "/",
		"javascript:alert(1)":      "/",
		"apps":                     "/",
		"/auth/sso/login":          "/",
		"/auth/sso/callback?code=": "/",
		"/ok\r\nSet-Cookie: x=1":   "/",
		"http:/evil.example":       "/",
	} {
		if got := SafeNext(next); got != want {
			t.Errorf("SafeNext(%q) = %q; want %q", next, got, want)
		}
	}
}

// TestRefusal: allowed domains need a verified address of one of them,
// allowed groups membership of one of them; both set, both hold.
func TestRefusal(t *testing.T) {
	yes, no := true, false
	s := &Service{cfg: Config{AllowedDomains: []string{"Example.com"}, AllowedGroups: []string{"staff"}}}
	for _, tc := range []struct {
		id      identity
		refused bool
	}{
		{identity{Email: "ada@example.com", EmailVerified: &yes, Groups: []string{"staff"}}, false},
		{identity{Email: "ada@EXAMPLE.com", Groups: []string{"x", "staff"}}, false},
		{identity{Email: "ada@example.com", EmailVerified: &no, Groups: []string{"staff"}}, true},
		{identity{Email: "ada@example.org", Groups: []string{"staff"}}, true},
		{identity{Email: "ada@sub.example.com", Groups: []string{"staff"}}, true},
		{identity{Email: "ada@example.com", Groups: []string{"contractors"}}, true},
		{identity{Groups: []string{"staff"}}, true},
	} {
		if got := s.refusal(&tc.id) != ""; got != tc.refused {
			t.Errorf("refusal(%+v) refused = %v; want %v", tc.id, got, tc.refused)
		}
	}
	open := &Service{}
	if why := open.refusal(&identity{}); why != "" {
		t.Errorf("nothing configured refuses %q", why)
	}
}

// TestSealed: what the browser and the database keep (the sign-in under
// way, refresh tokens) is sealed: opened only with the same client
// secret, and any change is refused.
func TestSealed(t *testing.T) {
	cfg := Config{Issuer: "https://idp.example.com", ClientID: "c", ClientSecret: "s1", RedirectURL: "https://jw.example.com/auth/sso/callback"}
	a, err := New(cfg, nil, nil, nil, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	sealed := a.seal([]byte("refresh-token"))
	if strings.Contains(sealed, "refresh") {
		t.Fatal("not sealed")
	}
	if b, ok := a.open(sealed); !ok || string(b) != "refresh-token" {
		t.Fatalf("open = %q, %v", b, ok)
	}
	tampered := []byte(sealed)
	tampered[len(tampered)-2] ^= 1
	if _, ok := a.open(string(tampered)); ok {
		t.Error("a changed seal opened")
	}
	cfg.ClientSecret = "s2"
	b, _ := New(cfg, nil, nil, nil, slog.Default())
	if _, ok := b.open(sealed); ok {
		t.Error("opened with another client secret")
	}
}

// TestCheckConfig: each setting's mistake is named by its variable.
func TestCheckConfig(t *testing.T) {
	good := Config{Issuer: "https://idp.example.com", ClientID: "c", ClientSecret: "s", RedirectURL: "https://jw.example.com/auth/sso/callback"}
	if err := CheckConfig(&good); err != nil || good.GroupsClaim != "groups" || good.Name != "SSO" {
		t.Fatalf("CheckConfig(good) = %v, %+v", err, good)
	}
	for want, change := range map[string]func(*Config){
		"JOBWHEEL_SSO_CLIENT_ID":     func(c *Config) { c.ClientID = "" },
		"JOBWHEEL_SSO_CLIENT_SECRET": func(c *Config) { c.ClientSecret = "" },
		"JOBWHEEL_SSO_ISSUER":        func(c *Config) { c.Issuer = "idp.example.com" },
		"JOBWHEEL_SSO_REDIRECT_URL":  func(c *Config) { c.RedirectURL = "https://jw.example.com/login" },
		"JOBWHEEL_SSO_RECHECK":       func(c *Config) { c.Recheck = -1 },
	} {
		c := good
		change(&c)
		if err := CheckConfig(&c); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s wrong: %v", want, err)
		}
	}
	c := good
	c.RedirectURL = "https://jw.example.com/auth/sso/callback?x=1"
	if err := CheckConfig(&c); err == nil {
		t.Error("a redirect URL with a query passed")
	}
}

// TestUsername: a new user is named by their email, else their preferred
// username, else a name made of the subject; never an invalid username.
func TestUsername(t *testing.T) {
	for _, tc := range []struct {
		id   identity
		want string
	}{
		{identity{Subject: "s", Email: "ada@example.com", PreferredUsername: "ada"}, "ada@example.com"},
		{identity{Subject: "s", Email: "ada+x@example.com", PreferredUsername: "ada"}, "ada"},
		{identity{Subject: "s", PreferredUsername: "Ada Lovelace"}, ""},
	} {
		got := tc.id.username()
		if tc.want == "" {
			if !strings.HasPrefix(got, "sso-") {
				t.Errorf("username(%+v) = %q; want sso-<hash>", tc.id, got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("username(%+v) = %q; want %q", tc.id, got, tc.want)
		}
	}
}
