// Package metrics is the server's Prometheus endpoint (/metrics): what it
// measures, and how each figure is taken.
//
// One *Metrics is made per server, over its own prometheus.Registry (no
// global registry, so two servers in one test process do not mix), and is
// passed to the parts that observe something: the GraphQL handler
// (requests, websockets), the database (a bun query hook), the lease
// manager's listener (acquisitions, losses).
//
// What happens inside the scheduling core (fires, lateness, fire → start,
// outcomes, refusals, backlog, slots) is read from outside it: the
// Collector reads, for each app this server owns, the instances that
// finished since its last pass, and the app's backlog and worker slots.
// The scheduling code has no metrics calls in it, and a server counts only
// the apps it owns, so summing over servers counts each fire once.
//
// Labels are bounded: an app's name at most, never a job or an instance.
package metrics

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/uptrace/bun"
)

// Namespace prefixes every series.
const Namespace = "jobwheel"

// latencyBuckets suit scheduling delays: 1 ms to a minute.
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// dbBuckets suit single database statements: 0.1 ms to 5 s.
var dbBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5}

// Metrics holds every series the server exports.
type Metrics struct {
	reg *prometheus.Registry

	triggerLateness *prometheus.HistogramVec // app
	fireToStart     *prometheus.HistogramVec // app
	finished        *prometheus.CounterVec   // app, status, reason
	refusals        *prometheus.CounterVec   // app, reason
	queueInstances  *prometheus.GaugeVec     // app
	queueTasks      *prometheus.GaugeVec     // app
	workers         *prometheus.GaugeVec     // app
	slotsTotal      *prometheus.GaugeVec     // app
	slotsFree       *prometheus.GaugeVec     // app
	ownedApps       prometheus.Gauge
	leaseAcquired   prometheus.Counter
	leaseLost       prometheus.Counter
	dbLatency       *prometheus.HistogramVec // operation
	dbErrors        *prometheus.CounterVec   // operation
	gqlRequests     *prometheus.CounterVec   // type, operation, code
	gqlLatency      *prometheus.HistogramVec // type
	websockets      prometheus.Gauge
	collectErrors   prometheus.Counter
}

// New returns the server's metrics on a registry of their own, with the Go
// runtime's and the process's series.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	f := func(c prometheus.Collector) { reg.MustRegister(c) }
	m := &Metrics{reg: reg}
	m.triggerLateness = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "trigger_lateness_seconds",
		Help: "How late scheduled fires were: actual minus expected trigger time, per app; the count is the fires (observed as the instance finishes).", Buckets: latencyBuckets},
		[]string{"app"})
	m.fireToStart = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "fire_to_start_seconds",
		Help: "Time from an instance's fire to its start on a worker, per app (observed as the instance finishes).", Buckets: latencyBuckets},
		[]string{"app"})
	m.finished = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "instances_finished_total",
		Help: "Instances that finished, per app, final status and reason (empty reason: succeeded)."},
		[]string{"app", "status", "reason"})
	m.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "dispatch_refusals_total",
		Help: "Attempts that could not run, per app and reason: NO_WORKER (no connected worker passed the job's filters) or REJECTED (the worker refused the task)."},
		[]string{"app", "reason"})
	m.queueInstances = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "queue_waiting_instances",
		Help: "Instances WAITING (for their time or a worker), per app owned by this server."}, []string{"app"})
	m.queueTasks = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "queue_waiting_tasks",
		Help: "Tasks WAITING for a worker slot, per app owned by this server."}, []string{"app"})
	m.workers = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "workers_connected",
		Help: "Workers connected to this server, per app."}, []string{"app"})
	m.slotsTotal = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "worker_slots",
		Help: "Task slots of the connected workers, per app."}, []string{"app"})
	m.slotsFree = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "worker_slots_free",
		Help: "Task slots of the connected workers not running a task, per app."}, []string{"app"})
	m.ownedApps = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Name: "apps_owned",
		Help: "Apps whose lease this server holds."})
	m.leaseAcquired = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "lease_acquisitions_total",
		Help: "App leases this server gained."})
	m.leaseLost = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "lease_losses_total",
		Help: "App leases this server lost or released."})
	m.dbLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "db_query_seconds",
		Help: "Database statements' duration, per operation (SELECT, INSERT, UPDATE, DELETE, BEGIN, COMMIT…).", Buckets: dbBuckets},
		[]string{"operation"})
	m.dbErrors = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "db_query_errors_total",
		Help: "Database statements that failed (no rows found is not a failure), per operation."}, []string{"operation"})
	m.gqlRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "graphql_requests_total",
		Help: "GraphQL operations answered, per type (query, mutation, subscription), root field and error code (OK when none)."},
		[]string{"type", "operation", "code"})
	m.gqlLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "graphql_request_seconds",
		Help: "Time to answer a GraphQL query or mutation, per type.", Buckets: latencyBuckets}, []string{"type"})
	m.websockets = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Name: "websocket_subscribers",
		Help: "API websockets (subscription clients) open on this server."})
	m.collectErrors = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "metrics_collect_errors_total",
		Help: "Collector passes that failed to read the database (the figures of that pass are missing)."})
	f(m.triggerLateness)
	f(m.fireToStart)
	f(m.finished)
	f(m.refusals)
	f(m.queueInstances)
	f(m.queueTasks)
	f(m.workers)
	f(m.slotsTotal)
	f(m.slotsFree)
	f(m.ownedApps)
	f(m.leaseAcquired)
	f(m.leaseLost)
	f(m.dbLatency)
	f(m.dbErrors)
	f(m.gqlRequests)
	f(m.gqlLatency)
	f(m.websockets)
	f(m.collectErrors)
	f(collectors.NewGoCollector())
	f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry is the registry the series are on (for tests and extra
// collectors).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the series in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// GraphQLRequest records one answered operation (graph.Observer).
func (m *Metrics) GraphQLRequest(opType, operation, code string, took time.Duration) {
	m.gqlRequests.WithLabelValues(opType, operation, code).Inc()
	if opType != "subscription" {
		m.gqlLatency.WithLabelValues(opType).Observe(took.Seconds())
	}
}

// WebsocketOpened and WebsocketClosed count open API websockets
// (graph.Observer).
func (m *Metrics) WebsocketOpened() { m.websockets.Inc() }

// WebsocketClosed: see WebsocketOpened.
func (m *Metrics) WebsocketClosed() { m.websockets.Dec() }

// QueryHook returns a bun hook timing every statement.
func (m *Metrics) QueryHook() bun.QueryHook { return queryHook{m} }

type queryHook struct{ m *Metrics }

func (h queryHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (h queryHook) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	op := e.Operation()
	if !knownOperation(op) {
		op = "OTHER" // bounded: raw statements name whatever they start with
	}
	h.m.dbLatency.WithLabelValues(op).Observe(time.Since(e.StartTime).Seconds())
	if e.Err != nil && !isNoRows(e.Err) {
		h.m.dbErrors.WithLabelValues(op).Inc()
	}
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

func knownOperation(op string) bool {
	switch op {
	case "SELECT", "INSERT", "UPDATE", "DELETE", "BEGIN", "COMMIT", "ROLLBACK", "CREATE", "DROP", "ALTER", "WITH",
		"LISTEN", "UNLISTEN", "NOTIFY", "SET", "TRUNCATE":
		return true
	}
	return false
}
