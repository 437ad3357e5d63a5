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
	LeaseStates(ctx context.Context, now time.Time) ([]db.LeaseState, error)
}

// Config describes this server.
type Config struct {
	ID           string
	AdvertiseURL string
	Version      string
	// HeartbeatInterval defaults to HeartbeatInterval.
	HeartbeatInterval time.Duration
}

// Registry registers this server and lists all of them.
type Registry struct {
	cfg   Config
	store Store
	log   *slog.Logger
	now   func() time.Time

	mu      sync.Mutex
	cancel  context.CancelFunc
	done    chan struct{}
	stopped bool
}

// New returns a Registry; call Start to register and heart-beat.
func New(cfg Config, store Store, log *slog.Logger) *Registry {
	if cfg.HeartbeatInterval == 0 {
		cfg.HeartbeatInterval = HeartbeatInterval
	}
	return &Registry{cfg: cfg, store: store, log: log, now: db.Now}
}

// ID is this server's id.
func (r *Registry) ID() string { return r.cfg.ID }

// AdvertiseURL is where this server is reached.
func (r *Registry) AdvertiseURL() string { return r.cfg.AdvertiseURL }

// Start registers the server and starts heart-beating. It is idempotent.
func (r *Registry) Start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done != nil || r.stopped {
		return nil
	}
	now := r.now()
	if err := r.store.ServerRegister(ctx, &db.Server{
		ID: r.cfg.ID, AdvertiseURL: r.cfg.AdvertiseURL, Version: r.cfg.Version,
		StartedAt: now, HeartbeatAt: now,
	}); err != nil {
		return fmt.Errorf("registering this server: %w", err)
	}
	ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	r.done = make(chan struct{})
	go r.loop(ctx)
	return nil
}

func (r *Registry) loop(ctx context.Context) {
	defer close(r.done)
	t := time.NewTicker(r.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := r.now()
		err := r.store.ServerHeartbeat(ctx, r.cfg.ID, now)
		if err != nil && ctx.Err() == nil {
			// Deleted as stale by another server after a long pause:
			// register again rather than stay invisible.
			r.log.Warn("cluster: heartbeat failed; registering again", "err", err)
			err = r.store.ServerRegister(ctx, &db.Server{
				ID: r.cfg.ID, AdvertiseURL: r.cfg.AdvertiseURL, Version: r.cfg.Version,
				StartedAt: now, HeartbeatAt: now,
			})
			if err != nil {
				r.log.Error("cluster: registering again failed", "err", err)
			}
		}
		if _, err := r.store.ServerDeleteStale(ctx, now.Add(-forgetAfter)); err != nil && ctx.Err() == nil {
			r.log.Warn("cluster: removing long-dead servers failed", "err", err)
		}
	}
}

// Stop stops heart-beating and removes this server from the registry. It
// blocks until done and is safe to call more than once or before Start.
func (r *Registry) Stop(ctx context.Context) {
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return
	}
	r.stopped = true
	cancel, done := r.cancel, r.done
	r.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
	if err := r.store.ServerDelete(ctx, r.cfg.ID); err != nil {
		r.log.Warn("cluster: deregistering failed", "err", err)
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
	now := r.now()
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
	l, live, err := r.store.LeaseGet(ctx, appID, r.now())
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
	states, err := r.store.LeaseStates(ctx, r.now())
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
