package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// WorkerMetrics is what a worker reports in its heartbeats.
type WorkerMetrics struct {
	CPUCores     int     `json:"cpuCores"`
	Load1        float64 `json:"load1"`
	FreeMemoryMB int64   `json:"freeMemoryMB"`
	FreeDiskMB   int64   `json:"freeDiskMB"`
	Running      int     `json:"running"`
}

// Worker is the last known state of a worker connected to some server, kept
// so that any server can list an app's workers.
type Worker struct {
	bun.BaseModel `bun:"table:workers,alias:w"`

	AppID          int64         `bun:"app_id,pk"`
	ID             string        `bun:"id,pk"`
	ServerID       string        `bun:"server_id,notnull"`
	Host           string        `bun:"host,notnull"`
	Version        string        `bun:"version,notnull"`
	Tags           []string      `bun:"tags,notnull,type:json"`
	Processors     []string      `bun:"processors,notnull,type:json"`
	Slots          int           `bun:"slots,notnull"`
	Metrics        WorkerMetrics `bun:"metrics,notnull,type:json"`
	ConnectedAt    time.Time     `bun:"connected_at,notnull"`
	LastHeartbeat  time.Time     `bun:"last_heartbeat,notnull"`
	DisconnectedAt *time.Time    `bun:"disconnected_at"`
	// Draining: it stopping gracefully and takes no new tasks.
	Draining bool `bun:"draining,notnull"`
}

// WorkerFilter narrows the workers a job may run on.
type WorkerFilter struct {
	Designated  []string `json:"designated,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	MinCPUCores int      `json:"minCpuCores,omitempty"`
	MinMemoryMB int64    `json:"minMemoryMB,omitempty"`
	MinDiskMB   int64    `json:"minDiskMB,omitempty"`
	MaxWorkers  int      `json:"maxWorkers,omitempty"`
}

// WorkerUpsert records a worker that connected (or reconnected).
func (s *Store) WorkerUpsert(ctx context.Context, w *Worker) error {
	_, err := s.idb.NewInsert().Model(w).
		On("CONFLICT (app_id, id) DO UPDATE").
		Set("server_id = EXCLUDED.server_id").
		Set("host = EXCLUDED.host").
		Set("version = EXCLUDED.version").
		Set("tags = EXCLUDED.tags").
		Set("processors = EXCLUDED.processors").
		Set("slots = EXCLUDED.slots").
		Set("metrics = EXCLUDED.metrics").
		Set("connected_at = EXCLUDED.connected_at").
		Set("last_heartbeat = EXCLUDED.last_heartbeat").
		Set("disconnected_at = NULL").
		Set("draining = EXCLUDED.draining").
		Exec(ctx)
	return wrap(err, "recording worker "+w.ID)
}

// WorkerBeat is one worker's heartbeat to record.
type WorkerBeat struct {
	AppID    int64
	ID       string
	Metrics  WorkerMetrics
	At       time.Time
	Draining bool
}

// WorkerHeartbeatMany records many heartbeats in one statement.
func (s *Store) WorkerHeartbeatMany(ctx context.Context, beats []WorkerBeat) error {
	if len(beats) == 0 {
		return nil
	}
	rows := make([]Worker, len(beats))
	for i, b := range beats {
		rows[i] = Worker{AppID: b.AppID, ID: b.ID, Metrics: b.Metrics, LastHeartbeat: b.At, Draining: b.Draining}
	}
	_, err := s.idb.NewUpdate().Model(&rows).Column("metrics", "last_heartbeat", "draining").Bulk().Exec(ctx)
	return wrap(err, "recording worker heartbeats")
}

// WorkerDisconnected records that a worker's connection to serverID
// ended. A worker that already reconnected to another server (a redirect
// races the old connection's end) is left alone.
func (s *Store) WorkerDisconnected(ctx context.Context, appID int64, id, serverID string, at time.Time) error {
	_, err := s.idb.NewUpdate().Model((*Worker)(nil)).
		Set("disconnected_at = ?", at).
		Where("app_id = ? AND id = ? AND server_id = ?", appID, id, serverID).Exec(ctx)
	return wrap(err, "recording worker disconnect")
}

// WorkerDisconnectServer marks every worker connected to a server as
// disconnected, when that server starts (its old connections are gone) or
// is found dead.
func (s *Store) WorkerDisconnectServer(ctx context.Context, serverID string, at time.Time) error {
	_, err := s.idb.NewUpdate().Model((*Worker)(nil)).
		Set("disconnected_at = ?", at).
		Where("server_id = ? AND disconnected_at IS NULL", serverID).Exec(ctx)
	return wrap(err, "recording workers of server as disconnected")
}

// WorkerList returns an app's workers seen since `since`, connected first.
func (s *Store) WorkerList(ctx context.Context, appID int64, since time.Time) ([]Worker, error) {
	var out []Worker
	err := s.idb.NewSelect().Model(&out).
		Where("app_id = ?", appID).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("disconnected_at IS NULL").WhereOr("disconnected_at >= ?", since)
		}).
		OrderExpr("disconnected_at IS NOT NULL, host, id").Scan(ctx)
	return out, wrap(err, "listing workers")
}

// WorkerAliveWindow is how old a connected worker's last recorded
// heartbeat may be while it still counts as alive. Heartbeats are recorded
// every few seconds, so a worker silent this long is gone even if the
// server that held it died before recording the disconnect.
const WorkerAliveWindow = 15 * time.Second

// Alive reports whether the worker is connected and recently heard from.
func (w *Worker) Alive(now time.Time) bool {
	return w.DisconnectedAt == nil && now.Sub(w.LastHeartbeat) < WorkerAliveWindow
}

// WorkerDeleteOld removes worker rows disconnected before `before`.
func (s *Store) WorkerDeleteOld(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.idb.NewDelete().Model((*Worker)(nil)).
		Where("disconnected_at IS NOT NULL AND disconnected_at < ?", before).Exec(ctx)
	if err != nil {
		return 0, wrap(err, "deleting old workers")
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// WorkerGet returns one worker of an app.
func (s *Store) WorkerGet(ctx context.Context, appID int64, id string) (*Worker, error) {
	w := new(Worker)
	err := s.idb.NewSelect().Model(w).Where("app_id = ? AND id = ?", appID, id).Scan(ctx)
	return w, wrap(err, "reading worker")
}
