// Package graph is jobwheel's GraphQL API: the schema (graph/schema), the
// gqlgen output (graph/generated, graph/model) and the resolvers. Resolvers
// are thin: they parse and validate arguments, and call a server package,
// which checks the caller's rights; no SQL and no business rules live here.
package graph

import (
	"log/slog"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/api/alarm"
	"github.com/jobwheel/jobwheel/server/api/apply"
	"github.com/jobwheel/jobwheel/server/api/apps"
	"github.com/jobwheel/jobwheel/server/api/audit"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/api/backfills"
	"github.com/jobwheel/jobwheel/server/api/jobs"
	"github.com/jobwheel/jobwheel/server/api/workflows"
	"github.com/jobwheel/jobwheel/server/platform/live"
	"github.com/jobwheel/jobwheel/server/platform/logs"
	"github.com/jobwheel/jobwheel/server/runtime/cluster"
)

// Services are what the resolvers call.
type Services struct {
	Auth      *auth.Service
	Apps      *apps.Service
	Cluster   *cluster.Registry
	Jobs      *jobs.Service
	Workflows *workflows.Service
	// Backfills makes, lists and stops backfills.
	Backfills *backfills.Service
	// Apply applies managed sets of configuration files (applyConfig).
	Apply *apply.Service
	Logs  *logs.Service
	Live  *live.Feeds
	// Audit records every mutation; nil: none are.
	Audit *audit.Service
	// Alarms sends test alarms and reads alarm histories.
	Alarms *alarm.Sender
	Log    *slog.Logger
	// Clock defaults to the system clock.
	Clock clock.Clock
	// SSOName is the single sign-on provider's name; "" without single
	// sign-on.
	SSOName string
	// TraceURL links an instance to its trace ({traceId}); "": no link.
	TraceURL string
}

// Resolver is the root of the resolvers.
type Resolver struct {
	auth      *auth.Service
	apps      *apps.Service
	cluster   *cluster.Registry
	jobs      *jobs.Service
	workflows *workflows.Service
	backfills *backfills.Service
	applier   *apply.Service
	logs      *logs.Service
	live      *live.Feeds
	audit     *audit.Service
	alarms    *alarm.Sender
	log       *slog.Logger
	// present gives errors the API's shape (set by NewHandler); subscription
	// errors raised after the stream started need it by hand.
	present graphql.ErrorPresenterFunc
	clock   clock.Clock
	// ssoName and traceURL are Services.SSOName and Services.TraceURL.
	ssoName, traceURL string
}

// NewResolver returns the root resolver over s.
func NewResolver(s Services) *Resolver {
	return &Resolver{auth: s.Auth, apps: s.Apps, cluster: s.Cluster, jobs: s.Jobs, workflows: s.Workflows, backfills: s.Backfills, applier: s.Apply, logs: s.Logs, live: s.Live, audit: s.Audit, alarms: s.Alarms, log: s.Log,
		clock: clock.OrSystem(s.Clock), ssoName: s.SSOName, traceURL: s.TraceURL}
}

// now is the time as the database keeps it.
func (r *Resolver) now() time.Time { return db.Stamp(r.clock.Now()) }
