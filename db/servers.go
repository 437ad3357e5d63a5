package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Server is one running jobwheel server process.
type Server struct {
	bun.BaseModel `bun:"table:servers,alias:srv"`

	ID           string    `bun:"id,pk"`
	AdvertiseURL string    `bun:"advertise_url,notnull"`
	Version      string    `bun:"version,notnull"`
	StartedAt    time.Time `bun:"started_at,notnull"`
	HeartbeatAt  time.Time `bun:"heartbeat_at,notnull"`
}

// ServerRegister records a starting server, or refreshes it after a restart
// with the same id.
func (s *Store) ServerRegister(ctx context.Context, srv *Server) error {
	_, err := s.idb.NewInsert().Model(srv).
		On("CONFLICT (id) DO UPDATE").
		Set("advertise_url = EXCLUDED.advertise_url").
		Set("version = EXCLUDED.version").
		Set("started_at = EXCLUDED.started_at").
		Set("heartbeat_at = EXCLUDED.heartbeat_at").
		Exec(ctx)
	return wrap(err, "registering server "+srv.ID)
}

// ServerHeartbeat refreshes a server's heartbeat.
func (s *Store) ServerHeartbeat(ctx context.Context, id string, at time.Time) error {
	res, err := s.idb.NewUpdate().Model((*Server)(nil)).
		Set("heartbeat_at = ?", at).Where("id = ?", id).Exec(ctx)
	return expectOne(res, err, "server heartbeat")
}

// ServerList returns every registered server, oldest first.
func (s *Store) ServerList(ctx context.Context) ([]Server, error) {
	var out []Server
	err := s.idb.NewSelect().Model(&out).Order("started_at", "id").Scan(ctx)
	return out, wrap(err, "listing servers")
}

// ServerDelete removes a server that shut down cleanly.
func (s *Store) ServerDelete(ctx context.Context, id string) error {
	_, err := s.idb.NewDelete().Model((*Server)(nil)).Where("id = ?", id).Exec(ctx)
	return wrap(err, "deleting server "+id)
}

// ServerDeleteStale removes servers whose heartbeat is older than before.
func (s *Store) ServerDeleteStale(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.idb.NewDelete().Model((*Server)(nil)).Where("heartbeat_at < ?", before).Exec(ctx)
	if err != nil {
		return 0, wrap(err, "deleting stale servers")
	}
	n, _ := res.RowsAffected()
	return n, nil
}
