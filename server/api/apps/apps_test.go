package apps_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/api/apps"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// These tests drive the app service on a real database, on both dialects,
// with a clock the test moves.

var now = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

type world struct {
	d      *db.DB
	clk    *clock.Fake
	auth   *auth.Service
	svc    *apps.Service
	admin  context.Context
	owner  context.Context
	viewer context.Context
}

func login(t *testing.T, a *auth.Service, user, pw string) context.Context {
	t.Helper()
	tok, _, _, err := a.Login(context.Background(), user, pw)
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Authenticate(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	return auth.WithPrincipal(context.Background(), p)
}

func newWorld(t *testing.T, d *db.DB) *world {
	t.Helper()
	w := &world{d: d, clk: clock.NewFake(now)}
	w.auth = auth.New(auth.Config{Clock: w.clk}, d, slog.New(slog.DiscardHandler))
	if _, err := w.auth.EnsureAdmin(context.Background(), "admin-password"); err != nil {
		t.Fatal(err)
	}
	w.admin = login(t, w.auth, "admin", "admin-password")
	w.svc = apps.New(d, w.auth, w.clk)
	for _, u := range []string{"olga", "vic"} {
		if _, err := w.auth.CreateUser(w.admin, u, "password-1", false); err != nil {
			t.Fatal(err)
		}
	}
	w.owner, w.viewer = login(t, w.auth, "olga", "password-1"), login(t, w.auth, "vic", "password-1")
	return w
}

func role(r db.Role) *db.Role { return &r }

// An app is created by an administrator with a secret shown once; the
// secret is checked in constant time and can be rotated by an owner.
func TestCreateAndSecrets(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		a, secret, err := w.svc.Create(w.admin, "orders", "")
		if err != nil {
			t.Fatal(err)
		}
		if a.SecretHash == secret || a.SecretHash == "" {
			t.Fatal("the secret is stored as it is")
		}
		if _, err := w.svc.VerifySecret(context.Background(), "orders", secret); err != nil {
			t.Fatalf("the right secret: %v", err)
		}
		if _, err := w.svc.VerifySecret(context.Background(), "orders", "jwa_wrong"); !errors.Is(err, apps.ErrBadSecret) {
			t.Fatalf("a wrong secret: %v; want ErrBadSecret", err)
		}
		if _, err := w.svc.VerifySecret(context.Background(), "nope", secret); !errors.Is(err, apps.ErrBadSecret) {
			t.Fatalf("an unknown app: %v; want the same ErrBadSecret", err)
		}
		if _, _, err := w.svc.Create(w.owner, "mine", ""); !errors.Is(err, fault.ErrForbidden) {
			t.Fatalf("a non-admin creates: %v; want FORBIDDEN", err)
		}
		for _, bad := range []string{"", "Not A Name", "dup"} {
			if bad == "dup" {
				bad = "orders"
			}
			var in *fault.Input
			if _, _, err := w.svc.Create(w.admin, bad, ""); !errors.As(err, &in) || in.Field != "name" {
				t.Fatalf("name %q: %v; want BAD_INPUT on name", bad, err)
			}
		}
		if _, err := w.svc.SetRole(w.admin, "orders", "olga", role(db.RoleOwner)); err != nil {
			t.Fatal(err)
		}
		newSecret, err := w.svc.RotateSecret(w.owner, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.VerifySecret(context.Background(), "orders", secret); !errors.Is(err, apps.ErrBadSecret) {
			t.Fatal("the old secret still works after rotation")
		}
		if _, err := w.svc.VerifySecret(context.Background(), "orders", newSecret); err != nil {
			t.Fatalf("the new secret: %v", err)
		}
	})
}

// Roles: an app is invisible without one; the last owner stays.
func TestRoles(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		if _, _, err := w.svc.Create(w.admin, "orders", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.ByName(w.viewer, "orders", db.RoleViewer); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("without a role: %v; want NOT_FOUND", err)
		}
		if _, err := w.svc.SetRole(w.admin, "orders", "vic", role(db.RoleViewer)); err != nil {
			t.Fatal(err)
		}
		w.viewer = login(t, w.auth, "vic", "password-1")
		if _, err := w.svc.ByName(w.viewer, "orders", db.RoleViewer); err != nil {
			t.Fatalf("a viewer reads: %v", err)
		}
		if _, err := w.svc.ByName(w.viewer, "orders", db.RoleEditor); !errors.Is(err, fault.ErrForbidden) {
			t.Fatalf("a viewer edits: %v; want FORBIDDEN", err)
		}
		if _, err := w.svc.SetRole(w.admin, "orders", "admin", nil); !errors.Is(err, fault.ErrConflict) {
			t.Fatalf("removing the last owner: %v; want CONFLICT", err)
		}
	})
}

// An app with a connected worker cannot be deleted; once the worker is
// gone (its heartbeat old), it can, and whoever listens hears of it.
func TestDeleteWaitsForWorkers(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		a, _, err := w.svc.Create(w.admin, "orders", "")
		if err != nil {
			t.Fatal(err)
		}
		var deleted []int64
		w.svc.OnDeleted(func(id int64) { deleted = append(deleted, id) })
		beat := db.Stamp(now)
		if err := d.WorkerUpsert(context.Background(), &db.Worker{AppID: a.ID, ID: "w1", ServerID: "s1", Host: "box", Tags: []string{},
			Processors: []string{}, Slots: 4, ConnectedAt: beat, LastHeartbeat: beat}); err != nil {
			t.Fatal(err)
		}
		if err := w.svc.Delete(w.admin, "orders"); !errors.Is(err, fault.ErrConflict) {
			t.Fatalf("delete with a live worker: %v; want CONFLICT", err)
		}
		w.clk.Advance(time.Hour) // the worker's heartbeat is old: it is lost
		if err := w.svc.Delete(w.admin, "orders"); err != nil {
			t.Fatalf("delete once the worker is lost: %v", err)
		}
		if len(deleted) != 1 || deleted[0] != a.ID {
			t.Fatalf("listeners heard %v; want the app", deleted)
		}
		if _, err := w.svc.ByName(w.admin, "orders", db.RoleViewer); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("after delete: %v; want NOT_FOUND", err)
		}
	})
}
