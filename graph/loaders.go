package graph

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vikstrous/dataloadgen"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/auth"
)

// loaderWait is how long a dataloader collects keys before it fetches.
const loaderWait = 2 * time.Millisecond

// loaders batch the reads of related objects (an instance's job and
// worker, a job's app, …) so a page of N objects costs a constant number
// of queries, not N. They are made afresh for every response (every
// request, and every event of a subscription), so nothing is cached longer
// than one response, and every batch read goes through a server package
// that checks the caller's rights: an object the caller may not see loads
// as null, never across apps.
//
// Lists prime them: a page of instances loads the jobs, workers, attempts
// and task counts its selection asks for in one query each before the
// fields resolve, so the count does not depend on goroutine timing; the
// loaders' own batching covers everything else.
type loaders struct {
	jobs     *dataloadgen.Loader[int64, *db.Job]
	apps     *dataloadgen.Loader[int64, *db.App]
	workers  *dataloadgen.Loader[db.WorkerKey, *db.Worker]
	attempts *dataloadgen.Loader[int64, []db.InstanceAttempt]
	tasks    *dataloadgen.Loader[int64, *db.TaskCounts]
	lastRuns *dataloadgen.Loader[int64, *db.Instance] // by job
	// poolHolders is read once per pool and response, so a pool's
	// usedSlots and holders, resolved concurrently, agree.
	poolHolders memo[poolKey, []db.Instance]
	wf          *workflowLoaders
	r           *Resolver
}

type loadersKey struct{}

func (r *Resolver) newLoaders() *loaders {
	opt := dataloadgen.WithWait(loaderWait)
	return &loaders{
		r:  r,
		wf: r.newWorkflowLoaders(opt),
		jobs: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []int64) (map[int64]*db.Job, error) {
			return r.jobs.GetMany(ctx, ids, db.RoleViewer)
		}, opt),
		apps: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []int64) (map[int64]*db.App, error) {
			return r.apps.ByIDs(ctx, ids, db.RoleViewer)
		}, opt),
		workers: dataloadgen.NewMappedLoader(func(ctx context.Context, keys []db.WorkerKey) (map[db.WorkerKey]*db.Worker, error) {
			return r.apps.WorkerListByKeys(ctx, keys)
		}, opt),
		attempts: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []int64) (map[int64][]db.InstanceAttempt, error) {
			m, err := r.jobs.AttemptsMany(ctx, ids)
			for _, id := range ids {
				if _, ok := m[id]; !ok && err == nil {
					m[id] = []db.InstanceAttempt{}
				}
			}
			return m, err
		}, opt),
		lastRuns: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []int64) (map[int64]*db.Instance, error) {
			return r.jobs.LastRunsMany(ctx, ids)
		}, opt),
		tasks: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []int64) (map[int64]*db.TaskCounts, error) {
			m, err := r.jobs.TaskCountsMany(ctx, ids)
			out := make(map[int64]*db.TaskCounts, len(m))
			for id, c := range m {
				out[id] = &c
			}
			return out, err
		}, opt),
	}
}

// withRequestState gives each response fresh loaders and a fresh memo of
// the caller's roles.
func (r *Resolver) withRequestState(ctx context.Context) context.Context {
	ctx = auth.WithRoleMemo(ctx)
	return context.WithValue(ctx, loadersKey{}, r.newLoaders())
}

func loadersFor(ctx context.Context) *loaders {
	l, ok := ctx.Value(loadersKey{}).(*loaders)
	if !ok {
		panic("graph: no loaders in the context; is the handler built with NewHandler?")
	}
	return l
}

// load returns the value of key; a missing one (gone, or not the caller's
// to see) is nil.
func load[K comparable, V any](ctx context.Context, l *dataloadgen.Loader[K, *V], key K) (*V, error) {
	v, err := l.Load(ctx, key)
	if errors.Is(err, dataloadgen.ErrNotFound) {
		return nil, nil
	}
	return v, err
}

// poolKey names a pool within its app.
type poolKey struct {
	app  int64
	name string
}

// memo computes each key's value once per response, however many fields
// ask for it at the same time.
type memo[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]*memoEntry[V]
}

type memoEntry[V any] struct {
	once sync.Once
	v    V
	err  error
}

func (m *memo[K, V]) get(key K, fetch func() (V, error)) (V, error) {
	m.mu.Lock()
	if m.m == nil {
		m.m = map[K]*memoEntry[V]{}
	}
	e, ok := m.m[key]
	if !ok {
		e = &memoEntry[V]{}
		m.m[key] = e
	}
	m.mu.Unlock()
	e.once.Do(func() { e.v, e.err = fetch() })
	return e.v, e.err
}

// poolHoldersOf returns the instances holding a pool's slots, read once
// per response.
func (l *loaders) poolHoldersOf(ctx context.Context, p *db.Pool) ([]db.Instance, error) {
	return l.poolHolders.get(poolKey{p.AppID, p.Name}, func() ([]db.Instance, error) { return l.r.jobs.PoolHolders(ctx, p) })
}

func (l *loaders) job(ctx context.Context, id int64) (*db.Job, error) { return load(ctx, l.jobs, id) }
func (l *loaders) app(ctx context.Context, id int64) (*db.App, error) { return load(ctx, l.apps, id) }
func (l *loaders) worker(ctx context.Context, k db.WorkerKey) (*db.Worker, error) {
	return load(ctx, l.workers, k)
}
func (l *loaders) taskCounts(ctx context.Context, id int64) (*db.TaskCounts, error) {
	c, err := load(ctx, l.tasks, id)
	if c == nil && err == nil {
		c = &db.TaskCounts{InstanceID: id}
	}
	return c, err
}
func (l *loaders) lastRun(ctx context.Context, jobID int64) (*db.Instance, error) {
	return load(ctx, l.lastRuns, jobID)
}
func (l *loaders) attemptList(ctx context.Context, id int64) ([]db.InstanceAttempt, error) {
	return l.attempts.Load(ctx, id)
}

// primeInstances loads, for a page of instances, the related objects the
// query selects on its nodes, one query per kind.
func (l *loaders) primeInstances(ctx context.Context, list []db.Instance) error {
	if len(list) == 0 {
		return nil
	}
	sel := selectedFields(ctx, "edges", "node")
	if sel["job"] {
		var ids []int64
		seen := map[int64]bool{}
		for _, in := range list {
			if !seen[in.JobID] {
				seen[in.JobID] = true
				ids = append(ids, in.JobID)
			}
		}
		m, err := l.r.jobs.GetMany(ctx, ids, db.RoleViewer)
		if err != nil {
			return err
		}
		for _, id := range ids {
			l.jobs.Prime(id, m[id])
		}
	}
	if sel["worker"] {
		var keys []db.WorkerKey
		seen := map[db.WorkerKey]bool{}
		for _, in := range list {
			if in.WorkerID != nil {
				k := db.WorkerKey{AppID: in.AppID, ID: *in.WorkerID}
				if !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		}
		m, err := l.r.apps.WorkerListByKeys(ctx, keys)
		if err != nil {
			return err
		}
		for _, k := range keys {
			l.workers.Prime(k, m[k])
		}
	}
	ids := make([]int64, len(list))
	for i, in := range list {
		ids[i] = in.ID
	}
	if sel["attempts"] {
		m, err := l.r.jobs.AttemptsMany(ctx, ids)
		if err != nil {
			return err
		}
		for _, id := range ids {
			l.attempts.Prime(id, append([]db.InstanceAttempt{}, m[id]...))
		}
	}
	if sel["tasks"] {
		m, err := l.r.jobs.TaskCountsMany(ctx, ids)
		if err != nil {
			return err
		}
		for _, id := range ids {
			c := m[id]
			l.tasks.Prime(id, &c)
		}
	}
	return nil
}

// primeJobs loads, for a page of jobs, their last runs if the query asks
// for them, in one query.
func (l *loaders) primeJobs(ctx context.Context, list []db.Job) error {
	if len(list) == 0 || !selectedFields(ctx, "edges", "node")["lastRun"] {
		return nil
	}
	ids := make([]int64, len(list))
	for i, j := range list {
		ids[i] = j.ID
	}
	m, err := l.r.jobs.LastRunsMany(ctx, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		l.lastRuns.Prime(id, m[id])
	}
	return nil
}

// selectedFields returns the names of the fields the current field's
// selection asks for at path (e.g. "edges", "node"), fragments included.
func selectedFields(ctx context.Context, path ...string) map[string]bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !graphql.HasOperationContext(ctx) {
		return nil
	}
	opCtx := graphql.GetOperationContext(ctx)
	fields := graphql.CollectFields(opCtx, fc.Field.Selections, nil)
	for _, name := range path {
		var next []graphql.CollectedField
		for _, f := range fields {
			if f.Name == name {
				next = append(next, graphql.CollectFields(opCtx, f.Selections, nil)...)
			}
		}
		fields = next
	}
	out := make(map[string]bool, len(fields))
	for _, f := range fields {
		out[f.Name] = true
	}
	return out
}
