// Package auth decides who is calling and what they may do.
//
// People log in with a username and password (bcrypt at rest) and get a
// session token; services use API tokens. Both tokens are 32 random bytes
// shown once and stored only as their SHA-256, which is safe for secrets of
// that entropy and cheap enough to check on every request. A Principal in
// the request context carries the result; RoleOn says what it may do on an
// app: global admins may do anything, others what their app membership
// grants, and an API token never more than the role and app it was
// narrowed to.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// SessionTTL is how long a login lasts.
const SessionTTL = 7 * 24 * time.Hour

const (
	sessionPrefix = "jws_"
	tokenPrefix   = "jwt_"
	// AdminUsername is the user the first start creates.
	AdminUsername = "admin"
)

// errUserGone refuses a credential whose user no longer exists.
var errUserGone = fault.Unauthenticated("the user of this credential no longer exists")

// ErrBadCredentials is returned by Login for an unknown user or a wrong
// password alike, so callers cannot probe for usernames.
var ErrBadCredentials = fault.Unauthenticated("wrong username or password")

// Store is what auth needs from the database.
type Store interface {
	UserCreate(ctx context.Context, u *db.User) error
	UserGet(ctx context.Context, id int64) (*db.User, error)
	UserGetByName(ctx context.Context, username string) (*db.User, error)
	UserCount(ctx context.Context) (int, error)
	UserList(ctx context.Context) ([]db.User, error)
	UserSetPassword(ctx context.Context, id int64, hash string) error
	SessionCreate(ctx context.Context, s *db.Session) error
	SessionGetUser(ctx context.Context, tokenHash string, now time.Time) (*db.User, error)
	SessionDelete(ctx context.Context, tokenHash string) error
	APITokenGetByHash(ctx context.Context, hash string) (*db.APIToken, error)
	AppMemberGetRole(ctx context.Context, appID, userID int64) (db.Role, error)
	APITokenCreate(ctx context.Context, t *db.APIToken) error
	APITokenGet(ctx context.Context, id int64) (*db.APIToken, error)
	APITokenList(ctx context.Context, userID int64) ([]db.APIToken, error)
	APITokenRevoke(ctx context.Context, id int64, at time.Time) error
	APITokenTouch(ctx context.Context, id int64, at time.Time) error
	SessionDeleteUser(ctx context.Context, userID int64, keepHash string) error
	SessionGet(ctx context.Context, tokenHash string, now time.Time) (*db.Session, *db.User, error)
}

// SessionChecker checks a session with the identity provider it came from
// (package sso) and returns its user with their rights as they are now,
// or an UNAUTHENTICATED error when the provider no longer vouches for it.
type SessionChecker interface {
	Check(ctx context.Context, sess *db.Session, u *db.User) (*db.User, error)
}

// Service authenticates callers and answers authorization questions.
type Service struct {
	store Store
	log   *slog.Logger
	now   func() time.Time

	limits *limiter
	// noPasswords refuses password logins and their sessions.
	noPasswords bool
	// sso checks single sign-on sessions; nil without single sign-on.
	sso SessionChecker

	mu       sync.Mutex
	onChange []func()
}

// Config tunes the service; the zero value takes the defaults.
type Config struct {
	// LoginLimits bound password guessing; zero fields take the defaults.
	LoginLimits LoginLimits
	// Clock defaults to the system clock.
	Clock clock.Clock
	// NoPasswords turns local users' password logins off (single sign-on
	// only): login refuses, and sessions from passwords are refused. API
	// tokens keep working.
	NoPasswords bool
}

// New returns a Service over store.
func New(cfg Config, store Store, log *slog.Logger) *Service {
	clk := clock.OrSystem(cfg.Clock)
	now := func() time.Time { return db.Stamp(clk.Now()) }
	return &Service{store: store, log: log, now: now, limits: newLimiter(cfg.LoginLimits, now), noPasswords: cfg.NoPasswords}
}

// UseSSO has sessions from single sign-on checked by c (before the
// service serves requests).
func (s *Service) UseSSO(c SessionChecker) { s.sso = c }

// PasswordsAllowed reports whether local users may log in with passwords.
func (s *Service) PasswordsAllowed() bool { return !s.noPasswords }

// errNoPasswords refuses password logins when they are turned off.
var errNoPasswords = fault.Forbidden("password logins are turned off on this server; sign in with single sign-on")

// StartSession starts a session of the user lasting until expires (at
// most SessionTTL), for a sign-in made elsewhere (single sign-on, whose
// sealed refresh token it keeps), and returns its token.
func (s *Service) StartSession(ctx context.Context, userID int64, ssoRefresh string, expires time.Time) (string, time.Time, error) {
	if max := s.now().Add(SessionTTL); expires.IsZero() || expires.After(max) {
		expires = max
	}
	expires = db.Stamp(expires)
	token := randomToken(sessionPrefix)
	if err := s.store.SessionCreate(ctx, &db.Session{TokenHash: HashToken(token), UserID: userID, ExpiresAt: expires, SSORefresh: ssoRefresh}); err != nil {
		return "", time.Time{}, err
	}
	return token, expires, nil
}

// sessionUser returns the user of a live session: with single sign-on or
// without passwords, the session is looked at too (its origin, and its
// check with the provider when due).
func (s *Service) sessionUser(ctx context.Context, token string) (*db.User, error) {
	if s.sso == nil && !s.noPasswords {
		u, err := s.store.SessionGetUser(ctx, HashToken(token), s.now())
		if errors.Is(err, db.ErrNotFound) {
			return nil, errSessionEnded
		}
		return u, err
	}
	sess, u, err := s.store.SessionGet(ctx, HashToken(token), s.now())
	if errors.Is(err, db.ErrNotFound) {
		return nil, errSessionEnded
	}
	if err != nil {
		return nil, err
	}
	if u.SSOSubject == nil {
		if s.noPasswords {
			return nil, errNoPasswords
		}
		return u, nil
	}
	if s.sso == nil {
		return u, nil
	}
	return s.sso.Check(ctx, sess, u)
}

var errSessionEnded = fault.Unauthenticated("the session has expired or ended; log in again")

// Principal is an authenticated caller.
type Principal struct {
	User db.User
	// Token is set when the caller used an API token rather than a login.
	Token *db.APIToken
	// SessionToken is the raw session token of a console login, kept so the
	// session can be ended by logout.
	SessionToken string
}

// IsAdmin reports whether the caller has global admin rights.
func (p *Principal) IsAdmin() bool {
	return p.User.Admin && (p.Token == nil || (p.Token.AppID == nil && p.Token.Role == nil))
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the caller, or nil if the request is anonymous.
func FromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// Caller returns the authenticated caller or fault.ErrUnauthenticated.
func Caller(ctx context.Context) (*Principal, error) {
	if p := FromContext(ctx); p != nil {
		return p, nil
	}
	return nil, fault.ErrUnauthenticated
}

// PasswordCost is the bcrypt cost of new password hashes. Tests lower it
// (bcrypt is slow by design, and much slower under the race detector).
var PasswordCost = bcrypt.DefaultCost

// HashPassword hashes a password with bcrypt.
func HashPassword(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), PasswordCost)
	if err != nil {
		return "", fmt.Errorf("hashing password: %w", err)
	}
	return string(h), nil
}

// ValidatePassword says why a new password is unacceptable, or nil.
func ValidatePassword(field, password string) error {
	switch n := utf8.RuneCountInString(password); {
	case n < 8:
		return fault.BadInput(field, "must be at least 8 characters")
	case len(password) > 72:
		return fault.BadInput(field, "must be at most 72 bytes (bcrypt's limit)")
	}
	return nil
}

// ValidateUsername says why a username is unacceptable, or nil.
func ValidateUsername(field, username string) error {
	if username == "" {
		return fault.BadInput(field, "must not be empty")
	}
	if len(username) > 64 {
		return fault.BadInput(field, "must be at most 64 characters")
	}
	for _, r := range username {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-@", r)) {
			return fault.BadInput(field, "may contain only letters, digits and . _ - @")
		}
	}
	return nil
}

// EnsureAdmin creates the user "admin" when no user exists yet. With an
// empty password it generates one and returns it so it can be printed once;
// otherwise it returns "".
func (s *Service) EnsureAdmin(ctx context.Context, password string) (generated string, err error) {
	n, err := s.store.UserCount(ctx)
	if err != nil {
		return "", err
	}
	if n > 0 {
		return "", nil
	}
	if password == "" {
		generated = randomToken("")[:20]
		password = generated
	} else if err := ValidatePassword("JOBWHEEL_ADMIN_PASSWORD", password); err != nil {
		return "", err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return "", err
	}
	if err := s.store.UserCreate(ctx, &db.User{Username: AdminUsername, PasswordHash: hash, Admin: true}); err != nil {
		if errors.Is(err, db.ErrConflict) {
			return "", nil // another server created it first
		}
		return "", fmt.Errorf("creating the admin user: %w", err)
	}
	return generated, nil
}

// Login checks a password and starts a session. Attempts are limited per
// username and per client address (ClientAddr of ctx; see LoginLimits):
// over the limit, Login answers a RATE_LIMITED error without checking the
// password at all.
func (s *Service) Login(ctx context.Context, username, password string) (token string, user *db.User, expires time.Time, err error) {
	if s.noPasswords {
		return "", nil, time.Time{}, errNoPasswords
	}
	addr := ClientAddr(ctx)
	if err := s.limits.begin(username, addr); err != nil {
		s.log.InfoContext(ctx, "auth: login refused by the rate limit", "username", username, "client", addr)
		return "", nil, time.Time{}, err
	}
	user, err = s.store.UserGetByName(ctx, username)
	if errors.Is(err, db.ErrNotFound) {
		// Spend the time a real check would, so response times do not
		// reveal which usernames exist.
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return "", nil, time.Time{}, ErrBadCredentials
	}
	if err != nil {
		s.limits.undo(username, addr)
		return "", nil, time.Time{}, err
	}
	if bcrypt.CompareHashAndPassword([]byte(user.PasswordHash), []byte(password)) != nil {
		return "", nil, time.Time{}, ErrBadCredentials
	}
	token = randomToken(sessionPrefix)
	expires = s.now().Add(SessionTTL)
	if err := s.store.SessionCreate(ctx, &db.Session{TokenHash: HashToken(token), UserID: user.ID, ExpiresAt: expires}); err != nil {
		s.limits.undo(username, addr)
		return "", nil, time.Time{}, err
	}
	s.limits.succeeded(username, addr)
	return token, user, expires, nil
}

var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("not a password"), bcrypt.DefaultCost)

// Logout ends the session of a session token.
func (s *Service) Logout(ctx context.Context, sessionToken string) error {
	if sessionToken == "" {
		return nil
	}
	if err := s.store.SessionDelete(ctx, HashToken(sessionToken)); err != nil {
		return err
	}
	s.Changed()
	return nil
}

// Authenticate resolves a bearer token (session or API token) to a caller.
func (s *Service) Authenticate(ctx context.Context, token string) (*Principal, error) {
	switch {
	case strings.HasPrefix(token, sessionPrefix):
		u, err := s.sessionUser(ctx, token)
		if err != nil {
			return nil, err
		}
		return &Principal{User: *u, SessionToken: token}, nil
	case strings.HasPrefix(token, tokenPrefix):
		t, err := s.store.APITokenGetByHash(ctx, HashToken(token))
		if errors.Is(err, db.ErrNotFound) {
			return nil, fault.Unauthenticated("the API token is unknown or revoked")
		}
		if err != nil {
			return nil, err
		}
		u, err := s.store.UserGet(ctx, t.UserID)
		if errors.Is(err, db.ErrNotFound) {
			return nil, errUserGone
		}
		if err != nil {
			return nil, err
		}
		if now := s.now(); t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) > touchEvery {
			// Best effort: a failed touch must not fail the request.
			if err := s.store.APITokenTouch(ctx, t.ID, now); err != nil {
				s.log.WarnContext(ctx, "auth: recording an API token's use failed", "token", t.ID, "err", err)
			}
		}
		return &Principal{User: *u, Token: t}, nil
	default:
		return nil, fault.Unauthenticated("the bearer token is not a jobwheel token")
	}
}

// roleRank orders roles; an absent role ranks 0.
func roleRank(r db.Role) int {
	switch r {
	case db.RoleViewer:
		return 1
	case db.RoleEditor:
		return 2
	case db.RoleOwner:
		return 3
	}
	return 0
}

// RoleOn returns the caller's effective role on an app, "" for none.
// Admins are OWNER everywhere (unless their token narrows them).
func (s *Service) RoleOn(ctx context.Context, p *Principal, appID int64) (db.Role, error) {
	if p.Token != nil && p.Token.AppID != nil && *p.Token.AppID != appID {
		return "", nil
	}
	role := db.RoleOwner
	if !p.User.Admin {
		cache := rolesFrom(ctx, p)
		if r, ok := cache.get(appID); ok {
			role = r
		} else {
			var err error
			if role, err = s.store.AppMemberGetRole(ctx, appID, p.User.ID); err != nil {
				return "", err
			}
			cache.put(appID, role)
		}
	}
	if p.Token != nil && p.Token.Role != nil && roleRank(*p.Token.Role) < roleRank(role) {
		role = *p.Token.Role
	}
	return role, nil
}

// Require returns nil if the caller in ctx holds at least role on appID,
// fault.ErrUnauthenticated if nobody is logged in, and a NOT_FOUND error if
// the caller may not even see the app (so app names do not leak).
func (s *Service) Require(ctx context.Context, appID int64, role db.Role) error {
	p, err := Caller(ctx)
	if err != nil {
		return err
	}
	have, err := s.RoleOn(ctx, p, appID)
	if err != nil {
		return err
	}
	if have == "" {
		return fault.NotFound("app")
	}
	if roleRank(have) < roleRank(role) {
		return fault.Forbidden("this needs the %s role on the app; you have %s", role, have)
	}
	return nil
}

// RequireAdmin returns nil if the caller is a global admin.
func (s *Service) RequireAdmin(ctx context.Context) error {
	p, err := Caller(ctx)
	if err != nil {
		return err
	}
	if !p.IsAdmin() {
		return fault.Forbidden("only administrators may do this")
	}
	return nil
}

// HashToken returns the hex SHA-256 under which a token or secret is stored.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// NewSecret returns a fresh random secret with the prefix.
func NewSecret(prefix string) string { return randomToken(prefix) }

func randomToken(prefix string) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // the OS has no entropy; nothing is safe
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// Requirer checks a caller's role on an app: *Service, or a consumer's
// narrower interface over it.
type Requirer interface {
	Require(ctx context.Context, appID int64, role db.Role) error
}

// ReadInApp reads one row by its id with read and returns it if the caller
// holds at least role on the row's app (appOf). A missing row and a row of
// an app the caller may not see are both NOT_FOUND naming what ("job 7"),
// so ids of other tenants' rows reveal nothing; a lower role is FORBIDDEN.
func ReadInApp[T any](ctx context.Context, r Requirer, what string, role db.Role,
	read func(context.Context) (*T, error), appOf func(*T) int64) (*T, error) {
	v, err := read(ctx)
	if errors.Is(err, db.ErrNotFound) {
		return nil, fault.NotFound(what)
	}
	if err != nil {
		return nil, err
	}
	if err := r.Require(ctx, appOf(v), role); err != nil {
		if errors.Is(err, fault.ErrNotFound) {
			return nil, fault.NotFound(what)
		}
		return nil, err
	}
	return v, nil
}
