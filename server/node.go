package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/uptrace/bun"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/frontend"
	"github.com/jobwheel/jobwheel/graph"
	"github.com/jobwheel/jobwheel/server/alarm"
	"github.com/jobwheel/jobwheel/server/apps"
	"github.com/jobwheel/jobwheel/server/auth"
	"github.com/jobwheel/jobwheel/server/bus"
	"github.com/jobwheel/jobwheel/server/cluster"
	"github.com/jobwheel/jobwheel/server/execution"
	"github.com/jobwheel/jobwheel/server/httpsec"
	"github.com/jobwheel/jobwheel/server/hub"
	"github.com/jobwheel/jobwheel/server/jobs"
	"github.com/jobwheel/jobwheel/server/lease"
	"github.com/jobwheel/jobwheel/server/live"
	"github.com/jobwheel/jobwheel/server/logs"
	"github.com/jobwheel/jobwheel/server/netguard"
	"github.com/jobwheel/jobwheel/server/retention"
	"github.com/jobwheel/jobwheel/server/scheduler"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// shutdownTimeout bounds how long in-flight requests may take to finish.
const shutdownTimeout = 15 * time.Second

// node is one running server: the database, the services and the HTTP
// listener, started in dependency order and stopped in reverse.
type node struct {
	log       *slog.Logger
	db        *db.DB
	http      *http.Server
	serveCh   chan error
	cluster   *cluster.Registry
	leases    *lease.Manager
	hub       *hub.Hub
	engine    *execution.Engine
	scheduler *scheduler.Scheduler
	logs      *logs.Service
	bus       *bus.Bus
	alarms    *alarm.Sender
	retention *retention.Cleaner
	live      *live.Hub // API subscriptions (issue 6)
	cancel    context.CancelFunc
}

func start(ctx context.Context, cfg *config, stdout io.Writer, log *slog.Logger) (_ *node, err error) {
	n := &node{log: log}
	defer func() {
		if err != nil {
			n.closeAll()
		}
	}()
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	n.cancel = cancel

	log.Info("opening database", "url", redactURL(cfg.DatabaseURL))
	if n.db, err = db.Open(ctx, cfg.DatabaseURL); err != nil {
		return nil, err
	}
	if err = n.db.Migrate(ctx); err != nil {
		return nil, err
	}

	authSvc := auth.New(n.db, log)
	generated, err := authSvc.EnsureAdmin(ctx, cfg.AdminPassword)
	if err != nil {
		return nil, err
	}
	appSvc := apps.New(n.db, authSvc)
	if cfg.Demo {
		dir, _ := os.Getwd()
		if err = ensureDemo(ctx, n.db, appSvc, dir); err != nil {
			return nil, fmt.Errorf("creating the demo app: %w", err)
		}
	}

	listener, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", cfg.HTTPAddr, err)
	}
	defer func() {
		if err != nil {
			_ = listener.Close()
		}
	}()
	advertise := cfg.advertiseURL(listener.Addr())
	serverID := cfg.ServerID
	if serverID == "" {
		serverID = defaultServerID()
	}

	// Hints between servers: NOTIFY on PostgreSQL, in-process on SQLite.
	var busDB *bun.DB
	if n.db.Dialect() == db.Postgres {
		busDB = n.db.Bun()
	}
	n.bus = bus.New(serverID, n.db.Namespace(), busDB, log)
	n.bus.Start(bg)
	// API subscriptions (issue 6): woken by bus hints, re-reading the database.
	n.live = live.New(live.Config{}, n.db, n.bus, authSvc, appSvc, log)

	n.cluster = cluster.New(cluster.Config{ID: serverID, AdvertiseURL: advertise, Version: version}, n.db, log)
	if err = n.cluster.Start(ctx); err != nil {
		return nil, err
	}

	// The parts that run owned apps. Lease listeners hear of a gained app
	// in this order and of a lost one in reverse: the hub takes workers
	// first, then the engine adopts running instances, then the trigger
	// loop fires; on loss the loop stops firing first.
	n.leases = lease.New(lease.Config{ServerID: serverID, TTL: cfg.LeaseTTL, Balance: true}, n.db, n.cluster, log)
	n.leases.SetHinter(n.bus)
	// A lease released, or a server joining, is worth a balancing pass now.
	n.bus.Subscribe(lease.HintTopic, func(string, string) { n.leases.Kick() })
	// A deleted app's lease row went with it: the owner finds that at the
	// renewal a pass does, and stops scheduling the app then.
	appSvc.OnDeleted(func(int64) { n.bus.Publish(lease.HintTopic, "app deleted") })
	n.hub = hub.New(hub.Config{}, appSvc, n.leases, n.cluster, n.db, log)
	n.engine = execution.New(execution.Config{}, n.db, n.hub, nil, n.live, log)
	if n.alarms, err = alarm.New(alarm.Config{SMTPURL: cfg.SMTPURL, ConsoleURL: advertise, AllowNetworks: cfg.AlarmAllowNetworks}, log); err != nil {
		return nil, err
	}
	n.alarms.Start(bg)
	n.engine.SetAlarmer(n.alarms)
	n.retention = retention.New(retention.Config{Keep: cfg.Retention}, n.db, n.leases, log)
	n.scheduler = scheduler.New(scheduler.Config{}, n.db, n.engine, log)
	n.engine.SetWaker(n.scheduler)
	n.logs = logs.New(n.db, n.live, log)
	n.hub.SetHandler(n.engine, n.logs)
	n.hub.SetWatcher(n.live)
	n.leases.Subscribe(n.hub)
	n.leases.Subscribe(n.engine)
	n.leases.Subscribe(n.scheduler)
	n.logs.Start(bg)
	if err = n.hub.Start(ctx); err != nil {
		return nil, err
	}
	n.scheduler.Start(bg)
	n.leases.Start(bg)
	n.retention.Start(bg)
	n.bus.Publish(lease.HintTopic, "joined")

	jobSvc := jobs.New(n.db, authSvc, appSvc, n.live.Jobs(localOwner{n}))
	jobSvc.SetWebhookPolicy(netguard.Policy{Allow: cfg.AlarmAllowNetworks})
	api := graph.NewHandler(graph.HandlerConfig{
		Resolver: graph.NewResolver(graph.Services{Auth: authSvc, Apps: appSvc, Cluster: n.cluster, Jobs: jobSvc,
			Logs: n.logs, Live: n.live, Log: log}),
		Log:            log,
		OriginPatterns: cfg.AllowedOrigins,
		TrustedProxies: cfg.TrustedProxies,
		// Rights changed on any server: open websockets re-check at once.
		AuthChanges: func(fn func()) { n.bus.Subscribe(live.TopicAuth, func(string, string) { fn() }) },
	})
	mux := http.NewServeMux()
	mux.Handle("/graphql", api)
	mux.HandleFunc("GET /worker/discover", n.hub.ServeDiscover)
	mux.HandleFunc("GET /worker/connect", n.hub.ServeConnect)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		if err := n.db.Ping(ctx); err != nil {
			http.Error(w, "database: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ready\n")
	})
	mux.Handle("/", frontend.Handler())

	n.http = &http.Server{
		Handler:           httpsec.Headers(mux),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return bg },
	}
	n.serveCh = make(chan error, 1)
	go func() { n.serveCh <- n.http.Serve(listener) }()

	log.Info("jobwheel server started", "id", serverID, "addr", listener.Addr().String(), "advertise", advertise,
		"database", string(n.db.Dialect()), "version", version)
	url := consoleURL(listener.Addr(), cfg)
	fmt.Fprintf(stdout, "\njobwheel is running: console and API at %s (GraphQL at %s/graphql)\n", url, url)
	if generated != "" {
		fmt.Fprintf(stdout, "First start: created user %q with password %s\n(shown only this once; set JOBWHEEL_ADMIN_PASSWORD to choose it)\n\n", auth.AdminUsername, generated)
	}
	return n, nil
}

// localOwner tells this server's trigger loop and engine that an app's
// jobs or instances changed through the API.
type localOwner struct{ n *node }

func (o localOwner) JobsChanged(appID int64) {
	o.n.engine.JobsChanged(appID)
	o.n.scheduler.Wake(appID)
}

func (o localOwner) InstancesChanged(appID int64) {
	o.n.scheduler.Wake(appID)
	o.n.engine.Kick(appID)
}

// shutdown hands the apps off (releasing their leases so other servers
// take over at once), stops accepting requests, lets in-flight ones
// finish, stops the services and closes the database.
func (n *node) shutdown() error {
	n.log.Info("shutting down")
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	var errs []error
	// Leave the registry first, so the servers that take the apps over no
	// longer count this one when they compute their fair share.
	n.cluster.Stop(ctx)
	n.leases.Stop(ctx)
	// End API subscriptions with UNAVAILABLE while their websockets are
	// still up, so clients know to subscribe again elsewhere.
	n.live.Stop()
	n.hub.Stop()
	if err := n.http.Shutdown(ctx); err != nil {
		errs = append(errs, fmt.Errorf("stopping HTTP: %w", err))
	}
	if err := <-n.serveCh; err != nil && !errors.Is(err, http.ErrServerClosed) {
		errs = append(errs, fmt.Errorf("serving HTTP: %w", err))
	}
	n.closeAll()
	n.log.Info("stopped")
	return errors.Join(errs...)
}

func (n *node) closeAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if n.leases != nil {
		n.leases.Stop(ctx)
	}
	if n.scheduler != nil {
		n.scheduler.Stop()
	}
	if n.engine != nil {
		n.engine.Stop()
	}
	if n.cancel != nil {
		n.cancel()
	}
	if n.logs != nil {
		n.logs.Stop()
	}
	if n.live != nil {
		n.live.Stop() // ends API subscriptions (issue 6)
	}
	if n.bus != nil {
		n.bus.Stop()
	}
	if n.alarms != nil {
		n.alarms.Stop()
	}
	if n.retention != nil {
		n.retention.Stop()
	}
	if n.cluster != nil {
		n.cluster.Stop(ctx)
	}
	if n.db != nil {
		if err := n.db.Close(); err != nil {
			n.log.Warn("closing database", "err", err)
		}
		n.db = nil
	}
}

func defaultServerID() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "server"
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return host + "-" + hex.EncodeToString(b)
}

// consoleURL is the URL a person on this machine opens.
func consoleURL(addr net.Addr, cfg *config) string {
	if cfg.AdvertiseURL != "" {
		return cfg.AdvertiseURL
	}
	_, port, _ := net.SplitHostPort(addr.String())
	return "http://localhost:" + port
}
