// Package hub is the server end of the worker channel (worker/protocol):
// it answers discovery, accepts worker websockets, authenticates them with
// the app secret and hands each connection to the Registry of its app,
// which routes frames: dispatch and stop out, report, logs and map in.
//
// The hub only holds connections for apps this server owns. A worker that
// connects to another server is redirected to the owner. Each app's
// Registry is part of the owned app (package owned): when this server stops
// running the app, the registry stops and redirects its workers.
//
// Each connection has one reader and one writer goroutine. A frame that is
// malformed or too large closes that connection with an error frame and a
// log line; nothing else is affected. A worker that stays silent for
// protocol.LostAfterBeats heartbeat intervals is disconnected and reported
// lost, so its tasks can be re-dispatched.
package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/server/api/apps"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// DefaultHeartbeat is the heartbeat interval told to workers.
const DefaultHeartbeat = 2 * time.Second

// replyTimeout bounds how long a sent message waits for its ack.
const replyTimeout = 15 * time.Second

// Apps authenticates workers.
type Apps interface {
	VerifySecret(ctx context.Context, appName, secret string) (*db.App, error)
	AppIDByName(ctx context.Context, name string) (int64, error)
}

// Owner says which server owns an app (package lease). With no live owner
// it may take the app for this server; "" means no server owns it yet.
type Owner interface {
	Owner(ctx context.Context, appID int64) (string, error)
}

// Registries finds the worker registry of an app this server runs now
// (package owned).
type Registries interface {
	Registry(appID int64) (*Registry, bool)
}

// Directory maps servers to URLs (package cluster).
type Directory interface {
	ID() string
	URLOf(ctx context.Context, serverID string) (string, error)
	AliveURLs(ctx context.Context) ([]string, error)
}

// Store persists what any server can list about workers.
type Store interface {
	WorkerUpsert(ctx context.Context, w *db.Worker) error
	WorkerHeartbeatMany(ctx context.Context, beats []db.WorkerBeat) error
	WorkerDisconnected(ctx context.Context, appID int64, id, serverID string, at time.Time) error
	WorkerDisconnectServer(ctx context.Context, serverID string, at time.Time) error
}

// WorkerInfo describes a connected worker.
type WorkerInfo struct {
	AppID      int64
	ID         string
	Host       string
	Tags       []string
	Processors []string
	Types      []string
	Slots      int
	Metrics    protocol.Metrics
	// Running are the task ids the worker said it is still running when it
	// (re)connected.
	Running     []int64
	ConnectedAt time.Time
	// Features are the optional parts of the protocol the worker speaks.
	Features []string
	// Busy is how many tasks it held at its last heartbeat (its busy
	// slots as it counts them), as Registry.Workers reports it.
	Busy int
}

// LogSink stores log lines; done is called once they are durable.
type LogSink interface {
	Logs(appID int64, workerID string, l *protocol.Logs, done func(error))
}

// Watcher hears that a worker of an app connected or left, so live
// subscriptions re-read the app's workers at once.
type Watcher interface {
	WorkersChanged(appID int64)
}

// Config configures a Hub.
type Config struct {
	Heartbeat time.Duration
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Deps are the parts the hub talks to.
type Deps struct {
	Apps       Apps
	Owner      Owner
	Registries Registries
	Directory  Directory
	Store      Store
	Logs       LogSink
	Watcher    Watcher
	Log        *slog.Logger
	// Declarations applies the jobs a hello declares in code (package
	// jobs); nil: declarations are refused.
	Declarations Declarations
}

// Declarations applies the jobs a worker declares in its code, or lists
// what it would change (a dry run), before the worker is welcomed.
type Declarations interface {
	Declare(ctx context.Context, appID int64, workerID string, h *protocol.Hello) ([]protocol.JobChange, error)
}

// Hub is the worker channel of one server: it accepts connections,
// authenticates them and hands each to the registry of its app; it also
// records heartbeats for the workers listing.
type Hub struct {
	lifecycle.Base
	cfg   Config
	deps  Deps
	log   *slog.Logger
	clock clock.Clock

	upgrader websocket.Upgrader
	// auth limits and logs refused secrets per client address.
	auth *authLimiter

	mu      sync.Mutex
	conns   map[*conn]struct{} // every open connection, registered or not
	closing bool               // Stop began: no new connection
	beats   map[beatKey]db.WorkerBeat
	wg      sync.WaitGroup // connection goroutines
}

type beatKey struct {
	app int64
	id  string
}

// New returns a Hub.
func New(cfg Config, deps Deps) *Hub {
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	clk := clock.OrSystem(cfg.Clock)
	return &Hub{
		cfg: cfg, deps: deps, log: deps.Log, clock: clk, auth: newAuthLimiter(deps.Log, clk.Now),
		upgrader: websocket.Upgrader{
			ReadBufferSize: 16 << 10, WriteBufferSize: 16 << 10,
			// Workers are programs, not browsers; they authenticate with the
			// app secret in hello, so the Origin header means nothing here.
			CheckOrigin: func(*http.Request) bool { return true },
		},
		conns: map[*conn]struct{}{},
		beats: map[beatKey]db.WorkerBeat{},
	}
}

func (h *Hub) workersChanged(appID int64) {
	if h.deps.Watcher != nil {
		h.deps.Watcher.WorkersChanged(appID)
	}
}

// Start records connections of an earlier run of this server id as gone,
// then writes heartbeats every few seconds until Stop, which closes every
// connection left (workers reconnect elsewhere) and waits for them.
func (h *Hub) Start(ctx context.Context) error {
	ctx, ok, started, stopped := h.StartInit(ctx)
	if !ok {
		return nil
	}
	h.mu.Lock()
	h.closing = false
	h.mu.Unlock()
	if err := h.deps.Store.WorkerDisconnectServer(ctx, h.deps.Directory.ID(), db.Stamp(h.clock.Now())); err != nil {
		stopped()
		return fmt.Errorf("recording an earlier run's workers as gone: %w", err)
	}
	// Started before Start returns: ServeConnect refuses workers until
	// then, and a caller that has started the hub must not see its first
	// worker refused because the loop's goroutine has not run yet.
	started()
	go func() {
		defer stopped()
		h.flushLoop(ctx)
		h.closeAll()
	}()
	return nil
}

// closeAll closes every connection and waits for their goroutines.
func (h *Hub) closeAll() {
	h.mu.Lock()
	h.closing = true
	list := make([]*conn, 0, len(h.conns))
	for c := range h.conns {
		list = append(list, c)
	}
	h.mu.Unlock()
	for _, c := range list {
		c.closeWith(protocol.TypeRedirect, &protocol.Redirect{Reason: "server shutting down"})
	}
	h.wg.Wait()
}

// ServeDiscover answers GET /worker/discover?app=<name> with the owner,
// to a caller that presents the app's secret (Authorization: Bearer): an
// unknown app and a wrong secret get the same answer, so discovery tells
// nobody else which apps exist.
func (h *Hub) ServeDiscover(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("app")
	if name == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "query parameter app is required"})
		return
	}
	ctx := r.Context()
	secret := bearer(r)
	if h.auth.limited(r.RemoteAddr, name, secret) {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "too many wrong app secrets from this address; try again later"})
		return
	}
	app, err := h.deps.Apps.VerifySecret(ctx, name, secret)
	if errors.Is(err, apps.ErrBadSecret) {
		h.auth.refused(r.RemoteAddr, name, "discovery")
		writeJSON(w, http.StatusForbidden, map[string]string{"code": protocol.CodeAuth,
			"error": "unknown app or wrong app secret (send the app's secret as 'Authorization: Bearer <secret>')"})
		return
	}
	var appID int64
	if app != nil {
		appID = app.ID
		h.auth.accepted(name, secret)
	}
	if err != nil {
		h.log.Error("hub: discover", "app", name, "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "discovery failed; try again"})
		return
	}
	owner, err := h.deps.Owner.Owner(ctx, appID)
	if err == nil && owner != "" {
		var url string
		if url, err = h.deps.Directory.URLOf(ctx, owner); err == nil {
			servers, _ := h.deps.Directory.AliveURLs(ctx)
			writeJSON(w, http.StatusOK, protocol.DiscoverResponse{Server: url, Servers: servers})
			return
		}
	}
	if err == nil {
		h.log.Debug("hub: discover: no owner yet; the worker will ask again", "app", name)
	} else {
		h.log.Warn("hub: discover found no owner", "app", name, "err", err)
	}
	writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "no server owns the app right now; try again"})
}

// ServeConnect upgrades GET /worker/connect to the worker channel.
func (h *Hub) ServeConnect(w http.ResponseWriter, r *http.Request) {
	select {
	case <-h.Started():
	default:
		http.Error(w, "the server is starting", http.StatusServiceUnavailable)
		return
	}
	ws, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	ws.SetReadLimit(protocol.MaxFrameBytes)
	c := newConn(h, ws, r.RemoteAddr)
	h.mu.Lock()
	if h.closing {
		h.mu.Unlock()
		_ = ws.Close()
		return
	}
	h.conns[c] = struct{}{}
	h.wg.Add(1)
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.conns, c)
		h.mu.Unlock()
		h.wg.Done()
	}()
	c.run(r.Context())
}

func (h *Hub) noteBeat(appID int64, id string, hb *protocol.Heartbeat) {
	h.mu.Lock()
	h.beats[beatKey{appID, id}] = db.WorkerBeat{AppID: appID, ID: id, Metrics: toDBMetrics(hb.Metrics, len(hb.Running)), At: db.Stamp(h.clock.Now()),
		Draining: hb.Draining}
	h.mu.Unlock()
}

func (h *Hub) forgetBeat(appID int64, id string) {
	h.mu.Lock()
	delete(h.beats, beatKey{appID, id})
	h.mu.Unlock()
}

// flushLoop writes heartbeats in one statement every few seconds: the
// table is for listing workers, not for liveness, which is in memory.
func (h *Hub) flushLoop(ctx context.Context) {
	for clock.Sleep(h.clock, 2*time.Second, ctx.Done()) {
		h.mu.Lock()
		beats := make([]db.WorkerBeat, 0, len(h.beats))
		for _, b := range h.beats {
			beats = append(beats, b)
		}
		clear(h.beats)
		h.mu.Unlock()
		h.auth.sweep()
		// No hint for heartbeats: workersUpdated subscribers re-read every
		// 2 s anyway, as often as heartbeats are recorded.
		if err := h.deps.Store.WorkerHeartbeatMany(ctx, beats); err != nil && ctx.Err() == nil {
			h.log.Warn("hub: recording heartbeats", "err", err)
		}
	}
}

// toDBMetrics is what is recorded of a worker's metrics, with how many
// tasks it holds (its busy slots, as the dashboard shows them).
func toDBMetrics(m protocol.Metrics, running int) db.WorkerMetrics {
	return db.WorkerMetrics{CPUCores: m.CPUCores, Load1: m.Load1, FreeMemoryMB: m.FreeMemoryMB, FreeDiskMB: m.FreeDiskMB, Running: running}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
