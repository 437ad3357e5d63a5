// Package apps manages apps, jobwheel's tenants, and their secrets.
//
// An app's secret authenticates its workers. It is 32 random bytes shown
// once at creation (or rotation); only its SHA-256 is stored and checks
// compare hashes in constant time.
package apps

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/text"
)

const secretPrefix = "jwa_"

// ErrBadSecret is returned when a worker presents a wrong secret. It does
// not say whether the app exists.
var ErrBadSecret = errors.New("unknown app or wrong app secret")

// Store is what apps needs from the database.
type Store interface {
	AppCreate(ctx context.Context, a *db.App) error
	AppGet(ctx context.Context, id int64) (*db.App, error)
	AppGetByName(ctx context.Context, name string) (*db.App, error)
	AppList(ctx context.Context) ([]db.App, error)
	AppListForUser(ctx context.Context, userID int64) ([]db.App, error)
	AppSetSecret(ctx context.Context, id int64, secretHash string) error
	AppSetRetentionDays(ctx context.Context, id int64, days *int) error
	AppDelete(ctx context.Context, id int64) error
	AppMemberSet(ctx context.Context, appID, userID int64, role db.Role) error
	WorkerList(ctx context.Context, appID int64, since time.Time) ([]db.Worker, error)
	WorkerGet(ctx context.Context, appID int64, id string) (*db.Worker, error)
	AppMemberList(ctx context.Context, appID int64) ([]db.AppMemberUser, error)
	AppMemberSetKeepingOwner(ctx context.Context, appID, userID int64, role db.Role) error
	AppListByIDs(ctx context.Context, ids []int64) ([]db.App, error)
	WorkerListByKeys(ctx context.Context, keys []db.WorkerKey) ([]db.Worker, error)
}

// Service manages apps.
type Service struct {
	store     Store
	auth      *auth.Service
	onDeleted []func(appID int64)
	onChanged []func(appID int64)
	clock     clock.Clock
}

// OnDeleted registers fn to hear of deleted apps, so the server holding
// one's lease lets it go at once rather than at its next renewal.
func (s *Service) OnDeleted(fn func(appID int64)) { s.onDeleted = append(s.onDeleted, fn) }

// OnChanged registers fn to hear of an app changed or deleted (its secret
// rotated), so what servers remember of it is dropped at once.
func (s *Service) OnChanged(fn func(appID int64)) { s.onChanged = append(s.onChanged, fn) }

func (s *Service) changed(appID int64) {
	for _, fn := range s.onChanged {
		fn(appID)
	}
}

// New returns a Service; clk nil is the system clock.
func New(store Store, authz *auth.Service, clk clock.Clock) *Service {
	return &Service{store: store, auth: authz, clock: clock.OrSystem(clk)}
}

// now is the time as the database keeps it.
func (s *Service) now() time.Time { return db.Stamp(s.clock.Now()) }

// ValidateName says why an app name is unacceptable, or nil. Names appear
// in worker configuration and URLs, so they are kept simple.
func ValidateName(field, name string) error {
	if name == "" {
		return fault.BadInput(field, "must not be empty")
	}
	if len(name) > 64 {
		return fault.BadInput(field, "must be at most 64 characters")
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || (i > 0 && (r == '-' || r == '_' || r == '.'))
		if !ok {
			return fault.BadInput(field, "may contain only lower-case letters, digits, '-', '_' and '.', and must start with a letter or digit")
		}
	}
	return nil
}

// Create makes an app owned by the caller (a global admin) and returns it
// with its secret, which is never retrievable again.
func (s *Service) Create(ctx context.Context, name, description string) (*db.App, string, error) {
	if err := s.auth.RequireAdmin(ctx); err != nil {
		return nil, "", err
	}
	if err := ValidateName("name", name); err != nil {
		return nil, "", err
	}
	if len(description) > 2000 {
		return nil, "", fault.BadInput("description", "must be at most 2000 characters")
	}
	if err := text.Block("description", description); err != nil {
		return nil, "", err
	}
	secret := auth.NewSecret(secretPrefix)
	a := &db.App{Name: name, Description: description, SecretHash: auth.HashToken(secret)}
	if err := s.store.AppCreate(ctx, a); err != nil {
		if errors.Is(err, db.ErrConflict) {
			return nil, "", &fault.Input{Field: "name", Reason: fmt.Sprintf("an app named %q already exists", name)}
		}
		return nil, "", err
	}
	p := auth.FromContext(ctx)
	if err := s.store.AppMemberSet(ctx, a.ID, p.User.ID, db.RoleOwner); err != nil {
		return nil, "", err
	}
	return a, secret, nil
}

// CreateWithSecret makes an app with a given secret, for bootstrapping the
// demo app whose secret the demo agent is configured with. It does not
// check the caller.
func (s *Service) CreateWithSecret(ctx context.Context, name, description, secret string) (*db.App, error) {
	a := &db.App{Name: name, Description: description, SecretHash: auth.HashToken(secret)}
	if err := s.store.AppCreate(ctx, a); err != nil {
		return nil, err
	}
	return a, nil
}

// RotateSecret gives an app a new secret (OWNER only) and returns it once.
// Workers holding the old secret are refused at their next connect.
func (s *Service) RotateSecret(ctx context.Context, appID int64) (string, error) {
	if err := s.auth.Require(ctx, appID, db.RoleOwner); err != nil {
		return "", err
	}
	secret := auth.NewSecret(secretPrefix)
	if err := s.store.AppSetSecret(ctx, appID, auth.HashToken(secret)); err != nil {
		return "", err
	}
	s.changed(appID)
	return secret, nil
}

// Delete deletes an app and all it holds (administrators only). An app
// with live workers is a CONFLICT: they would keep reconnecting and lose
// the tasks they run, so they are stopped first, on purpose.
func (s *Service) Delete(ctx context.Context, name string) error {
	if err := s.auth.RequireAdmin(ctx); err != nil {
		return err
	}
	a, err := s.ByName(ctx, name, db.RoleOwner)
	if err != nil {
		return err
	}
	workers, err := s.WorkersOf(ctx, a.ID)
	if err != nil {
		return err
	}
	// Alive as the console shows it: a worker it lists as LOST does not
	// hold the app up.
	var live []string
	for _, w := range workers {
		if w.Alive(s.now()) {
			live = append(live, w.Host)
		}
	}
	if len(live) > 0 {
		return fault.Conflict("app %q has %d connected worker(s) (on %s): stop them, then delete the app",
			name, len(live), strings.Join(live, ", "))
	}
	if err := s.store.AppDelete(ctx, a.ID); err != nil {
		if errors.Is(err, db.ErrNotFound) {
			return fault.NotFound(fmt.Sprintf("app %q", name))
		}
		return fmt.Errorf("deleting app %q: %w", name, err)
	}
	s.changed(a.ID)
	for _, fn := range s.onDeleted {
		fn(a.ID)
	}
	return nil
}

// Visible returns the apps the caller may see, by name.
func (s *Service) Visible(ctx context.Context) ([]db.App, error) {
	p, err := auth.Caller(ctx)
	if err != nil {
		return nil, err
	}
	var list []db.App
	if p.User.Admin {
		list, err = s.store.AppList(ctx)
	} else {
		list, err = s.store.AppListForUser(ctx, p.User.ID)
	}
	if err != nil {
		return nil, err
	}
	if p.Token != nil && p.Token.AppID != nil {
		kept := list[:0]
		for _, a := range list {
			if a.ID == *p.Token.AppID {
				kept = append(kept, a)
			}
		}
		list = kept
	}
	return list, nil
}

// ByName returns the app with name if the caller holds at least role on it.
// An app the caller may not see is reported as not found.
func (s *Service) ByName(ctx context.Context, name string, role db.Role) (*db.App, error) {
	a, err := s.store.AppGetByName(ctx, name)
	if errors.Is(err, db.ErrNotFound) {
		return nil, fault.NotFound(fmt.Sprintf("app %q", name))
	}
	if err != nil {
		return nil, err
	}
	if err := s.auth.Require(ctx, a.ID, role); err != nil {
		if errors.Is(err, fault.ErrNotFound) {
			return nil, fault.NotFound(fmt.Sprintf("app %q", name))
		}
		return nil, err
	}
	return a, nil
}

// ByID is ByName for an app id.
func (s *Service) ByID(ctx context.Context, id int64, role db.Role) (*db.App, error) {
	a, err := s.store.AppGet(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return nil, fault.NotFound("app")
	}
	if err != nil {
		return nil, err
	}
	if err := s.auth.Require(ctx, a.ID, role); err != nil {
		return nil, err
	}
	return a, nil
}

// Staying returns, for an EDITOR, the app an object (a job, workflow,
// calendar or pool) of app id belongs to, refusing (BAD_INPUT on "app") an
// edit that names another app: an object never moves between apps, since
// its instances, versions and references all live in its own.
func (s *Service) Staying(ctx context.Context, id int64, named, what string) (*db.App, error) {
	a, err := s.ByID(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	if named != a.Name {
		return nil, fault.BadInput("app", "a %s cannot move to another app (it belongs to %q)", what, a.Name)
	}
	return a, nil
}

// VerifySecret returns the app a worker's secret opens, or ErrBadSecret.
func (s *Service) VerifySecret(ctx context.Context, appName, secret string) (*db.App, error) {
	a, err := s.store.AppGetByName(ctx, appName)
	if errors.Is(err, db.ErrNotFound) {
		return nil, ErrBadSecret
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(a.SecretHash), []byte(auth.HashToken(secret))) != 1 {
		return nil, ErrBadSecret
	}
	return a, nil
}

// AppIDByName returns an app's id, for discovery (no rights needed: it only
// says which server to connect to).
func (s *Service) AppIDByName(ctx context.Context, name string) (int64, error) {
	a, err := s.store.AppGetByName(ctx, name)
	if err != nil {
		return 0, err
	}
	return a.ID, nil
}

// WorkerListWindow is how long a lost worker stays listed.
const WorkerListWindow = time.Hour

// Workers lists an app's connected workers and those lost in the last hour.
func (s *Service) Workers(ctx context.Context, appName string) ([]db.Worker, error) {
	a, err := s.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return nil, err
	}
	return s.store.WorkerList(ctx, a.ID, s.now().Add(-WorkerListWindow))
}

// WorkersOf is Workers for an app the caller was already allowed to see
// (a subscription re-reading it).
func (s *Service) WorkersOf(ctx context.Context, appID int64) ([]db.Worker, error) {
	return s.store.WorkerList(ctx, appID, s.now().Add(-WorkerListWindow))
}

// Worker returns one worker of an app (the caller already may see the
// app), or nil if it is no longer recorded.
func (s *Service) Worker(ctx context.Context, appID int64, id string) (*db.Worker, error) {
	w, err := s.store.WorkerGet(ctx, appID, id)
	if errors.Is(err, db.ErrNotFound) {
		return nil, nil
	}
	return w, err
}
