package apps

import (
	"context"
	"errors"
	"fmt"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// SetRole grants a user a role on an app, changes it, or (role nil)
// removes the user's access. It needs OWNER on the app (global admins are
// OWNER everywhere). The app always keeps at least one OWNER: removing or
// demoting the last one is a CONFLICT.
func (s *Service) SetRole(ctx context.Context, appName, username string, role *db.Role) (*db.App, error) {
	a, err := s.ByName(ctx, appName, db.RoleOwner)
	if err != nil {
		return nil, err
	}
	var r db.Role
	if role != nil {
		if auth.RoleRank(*role) == 0 {
			return nil, fault.BadInput("role", "%q is not a role", *role)
		}
		r = *role
	}
	u, err := s.auth.UserByName(ctx, "username", username)
	if err != nil {
		return nil, err
	}
	if err := s.store.AppMemberSetKeepingOwner(ctx, a.ID, u.ID, r); err != nil {
		if errors.Is(err, db.ErrLastOwner) {
			return nil, fault.Conflict("%s is the last OWNER of app %q; make someone else OWNER first", u.Username, a.Name)
		}
		return nil, err
	}
	auth.ForgetRoles(ctx)
	s.auth.Changed()
	return a, nil
}

// Members lists who has a role on an app (the caller may see the app).
func (s *Service) Members(ctx context.Context, appID int64) ([]db.AppMemberUser, error) {
	if err := s.auth.Require(ctx, appID, db.RoleViewer); err != nil {
		return nil, err
	}
	return s.store.AppMemberList(ctx, appID)
}

// RotateSecretByName gives the named app a new secret (OWNER only) and
// returns the app with it; the secret is shown this once.
func (s *Service) RotateSecretByName(ctx context.Context, name string) (*db.App, string, error) {
	a, err := s.ByName(ctx, name, db.RoleOwner)
	if err != nil {
		return nil, "", err
	}
	secret, err := s.RotateSecret(ctx, a.ID)
	if err != nil {
		return nil, "", err
	}
	return a, secret, nil
}

// CreateAPIToken makes an API token for the caller, narrowed to the named
// app (which the caller must see) and to role when given. See
// auth.Service.CreateAPIToken for the rules.
func (s *Service) CreateAPIToken(ctx context.Context, name string, appName *string, role *db.Role) (*db.APIToken, string, error) {
	var appID *int64
	if appName != nil {
		a, err := s.ByName(ctx, *appName, db.RoleViewer)
		if err != nil {
			return nil, "", err
		}
		appID = &a.ID
	}
	return s.auth.CreateAPIToken(ctx, name, appID, role)
}

// ByIDs returns the apps among ids the caller holds at least role on, by
// id; the others are missing, as if they did not exist. It is the batch
// read behind the API's dataloaders.
func (s *Service) ByIDs(ctx context.Context, ids []int64, role db.Role) (map[int64]*db.App, error) {
	list, err := s.store.AppListByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*db.App, len(list))
	for i := range list {
		ok, err := s.may(ctx, list[i].ID, role)
		if err != nil {
			return nil, err
		}
		if ok {
			out[list[i].ID] = &list[i]
		}
	}
	return out, nil
}

// WorkerListByKeys returns the recorded workers among keys whose app the
// caller may see, by key.
func (s *Service) WorkerListByKeys(ctx context.Context, keys []db.WorkerKey) (map[db.WorkerKey]*db.Worker, error) {
	allowed := map[int64]bool{}
	var kept []db.WorkerKey
	for _, k := range keys {
		ok, seen := allowed[k.AppID]
		if !seen {
			var err error
			if ok, err = s.may(ctx, k.AppID, db.RoleViewer); err != nil {
				return nil, err
			}
			allowed[k.AppID] = ok
		}
		if ok {
			kept = append(kept, k)
		}
	}
	list, err := s.store.WorkerListByKeys(ctx, kept)
	if err != nil {
		return nil, err
	}
	out := make(map[db.WorkerKey]*db.Worker, len(list))
	for i := range list {
		out[db.WorkerKey{AppID: list[i].AppID, ID: list[i].ID}] = &list[i]
	}
	return out, nil
}

// may reports whether the caller holds role on the app; a missing right is
// false, not an error.
func (s *Service) may(ctx context.Context, appID int64, role db.Role) (bool, error) {
	err := s.auth.Require(ctx, appID, role)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fault.ErrNotFound), errors.Is(err, fault.ErrForbidden):
		return false, nil
	}
	return false, fmt.Errorf("checking rights on app %d: %w", appID, err)
}
