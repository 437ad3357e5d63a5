package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/text"
)

// Pools (docs/design.md §5.9): a named number of slots per app that the
// instances of jobs and workflow nodes naming the pool take while they
// run; the owner's execution actor holds an instance the pool has no room
// for in the pool's queue (server/runtime/execution/pools.go). Here: the
// pools' definitions, and what names them.

// MaxPoolSlots bounds a pool's slots, and the slots one job or node takes.
const MaxPoolSlots = 10000

// PoolInput is a pool as the API receives it.
type PoolInput struct {
	App         string
	Name        string
	Description string
	Slots       int
}

// CheckPoolRef checks the slots a job or workflow node takes of its pool.
func CheckPoolRef(field string, slots int) error {
	if slots < 1 || slots > MaxPoolSlots {
		return fault.BadInput(field, "%d is out of range 1 to %d (slots of the pool an instance takes while it runs)", slots, MaxPoolSlots)
	}
	return nil
}

// PoolReader reads pools by name (the job and workflow APIs check the
// pool a job or node names in their saving transaction).
type PoolReader interface {
	PoolGetByName(ctx context.Context, appID int64, name string) (*db.Pool, error)
}

// CheckPoolNamed checks that the app has the pool a job or node names
// and that it has the slots they take: field is where the pool is named,
// slotsField where the slots are.
func CheckPoolNamed(ctx context.Context, r PoolReader, appID int64, field, name, slotsField string, slots int) error {
	if name == "" {
		return nil
	}
	p, err := r.PoolGetByName(ctx, appID, name)
	if errors.Is(err, db.ErrNotFound) {
		return fault.BadInput(field, "the app has no pool named %q (create it first: createPool)", name)
	}
	if err != nil {
		return err
	}
	if slots > p.Slots {
		return fault.BadInput(slotsField, "takes %d slots of pool %q, which has %d; an instance could never start", slots, name, p.Slots)
	}
	return nil
}

// buildPool validates a pool's input.
func buildPool(in PoolInput, appID int64) (*db.Pool, error) {
	p := &db.Pool{AppID: appID, Name: strings.TrimSpace(in.Name), Description: in.Description, Slots: in.Slots}
	switch {
	case p.Name == "":
		return nil, fault.BadInput("name", "must not be empty")
	case utf8.RuneCountInString(p.Name) > 128:
		return nil, fault.BadInput("name", "must be at most 128 characters")
	case len(p.Description) > 2000:
		return nil, fault.BadInput("description", "must be at most 2000 characters")
	case p.Slots < 1 || p.Slots > MaxPoolSlots:
		return nil, fault.BadInput("slots", "%d is out of range 1 to %d (instances taking one slot each that run at once; 1 makes a mutex)", p.Slots, MaxPoolSlots)
	}
	if err := text.Line("name", p.Name); err != nil {
		return nil, err
	}
	if err := text.Bytes("description", p.Description); err != nil {
		return nil, err
	}
	return p, nil
}

// CreatePool stores a new pool (EDITOR).
func (s *Service) CreatePool(ctx context.Context, in PoolInput) (*db.Pool, error) {
	app, err := s.apps.ByName(ctx, in.App, db.RoleEditor)
	if err != nil {
		return nil, asInput("app", err)
	}
	p, err := buildPool(in, app.ID)
	if err != nil {
		return nil, err
	}
	if err := s.db.PoolCreate(ctx, p); err != nil {
		if errors.Is(err, db.ErrConflict) {
			return nil, fault.BadInput("name", "app %q already has a pool named %q", app.Name, p.Name)
		}
		return nil, err
	}
	s.notify.JobsChanged(app.ID)
	return p, nil
}

// UpdatePool changes a pool's slots and description (its name is what
// jobs and nodes refer to: it cannot change). Fewer slots than a job or
// node takes are refused, naming it; fewer than are in use let the
// holders run on and start no one until enough end.
func (s *Service) UpdatePool(ctx context.Context, id int64, in PoolInput) (*db.Pool, error) {
	old, err := s.GetPool(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	app, err := s.apps.Staying(ctx, old.AppID, in.App, "pool")
	if err != nil {
		return nil, err
	}
	p, err := buildPool(in, app.ID)
	if err != nil {
		return nil, err
	}
	if p.Name != old.Name {
		return nil, fault.BadInput("name", "a pool cannot be renamed (jobs and workflow nodes name it); create another and move them")
	}
	p.ID, p.CreatedAt = old.ID, old.CreatedAt
	err = s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		users, err := poolUsers(ctx, tx, app.ID, p.Name)
		if err != nil {
			return err
		}
		for _, u := range users {
			if u.slots > p.Slots {
				return fault.BadInput("slots", "%s takes %d slots of the pool; it needs at least that many", u.what, u.slots)
			}
		}
		return tx.PoolUpdate(ctx, p)
	})
	if err != nil {
		return nil, notFound(err, "pool")
	}
	s.notify.JobsChanged(app.ID)
	return p, nil
}

// DeletePool deletes a pool nothing names or waits for; CONFLICT naming
// them otherwise.
func (s *Service) DeletePool(ctx context.Context, id int64) error {
	p, err := s.GetPool(ctx, id, db.RoleEditor)
	if err != nil {
		return err
	}
	err = s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		users, err := poolUsers(ctx, tx, p.AppID, p.Name)
		if err != nil {
			return err
		}
		if len(users) > 0 {
			names := make([]string, 0, len(users))
			for _, u := range users {
				names = append(names, u.what)
			}
			if len(names) > 5 {
				names = append(names[:5], fmt.Sprintf("%d more", len(users)-5))
			}
			return fault.Conflict("pool %q is named by %s; change them first", p.Name, strings.Join(names, ", "))
		}
		holders, err := tx.InstanceListPoolHolders(ctx, p.AppID, p.Name)
		if err != nil {
			return err
		}
		waiting, err := tx.InstanceListPoolWaiting(ctx, p.AppID, p.Name)
		if err != nil {
			return err
		}
		if n := len(holders) + len(waiting); n > 0 {
			return fault.Conflict("pool %q has %d instance(s) running in it or waiting for it; stop them or let them end first", p.Name, n)
		}
		return tx.PoolDelete(ctx, p.ID)
	})
	if err != nil {
		return notFound(err, "pool")
	}
	s.notify.JobsChanged(p.AppID)
	return nil
}

// poolUser is a job or workflow node that names a pool.
type poolUser struct {
	what  string
	slots int
}

// poolUsers lists the jobs and workflows (their current versions' nodes)
// that name a pool.
func poolUsers(ctx context.Context, tx *db.Store, appID int64, name string) ([]poolUser, error) {
	jobs, err := tx.JobListByPool(ctx, appID, name)
	if err != nil {
		return nil, err
	}
	var out []poolUser
	for _, j := range jobs {
		out = append(out, poolUser{what: fmt.Sprintf("job %q", j.Name), slots: max(j.PoolSlots, 1)})
	}
	wfs, err := tx.WorkflowListByApp(ctx, appID)
	if err != nil {
		return nil, err
	}
	for _, w := range wfs {
		for _, n := range w.Graph.Nodes {
			if n.Pool == name {
				out = append(out, poolUser{what: fmt.Sprintf("node %q of workflow %q", n.Key, w.Name), slots: max(n.PoolSlots, 1)})
			}
		}
	}
	return out, nil
}

// GetPool returns a pool if the caller holds at least role on its app.
func (s *Service) GetPool(ctx context.Context, id int64, role db.Role) (*db.Pool, error) {
	return auth.ReadInApp(ctx, s.auth, fmt.Sprintf("pool %d", id), role,
		func(ctx context.Context) (*db.Pool, error) { return s.db.PoolGet(ctx, id) },
		func(p *db.Pool) int64 { return p.AppID })
}

// Pools lists an app's pools (VIEWER).
func (s *Service) Pools(ctx context.Context, appName string) ([]db.Pool, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return nil, err
	}
	return s.db.PoolList(ctx, app.ID)
}

// PoolHolders lists the instances holding slots of a pool the caller has
// read, oldest first.
func (s *Service) PoolHolders(ctx context.Context, p *db.Pool) ([]db.Instance, error) {
	return s.db.InstanceListPoolHolders(ctx, p.AppID, p.Name)
}

// PoolQueue lists the instances waiting for a pool the caller has read,
// in the order they get slots.
func (s *Service) PoolQueue(ctx context.Context, p *db.Pool) ([]db.Instance, error) {
	return s.db.InstanceListPoolWaiting(ctx, p.AppID, p.Name)
}

// PoolJobs lists the jobs naming a pool the caller has read.
func (s *Service) PoolJobs(ctx context.Context, p *db.Pool) ([]db.Job, error) {
	return s.db.JobListByPool(ctx, p.AppID, p.Name)
}

// PoolPosition is a WAITING instance's place in its pool's queue, from 1;
// 0 if it is not waiting for a pool.
func (s *Service) PoolPosition(ctx context.Context, in *db.Instance) (int, error) {
	if in.Status != db.StatusWaiting || in.Reason != db.ReasonPoolFull || in.Pool == nil {
		return 0, nil
	}
	queue, err := s.db.InstanceListPoolWaiting(ctx, in.AppID, *in.Pool)
	if err != nil {
		return 0, err
	}
	for i, q := range queue {
		if q.ID == in.ID {
			return i + 1, nil
		}
	}
	return 0, nil
}

// PoolNamed returns an app's pool by name, or nil if there is none (a
// job or node the caller has read names it).
func (s *Service) PoolNamed(ctx context.Context, appID int64, name string) (*db.Pool, error) {
	if name == "" {
		return nil, nil
	}
	p, err := s.db.PoolGetByName(ctx, appID, name)
	if errors.Is(err, db.ErrNotFound) {
		return nil, nil
	}
	return p, err
}
