package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Pool is a named number of slots per app that jobs and workflow nodes
// take while their instances run (Airflow pools, Argo semaphores; one
// slot is a mutex). What holds a pool and what waits for it is not
// stored apart: the holders are the app's DISPATCHED and RUNNING
// instances whose pool it is, the queue its WAITING instances marked
// POOL_FULL (docs/design.md §5.9).
type Pool struct {
	bun.BaseModel `bun:"table:pools,alias:pl"`

	ID          int64     `bun:"id,pk,autoincrement"`
	AppID       int64     `bun:"app_id,notnull"`
	Name        string    `bun:"name,notnull"`
	Description string    `bun:"description,notnull"`
	Slots       int       `bun:"slots,notnull"`
	CreatedAt   time.Time `bun:"created_at,notnull"`
	UpdatedAt   time.Time `bun:"updated_at,notnull"`
}

// PoolCreate inserts a pool; ErrConflict if the app has one of that name.
func (s *Store) PoolCreate(ctx context.Context, p *Pool) error {
	now := Now()
	p.CreatedAt, p.UpdatedAt = now, now
	_, err := s.idb.NewInsert().Model(p).ExcludeColumn("id").Returning("id").Exec(ctx)
	return wrap(err, "creating pool "+p.Name)
}

// PoolUpdate sets a pool's slots and description.
func (s *Store) PoolUpdate(ctx context.Context, p *Pool) error {
	p.UpdatedAt = Now()
	res, err := s.idb.NewUpdate().Model(p).Column("description", "slots", "updated_at").WherePK().Exec(ctx)
	return expectOne(res, err, "updating pool")
}

// PoolDelete deletes a pool.
func (s *Store) PoolDelete(ctx context.Context, id int64) error {
	res, err := s.idb.NewDelete().Model((*Pool)(nil)).Where("id = ?", id).Exec(ctx)
	return expectOne(res, err, "deleting pool")
}

// PoolGet returns a pool by id.
func (s *Store) PoolGet(ctx context.Context, id int64) (*Pool, error) {
	p := new(Pool)
	err := s.idb.NewSelect().Model(p).Where("id = ?", id).Scan(ctx)
	return p, wrap(err, "reading pool")
}

// PoolGetByName returns an app's pool by name.
func (s *Store) PoolGetByName(ctx context.Context, appID int64, name string) (*Pool, error) {
	p := new(Pool)
	err := s.idb.NewSelect().Model(p).Where("app_id = ? AND name = ?", appID, name).Scan(ctx)
	return p, wrap(err, "reading pool "+name)
}

// PoolList returns an app's pools by name.
func (s *Store) PoolList(ctx context.Context, appID int64) ([]Pool, error) {
	var out []Pool
	err := s.idb.NewSelect().Model(&out).Where("app_id = ?", appID).OrderExpr("name").Scan(ctx)
	return out, wrap(err, "listing pools")
}

// PoolListByNames returns an app's pools among names.
func (s *Store) PoolListByNames(ctx context.Context, appID int64, names []string) ([]Pool, error) {
	var out []Pool
	if len(names) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("app_id = ? AND name IN (?)", appID, bun.List(names)).Scan(ctx)
	return out, wrap(err, "reading pools")
}

// JobListByPool returns the jobs of an app that name a pool, by name.
func (s *Store) JobListByPool(ctx context.Context, appID int64, pool string) ([]Job, error) {
	var out []Job
	err := s.idb.NewSelect().Model(&out).Where("app_id = ? AND pool = ?", appID, pool).OrderExpr("name").Scan(ctx)
	return out, wrap(err, "listing the jobs of a pool")
}

// InstanceListPoolHolders returns the instances holding slots of an app's
// pools (DISPATCHED or RUNNING), oldest first; pool "" means every pool.
func (s *Store) InstanceListPoolHolders(ctx context.Context, appID int64, pool string) ([]Instance, error) {
	var out []Instance
	q := s.idb.NewSelect().Model(&out).
		Where("app_id = ? AND pool IS NOT NULL AND status IN (?)", appID, bun.List([]string{StatusDispatched, StatusRunning}))
	if pool != "" {
		q = q.Where("pool = ?", pool)
	}
	err := q.OrderExpr("actual_trigger_at, id").Scan(ctx)
	return out, wrap(err, "reading a pool's holders")
}

// InstanceListPoolWaiting returns the instances waiting in an app's pools'
// queues (WAITING, reason POOL_FULL) in the order they get slots: their
// jobs' priority, higher first, then fire time, then id; pool "" means
// every pool.
func (s *Store) InstanceListPoolWaiting(ctx context.Context, appID int64, pool string) ([]Instance, error) {
	var out []Instance
	q := s.idb.NewSelect().Model(&out).Join("JOIN jobs AS j ON j.id = i.job_id").
		Where("i.app_id = ? AND i.status = ? AND i.reason = ?", appID, StatusWaiting, ReasonPoolFull)
	if pool != "" {
		q = q.Where("i.pool = ?", pool)
	}
	err := q.OrderExpr("j.priority DESC, i.trigger_at, i.id").Scan(ctx)
	return out, wrap(err, "reading a pool's queue")
}

// InstancePool is the pool an instance takes, as the owner decided it.
type InstancePool struct {
	ID    int64
	Pool  string
	Slots int
}

// InstanceSetPoolMany records the pools instances take, one statement per
// pool and size.
func (s *Store) InstanceSetPoolMany(ctx context.Context, list []InstancePool) error {
	type key struct {
		pool  string
		slots int
	}
	groups := map[key][]int64{}
	var order []key
	for _, p := range list {
		k := key{p.Pool, p.Slots}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], p.ID)
	}
	for _, k := range order {
		if _, err := s.idb.NewUpdate().Model((*Instance)(nil)).Set("pool = ?", k.pool).Set("pool_slots = ?", k.slots).
			Where("id IN (?)", bun.List(groups[k])).Exec(ctx); err != nil {
			return wrap(err, "recording instances' pools")
		}
	}
	return nil
}
