// Package jobs is the job and instance API behind the resolvers: it
// validates job definitions (every field, with errors naming it), stores
// them with their next trigger time, runs jobs on demand, and stops or
// retries instances. It checks the caller's role on the job's app for
// every operation: VIEWER to read, EDITOR to change or run.
//
// It never talks to workers: it writes the database and tells the owner of
// the app (through Notifier) to look again.
package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/api/audit"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/groupcommit"
	"github.com/jobwheel/jobwheel/server/platform/netguard"
)

// Notifier tells the owner of an app that its jobs or instances changed.
type Notifier interface {
	JobsChanged(appID int64)
	InstancesChanged(appID int64)
	// InstanceCreated says runJob recorded a WAITING instance: if the app
	// runs on this server, its actor takes it at once, as recorded,
	// rather than when the trigger loop next reads it back.
	InstanceCreated(in *db.Instance)
}

// Store is what the job API reads and writes.
type Store interface {
	AttemptList(ctx context.Context, instanceID int64) ([]db.InstanceAttempt, error)
	AttemptUpsertMany(ctx context.Context, list []db.InstanceAttempt) error
	AttemptListByInstances(ctx context.Context, instanceIDs []int64) (map[int64][]db.InstanceAttempt, error)
	InTx(ctx context.Context, fn func(ctx context.Context, tx *db.Store) error) error
	InstanceCount(ctx context.Context, f db.InstanceFilter) (int, error)
	InstanceCountsNow(ctx context.Context, appID int64) (map[string]int, error)
	InstanceCreate(ctx context.Context, in *db.Instance) error
	InstanceCreateMany(ctx context.Context, list []*db.Instance) error
	InstanceCreateIdempotent(ctx context.Context, in *db.Instance, since time.Time) (*db.Instance, bool, error)
	InstanceGet(ctx context.Context, id int64) (*db.Instance, error)
	InstanceList(ctx context.Context, f db.InstanceFilter) ([]db.Instance, bool, error)
	InstanceOutcomes(ctx context.Context, appID int64, since time.Time) ([]db.OutcomeBucket, error)
	InstanceCountLimited(ctx context.Context, jobID int64) (int, error)
	InstanceRunReport(ctx context.Context, q db.RunReportQuery) ([]db.RunReportRow, error)
	AppOverviewList(ctx context.Context, appIDs []int64, dayStart, aliveSince time.Time) (map[int64]*db.AppOverview, error)
	InstanceStop(ctx context.Context, id int64, reason string) (*db.Instance, error)
	InstanceListLast(ctx context.Context, jobIDs []int64) (map[int64]db.Instance, error)
	JobCount(ctx context.Context, appID int64) (total, enabled int, err error)
	JobCountMatching(ctx context.Context, appID int64, search string) (int, error)
	JobCreate(ctx context.Context, j *db.Job) error
	JobGetByName(ctx context.Context, appID int64, name string) (*db.Job, error)
	JobListManagedBy(ctx context.Context, appID int64, source, set string) ([]db.Job, error)
	JobVersionList(ctx context.Context, jobID int64, limit int) ([]db.JobVersion, error)
	JobVersionGet(ctx context.Context, jobID int64, version int) (*db.JobVersion, error)
	CalendarGetByName(ctx context.Context, appID int64, name string) (*db.Calendar, error)
	CalendarCreate(ctx context.Context, c *db.Calendar) error
	CalendarGet(ctx context.Context, id int64) (*db.Calendar, error)
	CalendarList(ctx context.Context, appID int64) ([]db.Calendar, error)
	JobListByCalendar(ctx context.Context, calendarID int64) ([]db.Job, error)
	PoolCreate(ctx context.Context, p *db.Pool) error
	PoolGet(ctx context.Context, id int64) (*db.Pool, error)
	PoolGetByName(ctx context.Context, appID int64, name string) (*db.Pool, error)
	PoolList(ctx context.Context, appID int64) ([]db.Pool, error)
	JobListByPool(ctx context.Context, appID int64, pool string) ([]db.Job, error)
	InstanceListPoolHolders(ctx context.Context, appID int64, pool string) ([]db.Instance, error)
	InstanceListPoolWaiting(ctx context.Context, appID int64, pool string) ([]db.Instance, error)
	JobDelete(ctx context.Context, id int64) error
	JobGet(ctx context.Context, id int64) (*db.Job, error)
	JobList(ctx context.Context, appID int64, search string, beforeID int64, limit int) (db.JobPage, error)
	JobOutcomes(ctx context.Context, jobID int64, since time.Time) ([]db.OutcomeBucket, error)
	JobListByIDs(ctx context.Context, ids []int64) ([]db.Job, error)
	TaskCount(ctx context.Context, q db.TaskQuery) (int, error)
	TaskCountsByInstance(ctx context.Context, instanceIDs []int64) (map[int64]db.TaskCounts, error)
	TaskViewList(ctx context.Context, q db.TaskQuery) ([]db.TaskView, bool, error)
	TaskViewGet(ctx context.Context, instanceID, taskID int64) (*db.TaskView, error)
	WorkerCountAlive(ctx context.Context, appID int64, since time.Time) (int, error)
	// What the on-call dashboard reads (oncall.go).
	InstanceListFailedRecent(ctx context.Context, appID int64, since time.Time, limit int) ([]db.Instance, error)
	InstanceTimings(ctx context.Context, appID int64, since time.Time, limit int) ([]db.FinishedInstance, error)
	InstanceTimingsBetween(ctx context.Context, appID int64, from, to time.Time, limit int) ([]db.FinishedInstance, error)
	InstanceRollupMark(ctx context.Context, appID int64) (time.Time, error)
	InstanceRollupList(ctx context.Context, appID int64, from, to time.Time) ([]db.InstanceRollup, error)
	JobListNextFires(ctx context.Context, appID int64, limit int) ([]db.Job, error)
	WorkerListAlive(ctx context.Context, appID int64, since time.Time) ([]db.Worker, error)
}

// Auth checks the caller's rights on an app (package auth).
type Auth interface {
	Require(ctx context.Context, appID int64, role db.Role) error
}

// Apps finds the caller's apps (package apps).
type Apps interface {
	ByName(ctx context.Context, name string, role db.Role) (*db.App, error)
	ByID(ctx context.Context, id int64, role db.Role) (*db.App, error)
	// Staying is ByID for an EDITOR's edit of an object of the app, refusing
	// one that names another app.
	Staying(ctx context.Context, id int64, named, what string) (*db.App, error)
	// Visible lists the apps the caller may see.
	Visible(ctx context.Context) ([]db.App, error)
}

// Deps are what the job API works with.
type Deps struct {
	Store    Store
	Auth     Auth
	Apps     Apps
	Notifier Notifier
	// Webhooks is which addresses alarm webhooks may name (the alarm
	// sender's policy, checked here as far as a URL shows it); the zero
	// value allows public addresses only.
	Webhooks netguard.Policy
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Service is the job API.
type Service struct {
	db       Store
	auth     Auth
	apps     Apps
	notify   Notifier
	clock    clock.Clock
	webhooks netguard.Policy
	// runs group-commits runJob's instances, with their audit entries:
	// concurrent calls share one transaction of two INSERTs instead of
	// queueing on two commits each.
	runs *groupcommit.Batcher[*run]
	// lags are the lag figures computed lately (oncall.go).
	lags lagMemo
	// counts are the apps' counts being read (counts.go).
	counts countsFlight
}

// run is one runJob's instance, with its audit record when the call came
// through the API (nil in a test or a workflow).
type run struct {
	in  *db.Instance
	rec *audit.Record
}

// New returns a Service.
func New(d Deps) *Service {
	s := &Service{db: d.Store, auth: d.Auth, apps: d.Apps, notify: d.Notifier, clock: clock.OrSystem(d.Clock), webhooks: d.Webhooks}
	s.runs = groupcommit.New(maxInstanceBatch, s.writeRuns)
	return s
}

// writeRuns records runJob calls' instances and their audit entries in one
// transaction: the run and its record are made together or not at all.
func (s *Service) writeRuns(ctx context.Context, list []*run) error {
	instances := make([]*db.Instance, len(list))
	for i, r := range list {
		instances[i] = r.in
	}
	return s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		if err := tx.InstanceCreateMany(ctx, instances); err != nil {
			return err
		}
		var entries []*db.AuditEntry
		for _, r := range list {
			if r.rec != nil {
				entries = append(entries, r.rec.Entry(ctx, r.in))
			}
		}
		return tx.AuditCreateMany(ctx, entries)
	})
}

// now is the time as the database keeps it.
func (s *Service) now() time.Time { return db.Stamp(s.clock.Now()) }

func asInput(field string, err error) error {
	if errors.Is(err, fault.ErrNotFound) {
		return &fault.Input{Field: field, Reason: err.Error()}
	}
	return err
}

func notFound(err error, what string) error {
	if errors.Is(err, db.ErrNotFound) {
		return fault.NotFound(what)
	}
	return err
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
