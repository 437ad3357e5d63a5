// Package lease decides which server schedules which app.
//
// Each app is leased to at most one live server through a row in
// app_leases (app_id, server_id, epoch, expires_at). There is no
// coordinator and no lock held across work: every step is one conditional
// statement.
//
//   - Acquire: insert the lease, or take it over if it has expired; taking
//     it from anyone else increases the epoch.
//   - Renew: every RenewInterval (TTL/3) one UPDATE extends every lease this
//     server holds; an app missing from the result is lost at once.
//   - Release: on shutdown or hand-off the lease is expired on purpose (the
//     epoch is kept, so it only ever grows) and another server takes it at
//     its next pass.
//
// Expiry is judged by one clock: PostgreSQL's on PostgreSQL, so servers'
// clocks need not agree. Locally each lease also has a trust window kept on
// the monotonic clock: a renewal attempted at t makes the lease trusted
// until t + TTL - Margin. If renewals fail (the database is unreachable,
// the process was paused) the server stops scheduling the app when the
// window closes, before the lease can expire in the database and another
// server take it. The epoch is the fencing token: it is written on
// dispatches, and workers refuse dispatches older than the newest epoch
// they have seen, so a server that wakes from a long pause cannot act on a
// lease it no longer holds.
//
// Balance: each pass a server counts the live servers (package cluster)
// and the apps, and bids for free or expired leases only while it holds
// fewer than its fair share, ceil(apps/servers), so the least-loaded servers
// pick up orphans first. A server holding more than its share while another
// holds less hands the excess off gracefully: its listeners stop the app's
// work first, then the lease is released.
package lease

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
)

// Defaults.
const (
	DefaultTTL = 4 * time.Second
	// maxMargin is how long before the lease's end, by the local clock, the
	// server stops trusting it (less for short test TTLs: TTL/7).
	maxMargin = 2 * time.Second
)

func (m *Manager) margin() time.Duration { return min(maxMargin, m.cfg.TTL/7) }

// Store is what the manager needs from the database.
type Store interface {
	LeaseAcquire(ctx context.Context, appID int64, serverID string, ttl time.Duration, now time.Time) (*db.AppLease, bool, error)
	LeaseRenewMany(ctx context.Context, serverID string, appIDs []int64, ttl time.Duration, now time.Time) ([]db.AppLease, error)
	LeaseRelease(ctx context.Context, serverID string, appIDs []int64) error
	LeaseList(ctx context.Context, now time.Time) ([]db.LeaseState, error)
	LeaseGet(ctx context.Context, appID int64, now time.Time) (*db.AppLease, bool, error)
}

// Members says how many servers are alive (package cluster).
type Members interface {
	AliveCount(ctx context.Context) (int, error)
	// Leave takes this server out of the count at once: the first step of
	// a shutdown, so the servers taking its apps over count one server
	// fewer when they compute their fair share.
	Leave(ctx context.Context)
}

// Listener is told when this server gains or loses an app (package owned,
// which starts and stops everything it runs for the app). LeaseLost must
// stop the app's work before it returns. Calls never overlap.
type Listener interface {
	LeaseGained(ctx context.Context, appID, epoch int64)
	LeaseLost(appID int64)
}

// Hinter tells other servers that leases changed hands, so they look now
// instead of at their next pass (package bus).
type Hinter interface {
	Publish(topic, data string)
}

// HintTopic is the bus topic of lease changes.
const HintTopic = "lease"

// Config configures a Manager.
type Config struct {
	ServerID string
	// TTL is the lease duration; DefaultTTL if zero.
	TTL time.Duration
	// Balance enables fair-share hand-off to other servers.
	Balance bool
	// Clock defaults to the system clock. Trust windows are measured on it,
	// so it must keep a monotonic reading.
	Clock clock.Clock
}

// Manager holds this server's leases.
type Manager struct {
	lifecycle.Base
	cfg      Config
	store    Store
	members  Members
	hints    Hinter
	listener Listener
	log      *slog.Logger
	clock    clock.Clock

	mu    sync.Mutex
	owned map[int64]*held
	// freeSeen counts, per app, the passes in a row that found it free;
	// only the loop goroutine touches it.
	freeSeen map[int64]int
	// notifyMu serializes listener calls: gains come from the loop and
	// from discovery (Owner), losses from the loop, the watchdog and Stop.
	notifyMu sync.Mutex
	kick     chan struct{}
	running  bool
	// keepOnStop makes Stop release nothing, as a crash would (tests).
	keepOnStop bool
}

type held struct {
	epoch        int64
	trustedUntil time.Time // monotonic
	acquired     time.Time // monotonic
}

// handOffAfter is how long an app must have been held before it may be
// handed off to balance: it keeps an app from bouncing back and forth when
// a server that died still counts as alive for a while.
func (m *Manager) handOffAfter() time.Duration { return 2 * m.cfg.TTL }

// New returns a Manager telling listener of the apps it gains and loses and
// hints of released leases; call Start to begin.
func New(cfg Config, store Store, members Members, hints Hinter, listener Listener, log *slog.Logger) *Manager {
	if cfg.TTL == 0 {
		cfg.TTL = DefaultTTL
	}
	return &Manager{cfg: cfg, store: store, members: members, hints: hints, listener: listener, log: log,
		clock: clock.OrSystem(cfg.Clock), owned: map[int64]*held{}, freeSeen: map[int64]int{}, kick: make(chan struct{}, 1)}
}

func (m *Manager) hint(what string) {
	if m.hints != nil {
		m.hints.Publish(HintTopic, what)
	}
}

func (m *Manager) now() time.Time { return m.clock.Now() }

// Start acquires and renews leases in the background until Stop, which
// takes this server out of the member count, stops every app (the
// listener first) and releases the leases so other servers take over at
// once.
func (m *Manager) Start(ctx context.Context) error {
	ctx, ok, started, stopped := m.StartInit(ctx)
	if !ok {
		return nil
	}
	m.mu.Lock()
	m.running = true
	m.mu.Unlock()
	go func() {
		started()
		defer stopped()
		m.loop(ctx)
		m.mu.Lock()
		m.running = false
		m.mu.Unlock()
		if m.keepOnStop {
			return
		}
		m.release(context.WithoutCancel(ctx))
	}()
	return nil
}

// release hands every app off at shutdown.
func (m *Manager) release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	m.members.Leave(ctx)
	ids := m.dropAll()
	if err := m.store.LeaseRelease(ctx, m.cfg.ServerID, ids); err != nil {
		m.log.Warn("lease: releasing leases at shutdown failed; they expire by themselves", "err", err)
	} else if len(ids) > 0 {
		m.log.Info("lease: released leases", "apps", ids)
		m.hint("released")
	}
}

// Kick asks for a pass now, e.g. after an app was created.
func (m *Manager) Kick() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// Epoch returns the app's epoch if this server holds a trusted lease on it.
func (m *Manager) Epoch(appID int64) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h, ok := m.owned[appID]
	if !ok || m.now().After(h.trustedUntil) {
		return 0, false
	}
	return h.epoch, true
}

// Owned returns the apps this server holds, with their epochs.
func (m *Manager) Owned() map[int64]int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[int64]int64, len(m.owned))
	for id, h := range m.owned {
		out[id] = h.epoch
	}
	return out
}

// Owner returns the server holding a live lease on the app. With none, it
// tries to take the lease for this server, so an app is owned as soon as a
// worker asks for it; "" means no server owns it yet (another server below
// its fair share should take it): ask again shortly.
func (m *Manager) Owner(ctx context.Context, appID int64) (string, error) {
	l, live, err := m.store.LeaseGet(ctx, appID, db.Stamp(m.now()))
	if err == nil && live {
		return l.ServerID, nil
	}
	if err != nil && !isNotFound(err) {
		return "", err
	}
	m.mu.Lock()
	running := m.running
	m.mu.Unlock()
	if !running {
		return "", errStopped
	}
	// Nobody owns it (a new app, or its owner just went). Take it only if
	// this server is below its fair share; otherwise wake every server so
	// one that is below takes it, and let the worker ask again.
	fair, err := m.belowShare(ctx)
	if err != nil {
		return "", err
	}
	if !fair {
		m.hint("free")
		m.Kick()
		return "", nil
	}
	start := m.now()
	l, ok, err := m.store.LeaseAcquire(ctx, appID, m.cfg.ServerID, m.cfg.TTL, db.Stamp(start))
	if err != nil {
		return "", err
	}
	if ok {
		m.gained(ctx, appID, l.Epoch, start)
	}
	return l.ServerID, nil
}

// belowShare reports whether this server holds fewer apps than its fair
// share would be with one more app owned.
func (m *Manager) belowShare(ctx context.Context) (bool, error) {
	states, err := m.store.LeaseList(ctx, db.Stamp(m.now()))
	if err != nil {
		return false, err
	}
	alive, err := m.members.AliveCount(ctx)
	if err != nil {
		return false, err
	}
	share := (len(states) + max(alive, 1) - 1) / max(alive, 1)
	return len(m.ownedIDs()) < share, nil
}

// watchdogEvery is how often trust windows are checked between passes.
const watchdogEvery = 250 * time.Millisecond

func (m *Manager) loop(ctx context.Context) {
	interval := m.cfg.TTL / 3
	// The watchdog has a goroutine of its own: a pass can block in a
	// database call for up to TTL/3 (a renewal to a database that stopped
	// answering), longer than the margin between a trust window closing
	// and the lease expiring. Checked between passes only, a cut-off
	// owner went on scheduling for a second after another server had
	// taken its app (found by TestClusterFailover under load).
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		m.watch(ctx)
	}()
	defer wg.Wait()
	next := m.clock.NewTimer(0)
	defer next.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.kick:
		case <-next.C():
		}
		wait := m.pass(ctx, interval)
		// Jitter keeps servers from bidding in lock-step.
		next.Reset(min(wait, interval-interval/10+rand.N(interval/5)))
	}
}

// watch stops the apps whose trust window closed, every watchdogEvery,
// whatever the pass is doing.
func (m *Manager) watch(ctx context.Context) {
	watchdog := m.clock.NewTimer(watchdogEvery)
	defer watchdog.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-watchdog.C():
			m.dropUntrusted()
			watchdog.Reset(watchdogEvery)
		}
	}
}

// pass renews, then balances. It returns how soon the next pass is worth
// doing: when another server's lease runs out, in case it is dead.
func (m *Manager) pass(ctx context.Context, interval time.Duration) time.Duration {
	ctx, cancel := context.WithTimeout(ctx, interval)
	defer cancel()
	start := m.now()
	renewed := m.renew(ctx, start)
	m.dropUntrusted()
	if !renewed {
		// The database did not answer: try again soon, so the leases are
		// renewed as soon as it is back, before their trust windows close.
		return min(time.Second, interval)
	}
	if ctx.Err() != nil {
		return interval
	}
	wait, err := m.balance(ctx)
	if err != nil && ctx.Err() == nil {
		m.log.Warn("lease: balancing failed", "err", err)
	}
	return wait
}

// renew extends this server's leases; false if the database did not answer.
func (m *Manager) renew(ctx context.Context, start time.Time) bool {
	ids := m.ownedIDs()
	if len(ids) == 0 {
		return true
	}
	renewed, err := m.store.LeaseRenewMany(ctx, m.cfg.ServerID, ids, m.cfg.TTL, db.Stamp(start))
	if err != nil {
		m.log.Warn("lease: renewing failed; retrying every second until the trust window closes", "err", err)
		return false
	}
	still := make(map[int64]int64, len(renewed))
	for _, l := range renewed {
		still[l.AppID] = l.Epoch
	}
	for _, id := range ids {
		epoch, ok := still[id]
		m.mu.Lock()
		h := m.owned[id]
		same := ok && h != nil && h.epoch == epoch
		if same {
			h.trustedUntil = start.Add(m.cfg.TTL - m.margin())
		}
		m.mu.Unlock()
		if !same {
			m.log.Warn("lease: lost an app's lease at renewal", "app", id)
			m.lost(id)
		}
	}
	return true
}

// balance takes free leases and hands off excess ones.
//
//   - An app whose lease expired without being released lost its server
//     (crashed, cut off): every server bids at once, the first wins.
//   - A released or never-owned app goes to servers below their fair share,
//     ceil(apps/servers), so a joining server receives its share. If it is
//     still free three passes later (the server due to take it is gone),
//     anyone takes it.
//   - A server above its share while another is below hands the excess off.
//
// It returns when the next pass is worth doing: just after the soonest
// expiry of another server's lease.
func (m *Manager) balance(ctx context.Context) (time.Duration, error) {
	interval := m.cfg.TTL / 3
	states, err := m.store.LeaseList(ctx, db.Stamp(m.now()))
	if err != nil {
		return interval, err
	}
	alive, err := m.members.AliveCount(ctx)
	if err != nil {
		return interval, err
	}
	alive = max(alive, 1)
	share := (len(states) + alive - 1) / alive
	load := map[string]int{}
	wait := interval
	var free []db.LeaseState
	seen := map[int64]bool{}
	for _, s := range states {
		seen[s.AppID] = true
		if s.Live {
			load[s.ServerID]++
			if s.ServerID != m.cfg.ServerID {
				wait = min(wait, time.Duration(s.ExpiresInMs)*time.Millisecond+50*time.Millisecond)
			}
			delete(m.freeSeen, s.AppID)
		} else {
			free = append(free, s)
			m.freeSeen[s.AppID]++
		}
	}
	for id := range m.freeSeen {
		if !seen[id] {
			delete(m.freeSeen, id) // the app was deleted
		}
	}
	mine := len(m.ownedIDs())
	rand.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
	for _, s := range free {
		orphan := s.ServerID != "" && !s.Released
		if mine >= share && !orphan && m.freeSeen[s.AppID] < 3 {
			continue
		}
		start := m.now()
		l, ok, err := m.store.LeaseAcquire(ctx, s.AppID, m.cfg.ServerID, m.cfg.TTL, db.Stamp(start))
		if err != nil {
			return interval, err
		}
		if ok {
			if orphan {
				m.log.Warn("lease: took over an app whose server stopped renewing", "app", s.AppID, "from", s.ServerID)
			}
			m.gained(ctx, s.AppID, l.Epoch, start)
			mine++
		}
	}
	if !m.cfg.Balance || mine <= share {
		return wait, nil
	}
	// Hand off the excess only to a server that is below its share, so
	// apps do not bounce between servers that are both at their share.
	underloaded := len(load) < alive
	for id, n := range load {
		if id != m.cfg.ServerID && n < share-1 {
			underloaded = true
		}
	}
	if !underloaded {
		return wait, nil
	}
	var ids []int64
	now := m.now()
	m.mu.Lock()
	for id, h := range m.owned {
		if now.Sub(h.acquired) >= m.handOffAfter() {
			ids = append(ids, id)
		}
	}
	m.mu.Unlock()
	sort.Slice(ids, func(i, j int) bool { return ids[i] > ids[j] })
	excess := ids[:min(mine-share, len(ids))]
	if len(excess) == 0 {
		return wait, nil
	}
	for _, id := range excess {
		m.lost(id)
	}
	if err := m.store.LeaseRelease(ctx, m.cfg.ServerID, excess); err != nil {
		return interval, err
	}
	m.hint("released")
	m.log.Info("lease: handed off apps to balance the cluster", "apps", excess, "share", share)
	return wait, nil
}

// gained records a lease this server took and tells the listeners. The
// check and the record are one step under notifyMu: two workers
// discovering a free app at once must not start its work twice.
func (m *Manager) gained(ctx context.Context, appID, epoch int64, start time.Time) {
	m.notifyMu.Lock()
	defer m.notifyMu.Unlock()
	m.mu.Lock()
	h, had := m.owned[appID]
	if had && h.epoch == epoch {
		h.trustedUntil = start.Add(m.cfg.TTL - m.margin())
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	if had {
		m.lostLocked(appID) // re-acquired under a new epoch: restart cleanly
	}
	m.mu.Lock()
	m.owned[appID] = &held{epoch: epoch, trustedUntil: start.Add(m.cfg.TTL - m.margin()), acquired: start}
	m.mu.Unlock()
	m.log.Info("lease: acquired app", "app", appID, "epoch", epoch)
	m.listener.LeaseGained(ctx, appID, epoch)
}

func (m *Manager) lost(appID int64) {
	m.notifyMu.Lock()
	defer m.notifyMu.Unlock()
	m.lostLocked(appID)
}

func (m *Manager) lostLocked(appID int64) {
	m.mu.Lock()
	_, had := m.owned[appID]
	delete(m.owned, appID)
	m.mu.Unlock()
	if !had {
		return
	}
	m.log.Info("lease: stopped scheduling app", "app", appID)
	m.listener.LeaseLost(appID)
}

func (m *Manager) dropUntrusted() {
	// Under notifyMu, so that a renewal or an acquisition recorded
	// meanwhile is seen: check and stop are one step.
	m.notifyMu.Lock()
	defer m.notifyMu.Unlock()
	now := m.now()
	m.mu.Lock()
	var expired []int64
	for id, h := range m.owned {
		if now.After(h.trustedUntil) {
			expired = append(expired, id)
		}
	}
	m.mu.Unlock()
	for _, id := range expired {
		m.log.Warn("lease: trust window closed without a renewal; stopping the app before its lease can expire", "app", id)
		m.lostLocked(id)
	}
}

func (m *Manager) dropAll() []int64 {
	ids := m.ownedIDs()
	for _, id := range ids {
		m.lost(id)
	}
	return ids
}

func (m *Manager) ownedIDs() []int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]int64, 0, len(m.owned))
	for id := range m.owned {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
