package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// APIToken lets another service call the API as its creator, optionally
// narrowed to one app and role. Only the token's SHA-256 is stored.
type APIToken struct {
	bun.BaseModel `bun:"table:api_tokens,alias:t"`

	ID         int64      `bun:"id,pk,autoincrement"`
	Name       string     `bun:"name,notnull"`
	TokenHash  string     `bun:"token_hash,notnull"`
	UserID     int64      `bun:"user_id,notnull"`
	AppID      *int64     `bun:"app_id"`
	Role       *Role      `bun:"role"`
	CreatedAt  time.Time  `bun:"created_at,notnull"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`
}

// APITokenCreate stores a new API token (its hash only).
func (s *Store) APITokenCreate(ctx context.Context, t *APIToken) error {
	t.CreatedAt = Now()
	_, err := s.idb.NewInsert().Model(t).Returning("id").Exec(ctx)
	return wrap(err, "creating api token")
}

// APITokenGetByHash returns the unrevoked token with the hash.
func (s *Store) APITokenGetByHash(ctx context.Context, hash string) (*APIToken, error) {
	t := new(APIToken)
	err := s.idb.NewSelect().Model(t).Where("token_hash = ?", hash).Where("revoked_at IS NULL").Scan(ctx)
	return t, wrap(err, "reading api token")
}

// APITokenGet returns a token by id.
func (s *Store) APITokenGet(ctx context.Context, id int64) (*APIToken, error) {
	t := new(APIToken)
	err := s.idb.NewSelect().Model(t).Where("id = ?", id).Scan(ctx)
	return t, wrap(err, "reading api token")
}

// APITokenList returns the tokens a user created (every token for userID 0).
func (s *Store) APITokenList(ctx context.Context, userID int64) ([]APIToken, error) {
	var out []APIToken
	q := s.idb.NewSelect().Model(&out).Order("id DESC")
	if userID != 0 {
		q = q.Where("user_id = ?", userID)
	}
	err := q.Scan(ctx)
	return out, wrap(err, "listing api tokens")
}

// APITokenRevoke marks a token revoked; it stops working at once.
func (s *Store) APITokenRevoke(ctx context.Context, id int64, at time.Time) error {
	res, err := s.idb.NewUpdate().Model((*APIToken)(nil)).
		Set("revoked_at = ?", at).Where("id = ?", id).Where("revoked_at IS NULL").Exec(ctx)
	return expectOne(res, err, "revoking api token")
}

// APITokenTouch records a token's last use.
func (s *Store) APITokenTouch(ctx context.Context, id int64, at time.Time) error {
	_, err := s.idb.NewUpdate().Model((*APIToken)(nil)).
		Set("last_used_at = ?", at).Where("id = ?", id).Exec(ctx)
	return wrap(err, "touching api token")
}
