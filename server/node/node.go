package node

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/frontend"
	"github.com/jobwheel/jobwheel/graph"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/internal/tracing"
	"github.com/jobwheel/jobwheel/server/api/alarm"
	"github.com/jobwheel/jobwheel/server/api/apply"
	"github.com/jobwheel/jobwheel/server/api/apps"
	"github.com/jobwheel/jobwheel/server/api/audit"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/api/backfills"
	"github.com/jobwheel/jobwheel/server/api/jobs"
	"github.com/jobwheel/jobwheel/server/api/sso"
	"github.com/jobwheel/jobwheel/server/api/workflows"
	"github.com/jobwheel/jobwheel/server/platform/bus"
	"github.com/jobwheel/jobwheel/server/platform/httpsec"
	"github.com/jobwheel/jobwheel/server/platform/live"
	"github.com/jobwheel/jobwheel/server/platform/logs"
	"github.com/jobwheel/jobwheel/server/platform/metrics"
	"github.com/jobwheel/jobwheel/server/platform/netguard"
	"github.com/jobwheel/jobwheel/server/platform/partitions"
	"github.com/jobwheel/jobwheel/server/platform/readcache"
	"github.com/jobwheel/jobwheel/server/platform/retention"
	"github.com/jobwheel/jobwheel/server/runtime/backfill"
	"github.com/jobwheel/jobwheel/server/runtime/cluster"
	"github.com/jobwheel/jobwheel/server/runtime/execution"
	"github.com/jobwheel/jobwheel/server/runtime/hub"
	"github.com/jobwheel/jobwheel/server/runtime/lease"
	"github.com/jobwheel/jobwheel/server/runtime/owned"
	"github.com/jobwheel/jobwheel/server/runtime/rollup"
	"github.com/jobwheel/jobwheel/server/runtime/trigger"
	"github.com/jobwheel/jobwheel/server/runtime/workflow"
	"github.com/jobwheel/jobwheel/server/runtime/workflow/wfexpr"
)

// Node is one running server: the database, the services and the HTTP
// listener. The services are one lifecycle.Group, started in the order
// they depend on each other and stopped in reverse.
type Node struct {
	log *slog.Logger
	// db is the scheduler's pool (the runtime's services); api is the
	// API's, over the same database (the same DB on SQLite).
	db       *db.DB
	api      *db.DB
	services lifecycle.Group
	http     *httpService
	debug    *debugService // nil unless JOBWHEEL_DEBUG_ADDR is set
	metrics  *debugService // nil unless JOBWHEEL_METRICS_ADDR is set
}

// MetricsAddr is the address /metrics is served on apart from the API's,
// or nil (JOBWHEEL_METRICS_ADDR unset).
func (n *Node) MetricsAddr() net.Addr {
	if n.metrics == nil {
		return nil
	}
	return n.metrics.listener.Addr()
}

// health serves /healthz (the process answers) and /readyz (and reaches
// its database) on mux.
func (n *Node) health(mux *http.ServeMux) {
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
}

// Start opens the database, migrates it and starts every service of the
// server; it returns once the server is serving.
func Start(ctx context.Context, cfg *Config, stdout io.Writer, log *slog.Logger) (_ *Node, err error) {
	n := &Node{log: log}
	defer func() {
		if err != nil && n.api != nil && n.api != n.db {
			_ = n.api.Close()
		}
		if err != nil && n.db != nil {
			_ = n.db.Close()
		}
	}()

	log.Info("opening database", "url", redactURL(cfg.DatabaseURL))
	if n.db, err = db.OpenPool(ctx, cfg.DatabaseURL, orDefault(cfg.RuntimeConns, DefaultRuntimeConns)); err != nil {
		return nil, err
	}
	if err = n.db.Migrate(ctx); err != nil {
		return nil, err
	}
	// The API has a pool of its own: a tenant's expensive queries (many
	// appStats, instance pages, log reads, bulk changes) wait for one of
	// its connections and never for the scheduler's, which fires, dispatches
	// and runs the workflow engines of every app (issue 25, the attacker
	// probe's G20 and S1). SQLite keeps its one connection for both: it
	// has one writer at a time, and a second pool's writes would only meet
	// the first's as SQLITE_BUSY waits instead of queueing in database/sql.
	n.api = n.db
	if n.db.Dialect() == db.Postgres {
		if n.api, err = db.OpenPool(ctx, cfg.DatabaseURL, orDefault(cfg.APIConns, DefaultAPIConns)); err != nil {
			return nil, err
		}
	}
	// The server's series (/metrics), on a registry of its own; every
	// statement from here on is timed.
	stats := metrics.New()
	n.db.Bun().AddQueryHook(stats.QueryHook())
	if n.api != n.db {
		n.api.Bun().AddQueryHook(stats.QueryHook())
	}

	traces, err := tracing.New(tracing.Config{Endpoint: cfg.Tracing.Endpoint, Sample: cfg.Tracing.Sample,
		Service: "jobwheel-server", Version: cfg.Version})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			traces.Stop()
		}
	}()
	tracer := traces.Tracer("github.com/jobwheel/jobwheel/server")
	// The API's services read callers, roles, apps and jobs through the
	// read cache (it serves from memory once started; until then it reads
	// the database).
	// A change waits for other servers to drop what they keep (Changed)
	// only when there are others: the server registry, made below, says.
	var members *cluster.Registry
	reads := readcache.New(readcache.Config{Servers: func(ctx context.Context) (int, error) {
		if members == nil {
			return 1, nil // starting: nothing served yet, here or through this server
		}
		return members.AliveCount(ctx)
	}}, n.api, log)
	apiDB := reads.Store(n.api)
	authSvc := auth.New(auth.Config{NoPasswords: cfg.NoPasswords}, apiDB, log)
	generated, err := authSvc.EnsureAdmin(ctx, cfg.AdminPassword)
	if err != nil {
		return nil, err
	}
	appSvc := apps.New(apiDB, authSvc, nil)
	if cfg.Demo {
		dir, _ := os.Getwd()
		if err = ensureDemo(ctx, n.api, appSvc, dir); err != nil {
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

	// Hints between servers: NOTIFY on PostgreSQL, in-process on SQLite —
	// and behind a transaction-pooling PgBouncer, where LISTEN cannot work,
	// in-process too: every consumer of hints also polls the database.
	var busDB *bun.DB
	if n.db.Dialect() == db.Postgres && !n.db.TransactionPooling() {
		busDB = n.db.Bun()
	}
	if n.db.TransactionPooling() {
		log.Info("database reached through a pooler in transaction pooling mode (pool_mode=transaction): no LISTEN/NOTIFY; hints between servers are replaced by polling the database")
	}
	hints := bus.New(serverID, n.db.Namespace(), busDB, log)
	// What the read cache keeps is dropped when a hint says it changed (here
	// at once, elsewhere within milliseconds); the change counters it reads
	// every 100 ms catch a lost hint (server/platform/readcache).
	hints.Subscribe(live.TopicAuth, func(string, string) { reads.Invalidate(db.VersionAuth) })
	hints.Subscribe(live.TopicApps, func(string, string) { reads.Invalidate(db.VersionApps) })
	hints.Subscribe(live.TopicJobs, func(string, string) { reads.Invalidate(db.VersionJobs) })
	hints.OnReconnect(reads.InvalidateAll)
	appSvc.OnChanged(func(appID int64) { hints.Publish(live.TopicApps, strconv.FormatInt(appID, 10)) })
	// API subscriptions: woken by bus hints, re-reading the database.
	feeds := live.New(live.Config{}, apiDB, hints, authSvc, appSvc, log)
	// Lines are written on the scheduler's pool, read by the API on its own.
	logSvc := logs.New(n.db, feeds, nil, log)
	logSvc.ReadFrom(n.api)
	alarms, err := alarm.New(alarm.Config{SMTPURL: cfg.SMTPURL, ConsoleURL: advertise, AllowNetworks: cfg.AlarmAllowNetworks}, n.db, log)
	if err != nil {
		return nil, err
	}
	alarms.ReadFrom(n.api)
	members = cluster.New(cluster.Config{ID: serverID, AdvertiseURL: advertise, Version: cfg.Version}, n.db, log)
	timer := trigger.NewService(trigger.Config{DispatchAhead: cfg.DispatchAhead}, n.db, log)
	// DECISION and FOREACH expressions of every owned app are evaluated by
	// one bounded pool, off the engines' goroutines (issue 25).
	evaluator := workflow.NewEvaluator(workflow.EvaluatorConfig{Limits: wfexpr.Limits{CPU: cfg.ExpressionCPU}})
	ownedApps := owned.New(owned.Deps{Trigger: timer, Log: log,
		ExecCfg:       execution.Config{MapMaxTasks: cfg.MapMaxTasks, MapMaxBytes: cfg.MapMaxBytes},
		Execution:     execution.Deps{Store: n.db, Notifier: feeds, Alarmer: alarms, Versions: reads, Log: log, Tracer: tracer},
		Workflow:      workflow.Deps{Store: n.db, Notifier: feeds, Alarmer: alarms, ServerID: serverID, Log: log, Evaluator: evaluator, Tracer: tracer},
		BackfillStore: n.db, BackfillFeed: feeds})
	// A backfill made or stopped through the API on any server: its
	// app's owner looks at once.
	hints.Subscribe(backfill.HintTopic, ownedApps.BackfillHint)
	// A workflow run changed through the API on any server: its owner looks.
	hints.Subscribe(workflow.HintTopic, ownedApps.WorkflowHint)
	// The collector reads the owned apps' figures from the database; it
	// learns which apps are owned from the lease manager's listener.
	collector := metrics.NewCollector(metrics.CollectorConfig{}, stats, n.db, ownedApps, log)
	leases := lease.New(lease.Config{ServerID: serverID, TTL: cfg.LeaseTTL, Balance: true}, n.db, members, hints,
		collector.Listener(ownedApps), log)
	// A lease released, or a server joining, is worth a balancing pass now.
	hints.Subscribe(lease.HintTopic, func(string, string) { leases.Kick() })
	// A deleted app's lease row went with it: the owner finds that at the
	// renewal a pass does, and stops scheduling the app then.
	appSvc.OnDeleted(func(int64) { hints.Publish(lease.HintTopic, "app deleted") })
	jobSvc := jobs.New(jobs.Deps{Store: apiDB, Auth: authSvc, Apps: appSvc, Notifier: feeds.Jobs(ownedApps),
		Webhooks: netguard.Policy{Allow: cfg.AlarmAllowNetworks}})
	// Workers declaring jobs in code have them applied by the job API.
	workers := hub.New(hub.Config{}, hub.Deps{Apps: appSvc, Owner: leases, Registries: ownedApps, Directory: members,
		Store: n.db, Logs: logSvc, Watcher: feeds, Log: log, Declarations: jobSvc})
	cleaner := retention.New(retention.Config{Keep: cfg.Retention}, n.db, leases, log)
	// History partitions (PostgreSQL) are created ahead of the instances
	// that will fill them; retention drops them.
	partitioner := partitions.New(partitions.Config{}, n.db, log)
	// appStats reads each hour of an owned app's instances summed once
	// the hour is over.
	rollups := rollup.New(rollup.Config{Keep: cfg.Retention}, n.db, leases, log)
	// The workflow API; its run operations change runs on any server and
	// tell the owner (package workflow).
	workflowSvc := workflows.New(workflows.Deps{Store: apiDB, Auth: authSvc, Apps: appSvc, Notifier: feeds.Jobs(ownedApps),
		Feed: feeds, RunOps: workflow.NewOps(n.api, hints, feeds.Jobs(ownedApps), feeds, nil), Webhooks: netguard.Policy{Allow: cfg.AlarmAllowNetworks}})
	// Backfills: recorded here, their runs made by the app's owner.
	backfillSvc := backfills.New(backfills.Config{MaxRuns: cfg.BackfillMaxRuns}, apiDB, authSvc, appSvc, workflowSvc, jobSvc, hints)
	// Configuration as code: managed sets of files applied in one
	// transaction through the job and workflow APIs' validation.
	applier := apply.New(apply.Deps{Store: n.api, Apps: appSvc, Jobs: jobSvc, Workflows: workflowSvc, Notifier: feeds.Jobs(ownedApps)})
	auditSvc := audit.New(apiDB, authSvc, appSvc, log, nil)
	var signOn *sso.Service
	if cfg.SSO.Issuer != "" {
		ssoCfg := cfg.SSO
		ssoCfg.SessionCookie, ssoCfg.Proxies = graph.SessionCookie, cfg.TrustedProxies
		if signOn, err = sso.New(ssoCfg, n.api, authSvc, auditSvc, log); err != nil {
			return nil, err
		}
		authSvc.UseSSO(signOn)
	}
	services := graph.Services{Auth: authSvc, Apps: appSvc, Cluster: members, Jobs: jobSvc,
		Workflows: workflowSvc, Backfills: backfillSvc, Apply: applier, Logs: logSvc, Live: feeds, Alarms: alarms, Audit: auditSvc, Log: log, TraceURL: cfg.TraceURL}
	if signOn != nil {
		services.SSOName = signOn.Name()
	}
	api := graph.NewHandler(graph.HandlerConfig{
		Resolver:       graph.NewResolver(services),
		Log:            log,
		OriginPatterns: cfg.AllowedOrigins,
		TrustedProxies: cfg.TrustedProxies,
		// Rights changed on any server: open websockets re-check at once.
		AuthChanges:          func(fn func()) { hints.Subscribe(live.TopicAuth, func(string, string) { fn() }) },
		Observer:             stats,
		Tracer:               tracer,
		MaxSocketsPerUser:    cfg.MaxSocketsPerUser,
		MaxOperationsPerUser: cfg.MaxOperationsPerUser,
		MaxRequestsPerUser:   cfg.MaxRequestsPerUser,
	})
	mux := http.NewServeMux()
	mux.Handle("/graphql", api)
	mux.Handle("GET "+graph.SchemaPath, graph.SchemaHandler())
	mux.HandleFunc("GET /worker/discover", workers.ServeDiscover)
	mux.HandleFunc("GET /worker/connect", workers.ServeConnect)
	n.health(mux)
	// /metrics names every app and needs no login: with a listener of its
	// own (JOBWHEEL_METRICS_ADDR) it is served there only.
	if cfg.MetricsAddr == "" {
		mux.Handle("GET /metrics", stats.Handler())
	} else {
		mux.Handle("/metrics", http.NotFoundHandler()) // not the console's page either
	}
	if signOn != nil {
		signOn.Routes(mux)
	}
	mux.Handle("/", frontend.Handler())
	n.http = newHTTPService(listener, httpsec.Headers(mux), log)
	if cfg.DebugAddr != "" {
		dl, err := net.Listen("tcp", cfg.DebugAddr)
		if err != nil {
			return nil, fmt.Errorf("listening on %s for JOBWHEEL_DEBUG_ADDR: %w", cfg.DebugAddr, err)
		}
		defer func() {
			if err != nil {
				_ = dl.Close()
			}
		}()
		n.debug = newDebugService(dl, log)
	}
	if cfg.MetricsAddr != "" {
		ml, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			return nil, fmt.Errorf("listening on %s for JOBWHEEL_METRICS_ADDR: %w", cfg.MetricsAddr, err)
		}
		defer func() {
			if err != nil {
				_ = ml.Close()
			}
		}()
		side := http.NewServeMux()
		side.Handle("GET /metrics", stats.Handler())
		n.health(side)
		n.metrics = newSideService("metrics", ml, side, log)
	}

	// Stopped in reverse: the HTTP listener first (no new requests), then
	// retention, then the leases (leave the cluster, stop every owned app,
	// release), the wheel, the worker connections left, the registry,
	// alarms, the log writer (storing what is queued), the subscriptions
	// (ended with UNAVAILABLE) and the bus (sending what is pending).
	if traces != nil {
		// Stopped last: spans of the shutdown are exported too.
		n.services.Add("tracing", traces)
	}
	n.services.Add("bus", hints)
	n.services.Add("read cache", reads)
	n.services.Add("subscriptions", feeds)
	n.services.Add("log writer", logSvc)
	n.services.Add("alarms", alarms)
	n.services.Add("cluster registry", members)
	n.services.Add("worker channel", workers)
	n.services.Add("history partitions", partitioner)
	n.services.Add("timing wheel", timer)
	n.services.Add("expression evaluator", evaluator)
	n.services.Add("leases", leases)
	n.services.Add("retention", cleaner)
	n.services.Add("instance roll-ups", rollups)
	n.services.Add("metrics", collector)
	n.services.Add("HTTP", n.http)
	if n.debug != nil {
		n.services.Add("debug HTTP", n.debug)
	}
	if n.metrics != nil {
		n.services.Add("metrics HTTP", n.metrics)
	}
	if err = n.services.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, err
	}
	hints.Publish(lease.HintTopic, "joined")

	if n.metrics != nil {
		log.Info("serving metrics and health", "addr", n.metrics.listener.Addr().String(), "paths", "/metrics /healthz /readyz")
	}
	if n.debug != nil {
		log.Info("serving pprof and the runtime trace", "addr", n.debug.listener.Addr().String(), "path", "/debug/pprof/")
	}
	log.Info("jobwheel server started", "id", serverID, "addr", listener.Addr().String(), "advertise", advertise,
		"database", string(n.db.Dialect()), "version", cfg.Version)
	fmt.Fprint(stdout, greeting(listener.Addr(), cfg))
	if generated != "" {
		fmt.Fprintf(stdout, "First start: created user %q with password %s\n(shown only this once; set JOBWHEEL_ADMIN_PASSWORD to choose it)\n\n", auth.AdminUsername, generated)
	}
	return n, nil
}

// Shutdown stops the services in reverse order of their start (the HTTP
// listener first, letting in-flight requests finish; then the leases,
// handing the apps off to other servers at once) and closes the database.
func (n *Node) Shutdown() error {
	n.log.Info("shutting down")
	n.services.Stop()
	err := n.http.Err()
	if n.api != n.db {
		if cerr := n.api.Close(); cerr != nil {
			n.log.Warn("closing the API's database pool", "err", cerr)
		}
	}
	if cerr := n.db.Close(); cerr != nil {
		n.log.Warn("closing database", "err", cerr)
	}
	n.log.Info("stopped")
	return err
}

// orDefault is n, or def when n is not set (a Config made in code).
func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
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

// greeting says where the console is and who can reach it: the address
// really listened on (loopback, one interface, or every one), never a
// "localhost" that hides a server open to the network.
func greeting(addr net.Addr, cfg *Config) string {
	host, port, _ := net.SplitHostPort(addr.String())
	ip := net.ParseIP(host)
	everywhere := ip != nil && ip.IsUnspecified()
	url := "http://" + addr.String()
	if everywhere {
		url = "http://localhost:" + port
	}
	if cfg.AdvertiseURL != "" {
		url = cfg.AdvertiseURL
	}
	var reach string
	switch {
	case everywhere:
		reach = fmt.Sprintf("Listening on every interface (%s): other machines can reach it too.", addr)
	case ip != nil && ip.IsLoopback():
		reach = fmt.Sprintf("Listening on %s: this machine only; JOBWHEEL_HTTP_ADDR=:%s (or -http-addr) serves other machines too.", addr, port)
	default:
		reach = fmt.Sprintf("Listening on %s only.", addr)
	}
	return fmt.Sprintf("\njobwheel is running: console and API at %s (GraphQL at %s/graphql)\n%s\n", url, url, reach)
}
