// Package sso signs people in through an OpenID Connect provider
// (docs/sso.md): the authorization code flow with PKCE, a state bound to
// the browser and a nonce bound to the ID token; the provider's groups
// become administrator rights and roles on apps (Grants) at each sign-in,
// and again whenever the session is checked with the provider (Check), so
// someone removed from a group loses what it gave at their next request
// once the check is due.
package sso

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
	"golang.org/x/sync/singleflight"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/api/audit"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/httpsec"
)

// LoginPath starts a sign-in; ?next= is where to land after it (a path
// of the console).
const LoginPath = "/auth/sso/login"

// flowCookie carries a sign-in under way (state, nonce, PKCE verifier)
// from LoginPath to the callback, sealed.
const flowCookie = "jobwheel_sso_flow"

// flowTTL bounds how long a sign-in may take at the provider.
const flowTTL = 10 * time.Minute

// Config configures single sign-on; it is off when Issuer is empty.
type Config struct {
	// Issuer is the provider's issuer URL (its discovery document is at
	// Issuer + "/.well-known/openid-configuration").
	Issuer       string
	ClientID     string
	ClientSecret string
	// RedirectURL is this server's callback as registered with the
	// provider, exactly; its path is where the callback is served.
	RedirectURL string
	// Name is the provider's name on the console's button ("Sign in with
	// Name").
	Name string
	// Scopes are asked for besides openid, email, profile and
	// offline_access (some providers need "groups" to send groups).
	Scopes []string
	// AllowedDomains, when set, admit only verified email addresses of
	// these domains; AllowedGroups, when set, only members of one of these
	// groups. Both set: both must hold.
	AllowedDomains []string
	AllowedGroups  []string
	// GroupsClaim is the ID token claim that lists the user's groups.
	GroupsClaim string
	// Grants map groups to administrator rights and app roles.
	Grants Grants
	// Recheck is how often a session's groups are checked with the
	// provider again (at a request once this long has passed); 0 checks
	// at every request.
	Recheck time.Duration
	// SessionCookie is the name of the console's session cookie.
	SessionCookie string
	// Proxies are the trusted reverse proxies (for whether the client came
	// over HTTPS, and its address).
	Proxies httpsec.Proxies
	// HTTPClient talks to the provider; nil: one with a 10 s timeout.
	HTTPClient *http.Client
	Clock      clock.Clock
}

// Store is what sso needs from the database.
type Store interface {
	UserGetBySubject(ctx context.Context, subject string) (*db.User, error)
	UserCreate(ctx context.Context, u *db.User) error
	UserSetAdmin(ctx context.Context, id int64, admin bool) error
	AppGetByName(ctx context.Context, name string) (*db.App, error)
	AppMemberGetRole(ctx context.Context, appID, userID int64) (db.Role, error)
	AppMemberSet(ctx context.Context, appID, userID int64, role db.Role) error
	SessionSSOClaim(ctx context.Context, id int64, prev *time.Time, at time.Time) error
	SessionSSOSetRefresh(ctx context.Context, id int64, refresh string) error
	SessionDeleteByID(ctx context.Context, id int64) error
}

// Sessions starts sessions and announces changes of rights (*auth.Service).
type Sessions interface {
	StartSession(ctx context.Context, userID int64, ssoRefresh string, expires time.Time) (string, time.Time, error)
	Changed()
}

// Auditor records sign-ins (*audit.Service).
type Auditor interface {
	Begin(ctx context.Context, action string, args map[string]any) *audit.Record
}

// Service is single sign-on with one provider.
type Service struct {
	cfg      Config
	store    Store
	sessions Sessions
	audit    Auditor
	log      *slog.Logger
	clock    clock.Clock
	client   *http.Client
	aead     cipher.AEAD
	callback string // RedirectURL's path

	mu       sync.Mutex
	provider *oidc.Provider

	checks singleflight.Group
}

// New returns the service; cfg must have been checked (CheckConfig).
func New(cfg Config, store Store, sessions Sessions, auditor Auditor, log *slog.Logger) (*Service, error) {
	if err := CheckConfig(&cfg); err != nil {
		return nil, err
	}
	u, _ := url.Parse(cfg.RedirectURL)
	// The refresh tokens and the sign-in flow are sealed with a key every
	// server of the cluster derives from the client secret they share.
	key := sha256.Sum256([]byte("jobwheel sso seal v1\x00" + cfg.ClientSecret))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, fmt.Errorf("sso: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("sso: %w", err)
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	return &Service{cfg: cfg, store: store, sessions: sessions, audit: auditor, log: log,
		clock: clock.OrSystem(cfg.Clock), client: client, aead: aead, callback: u.Path}, nil
}

// CheckConfig fills in defaults and says which setting is wrong, naming it
// by its environment variable.
func CheckConfig(cfg *Config) error {
	if cfg.ClientID == "" {
		return errors.New("JOBWHEEL_SSO_CLIENT_ID: must be set with JOBWHEEL_SSO_ISSUER")
	}
	if cfg.ClientSecret == "" {
		return errors.New("JOBWHEEL_SSO_CLIENT_SECRET: must be set with JOBWHEEL_SSO_ISSUER")
	}
	if u, err := url.Parse(cfg.Issuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("JOBWHEEL_SSO_ISSUER: %q is not an https:// URL", cfg.Issuer)
	}
	u, err := url.Parse(cfg.RedirectURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("JOBWHEEL_SSO_REDIRECT_URL: %q is not a URL such as https://jobwheel.example.com/auth/sso/callback (without query or fragment)", cfg.RedirectURL)
	}
	if u.Path == "" || u.Path == "/" || u.Path == LoginPath || !strings.HasPrefix(u.Path, "/auth/") {
		return fmt.Errorf("JOBWHEEL_SSO_REDIRECT_URL: the path %q must be under /auth/ (e.g. /auth/sso/callback), so it is not a page of the console", u.Path)
	}
	if cfg.Name == "" {
		cfg.Name = "SSO"
	}
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = "groups"
	}
	if cfg.Recheck < 0 {
		return errors.New("JOBWHEEL_SSO_RECHECK: must not be negative")
	}
	if cfg.SessionCookie == "" {
		cfg.SessionCookie = "jobwheel_session"
	}
	return nil
}

// Name is the provider's name for the console.
func (s *Service) Name() string { return s.cfg.Name }

// Routes serves the sign-in and its callback on mux.
func (s *Service) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET "+LoginPath, s.serveLogin)
	mux.HandleFunc("GET "+s.callback, s.serveCallback)
}

// discover returns the provider, reading its discovery document at the
// first sign-in (and again after a failure), so a server starts while the
// provider is away.
func (s *Service) discover(ctx context.Context) (*oidc.Provider, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.provider != nil {
		return s.provider, nil
	}
	// The provider keeps the context for fetching its signing keys later:
	// it must outlive this request.
	p, err := oidc.NewProvider(oidc.ClientContext(context.WithoutCancel(ctx), s.client), s.cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("reading the discovery document of %s: %w", s.cfg.Issuer, err)
	}
	s.provider = p
	return p, nil
}

func (s *Service) oauth(p *oidc.Provider) *oauth2.Config {
	scopes := []string{oidc.ScopeOpenID, "email", "profile", oidc.ScopeOfflineAccess}
	for _, sc := range s.cfg.Scopes {
		if !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	return &oauth2.Config{ClientID: s.cfg.ClientID, ClientSecret: s.cfg.ClientSecret, RedirectURL: s.cfg.RedirectURL,
		Endpoint: p.Endpoint(), Scopes: scopes}
}

// flow is a sign-in under way, kept in the browser (sealed) between
// LoginPath and the callback.
type flow struct {
	State    string    `json:"s"`
	Nonce    string    `json:"n"`
	Verifier string    `json:"v"`
	Next     string    `json:"x"`
	Expires  time.Time `json:"e"`
}

func (s *Service) serveLogin(w http.ResponseWriter, r *http.Request) {
	p, err := s.discover(r.Context())
	if err != nil {
		s.log.WarnContext(r.Context(), "sso: the provider cannot be reached; sign-in refused", "err", err)
		s.fail(w, r, "unavailable")
		return
	}
	f := flow{State: random(), Nonce: random(), Verifier: oauth2.GenerateVerifier(),
		Next: SafeNext(r.URL.Query().Get("next")), Expires: s.clock.Now().Add(flowTTL)}
	b, _ := json.Marshal(f)
	// SameSite=Lax: the provider sends the browser back with a top-level
	// GET from its own site, which a Strict cookie would not accompany.
	http.SetCookie(w, &http.Cookie{Name: flowCookie, Value: s.seal(b), Path: s.callback, MaxAge: int(flowTTL / time.Second),
		HttpOnly: true, Secure: s.cfg.Proxies.ClientOf(r).Secure, SameSite: http.SameSiteLaxMode})
	target := s.oauth(p).AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier))
	http.Redirect(w, r, target, http.StatusFound)
}

// SafeNext returns next if it is a path of this server, "/" otherwise:
// the sign-in never sends a browser to another site (no open redirect).
func SafeNext(next string) string {
	u, err := url.Parse(next)
	if next == "" || err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(next, "/") ||
		strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n\t") || strings.HasPrefix(u.Path, "/auth/") {
		return "/"
	}
	return next
}

// fail sends the browser to the console's login page with a code saying
// why signing in did not work (the console says it in words).
func (s *Service) fail(w http.ResponseWriter, r *http.Request, code string) {
	http.Redirect(w, r, "/login?sso_error="+url.QueryEscape(code), http.StatusFound)
}

func (s *Service) serveCallback(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	client := s.cfg.Proxies.ClientOf(r)
	http.SetCookie(w, &http.Cookie{Name: flowCookie, Value: "", Path: s.callback, MaxAge: -1,
		HttpOnly: true, Secure: client.Secure, SameSite: http.SameSiteLaxMode})
	f, ok := s.openFlow(r)
	if !ok {
		s.fail(w, r, "expired")
		return
	}
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(f.State)) != 1 {
		s.log.InfoContext(ctx, "sso: a callback whose state is not the browser's was refused")
		s.fail(w, r, "expired")
		return
	}
	if e := q.Get("error"); e != "" {
		s.log.InfoContext(ctx, "sso: the provider refused the sign-in", "error", e, "description", q.Get("error_description"))
		s.fail(w, r, "denied")
		return
	}
	p, err := s.discover(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "sso: the provider cannot be reached; sign-in refused", "err", err)
		s.fail(w, r, "unavailable")
		return
	}
	pctx := oidc.ClientContext(ctx, s.client)
	tok, err := s.oauth(p).Exchange(pctx, q.Get("code"), oauth2.VerifierOption(f.Verifier))
	if err != nil {
		s.log.WarnContext(ctx, "sso: exchanging the code failed", "err", err)
		s.fail(w, r, "failed")
		return
	}
	id, idt, err := s.identityOf(pctx, p, tok, true)
	if err != nil {
		s.log.WarnContext(ctx, "sso: the ID token was refused", "err", err)
		s.fail(w, r, "failed")
		return
	}
	if idt == nil || subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(f.Nonce)) != 1 {
		s.log.WarnContext(ctx, "sso: the ID token's nonce is not the one this sign-in sent")
		s.fail(w, r, "failed")
		return
	}
	if why := s.refusal(id); why != "" {
		s.log.InfoContext(ctx, "sso: sign-in refused", "subject", id.Subject, "email", id.Email, "why", why)
		s.fail(w, r, "denied")
		return
	}
	u, err := s.userFor(ctx, id)
	if errors.Is(err, errNameTaken) {
		s.log.WarnContext(ctx, "sso: sign-in refused: the username is another user's", "subject", id.Subject, "username", id.username(), "err", err)
		s.fail(w, r, "conflict")
		return
	}
	if err == nil {
		_, err = s.apply(ctx, u, id.Groups)
	}
	var sealed string
	expires := s.clock.Now().Add(auth.SessionTTL)
	if tok.RefreshToken != "" {
		sealed = s.seal([]byte(tok.RefreshToken))
	} else if idt.Expiry.Before(expires) {
		// Without a refresh token the groups cannot be checked again: the
		// session ends with the ID token.
		expires = idt.Expiry
	}
	var token string
	if err == nil {
		token, expires, err = s.sessions.StartSession(ctx, u.ID, sealed, expires)
	}
	if err != nil {
		s.log.ErrorContext(ctx, "sso: recording the sign-in failed", "subject", id.Subject, "err", err)
		s.fail(w, r, "failed")
		return
	}
	if s.audit != nil {
		actx := auth.WithClientAddr(auth.WithPrincipal(ctx, &auth.Principal{User: *u}), client.Addr)
		s.audit.Begin(actx, "ssoLogin", map[string]any{"provider": s.cfg.Name}).End(actx, nil, "", "")
	}
	http.SetCookie(w, &http.Cookie{Name: s.cfg.SessionCookie, Value: token, Path: "/", Expires: expires,
		HttpOnly: true, Secure: client.Secure, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, f.Next, http.StatusFound)
}

func (s *Service) openFlow(r *http.Request) (flow, bool) {
	var f flow
	c, err := r.Cookie(flowCookie)
	if err != nil {
		return f, false
	}
	b, ok := s.open(c.Value)
	if !ok || json.Unmarshal(b, &f) != nil || !s.clock.Now().Before(f.Expires) {
		return f, false
	}
	f.Next = SafeNext(f.Next)
	return f, true
}

// identity is who the provider says signed in.
type identity struct {
	Subject           string
	Email             string
	EmailVerified     *bool
	PreferredUsername string
	Groups            []string
}

// username is the jobwheel username of a new user: the email address,
// else the provider's preferred username, else one made of the subject.
func (id *identity) username() string {
	for _, n := range []string{id.Email, id.PreferredUsername} {
		if n != "" && auth.ValidateUsername("username", n) == nil {
			return n
		}
	}
	sum := sha256.Sum256([]byte(id.Subject))
	return "sso-" + base64.RawURLEncoding.EncodeToString(sum[:9])
}

// identityOf verifies the token response's ID token (signature, issuer,
// audience, expiry) and reads who it names. A refresh answered without
// an ID token (allowed when required is false) is read from the
// provider's userinfo endpoint instead.
func (s *Service) identityOf(ctx context.Context, p *oidc.Provider, tok *oauth2.Token, required bool) (*identity, *oidc.IDToken, error) {
	raw, _ := tok.Extra("id_token").(string)
	claims := map[string]any{}
	var idt *oidc.IDToken
	switch {
	case raw != "":
		var err error
		if idt, err = p.Verifier(&oidc.Config{ClientID: s.cfg.ClientID}).Verify(ctx, raw); err != nil {
			return nil, nil, err
		}
		if err := idt.Claims(&claims); err != nil {
			return nil, nil, err
		}
	case required:
		return nil, nil, errors.New("the token response has no id_token")
	default:
		info, err := p.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return nil, nil, fmt.Errorf("reading userinfo: %w", err)
		}
		if err := info.Claims(&claims); err != nil {
			return nil, nil, err
		}
	}
	id := &identity{Groups: stringsOf(claims[s.cfg.GroupsClaim])}
	id.Subject, _ = claims["sub"].(string)
	id.Email, _ = claims["email"].(string)
	id.PreferredUsername, _ = claims["preferred_username"].(string)
	if v, ok := claims["email_verified"].(bool); ok {
		id.EmailVerified = &v
	}
	if id.Subject == "" {
		return nil, nil, errors.New("the provider named no subject")
	}
	id.Subject = s.cfg.Issuer + "#" + id.Subject
	return id, idt, nil
}

// stringsOf reads a claim that is a list of strings or one string.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// refusal says why id may not sign in, or "".
func (s *Service) refusal(id *identity) string {
	if len(s.cfg.AllowedDomains) > 0 {
		_, domain, ok := strings.Cut(id.Email, "@")
		if !ok || !slices.ContainsFunc(s.cfg.AllowedDomains, func(d string) bool { return strings.EqualFold(d, domain) }) {
			return "the email address is not of an allowed domain"
		}
		if id.EmailVerified != nil && !*id.EmailVerified {
			return "the provider has not verified the email address"
		}
	}
	if len(s.cfg.AllowedGroups) > 0 && !slices.ContainsFunc(id.Groups, func(g string) bool { return slices.Contains(s.cfg.AllowedGroups, g) }) {
		return "not a member of an allowed group"
	}
	return ""
}

var errNameTaken = errors.New("the username is taken")

// userFor returns the user of the identity, created at its first sign-in.
func (s *Service) userFor(ctx context.Context, id *identity) (*db.User, error) {
	u, err := s.store.UserGetBySubject(ctx, id.Subject)
	if !errors.Is(err, db.ErrNotFound) {
		return u, err
	}
	subject := id.Subject
	u = &db.User{Username: id.username(), SSOSubject: &subject}
	err = s.store.UserCreate(ctx, u)
	if errors.Is(err, db.ErrConflict) {
		// Another server created it at the same sign-in, or the name is
		// a local user's (never merged with it: that user's rights are not
		// the provider's to give).
		if u, gerr := s.store.UserGetBySubject(ctx, id.Subject); gerr == nil {
			return u, nil
		}
		return nil, fmt.Errorf("%w: %w", errNameTaken, err)
	}
	return u, err
}

// apply makes the user's administrator rights and roles on the managed
// apps what their groups give, and reports whether anything changed.
func (s *Service) apply(ctx context.Context, u *db.User, groups []string) (bool, error) {
	want := s.cfg.Grants.For(groups)
	changed := false
	if s.cfg.Grants.ManagesAdmin() && u.Admin != want.Admin {
		if err := s.store.UserSetAdmin(ctx, u.ID, want.Admin); err != nil {
			return false, err
		}
		u.Admin, changed = want.Admin, true
	}
	for _, name := range s.cfg.Grants.Managed() {
		app, err := s.store.AppGetByName(ctx, name)
		if errors.Is(err, db.ErrNotFound) {
			continue // not created yet: the next check grants it
		}
		if err != nil {
			return changed, err
		}
		have, err := s.store.AppMemberGetRole(ctx, app.ID, u.ID)
		if err != nil {
			return changed, err
		}
		if have == want.Roles[name] {
			continue
		}
		if err := s.store.AppMemberSet(ctx, app.ID, u.ID, want.Roles[name]); err != nil {
			return changed, err
		}
		changed = true
	}
	return changed, nil
}

// Check checks a single sign-on session with the provider when the check
// is due (Config.Recheck): it refreshes the sign-on, reads the user's
// groups from the new ID token and applies them. A provider that refuses
// the refresh, or a user no longer allowed in, ends the session
// (UNAUTHENTICATED, and open websockets close); a provider that cannot be
// reached leaves the session as it was last checked. Concurrent requests
// of one session share one check.
func (s *Service) Check(ctx context.Context, sess *db.Session, u *db.User) (*db.User, error) {
	if sess.SSORefresh == "" || u.SSOSubject == nil {
		return u, nil
	}
	if last := sess.SSOCheckedAt; last != nil && s.clock.Now().Sub(*last) < s.cfg.Recheck {
		return u, nil
	}
	v, err, _ := s.checks.Do(strconv.FormatInt(sess.ID, 10), func() (any, error) {
		return s.recheck(context.WithoutCancel(ctx), sess, u)
	})
	if err != nil {
		return nil, err
	}
	return v.(*db.User), nil
}

func (s *Service) recheck(ctx context.Context, sess *db.Session, u *db.User) (*db.User, error) {
	err := s.store.SessionSSOClaim(ctx, sess.ID, sess.SSOCheckedAt, db.Stamp(s.clock.Now()))
	if errors.Is(err, db.ErrNotFound) {
		return u, nil // checked by another request or server just now
	}
	if err != nil {
		return nil, err
	}
	raw, ok := s.open(sess.SSORefresh)
	if !ok {
		return nil, s.revoke(ctx, sess, u, "the sign-on cannot be renewed (was the client secret changed?)")
	}
	p, err := s.discover(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "sso: the provider cannot be reached; the session keeps the rights of its last check", "user", u.Username, "err", err)
		return u, nil
	}
	pctx := oidc.ClientContext(ctx, s.client)
	tok, err := s.oauth(p).TokenSource(pctx, &oauth2.Token{RefreshToken: string(raw)}).Token()
	var refused *oauth2.RetrieveError
	if errors.As(err, &refused) && refused.Response != nil && refused.Response.StatusCode < 500 {
		return nil, s.revoke(ctx, sess, u, "the provider ended the sign-on ("+refused.ErrorCode+")")
	}
	if err != nil {
		s.log.WarnContext(ctx, "sso: renewing the sign-on failed; the session keeps the rights of its last check", "user", u.Username, "err", err)
		return u, nil
	}
	id, _, err := s.identityOf(pctx, p, tok, false)
	if err != nil {
		return nil, s.revoke(ctx, sess, u, "the provider's answer was refused: "+err.Error())
	}
	if id.Subject != *u.SSOSubject {
		return nil, s.revoke(ctx, sess, u, "the provider named another subject")
	}
	if why := s.refusal(id); why != "" {
		return nil, s.revoke(ctx, sess, u, why)
	}
	fresh := *u
	changed, err := s.apply(ctx, &fresh, id.Groups)
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken != "" && tok.RefreshToken != string(raw) {
		if err := s.store.SessionSSOSetRefresh(ctx, sess.ID, s.seal([]byte(tok.RefreshToken))); err != nil {
			return nil, err
		}
	}
	if changed {
		s.log.InfoContext(ctx, "sso: the user's groups changed; rights follow", "user", u.Username, "groups", id.Groups)
		// Open websockets and subscriptions re-check what they may see.
		s.sessions.Changed()
	}
	return &fresh, nil
}

// revoke ends a session the provider no longer vouches for.
func (s *Service) revoke(ctx context.Context, sess *db.Session, u *db.User, why string) error {
	s.log.InfoContext(ctx, "sso: session ended", "user", u.Username, "why", why)
	if err := s.store.SessionDeleteByID(ctx, sess.ID); err != nil {
		return err
	}
	s.sessions.Changed()
	return fault.Unauthenticated("your single sign-on ended: %s; sign in again", why)
}

func (s *Service) seal(plain []byte) string {
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, nil))
}

func (s *Service) open(sealed string) ([]byte, bool) {
	b, err := base64.RawURLEncoding.DecodeString(sealed)
	n := s.aead.NonceSize()
	if err != nil || len(b) < n {
		return nil, false
	}
	plain, err := s.aead.Open(nil, b[:n], b[n:], nil)
	return plain, err == nil
}

func random() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
