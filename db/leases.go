package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// AppLease says which server schedules an app until when. Epoch grows on
// every change of owner and fences dispatches from a former owner.
type AppLease struct {
	bun.BaseModel `bun:"table:app_leases,alias:l"`

	AppID      int64     `bun:"app_id,pk"`
	ServerID   string    `bun:"server_id,notnull"`
	Epoch      int64     `bun:"epoch,notnull"`
	AcquiredAt time.Time `bun:"acquired_at,notnull"`
	ExpiresAt  time.Time `bun:"expires_at,notnull"`
}

// Lease expiry is judged by one clock. On PostgreSQL that is the database's
// (servers' clocks may disagree with each other); on SQLite, which only one
// server uses, it is that server's, passed in as now.
func (s *Store) clockExpr(now time.Time) schema.QueryAppender {
	if s.dialect == Postgres {
		return bun.Safe("statement_timestamp()")
	}
	return bun.SafeQuery("?", now)
}

func (s *Store) clockPlusExpr(now time.Time, d time.Duration) schema.QueryAppender {
	if s.dialect == Postgres {
		return bun.SafeQuery("statement_timestamp() + ? * interval '1 millisecond'", d.Milliseconds())
	}
	return bun.SafeQuery("?", now.Add(d))
}

// releasedAt is the expiry a released lease gets: long past, and distinct
// from any real expiry.
var releasedAt = time.Unix(0, 0).UTC()

// millisUntil is an expression for the milliseconds from the lease clock's
// now until the timestamp column col (0 when there is no row).
func (s *Store) millisUntil(col string, now time.Time) schema.QueryAppender {
	if s.dialect == Postgres {
		return bun.SafeQuery("COALESCE(CAST(EXTRACT(EPOCH FROM (? - statement_timestamp())) * 1000 AS BIGINT), 0)", bun.Safe(col))
	}
	// SQLite stores times as text like "2026-11-22 04:18:01.12+00:00": the
	// fraction drops trailing zeros, so its length varies. julianday reads
	// the whole text, offset included; cutting it to a fixed length would
	// cut into the offset whenever the milliseconds end in zero.
	return bun.SafeQuery("COALESCE(CAST(ROUND((julianday(?) - julianday(?)) * 86400000) AS INTEGER), 0)",
		bun.Safe(col), now.UTC().Format("2006-01-02 15:04:05.000"))
}

// LeaseAcquire takes an app's lease for serverID if nobody holds it, it has
// expired, or serverID already holds it, in one conditional statement.
// Taking it from nobody or another server increases the epoch; the epoch
// never goes back, even after a release. It returns the lease and whether
// serverID holds it now.
func (s *Store) LeaseAcquire(ctx context.Context, appID int64, serverID string, ttl time.Duration, now time.Time) (*AppLease, bool, error) {
	var rows []AppLease
	err := s.idb.NewRaw(`INSERT INTO app_leases AS l (app_id, server_id, epoch, acquired_at, expires_at)
		VALUES (?, ?, 1, ?, ?)
		ON CONFLICT (app_id) DO UPDATE SET
			server_id = EXCLUDED.server_id,
			epoch = CASE WHEN l.server_id = EXCLUDED.server_id AND l.expires_at > EXCLUDED.acquired_at THEN l.epoch ELSE l.epoch + 1 END,
			acquired_at = CASE WHEN l.server_id = EXCLUDED.server_id AND l.expires_at > EXCLUDED.acquired_at THEN l.acquired_at ELSE EXCLUDED.acquired_at END,
			expires_at = EXCLUDED.expires_at
		WHERE l.expires_at <= EXCLUDED.acquired_at OR l.server_id = EXCLUDED.server_id
		RETURNING app_id, server_id, epoch, acquired_at, expires_at`,
		appID, serverID, s.clockExpr(now), s.clockPlusExpr(now, ttl)).Scan(ctx, &rows)
	if err != nil {
		return nil, false, wrap(err, "acquiring lease")
	}
	if len(rows) == 1 {
		return &rows[0], true, nil
	}
	l := new(AppLease)
	if err := s.idb.NewSelect().Model(l).Where("app_id = ?", appID).Scan(ctx); err != nil {
		return nil, false, wrap(err, "reading lease")
	}
	return l, false, nil
}

// LeaseRenewMany extends every unexpired lease serverID holds on the apps
// in one statement and returns the leases renewed. An app missing from the
// result is no longer this server's.
func (s *Store) LeaseRenewMany(ctx context.Context, serverID string, appIDs []int64, ttl time.Duration, now time.Time) ([]AppLease, error) {
	var out []AppLease
	if len(appIDs) == 0 {
		return out, nil
	}
	err := s.idb.NewUpdate().Model((*AppLease)(nil)).
		Set("expires_at = ?", s.clockPlusExpr(now, ttl)).
		Where("server_id = ? AND app_id IN (?) AND expires_at > ?", serverID, bun.List(appIDs), s.clockExpr(now)).
		Returning("app_id, server_id, epoch, acquired_at, expires_at").
		Scan(ctx, &out)
	return out, wrap(err, "renewing leases")
}

// LeaseRelease gives up serverID's leases on the apps at once, keeping the
// epochs, so another server can take them without waiting for expiry.
func (s *Store) LeaseRelease(ctx context.Context, serverID string, appIDs []int64) error {
	if len(appIDs) == 0 {
		return nil
	}
	_, err := s.idb.NewUpdate().Model((*AppLease)(nil)).
		Set("expires_at = ?", releasedAt).
		Where("server_id = ? AND app_id IN (?)", serverID, bun.List(appIDs)).Exec(ctx)
	return wrap(err, "releasing leases")
}

// LeaseState is an app with its lease, as the balancer sees it.
type LeaseState struct {
	AppID    int64  `bun:"app_id"`
	ServerID string `bun:"server_id"`
	Epoch    int64  `bun:"epoch"`
	// Live is whether the lease is unexpired by the lease clock.
	Live bool `bun:"live"`
	// Released is whether its holder gave it up (rather than let it expire).
	Released bool `bun:"released"`
	// ExpiresInMs is how long a live lease has left, by the lease clock.
	ExpiresInMs int64 `bun:"expires_in_ms"`
}

// LeaseList returns every app with its lease (ServerID empty if none).
func (s *Store) LeaseList(ctx context.Context, now time.Time) ([]LeaseState, error) {
	var out []LeaseState
	err := s.idb.NewSelect().TableExpr("apps AS a").
		ColumnExpr("a.id AS app_id").
		ColumnExpr("COALESCE(l.server_id, '') AS server_id").
		ColumnExpr("COALESCE(l.epoch, 0) AS epoch").
		ColumnExpr("CASE WHEN l.expires_at > ? THEN 1 ELSE 0 END AS live", s.clockExpr(now)).
		ColumnExpr("CASE WHEN l.expires_at = ? THEN 1 ELSE 0 END AS released", releasedAt).
		ColumnExpr("? AS expires_in_ms", s.millisUntil("l.expires_at", now)).
		Join("LEFT JOIN app_leases AS l ON l.app_id = a.id").
		OrderExpr("a.id").Scan(ctx, &out)
	return out, wrap(err, "reading leases")
}

// LeaseGet returns an app's lease and whether it is live.
func (s *Store) LeaseGet(ctx context.Context, appID int64, now time.Time) (*AppLease, bool, error) {
	var row struct {
		AppLease
		Live bool `bun:"live"`
	}
	err := s.idb.NewSelect().Model((*AppLease)(nil)).
		ColumnExpr("l.*").
		ColumnExpr("CASE WHEN l.expires_at > ? THEN 1 ELSE 0 END AS live", s.clockExpr(now)).
		Where("app_id = ?", appID).Scan(ctx, &row)
	if err != nil {
		return nil, false, wrap(err, "reading lease")
	}
	return &row.AppLease, row.Live, nil
}
