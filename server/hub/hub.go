// Package hub is the server end of the worker channel (worker/protocol):
// it answers discovery, accepts worker websockets, authenticates them with
// the app secret, keeps the live registry of each owned app's workers, and
// routes frames: dispatch and stop out, report, logs and map in.
//
// The hub only holds connections for apps this server owns. A worker that
// connects to another server is redirected to the owner, and when this
// server loses an app (lease.Listener) its workers are redirected too.
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
	"sort"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/apps"
	"github.com/jobwheel/jobwheel/server/lease"
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

// Owner says which server owns an app (package lease).
type Owner interface {
	Epoch(appID int64) (int64, bool)
	Owner(ctx context.Context, appID int64) (string, error)
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
}

// Handler receives what workers send. Report and Map must call done once
// what they were given is durable (or failed); the hub acks the worker
// then. Calls for one worker arrive in the order the worker sent them.
type Handler interface {
	WorkerJoined(w WorkerInfo)
	WorkerLeft(appID int64, workerID string)
	WorkerHeartbeat(appID int64, workerID string, hb *protocol.Heartbeat)
	Report(appID int64, workerID string, r *protocol.Report, done func(error))
	Map(appID int64, workerID string, m *protocol.Map, done func(error))
}

// LogSink stores log lines; done is called once they are durable.
type LogSink interface {
	Logs(appID int64, workerID string, l *protocol.Logs, done func(error))
}

// Config configures a Hub.
type Config struct {
	Heartbeat time.Duration
}

// Hub is the worker channel of one server.
type Hub struct {
	cfg     Config
	apps    Apps
	owner   Owner
	dir     Directory
	store   Store
	log     *slog.Logger
	handler Handler
	logs    LogSink
	watcher Watcher
	now     func() time.Time

	upgrader websocket.Upgrader

	mu       sync.Mutex
	sessions map[int64]map[string]*session // app → worker id → session
	beats    map[beatKey]db.WorkerBeat

	cancel context.CancelFunc
	done   chan struct{}
	wg     sync.WaitGroup
}

type beatKey struct {
	app int64
	id  string
}

// New returns a Hub. SetHandler must be called before it serves.
func New(cfg Config, apps Apps, owner Owner, dir Directory, store Store, log *slog.Logger) *Hub {
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	return &Hub{
		cfg: cfg, apps: apps, owner: owner, dir: dir, store: store, log: log, now: db.Now,
		upgrader: websocket.Upgrader{
			ReadBufferSize: 16 << 10, WriteBufferSize: 16 << 10,
			// Workers are programs, not browsers; they authenticate with the
			// app secret in hello, so the Origin header means nothing here.
			CheckOrigin: func(*http.Request) bool { return true },
		},
		sessions: map[int64]map[string]*session{},
		beats:    map[beatKey]db.WorkerBeat{},
	}
}

// Watcher hears that a worker of an app connected or left, so live
// subscriptions re-read the app's workers at once.
type Watcher interface {
	WorkersChanged(appID int64)
}

// SetWatcher sets who hears of worker record changes; call before Start.
func (h *Hub) SetWatcher(w Watcher) { h.watcher = w }

func (h *Hub) workersChanged(appID int64) {
	if h.watcher != nil {
		h.watcher.WorkersChanged(appID)
	}
}

// SetHandler wires the execution side and the log sink.
func (h *Hub) SetHandler(handler Handler, logs LogSink) {
	h.handler, h.logs = handler, logs
}

// Start begins persisting heartbeats. Connections of an earlier run of
// this server id are recorded as gone.
func (h *Hub) Start(ctx context.Context) error {
	if err := h.store.WorkerDisconnectServer(ctx, h.dir.ID(), h.now()); err != nil {
		return err
	}
	ctx, h.cancel = context.WithCancel(context.WithoutCancel(ctx))
	h.done = make(chan struct{})
	go h.flushLoop(ctx)
	return nil
}

// Stop closes every worker connection (workers reconnect elsewhere) and
// waits for the connection goroutines.
func (h *Hub) Stop() {
	h.mu.Lock()
	var all []*session
	for _, m := range h.sessions {
		for _, s := range m {
			all = append(all, s)
		}
	}
	h.mu.Unlock()
	for _, s := range all {
		s.closeWith(protocol.TypeRedirect, &protocol.Redirect{Reason: "server shutting down"})
	}
	h.wg.Wait()
	if h.cancel != nil {
		h.cancel()
		<-h.done
	}
}

// LeaseGained implements lease.Listener; workers come by themselves.
func (h *Hub) LeaseGained(context.Context, int64, int64) {}

// LeaseLost implements lease.Listener: the app's workers are told to
// discover the new owner and disconnected.
func (h *Hub) LeaseLost(appID int64) {
	h.mu.Lock()
	list := make([]*session, 0, len(h.sessions[appID]))
	for _, s := range h.sessions[appID] {
		list = append(list, s)
	}
	h.mu.Unlock()
	for _, s := range list {
		s.closeWith(protocol.TypeRedirect, &protocol.Redirect{Reason: "this server no longer owns the app"})
	}
}

// Send sends a message to a worker. onReply, if not nil, gets the worker's
// ack or an error (not connected, connection lost, no reply in time).
func (h *Hub) Send(appID int64, workerID, typ string, body any, onReply func(*protocol.Ack, error)) error {
	h.mu.Lock()
	s := h.sessions[appID][workerID]
	h.mu.Unlock()
	if s == nil {
		err := fmt.Errorf("worker %s is not connected", workerID)
		if onReply != nil {
			onReply(nil, err)
		}
		return err
	}
	return s.send(typ, body, onReply)
}

// Workers returns the connected workers of an app.
func (h *Hub) Workers(appID int64) []WorkerInfo {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]WorkerInfo, 0, len(h.sessions[appID]))
	for _, s := range h.sessions[appID] {
		out = append(out, s.info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
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
	app, err := h.apps.VerifySecret(ctx, name, bearer(r))
	if errors.Is(err, apps.ErrBadSecret) {
		h.log.Warn("hub: worker refused at discovery: unknown app or wrong secret", "app", name, "remote", r.RemoteAddr)
		writeJSON(w, http.StatusForbidden, map[string]string{"code": protocol.CodeAuth,
			"error": "unknown app or wrong app secret (send the app's secret as 'Authorization: Bearer <secret>')"})
		return
	}
	var appID int64
	if app != nil {
		appID = app.ID
	}
	if err != nil {
		h.log.Error("hub: discover", "app", name, "err", err)
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "discovery failed; try again"})
		return
	}
	owner, err := h.owner.Owner(ctx, appID)
	if err == nil {
		var url string
		if url, err = h.dir.URLOf(ctx, owner); err == nil {
			servers, _ := h.dir.AliveURLs(ctx)
			writeJSON(w, http.StatusOK, protocol.DiscoverResponse{Server: url, Servers: servers})
			return
		}
	}
	if errors.Is(err, lease.ErrNoOwnerYet) {
		h.log.Debug("hub: discover: no owner yet; the worker will ask again", "app", name)
	} else {
		h.log.Warn("hub: discover found no owner", "app", name, "err", err)
	}
	writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "no server owns the app right now; try again"})
}

// ServeConnect upgrades GET /worker/connect to the worker channel.
func (h *Hub) ServeConnect(w http.ResponseWriter, r *http.Request) {
	conn, err := h.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	h.wg.Add(1)
	defer h.wg.Done()
	conn.SetReadLimit(protocol.MaxFrameBytes)
	s := newSession(h, conn, r.RemoteAddr)
	s.run(r.Context())
}

func (h *Hub) register(s *session) (replaced *session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.sessions[s.info.AppID]
	if m == nil {
		m = map[string]*session{}
		h.sessions[s.info.AppID] = m
	}
	replaced = m[s.info.ID]
	m[s.info.ID] = s
	return replaced
}

// unregister removes s if it is still the registered session of its worker.
func (h *Hub) unregister(s *session) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.sessions[s.info.AppID]
	if m[s.info.ID] != s {
		return false
	}
	delete(m, s.info.ID)
	if len(m) == 0 {
		delete(h.sessions, s.info.AppID)
	}
	delete(h.beats, beatKey{s.info.AppID, s.info.ID})
	return true
}

func (h *Hub) noteBeat(appID int64, id string, m protocol.Metrics) {
	h.mu.Lock()
	h.beats[beatKey{appID, id}] = db.WorkerBeat{AppID: appID, ID: id, Metrics: toDBMetrics(m), At: h.now()}
	h.mu.Unlock()
}

// flushLoop writes heartbeats in one statement every few seconds: the
// table is for listing workers, not for liveness, which is in memory.
func (h *Hub) flushLoop(ctx context.Context) {
	defer close(h.done)
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		h.mu.Lock()
		beats := make([]db.WorkerBeat, 0, len(h.beats))
		for _, b := range h.beats {
			beats = append(beats, b)
		}
		clear(h.beats)
		h.mu.Unlock()
		// No hint for heartbeats: workersUpdated subscribers re-read every
		// 2 s anyway, as often as heartbeats are recorded.
		if err := h.store.WorkerHeartbeatMany(ctx, beats); err != nil && ctx.Err() == nil {
			h.log.Warn("hub: recording heartbeats", "err", err)
		}
	}
}

func toDBMetrics(m protocol.Metrics) db.WorkerMetrics {
	return db.WorkerMetrics{CPUCores: m.CPUCores, Load1: m.Load1, FreeMemoryMB: m.FreeMemoryMB, FreeDiskMB: m.FreeDiskMB}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
