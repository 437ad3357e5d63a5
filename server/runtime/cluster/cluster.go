// Package cluster keeps the registry of live jobwheel servers: each server
// registers itself at start, heart-beats while it runs and removes itself
// when it stops. A server is alive while its heartbeat is younger than
// DeadAfter. The registry is what leases, discovery and the API's `servers`
// query agree on.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
)

// Defaults for the heartbeat.
const (
	HeartbeatInterval = 3 * time.Second
	DeadAfter         = 15 * time.Second
	// forgetAfter is when a dead server's row is removed altogether.
	forgetAfter = 24 * time.Hour
)

// Store is what the registry needs from the database.
type Store interface {
	ServerRegister(ctx context.Context, srv *db.Server) error
	ServerHeartbeat(ctx context.Context, id string, at time.Time) error
	ServerList(ctx context.Context) ([]db.Server, error)
	ServerDelete(ctx context.Context, id string) error
	ServerDeleteStale(ctx context.Context, before time.Time) (int64, error)
	LeaseGet(ctx context.Context, appID int64, now time.Time) (*db.AppLease, bool, error)
	LeaseList(ctx context.Context, now time.Time) ([]db.LeaseState, error)
}

// Config describes this server.
type Config struct {
	ID           string
	AdvertiseURL string
	Version      string
	// HeartbeatInterval defaults to HeartbeatInterval.
	HeartbeatInterval time.Duration
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Registry registers this server and lists all of them.
type Registry struct {
	lifecycle.Base
	cfg   Config
	store Store
	log   *slog.Logger
	clock clock.Clock

	mu   sync.Mutex
	left bool // Leave was called: no more heartbeats
}

// New returns a Registry; call Start to register and heart-beat.
func New(cfg Config, store Store, log *slog.Logger) *Registry {
	if cfg.HeartbeatInterval == 0 {
		cfg.HeartbeatInterval = HeartbeatInterval
	}
	return &Registry{cfg: cfg, store: store, log: log, clock: clock.OrSystem(cfg.Clock)}
}

// ID is this server's id.
func (r *Registry) ID() string { return r.cfg.ID }

// AdvertiseURL is where this server is reached.
func (r *Registry) AdvertiseURL() string { return r.cfg.AdvertiseURL }

// Start registers the server and heart-beats until Stop, which removes the
// server from the registry.
func (r *Registry) Start(ctx context.Context) error {
	ctx, ok, started, stopped := r.StartInit(ctx)
	if !ok {
		return nil
	}
	if err := r.register(ctx); err != nil {
		stopped()
		return err
	}
	r.mu.Lock()
	r.left = false
	r.mu.Unlock()
	go func() {
		started()
		defer stopped()
		r.loop(ctx)
		r.Leave(context.WithoutCancel(ctx))
	}()
	return nil
}

func (r *Registry) register(ctx context.Context) error {
	now := db.Stamp(r.clock.Now())
	if err := r.store.ServerRegister(ctx, &db.Server{
		ID: r.cfg.ID, AdvertiseURL: r.cfg.AdvertiseURL, Version: r.cfg.Version,
		StartedAt: now, HeartbeatAt: now,
	}); err != nil {
		return fmt.Errorf("registering this server: %w", err)
	}
	return nil
}

func (r *Registry) loop(ctx context.Context) {
	for clock.Sleep(r.clock, r.cfg.HeartbeatInterval, ctx.Done()) {
		r.mu.Lock()
		left := r.left
		r.mu.Unlock()
		if left {
			continue
		}
		now := db.Stamp(r.clock.Now())
		err := r.store.ServerHeartbeat(ctx, r.cfg.ID, now)
		if err != nil && ctx.Err() == nil {
			// Deleted as stale by another server after a long pause:
			// register again rather than stay invisible.
			r.log.Warn("cluster: heartbeat failed; registering again", "err", err)
			if err := r.register(ctx); err != nil && ctx.Err() == nil {
				r.log.Error("cluster: registering again failed", "err", err)
			}
		}
		if _, err := r.store.ServerDeleteStale(ctx, now.Add(-forgetAfter)); err != nil && ctx.Err() == nil {
			r.log.Warn("cluster: removing long-dead servers failed", "err", err)
		}
	}
}

// Leave removes this server from the registry now, before it stops: the
// lease manager calls it first when the server shuts down, so the servers
// taking its apps over no longer count it in their fair share. Heartbeats
// stop with it. It is safe to call more than once.
func (r *Registry) Leave(ctx context.Context) {
	r.mu.Lock()
	if r.left {
		r.mu.Unlock()
		return
	}
	r.left = true
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := r.store.ServerDelete(ctx, r.cfg.ID); err != nil {
		r.log.Warn("cluster: deregistering failed; the row expires by itself", "err", err)
	}
}

// Member is a server as the registry sees it.
type Member struct {
	db.Server
	Alive bool
}

// Members lists every registered server with whether it is alive.
func (r *Registry) Members(ctx context.Context) ([]Member, error) {
	list, err := r.store.ServerList(ctx)
	if err != nil {
		return nil, err
	}
	now := r.clock.Now()
	out := make([]Member, len(list))
	for i, s := range list {
		out[i] = Member{Server: s, Alive: now.Sub(s.HeartbeatAt) < DeadAfter}
	}
	return out, nil
}

// AliveCount returns how many servers are alive.
func (r *Registry) AliveCount(ctx context.Context) (int, error) {
	members, err := r.Members(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range members {
		if m.Alive {
			n++
		}
	}
	return n, nil
}

// URLOf returns the advertise URL of a server.
func (r *Registry) URLOf(ctx context.Context, serverID string) (string, error) {
	if serverID == r.cfg.ID {
		return r.cfg.AdvertiseURL, nil
	}
	members, err := r.Members(ctx)
	if err != nil {
		return "", err
	}
	for _, m := range members {
		if m.ID == serverID {
			return m.AdvertiseURL, nil
		}
	}
	return "", fmt.Errorf("server %s is not registered", serverID)
}

// AliveURLs returns the advertise URLs of the live servers.
func (r *Registry) AliveURLs(ctx context.Context) ([]string, error) {
	members, err := r.Members(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, m := range members {
		if m.Alive {
			out = append(out, m.AdvertiseURL)
		}
	}
	return out, nil
}

// Owner returns the server holding a live lease on the app, or nil.
func (r *Registry) Owner(ctx context.Context, appID int64) (*Member, error) {
	l, live, err := r.store.LeaseGet(ctx, appID, db.Stamp(r.clock.Now()))
	if errors.Is(err, db.ErrNotFound) || (err == nil && !live) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	members, err := r.Members(ctx)
	if err != nil {
		return nil, err
	}
	for i := range members {
		if members[i].ID == l.ServerID {
			return &members[i], nil
		}
	}
	return nil, nil
}

// AppsOf returns the ids of the apps whose live leases a server holds.
func (r *Registry) AppsOf(ctx context.Context, serverID string) ([]int64, error) {
	states, err := r.store.LeaseList(ctx, db.Stamp(r.clock.Now()))
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, s := range states {
		if s.Live && s.ServerID == serverID {
			ids = append(ids, s.AppID)
		}
	}
	return ids, nil
}
