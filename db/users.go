package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// User is a console or API user. Only the password's hash is stored.
type User struct {
	bun.BaseModel `bun:"table:users,alias:u"`

	ID           int64  `bun:"id,pk,autoincrement"`
	Username     string `bun:"username,notnull"`
	PasswordHash string `bun:"password_hash,notnull"`
	Admin        bool   `bun:"admin,notnull"`
	// SSOSubject is the identity provider's issuer and subject
	// ("issuer#subject") of a user who signs in with single sign-on; nil
	// for local users.
	SSOSubject *string   `bun:"sso_subject"`
	CreatedAt  time.Time `bun:"created_at,notnull"`
	UpdatedAt  time.Time `bun:"updated_at,notnull"`
}

// Session is a login. The bearer token is only stored as its SHA-256.
type Session struct {
	bun.BaseModel `bun:"table:sessions,alias:s"`

	ID        int64     `bun:"id,pk,autoincrement"`
	TokenHash string    `bun:"token_hash,notnull"`
	UserID    int64     `bun:"user_id,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
	ExpiresAt time.Time `bun:"expires_at,notnull"`
	// SSORefresh is the identity provider's refresh token, sealed
	// (package sso); "" for password logins. SSOCheckedAt is when the
	// user's groups were last checked with the provider.
	SSORefresh   string     `bun:"sso_refresh,notnull"`
	SSOCheckedAt *time.Time `bun:"sso_checked_at"`
}

// UserCreate inserts a user; ErrConflict if the username is taken.
func (s *Store) UserCreate(ctx context.Context, u *User) error {
	now := Now()
	u.CreatedAt, u.UpdatedAt = now, now
	_, err := s.idb.NewInsert().Model(u).Returning("id").Exec(ctx)
	return wrap(err, "creating user "+u.Username)
}

// UserGet returns the user with the id.
func (s *Store) UserGet(ctx context.Context, id int64) (*User, error) {
	u := new(User)
	err := s.idb.NewSelect().Model(u).Where("id = ?", id).Scan(ctx)
	return u, wrap(err, "reading user")
}

// UserGetByName returns the user with the username.
func (s *Store) UserGetByName(ctx context.Context, username string) (*User, error) {
	u := new(User)
	err := s.idb.NewSelect().Model(u).Where("username = ?", username).Scan(ctx)
	return u, wrap(err, "reading user "+username)
}

// UserList returns every user by name.
func (s *Store) UserList(ctx context.Context) ([]User, error) {
	var users []User
	err := s.idb.NewSelect().Model(&users).Order("username").Scan(ctx)
	return users, wrap(err, "listing users")
}

// UserCount returns how many users exist.
func (s *Store) UserCount(ctx context.Context) (int, error) {
	n, err := s.idb.NewSelect().Model((*User)(nil)).Count(ctx)
	return n, wrap(err, "counting users")
}

// UserSetPassword replaces a user's password hash.
func (s *Store) UserSetPassword(ctx context.Context, id int64, hash string) error {
	res, err := s.idb.NewUpdate().Model((*User)(nil)).
		Set("password_hash = ?", hash).Set("updated_at = ?", Now()).
		Where("id = ?", id).Exec(ctx)
	return expectOne(res, err, "setting password")
}

// SessionCreate records a login.
func (s *Store) SessionCreate(ctx context.Context, sess *Session) error {
	sess.CreatedAt = Now()
	_, err := s.idb.NewInsert().Model(sess).Returning("id").Exec(ctx)
	return wrap(err, "creating session")
}

// SessionGetUser returns the user of an unexpired session by token hash.
func (s *Store) SessionGetUser(ctx context.Context, tokenHash string, now time.Time) (*User, error) {
	u := new(User)
	err := s.idb.NewSelect().Model(u).
		Join("JOIN sessions AS s ON s.user_id = u.id").
		Where("s.token_hash = ?", tokenHash).
		Where("s.expires_at > ?", now).
		Scan(ctx)
	return u, wrap(err, "reading session")
}

// SessionGetUserUntil returns the user of a session and when the session
// expires, expired or not (ErrNotFound: there is no such session): what
// a server keeps in memory to answer SessionGetUser without the database
// until the session expires or ends (server/platform/readcache).
func (s *Store) SessionGetUserUntil(ctx context.Context, tokenHash string) (*User, time.Time, error) {
	var row struct {
		User
		ExpiresAt time.Time `bun:"expires_at"`
	}
	err := s.idb.NewSelect().Model((*User)(nil)).ColumnExpr("u.*, s.expires_at").
		Join("JOIN sessions AS s ON s.user_id = u.id").
		Where("s.token_hash = ?", tokenHash).
		Scan(ctx, &row)
	if err != nil {
		return nil, time.Time{}, wrap(err, "reading session")
	}
	return &row.User, row.ExpiresAt, nil
}

// SessionDelete ends a session (logout).
func (s *Store) SessionDelete(ctx context.Context, tokenHash string) error {
	_, err := s.idb.NewDelete().Model((*Session)(nil)).Where("token_hash = ?", tokenHash).Exec(ctx)
	return wrap(err, "deleting session")
}

// SessionDeleteExpired removes sessions that expired before now.
func (s *Store) SessionDeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.idb.NewDelete().Model((*Session)(nil)).Where("expires_at <= ?", now).Exec(ctx)
	if err != nil {
		return 0, wrap(err, "deleting expired sessions")
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// UserGetBySubject returns the user with the single sign-on subject.
func (s *Store) UserGetBySubject(ctx context.Context, subject string) (*User, error) {
	u := new(User)
	err := s.idb.NewSelect().Model(u).Where("sso_subject = ?", subject).Scan(ctx)
	return u, wrap(err, "reading the user of a single sign-on subject")
}

// UserSetAdmin grants or takes away a user's administrator rights.
func (s *Store) UserSetAdmin(ctx context.Context, id int64, admin bool) error {
	res, err := s.idb.NewUpdate().Model((*User)(nil)).
		Set("admin = ?", admin).Set("updated_at = ?", Now()).
		Where("id = ?", id).Exec(ctx)
	return expectOne(res, err, "setting a user's admin rights")
}

// SessionGet returns an unexpired session and its user by token hash.
func (s *Store) SessionGet(ctx context.Context, tokenHash string, now time.Time) (*Session, *User, error) {
	sess := new(Session)
	err := s.idb.NewSelect().Model(sess).
		Where("token_hash = ?", tokenHash).
		Where("expires_at > ?", now).
		Scan(ctx)
	if err != nil {
		return nil, nil, wrap(err, "reading session")
	}
	u, err := s.UserGet(ctx, sess.UserID)
	if err != nil {
		return nil, nil, err
	}
	return sess, u, nil
}

// SessionSSOClaim takes a single sign-on session's next check with the
// provider: it records at as the time of the check if the last one is
// still prev (nil: never checked), and returns ErrNotFound when the
// session is gone or another request or server took this check first.
func (s *Store) SessionSSOClaim(ctx context.Context, id int64, prev *time.Time, at time.Time) error {
	q := s.idb.NewUpdate().Model((*Session)(nil)).Set("sso_checked_at = ?", at).Where("id = ?", id)
	if prev == nil {
		q = q.Where("sso_checked_at IS NULL")
	} else {
		q = q.Where("sso_checked_at = ?", *prev)
	}
	res, err := q.Exec(ctx)
	return expectOne(res, err, "taking a single sign-on check")
}

// SessionSSOSetRefresh replaces a single sign-on session's sealed refresh
// token (providers may hand out a new one at each refresh).
func (s *Store) SessionSSOSetRefresh(ctx context.Context, id int64, refresh string) error {
	_, err := s.idb.NewUpdate().Model((*Session)(nil)).Set("sso_refresh = ?", refresh).Where("id = ?", id).Exec(ctx)
	return wrap(err, "storing a single sign-on refresh token")
}

// SessionDeleteByID ends a session by its id.
func (s *Store) SessionDeleteByID(ctx context.Context, id int64) error {
	_, err := s.idb.NewDelete().Model((*Session)(nil)).Where("id = ?", id).Exec(ctx)
	return wrap(err, "deleting session")
}
