package readcache

import (
	"context"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// Store is the database as the API's services see it: every method of
// *db.DB, with the rows the cache keeps read from memory (reads inside a
// transaction go to the database), and the writes of those rows returning
// only once no server serves what it kept from before them (Changed).
//
// The writes are those of the services' (below) and any transaction run
// through InTx that moved a change counter. A write method added to *db.DB
// later and not listed here reaches every server within FreshFor all the
// same, through the counters.
type Store struct {
	*db.DB
	c *Cache
}

// Store returns d with this cache's reads and writes.
func (c *Cache) Store(d *db.DB) *Store { return &Store{DB: d, c: c} }

// changed follows a write of a scope's rows.
func (s *Store) changed(ctx context.Context, err error, scopes ...string) error {
	if err != nil {
		return err
	}
	return s.c.Changed(context.WithoutCancel(ctx), scopes...)
}

// InTx runs fn in a transaction; if the transaction moved a change
// counter (it changed rows kept in memory), it returns once no server
// serves what they were.
func (s *Store) InTx(ctx context.Context, fn func(ctx context.Context, tx *db.Store) error) error {
	known := s.c.known()
	var moved []string
	err := s.DB.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		moved = nil
		if err := fn(ctx, tx); err != nil {
			return err
		}
		now, err := tx.ChangeVersionList(ctx)
		if err != nil {
			return err
		}
		for scope, v := range now {
			if v != known[scope] {
				moved = append(moved, scope)
			}
		}
		return nil
	})
	if err != nil || len(moved) == 0 {
		return err
	}
	return s.changed(ctx, nil, moved...)
}

// The reads.

// SessionGetUser reads through the cache.
func (s *Store) SessionGetUser(ctx context.Context, tokenHash string, now time.Time) (*db.User, error) {
	return s.c.SessionGetUser(ctx, tokenHash, now)
}

// APITokenGetByHash reads through the cache.
func (s *Store) APITokenGetByHash(ctx context.Context, hash string) (*db.APIToken, error) {
	return s.c.APITokenGetByHash(ctx, hash)
}

// UserGet reads through the cache.
func (s *Store) UserGet(ctx context.Context, id int64) (*db.User, error) { return s.c.UserGet(ctx, id) }

// AppMemberGetRole reads through the cache.
func (s *Store) AppMemberGetRole(ctx context.Context, appID, userID int64) (db.Role, error) {
	return s.c.AppMemberGetRole(ctx, appID, userID)
}

// AppGet reads through the cache.
func (s *Store) AppGet(ctx context.Context, id int64) (*db.App, error) { return s.c.AppGet(ctx, id) }

// AppGetByName reads through the cache.
func (s *Store) AppGetByName(ctx context.Context, name string) (*db.App, error) {
	return s.c.AppGetByName(ctx, name)
}

// JobGet reads through the cache.
func (s *Store) JobGet(ctx context.Context, id int64) (*db.Job, error) { return s.c.JobGet(ctx, id) }

// The writes outside a transaction.

// UserSetPassword changes a user's password (their sessions stay valid
// until ended; the user row is kept in memory).
func (s *Store) UserSetPassword(ctx context.Context, id int64, hash string) error {
	return s.changed(ctx, s.DB.UserSetPassword(ctx, id, hash), db.VersionAuth)
}

// SessionDelete ends a session.
func (s *Store) SessionDelete(ctx context.Context, tokenHash string) error {
	return s.changed(ctx, s.DB.SessionDelete(ctx, tokenHash), db.VersionAuth)
}

// SessionDeleteUser ends a user's other sessions.
func (s *Store) SessionDeleteUser(ctx context.Context, userID int64, keepHash string) error {
	return s.changed(ctx, s.DB.SessionDeleteUser(ctx, userID, keepHash), db.VersionAuth)
}

// APITokenRevoke revokes a token.
func (s *Store) APITokenRevoke(ctx context.Context, id int64, at time.Time) error {
	return s.changed(ctx, s.DB.APITokenRevoke(ctx, id, at), db.VersionAuth)
}

// AppSetSecret replaces an app's secret.
func (s *Store) AppSetSecret(ctx context.Context, id int64, secretHash string) error {
	return s.changed(ctx, s.DB.AppSetSecret(ctx, id, secretHash), db.VersionApps)
}

// AppDelete deletes an app (and its members, tokens and jobs).
func (s *Store) AppDelete(ctx context.Context, id int64) error {
	return s.changed(ctx, s.DB.AppDelete(ctx, id), db.VersionApps, db.VersionAuth, db.VersionJobs)
}

// AppMemberSet sets a role.
func (s *Store) AppMemberSet(ctx context.Context, appID, userID int64, role db.Role) error {
	return s.changed(ctx, s.DB.AppMemberSet(ctx, appID, userID, role), db.VersionAuth)
}

// AppMemberSetKeepingOwner sets a role unless no owner would be left.
func (s *Store) AppMemberSetKeepingOwner(ctx context.Context, appID, userID int64, role db.Role) error {
	return s.changed(ctx, s.DB.AppMemberSetKeepingOwner(ctx, appID, userID, role), db.VersionAuth)
}

// JobUpdate saves a job's definition.
func (s *Store) JobUpdate(ctx context.Context, j *db.Job) error {
	return s.changed(ctx, s.DB.JobUpdate(ctx, j), db.VersionJobs)
}

// JobSetEnabled enables or disables a job.
func (s *Store) JobSetEnabled(ctx context.Context, id int64, enabled bool, next *time.Time) error {
	return s.changed(ctx, s.DB.JobSetEnabled(ctx, id, enabled, next), db.VersionJobs)
}

// JobDelete deletes a job.
func (s *Store) JobDelete(ctx context.Context, id int64) error {
	return s.changed(ctx, s.DB.JobDelete(ctx, id), db.VersionJobs)
}
