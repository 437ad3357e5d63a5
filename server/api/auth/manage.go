package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/text"
)

// touchEvery bounds how often an API token's last use is written.
const touchEvery = time.Minute

// ReadOnly reports whether the caller uses an API token narrowed to
// VIEWER: such a token may read, and change nothing at all (not even
// other tokens).
func (p *Principal) ReadOnly() bool {
	return p.Token != nil && p.Token.Role != nil && *p.Token.Role == db.RoleViewer
}

// RoleRank orders roles: VIEWER < EDITOR < OWNER; no role ranks 0.
func RoleRank(r db.Role) int { return roleRank(r) }

// OnChange registers fn to be called after a change that may take rights
// away from someone already connected: a token revoked, a role changed, a
// password changed, a logout. Live subscriptions re-check their caller.
func (s *Service) OnChange(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onChange = append(s.onChange, fn)
}

// Changed tells the OnChange listeners that rights changed.
func (s *Service) Changed() {
	s.mu.Lock()
	fns := append([]func(){}, s.onChange...)
	s.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// requireWriter refuses read-only tokens.
func requireWriter(p *Principal) error {
	if p.ReadOnly() {
		return fault.Forbidden("this API token is read-only (VIEWER); it cannot change anything")
	}
	return nil
}

// CreateUser creates a user (administrators only).
func (s *Service) CreateUser(ctx context.Context, username, password string, admin bool) (*db.User, error) {
	if err := s.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	username = strings.TrimSpace(username)
	if err := ValidateUsername("username", username); err != nil {
		return nil, err
	}
	if err := ValidatePassword("password", password); err != nil {
		return nil, err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return nil, err
	}
	u := &db.User{Username: username, PasswordHash: hash, Admin: admin}
	if err := s.store.UserCreate(ctx, u); err != nil {
		if errors.Is(err, db.ErrConflict) {
			return nil, fault.BadInput("username", "a user named %q already exists", username)
		}
		return nil, err
	}
	return u, nil
}

// Users lists every user by name (administrators only).
func (s *Service) Users(ctx context.Context) ([]db.User, error) {
	if err := s.RequireAdmin(ctx); err != nil {
		return nil, err
	}
	return s.store.UserList(ctx)
}

// UserByName returns a user for a caller who already holds the right to
// name users (e.g. an app's OWNER granting a role); unknown names are a
// BAD_INPUT error on field.
func (s *Service) UserByName(ctx context.Context, field, username string) (*db.User, error) {
	if _, err := Caller(ctx); err != nil {
		return nil, err
	}
	u, err := s.store.UserGetByName(ctx, username)
	if errors.Is(err, db.ErrNotFound) {
		return nil, fault.BadInput(field, "there is no user named %q", username)
	}
	return u, err
}

// UserByID returns a user (for fields of objects the caller already may see).
func (s *Service) UserByID(ctx context.Context, id int64) (*db.User, error) {
	if _, err := Caller(ctx); err != nil {
		return nil, err
	}
	u, err := s.store.UserGet(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return nil, fault.NotFound("user")
	}
	return u, err
}

// ChangePassword replaces the caller's password after checking the old
// one, and ends the caller's other sessions. It needs a login session: an
// API token cannot change its creator's password.
func (s *Service) ChangePassword(ctx context.Context, oldPassword, newPassword string) error {
	p, err := Caller(ctx)
	if err != nil {
		return err
	}
	if p.Token != nil {
		return fault.Forbidden("passwords are changed from a login session, not with an API token")
	}
	u, err := s.store.UserGet(ctx, p.User.ID)
	if err != nil {
		return err
	}
	if u.SSOSubject != nil {
		return fault.Forbidden("you sign in with single sign-on: your password is the identity provider's to change")
	}
	if bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(oldPassword)) != nil {
		return fault.BadInput("oldPassword", "is not your current password")
	}
	if err := ValidatePassword("newPassword", newPassword); err != nil {
		return err
	}
	hash, err := HashPassword(newPassword)
	if err != nil {
		return err
	}
	if err := s.store.UserSetPassword(ctx, u.ID, hash); err != nil {
		return err
	}
	keep := ""
	if p.SessionToken != "" {
		keep = HashToken(p.SessionToken)
	}
	if err := s.store.SessionDeleteUser(ctx, u.ID, keep); err != nil {
		return err
	}
	s.Changed()
	return nil
}

// CreateAPIToken makes an API token for the caller and returns it with its
// secret, which is shown this once; only its hash is stored.
//
// appID and role narrow it: to one app, and to at most a role. A token
// never has more rights than its creator: its role on an app is re-checked
// against the creator's at every use (RoleOn), a role above the creator's
// role on the app is refused here, and a caller using an API token can only
// create tokens at least as narrow as its own (same app, no higher role).
func (s *Service) CreateAPIToken(ctx context.Context, name string, appID *int64, role *db.Role) (*db.APIToken, string, error) {
	p, err := Caller(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := requireWriter(p); err != nil {
		return nil, "", err
	}
	name = strings.TrimSpace(name)
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return nil, "", fault.BadInput("name", "must not be empty")
	case n > 128:
		return nil, "", fault.BadInput("name", "must be at most 128 characters")
	}
	if err := text.Line("name", name); err != nil {
		return nil, "", err
	}
	if role != nil && roleRank(*role) == 0 {
		return nil, "", fault.BadInput("role", "%q is not a role", *role)
	}
	if p.Token != nil {
		if t := p.Token.AppID; t != nil {
			if appID == nil {
				appID = t
			} else if *appID != *t {
				return nil, "", fault.NotFound("app")
			}
		}
		if t := p.Token.Role; t != nil {
			if role == nil {
				role = t
			} else if roleRank(*role) > roleRank(*t) {
				return nil, "", fault.Forbidden("this API token is limited to %s; it cannot create a token with %s", *t, *role)
			}
		}
	}
	if appID != nil {
		have, err := s.RoleOn(ctx, p, *appID)
		if err != nil {
			return nil, "", err
		}
		if have == "" {
			return nil, "", fault.NotFound("app")
		}
		if role != nil && roleRank(*role) > roleRank(have) {
			return nil, "", fault.Forbidden("you have %s on the app; a token cannot have %s", have, *role)
		}
	}
	secret := randomToken(tokenPrefix)
	t := &db.APIToken{Name: name, TokenHash: HashToken(secret), UserID: p.User.ID, AppID: appID, Role: role}
	if err := s.store.APITokenCreate(ctx, t); err != nil {
		return nil, "", err
	}
	return t, secret, nil
}

// APITokens lists the caller's API tokens, newest first; administrators
// see everyone's. A caller using an API token narrowed to one app sees
// only the tokens narrowed to that app: a token sees and manages only
// what its scope allows.
func (s *Service) APITokens(ctx context.Context) ([]db.APIToken, error) {
	p, err := Caller(ctx)
	if err != nil {
		return nil, err
	}
	owner := p.User.ID
	if p.IsAdmin() {
		owner = 0
	}
	list, err := s.store.APITokenList(ctx, owner)
	if err != nil {
		return nil, err
	}
	kept := list[:0]
	for _, t := range list {
		if tokenInScope(p, &t) {
			kept = append(kept, t)
		}
	}
	return kept, nil
}

// tokenInScope reports whether the caller may see and manage token t:
// its creator (or an administrator), and when the caller uses an API
// token narrowed to one app, only tokens narrowed to that same app.
func tokenInScope(p *Principal, t *db.APIToken) bool {
	if t.UserID != p.User.ID && !p.IsAdmin() {
		return false
	}
	if p.Token != nil && p.Token.AppID != nil {
		return t.AppID != nil && *t.AppID == *p.Token.AppID
	}
	return true
}

// RevokeAPIToken revokes a token (its creator or an administrator, within
// the scope of the caller's own token). It stops working at once: every
// request looks the token up, and live subscriptions and websockets
// re-check their caller when told of the change.
func (s *Service) RevokeAPIToken(ctx context.Context, id int64) error {
	p, err := Caller(ctx)
	if err != nil {
		return err
	}
	t, err := s.store.APITokenGet(ctx, id)
	if errors.Is(err, db.ErrNotFound) || (err == nil && !tokenInScope(p, t)) {
		return fault.NotFound(fmt.Sprintf("API token %d", id))
	}
	if err != nil {
		return err
	}
	if err := requireWriter(p); err != nil {
		return err
	}
	if t.RevokedAt != nil {
		return nil
	}
	if err := s.store.APITokenRevoke(ctx, id, s.now()); err != nil && !errors.Is(err, db.ErrNotFound) {
		return err
	}
	s.Changed()
	return nil
}

// Refresh authenticates the caller of ctx again (the session still valid,
// the API token not revoked, the user's admin flag as it is now) and
// returns a context carrying the fresh principal. Long-lived operations
// (subscriptions) call it so a revoked token stops them too.
func (s *Service) Refresh(ctx context.Context) (context.Context, error) {
	p, err := Caller(ctx)
	if err != nil {
		return ctx, err
	}
	var fresh *Principal
	switch {
	case p.Token != nil:
		t, err := s.store.APITokenGetByHash(ctx, p.Token.TokenHash)
		if errors.Is(err, db.ErrNotFound) {
			return ctx, fault.Unauthenticated("the API token is unknown or revoked")
		}
		if err != nil {
			return ctx, err
		}
		u, err := s.store.UserGet(ctx, t.UserID)
		if errors.Is(err, db.ErrNotFound) {
			return ctx, errUserGone
		}
		if err != nil {
			return ctx, err
		}
		fresh = &Principal{User: *u, Token: t}
	case p.SessionToken != "":
		u, err := s.sessionUser(ctx, p.SessionToken)
		if err != nil {
			return ctx, err
		}
		fresh = &Principal{User: *u, SessionToken: p.SessionToken}
	default:
		return ctx, nil
	}
	return WithPrincipal(ctx, fresh), nil
}

// Roles looked up in one request are remembered for that request, so a
// page of 50 instances checks its app once. The memo belongs to the
// principal it was made for and is dropped by ForgetRoles after a change.
type roleMemo struct {
	p     *Principal
	mu    sync.Mutex
	roles map[int64]db.Role
}

type roleMemoKey struct{}

// WithRoleMemo returns ctx with a fresh per-request memo of roles.
func WithRoleMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, roleMemoKey{}, &roleMemo{roles: map[int64]db.Role{}})
}

// ForgetRoles empties the request's memo (after the request changed roles).
func ForgetRoles(ctx context.Context) {
	if m, ok := ctx.Value(roleMemoKey{}).(*roleMemo); ok {
		m.mu.Lock()
		clear(m.roles)
		m.mu.Unlock()
	}
}

// rolesFrom returns the memo of ctx for p; nil (which remembers nothing)
// if there is none or it belongs to someone else.
func rolesFrom(ctx context.Context, p *Principal) *roleMemo {
	m, ok := ctx.Value(roleMemoKey{}).(*roleMemo)
	if !ok {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.p == nil {
		m.p = p
	}
	if m.p != p {
		return nil
	}
	return m
}

func (m *roleMemo) get(appID int64) (db.Role, bool) {
	if m == nil {
		return "", false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.roles[appID]
	return r, ok
}

func (m *roleMemo) put(appID int64, r db.Role) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.roles[appID] = r
}
