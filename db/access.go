package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// ErrLastOwner is returned when a change would leave an app without an OWNER.
var ErrLastOwner = errors.New("the app would have no owner left")

// AppMemberSetKeepingOwner grants, changes or (role "") removes a user's
// role on an app, unless that would leave the app without an OWNER. The
// check and the write are one transaction; on PostgreSQL the app row is
// locked for it, so two owners demoting each other at once cannot both
// succeed (SQLite runs one transaction at a time anyway).
func (d *DB) AppMemberSetKeepingOwner(ctx context.Context, appID, userID int64, role Role) error {
	return d.InTx(ctx, func(ctx context.Context, tx *Store) error {
		if tx.dialect == Postgres {
			var id int64
			err := tx.idb.NewSelect().Model((*App)(nil)).Column("id").Where("id = ?", appID).For("UPDATE").Scan(ctx, &id)
			if err != nil {
				return wrap(err, "locking app")
			}
		}
		if role != RoleOwner {
			current, err := tx.AppMemberGetRole(ctx, appID, userID)
			if err != nil {
				return err
			}
			if current == RoleOwner {
				n, err := tx.idb.NewSelect().Model((*AppMember)(nil)).
					Where("app_id = ? AND role = ? AND user_id <> ?", appID, RoleOwner, userID).Count(ctx)
				if err != nil {
					return wrap(err, "counting owners")
				}
				if n == 0 {
					return ErrLastOwner
				}
			}
		}
		return tx.AppMemberSet(ctx, appID, userID, role)
	})
}

// AppListByIDs returns the apps with the ids, in no particular order.
func (s *Store) AppListByIDs(ctx context.Context, ids []int64) ([]App, error) {
	var out []App
	if len(ids) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("id IN (?)", bun.List(ids)).Scan(ctx)
	return out, wrap(err, "reading apps")
}

// WorkerKey names one worker of one app.
type WorkerKey struct {
	AppID int64
	ID    string
}

// WorkerListByKeys returns the recorded workers among keys, in no particular
// order; keys not recorded are missing from the result.
func (s *Store) WorkerListByKeys(ctx context.Context, keys []WorkerKey) ([]Worker, error) {
	var out []Worker
	if len(keys) == 0 {
		return out, nil
	}
	apps := map[int64]bool{}
	ids := map[string]bool{}
	want := map[WorkerKey]bool{}
	var appList []int64
	var idList []string
	for _, k := range keys {
		want[k] = true
		if !apps[k.AppID] {
			apps[k.AppID] = true
			appList = append(appList, k.AppID)
		}
		if !ids[k.ID] {
			ids[k.ID] = true
			idList = append(idList, k.ID)
		}
	}
	var rows []Worker
	err := s.idb.NewSelect().Model(&rows).Where("app_id IN (?) AND id IN (?)", bun.List(appList), bun.List(idList)).Scan(ctx)
	if err != nil {
		return nil, wrap(err, "reading workers")
	}
	for _, w := range rows {
		if want[WorkerKey{w.AppID, w.ID}] {
			out = append(out, w)
		}
	}
	return out, nil
}

// InstanceListChangedSince returns up to limit instances of an app whose
// updated_at is at or after since, ordered by (updated_at, id), starting
// after the row (afterAt, afterID) when afterID is not 0: the keyset
// pagination instanceUpdated subscribers re-read with.
func (s *Store) InstanceListChangedSince(ctx context.Context, appID int64, since, afterAt time.Time, afterID int64, limit int) ([]Instance, error) {
	var out []Instance
	q := s.idb.NewSelect().Model(&out).Where("app_id = ?", appID)
	if afterID == 0 {
		q = q.Where("updated_at >= ?", since)
	} else {
		q = q.Where("(updated_at > ? OR (updated_at = ? AND id > ?))", afterAt, afterAt, afterID)
	}
	err := q.OrderExpr("updated_at, id").Limit(limit).Scan(ctx)
	return out, wrap(err, "reading changed instances")
}

// JobCountMatching counts an app's jobs whose name matches search ("" for all).
func (s *Store) JobCountMatching(ctx context.Context, appID int64, search string) (int, error) {
	q := s.idb.NewSelect().Model((*Job)(nil)).Where("app_id = ?", appID)
	if search != "" {
		q = q.Where("LOWER(name) LIKE ?", "%"+escapeLike(search)+"%")
	}
	n, err := q.Count(ctx)
	return n, wrap(err, "counting jobs")
}

// SessionDeleteUser ends every session of a user but the one with keepHash
// ("" ends them all), e.g. after a password change.
func (s *Store) SessionDeleteUser(ctx context.Context, userID int64, keepHash string) error {
	q := s.idb.NewDelete().Model((*Session)(nil)).Where("user_id = ?", userID)
	if keepHash != "" {
		q = q.Where("token_hash <> ?", keepHash)
	}
	_, err := q.Exec(ctx)
	return wrap(err, fmt.Sprintf("ending sessions of user %d", userID))
}

// SessionValid reports whether the session with the hash exists and has
// not expired.
func (s *Store) SessionValid(ctx context.Context, tokenHash string, now time.Time) (bool, error) {
	n, err := s.idb.NewSelect().Model((*Session)(nil)).
		Where("token_hash = ? AND expires_at > ?", tokenHash, now).Count(ctx)
	return n > 0, wrap(err, "checking session")
}

// AttemptListByInstances returns the attempts of each instance, in order.
func (s *Store) AttemptListByInstances(ctx context.Context, instanceIDs []int64) (map[int64][]InstanceAttempt, error) {
	out := make(map[int64][]InstanceAttempt, len(instanceIDs))
	if len(instanceIDs) == 0 {
		return out, nil
	}
	var rows []InstanceAttempt
	err := s.idb.NewSelect().Model(&rows).Where("instance_id IN (?)", bun.List(instanceIDs)).
		OrderExpr("instance_id, attempt").Scan(ctx)
	for _, r := range rows {
		out[r.InstanceID] = append(out[r.InstanceID], r)
	}
	return out, wrap(err, "listing attempts")
}
