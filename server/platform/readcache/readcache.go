// Package readcache serves from memory the reads the API makes on nearly
// every call of rows that change rarely: the caller's session or API
// token, its user and its role on an app, the app, the job. A runJob
// read four of them from the database before writing anything; at a few
// thousand calls a second those reads were the database's largest load.
//
// # When a change takes effect
//
// A change must take effect on every server, not only on the one that
// made it: a revoked token must stop working everywhere, an edited job
// must run as edited. Three things drop what a server remembers:
//
//   - On the server that made the change, at once: the services publish a
//     bus hint when they change these rows (a token revoked, a role set, a
//     job saved, an app's secret rotated), which is delivered in-process
//     before the change's API call returns, so the next call on that
//     server reads the database.
//   - On the other servers, a few milliseconds later: the same hint
//     travels by NOTIFY.
//   - On every server within Every (100 ms) even if a hint is lost (a
//     listener reconnecting, a server dying between its commit and its
//     NOTIFY, transaction pooling, where there is no LISTEN at all): the
//     table change_versions counts the changes per scope, moved by
//     triggers in the transaction that makes them, and each server reads
//     it every Every; a counter that moved drops its scope.
//
// A server serves from memory only while its last read of the counters
// began less than FreshFor (3 × Every) ago: one that cannot read them (the
// database is unreachable, the process was paused) reads the database.
// And an API call that changes these rows returns only FreshFor after its
// commit (Changed): by then every server serving from memory has read the
// counters since the commit, hint or not. So a change takes effect on
// every server at once in the sense that matters: by the time the call
// that made it returns, no server answers from what it kept before —
// which costs such calls (revoking a token, logging out, changing a role,
// saving a job) 300 ms when other servers run, nothing on a server alone. Changes made some other way (by hand in the
// database, by retention) reach every server within FreshFor. A call
// already past its checks when a change lands completes, as it would
// without the cache.
//
// A read that started before a change and ends after the change dropped
// its scope is not kept: each scope has a generation, taken before the
// read and compared when the value is stored.
package readcache

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/internal/testsignal"
)

// Config tunes the cache; the zero value takes the defaults.
type Config struct {
	// Every is how often the change counters are read: the longest a
	// change takes to reach this server's memory when its hint is lost.
	// Default 100ms.
	Every time.Duration
	// MaxAge bounds how long a value is served, whatever the counters
	// say. Default 1 min.
	MaxAge time.Duration
	// MaxEntries bounds each scope's values; past it the scope starts
	// afresh. Default 20,000.
	MaxEntries int
	// Servers counts the live servers of the cluster (the server
	// registry). Changed waits only when another one may serve from
	// memory; nil: always wait.
	Servers func(ctx context.Context) (int, error)
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// freshFor is how long after a read of the counters began values are
// served: a few intervals, so a read that is late by a little on a busy
// machine does not stop the serving.
func (c *Config) freshFor() time.Duration { return 3 * c.Every }

func (c *Config) defaults() {
	if c.Every <= 0 {
		c.Every = 100 * time.Millisecond
	}
	if c.MaxAge <= 0 {
		c.MaxAge = time.Minute
	}
	if c.MaxEntries <= 0 {
		c.MaxEntries = 20000
	}
	c.Clock = clock.OrSystem(c.Clock)
}

// Source is what the cache reads: the counters, and the rows it keeps.
type Source interface {
	ChangeVersionList(ctx context.Context) (map[string]int64, error)
	SessionGetUserUntil(ctx context.Context, tokenHash string) (*db.User, time.Time, error)
	APITokenGetByHash(ctx context.Context, hash string) (*db.APIToken, error)
	UserGet(ctx context.Context, id int64) (*db.User, error)
	AppMemberGetRole(ctx context.Context, appID, userID int64) (db.Role, error)
	AppGet(ctx context.Context, id int64) (*db.App, error)
	AppGetByName(ctx context.Context, name string) (*db.App, error)
	JobGet(ctx context.Context, id int64) (*db.Job, error)
}

// scopes the cache keeps, as change_versions names them.
var scopes = []string{db.VersionAuth, db.VersionApps, db.VersionJobs}

// Cache is the server's memory of those rows; it is a lifecycle part (its
// loop reads the counters).
type Cache struct {
	lifecycle.Base
	cfg Config
	src Source
	log *slog.Logger

	mu     sync.Mutex
	scopes map[string]*scope
	// fresh is when the counters were last read (monotonic): values are
	// served only while that is recent.
	fresh time.Time
	// failing says the last read of the counters failed (logged once).
	failing bool

	// Polled, if Init'ed by a test, signals each read of the counters;
	// Settling, each Changed that began its wait.
	Polled, Settling testsignal.Signal[struct{}]
}

type scope struct {
	version int64 // as last read; 0: never
	gen     uint64
	entries map[any]entry
}

type entry struct {
	v   any
	gen uint64
	at  time.Time
}

// New returns a cache over src; it serves nothing from memory until Start
// has read the counters.
func New(cfg Config, src Source, log *slog.Logger) *Cache {
	cfg.defaults()
	c := &Cache{cfg: cfg, src: src, log: log, scopes: map[string]*scope{}}
	for _, s := range scopes {
		c.scopes[s] = &scope{entries: map[any]entry{}}
	}
	return c
}

// Start reads the counters every Every until Stop.
func (c *Cache) Start(ctx context.Context) error {
	ctx, ok, started, stopped := c.StartInit(ctx)
	if !ok {
		return nil
	}
	go func() {
		started()
		defer stopped()
		c.poll(ctx)
		for clock.Sleep(c.cfg.Clock, c.cfg.Every, ctx.Done()) {
			c.poll(ctx)
		}
		c.mu.Lock()
		c.fresh = time.Time{} // stopped: nothing is served from memory
		c.mu.Unlock()
	}()
	return nil
}

// poll reads the counters and drops every scope whose counter moved.
func (c *Cache) poll(ctx context.Context) {
	// The read's snapshot is taken after it began: values it lets serve
	// are fresh as of its beginning.
	began := c.cfg.Clock.Now()
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	versions, err := c.src.ChangeVersionList(rctx)
	cancel()
	defer c.Polled.Signal(struct{}{})
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.fresh = time.Time{}
		if !c.failing && ctx.Err() == nil {
			c.log.Warn("readcache: reading the change counters failed; serving from the database until it works", "err", err)
		}
		c.failing = true
		return
	}
	if c.failing {
		c.log.Info("readcache: reading the change counters again; serving from memory")
		c.failing = false
	}
	for name, sc := range c.scopes {
		if v := versions[name]; v != sc.version {
			sc.version = v
			c.dropLocked(sc)
		}
	}
	c.fresh = began
}

// known returns the counters as last read.
func (c *Cache) known() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.scopes))
	for name, sc := range c.scopes {
		out[name] = sc.version
	}
	return out
}

// Changed is called after a change to a scope's rows has committed: it
// drops the scope here, then waits FreshFor, after which no server serves
// what it kept from before the change (see the package doc). It returns
// early, with ctx's error, if ctx ends.
func (c *Cache) Changed(ctx context.Context, scopeNames ...string) error {
	for _, s := range scopeNames {
		c.Invalidate(s)
	}
	if c.cfg.Servers != nil {
		// Alone in the cluster, this server has just dropped all there
		// is to drop (a server joining later starts with nothing).
		if n, err := c.cfg.Servers(ctx); err == nil && n <= 1 {
			return nil
		}
	}
	t := c.cfg.Clock.NewTimer(c.cfg.freshFor())
	defer t.Stop()
	c.Settling.Signal(struct{}{})
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Invalidate drops what is kept of a scope (db.VersionAuth, …): a change
// was made, on this server or another (a bus hint said so).
func (c *Cache) Invalidate(scopeName string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sc := c.scopes[scopeName]; sc != nil {
		c.dropLocked(sc)
	}
}

// InvalidateAll drops everything (hints may have been lost).
func (c *Cache) InvalidateAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, sc := range c.scopes {
		c.dropLocked(sc)
	}
}

// Generation is a scope's count of drops, and whether this server serves
// from memory now: a consumer that keeps values of its own (the execution
// actor's jobs) may keep them while the generation stays and serving is
// true, and must read again otherwise.
func (c *Cache) Generation(scopeName string) (uint64, bool) {
	now := c.cfg.Clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scopes[scopeName].gen, c.servingLocked(now)
}

func (c *Cache) dropLocked(sc *scope) {
	sc.gen++
	clear(sc.entries)
}

// servingLocked says whether values may be served: a read of the counters
// began less than FreshFor ago.
func (c *Cache) servingLocked(now time.Time) bool {
	return !c.fresh.IsZero() && now.Sub(c.fresh) < c.cfg.freshFor()
}

// get returns a scope's value for key, and the generation a read that
// misses must store its value under.
func (c *Cache) get(scopeName string, key any) (any, bool, uint64) {
	now := c.cfg.Clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	sc := c.scopes[scopeName]
	if !c.servingLocked(now) {
		return nil, false, sc.gen
	}
	e, ok := sc.entries[key]
	if !ok || e.gen != sc.gen || now.Sub(e.at) >= c.cfg.MaxAge {
		return nil, false, sc.gen
	}
	return e.v, true, sc.gen
}

// put keeps a value read under generation gen, unless the scope was
// dropped since (the value may be older than the change that dropped it).
func (c *Cache) put(scopeName string, key, v any, gen uint64) {
	now := c.cfg.Clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	sc := c.scopes[scopeName]
	if sc.gen != gen || !c.servingLocked(now) {
		return
	}
	if len(sc.entries) >= c.cfg.MaxEntries {
		clear(sc.entries)
	}
	sc.entries[key] = entry{v: v, gen: gen, at: now}
}

// read is the shape of every cached read: from memory, else from the
// database, kept for next time. Values are returned as copies.
func read[T any](c *Cache, scopeName string, key any, load func() (T, error), clone func(T) T) (T, error) {
	cached, ok, gen := c.get(scopeName, key)
	if ok {
		return clone(cached.(T)), nil
	}
	v, err := load()
	if err != nil {
		var zero T
		return zero, err
	}
	c.put(scopeName, key, v, gen)
	return clone(v), nil
}

type sessionKey string
type tokenKey string
type userKey int64
type roleKey struct{ app, user int64 }
type appKey int64
type appNameKey string
type jobKey int64

type session struct {
	user    db.User
	expires time.Time
}

func clonePtr[T any](p *T) *T {
	c := *p
	return &c
}

func same[T any](v T) T { return v }

// SessionGetUser is db.Store's: the user of an unexpired session.
func (c *Cache) SessionGetUser(ctx context.Context, tokenHash string, now time.Time) (*db.User, error) {
	s, err := read(c, db.VersionAuth, sessionKey(tokenHash), func() (*session, error) {
		u, until, err := c.src.SessionGetUserUntil(ctx, tokenHash)
		if err != nil {
			return nil, err
		}
		return &session{user: *u, expires: until}, nil
	}, same[*session])
	if err != nil {
		return nil, err
	}
	if !s.expires.After(now) {
		return nil, errExpired
	}
	u := s.user
	return &u, nil
}

// errExpired is what SessionGetUser answers for an expired session, as
// the database does: not found.
var errExpired = errors.Join(db.ErrNotFound, errors.New("the session has expired"))

// APITokenGetByHash is db.Store's: an unrevoked token.
func (c *Cache) APITokenGetByHash(ctx context.Context, hash string) (*db.APIToken, error) {
	return read(c, db.VersionAuth, tokenKey(hash), func() (*db.APIToken, error) { return c.src.APITokenGetByHash(ctx, hash) }, clonePtr[db.APIToken])
}

// UserGet is db.Store's.
func (c *Cache) UserGet(ctx context.Context, id int64) (*db.User, error) {
	return read(c, db.VersionAuth, userKey(id), func() (*db.User, error) { return c.src.UserGet(ctx, id) }, clonePtr[db.User])
}

// AppMemberGetRole is db.Store's: "" for none.
func (c *Cache) AppMemberGetRole(ctx context.Context, appID, userID int64) (db.Role, error) {
	return read(c, db.VersionAuth, roleKey{appID, userID}, func() (db.Role, error) { return c.src.AppMemberGetRole(ctx, appID, userID) }, same[db.Role])
}

// AppGet is db.Store's.
func (c *Cache) AppGet(ctx context.Context, id int64) (*db.App, error) {
	return read(c, db.VersionApps, appKey(id), func() (*db.App, error) { return c.src.AppGet(ctx, id) }, clonePtr[db.App])
}

// AppGetByName is db.Store's.
func (c *Cache) AppGetByName(ctx context.Context, name string) (*db.App, error) {
	return read(c, db.VersionApps, appNameKey(name), func() (*db.App, error) { return c.src.AppGetByName(ctx, name) }, clonePtr[db.App])
}

// JobGet is db.Store's. The copy shares the job's slices and maps (its
// worker filter, alarm, excluded dates): callers read them, never write.
func (c *Cache) JobGet(ctx context.Context, id int64) (*db.Job, error) {
	return read(c, db.VersionJobs, jobKey(id), func() (*db.Job, error) { return c.src.JobGet(ctx, id) }, clonePtr[db.Job])
}
