package auth_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/server/api/apps"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// world is an auth and apps service over a fresh database with an admin,
// two users and two apps: alice OWNER of "a", bob VIEWER of "a", nobody on
// "b" but the admin.
type world struct {
	auth       *auth.Service
	apps       *apps.Service
	admin      context.Context
	alice, bob context.Context
	a, b       *db.App
}

func as(t *testing.T, s *auth.Service, user, password string) context.Context {
	t.Helper()
	ctx := context.Background()
	token, _, _, err := s.Login(ctx, user, password)
	if err != nil {
		t.Fatalf("login %s: %v", user, err)
	}
	return withToken(t, s, token)
}

func withToken(t *testing.T, s *auth.Service, token string) context.Context {
	t.Helper()
	p, err := s.Authenticate(context.Background(), token)
	if err != nil {
		t.Fatalf("authenticate: %v", err)
	}
	return auth.WithPrincipal(context.Background(), p)
}

func newWorld(t *testing.T, d *db.DB) *world {
	t.Helper()
	s := auth.New(auth.Config{}, d, slog.New(slog.DiscardHandler))
	if _, err := s.EnsureAdmin(context.Background(), "admin-password"); err != nil {
		t.Fatal(err)
	}
	w := &world{auth: s, apps: apps.New(d, s, nil), admin: as(t, s, "admin", "admin-password")}
	for _, u := range []string{"alice", "bob"} {
		if _, err := s.CreateUser(w.admin, u, "password-1", false); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if w.a, _, err = w.apps.Create(w.admin, "a", ""); err != nil {
		t.Fatal(err)
	}
	if w.b, _, err = w.apps.Create(w.admin, "b", ""); err != nil {
		t.Fatal(err)
	}
	w.alice, w.bob = as(t, s, "alice", "password-1"), as(t, s, "bob", "password-1")
	for user, role := range map[string]db.Role{"alice": db.RoleOwner, "bob": db.RoleViewer} {
		if _, err := w.apps.SetRole(w.admin, "a", user, &role); err != nil {
			t.Fatalf("setAppRole %s: %v", user, err)
		}
	}
	return w
}

func role(r db.Role) *db.Role { return &r }

func wantKind(t *testing.T, what string, err, kind error) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("%s: got %v, want %v", what, err, kind)
	}
}

func TestRoles(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		for _, tc := range []struct {
			who  string
			ctx  context.Context
			app  *db.App
			need db.Role
			want error // nil, ErrForbidden or ErrNotFound
		}{
			{"admin", w.admin, w.b, db.RoleOwner, nil},
			{"alice", w.alice, w.a, db.RoleOwner, nil},
			{"bob", w.bob, w.a, db.RoleViewer, nil},
			{"bob", w.bob, w.a, db.RoleEditor, fault.ErrForbidden},
			{"alice", w.alice, w.b, db.RoleViewer, fault.ErrNotFound}, // no role: the app is invisible
		} {
			err := w.auth.Require(tc.ctx, tc.app.ID, tc.need)
			if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Errorf("%s needs %s on %s: got %v, want %v", tc.who, tc.need, tc.app.Name, err, tc.want)
			}
		}
		visible, err := w.apps.Visible(w.alice)
		if err != nil || len(visible) != 1 || visible[0].Name != "a" {
			t.Fatalf("alice sees %v, %v; want only a", visible, err)
		}
		wantKind(t, "anonymous", w.auth.Require(context.Background(), w.a.ID, db.RoleViewer), fault.ErrUnauthenticated)

		// Only OWNERs manage members; a VIEWER cannot promote itself.
		_, err = w.apps.SetRole(w.bob, "a", "bob", role(db.RoleOwner))
		wantKind(t, "viewer promotes itself", err, fault.ErrForbidden)
		if _, err := w.apps.SetRole(w.alice, "a", "bob", role(db.RoleEditor)); err != nil {
			t.Fatalf("owner promotes bob: %v", err)
		}
		if err := w.auth.Require(w.bob, w.a.ID, db.RoleEditor); err != nil {
			t.Fatalf("bob after promotion: %v", err)
		}
		// A null role removes access: the app disappears for bob.
		if _, err := w.apps.SetRole(w.alice, "a", "bob", nil); err != nil {
			t.Fatal(err)
		}
		wantKind(t, "removed member", w.auth.Require(w.bob, w.a.ID, db.RoleViewer), fault.ErrNotFound)
		// Only admins create users; usernames are unique.
		_, err = w.auth.CreateUser(w.alice, "carol", "password-1", false)
		wantKind(t, "non-admin creates a user", err, fault.ErrForbidden)
		_, err = w.auth.CreateUser(w.admin, "alice", "password-1", false)
		var in *fault.Input
		if !errors.As(err, &in) || in.Field != "username" {
			t.Fatalf("duplicate user: %v", err)
		}
	})
}

func TestLastOwner(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		// "a" has two owners: the admin (its creator) and alice.
		if _, err := w.apps.SetRole(w.alice, "a", "admin", role(db.RoleViewer)); err != nil {
			t.Fatalf("demoting the other owner: %v", err)
		}
		_, err := w.apps.SetRole(w.alice, "a", "alice", nil)
		wantKind(t, "removing the last owner", err, fault.ErrConflict)
		_, err = w.apps.SetRole(w.admin, "a", "alice", role(db.RoleEditor))
		wantKind(t, "demoting the last owner", err, fault.ErrConflict)
		if _, err := w.apps.SetRole(w.alice, "a", "bob", role(db.RoleOwner)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.apps.SetRole(w.alice, "a", "alice", nil); err != nil {
			t.Fatalf("leaving once another owner exists: %v", err)
		}
		members, err := w.apps.Members(w.bob, w.a.ID)
		if err != nil {
			t.Fatal(err)
		}
		owners := 0
		for _, m := range members {
			if m.Role == db.RoleOwner {
				owners++
			}
		}
		if owners != 1 {
			t.Fatalf("members %+v: want exactly one owner", members)
		}
	})
}

func TestTokenNarrowing(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		// A token cannot have more than its creator has on the app.
		_, _, err := w.auth.CreateAPIToken(w.bob, "deploy", &w.a.ID, role(db.RoleEditor))
		wantKind(t, "viewer creates an editor token", err, fault.ErrForbidden)
		_, _, err = w.apps.CreateAPIToken(w.alice, "deploy", new("b"), nil)
		wantKind(t, "token for an invisible app", err, fault.ErrNotFound)

		// The admin's token narrowed to VIEWER on "a": reads a, nothing else.
		_, secret, err := w.apps.CreateAPIToken(w.admin, "reader", new("a"), role(db.RoleViewer))
		if err != nil {
			t.Fatal(err)
		}
		reader := withToken(t, w.auth, secret)
		if auth.FromContext(reader).IsAdmin() {
			t.Fatal("a narrowed admin token is not an admin")
		}
		if err := w.auth.Require(reader, w.a.ID, db.RoleViewer); err != nil {
			t.Fatalf("reader on a: %v", err)
		}
		wantKind(t, "reader edits a", w.auth.Require(reader, w.a.ID, db.RoleEditor), fault.ErrForbidden)
		wantKind(t, "reader on b", w.auth.Require(reader, w.b.ID, db.RoleViewer), fault.ErrNotFound)
		_, err = w.auth.CreateUser(reader, "eve", "password-1", false)
		wantKind(t, "reader creates a user", err, fault.ErrForbidden)
		_, _, err = w.auth.CreateAPIToken(reader, "wider", nil, nil)
		wantKind(t, "read-only token creates a token", err, fault.ErrForbidden)
		if list, err := w.apps.Visible(reader); err != nil || len(list) != 1 || list[0].Name != "a" {
			t.Fatalf("reader sees %v, %v", list, err)
		}

		// An EDITOR token on "a" creates tokens no wider than itself.
		_, esecret, err := w.apps.CreateAPIToken(w.admin, "editor", new("a"), role(db.RoleEditor))
		if err != nil {
			t.Fatal(err)
		}
		editor := withToken(t, w.auth, esecret)
		_, _, err = w.auth.CreateAPIToken(editor, "owner", nil, role(db.RoleOwner))
		wantKind(t, "editor token creates an owner token", err, fault.ErrForbidden)
		_, _, err = w.auth.CreateAPIToken(editor, "other app", &w.b.ID, nil)
		wantKind(t, "editor token creates a token for another app", err, fault.ErrNotFound)
		child, _, err := w.auth.CreateAPIToken(editor, "child", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if child.AppID == nil || *child.AppID != w.a.ID || child.Role == nil || *child.Role != db.RoleEditor {
			t.Fatalf("child token = app %v role %v; want it narrowed like its parent", child.AppID, child.Role)
		}

		// A token never exceeds its creator, even later: alice's token
		// loses OWNER when alice does.
		_, asecret, err := w.auth.CreateAPIToken(w.alice, "alice's", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.apps.SetRole(w.admin, "a", "alice", role(db.RoleViewer)); err != nil {
			t.Fatal(err)
		}
		wantKind(t, "token of a demoted user", w.auth.Require(withToken(t, w.auth, asecret), w.a.ID, db.RoleEditor), fault.ErrForbidden)
		// Tokens do not change passwords.
		wantKind(t, "token changes password", w.auth.ChangePassword(editor, "admin-password", "new-password-1"), fault.ErrForbidden)
	})
}

func TestRevocation(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		changed := 0
		w.auth.OnChange(func() { changed++ })
		tok, secret, err := w.auth.CreateAPIToken(w.alice, "ci", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := withToken(t, w.auth, secret)
		// Only its creator or an admin may revoke it; others do not see it.
		wantKind(t, "bob revokes alice's token", w.auth.RevokeAPIToken(w.bob, tok.ID), fault.ErrNotFound)
		if list, err := w.auth.APITokens(w.bob); err != nil || len(list) != 0 {
			t.Fatalf("bob's tokens: %v %v", list, err)
		}
		if list, err := w.auth.APITokens(w.admin); err != nil || len(list) != 1 {
			t.Fatalf("admin sees tokens %v %v; want alice's", list, err)
		}
		if err := w.auth.RevokeAPIToken(w.alice, tok.ID); err != nil {
			t.Fatal(err)
		}
		if changed == 0 {
			t.Fatal("revoking did not tell the OnChange listeners")
		}
		// It stops working at once: new requests and live ones re-checking.
		_, err = w.auth.Authenticate(context.Background(), secret)
		wantKind(t, "revoked token", err, fault.ErrUnauthenticated)
		_, err = w.auth.Refresh(ctx)
		wantKind(t, "refreshing a revoked token's caller", err, fault.ErrUnauthenticated)
		if err := w.auth.RevokeAPIToken(w.admin, tok.ID); err != nil {
			t.Fatalf("revoking twice: %v", err)
		}
		// A password change ends the user's other sessions.
		other := as(t, w.auth, "bob", "password-1")
		if err := w.auth.ChangePassword(w.bob, "wrong", "new-password-1"); err == nil {
			t.Fatal("a wrong old password was accepted")
		}
		if err := w.auth.ChangePassword(w.bob, "password-1", "new-password-1"); err != nil {
			t.Fatal(err)
		}
		_, err = w.auth.Refresh(other)
		wantKind(t, "another session after a password change", err, fault.ErrUnauthenticated)
		if _, err := w.auth.Refresh(w.bob); err != nil {
			t.Fatalf("the session that changed the password: %v", err)
		}
	})
}

// TestTokenSeesOnlyItsScope (issue 11, item 8): an API token narrowed to
// one app lists and revokes only its creator's tokens for that app, not
// those for other apps or for every app.
func TestTokenSeesOnlyItsScope(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		if _, err := w.apps.SetRole(w.admin, "b", "alice", role(db.RoleOwner)); err != nil {
			t.Fatal(err)
		}
		onA, aSecret, err := w.apps.CreateAPIToken(w.alice, "on a", new("a"), role(db.RoleEditor))
		if err != nil {
			t.Fatal(err)
		}
		onB, _, err := w.apps.CreateAPIToken(w.alice, "on b", new("b"), nil)
		if err != nil {
			t.Fatal(err)
		}
		everywhere, _, err := w.auth.CreateAPIToken(w.alice, "everywhere", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		scoped := withToken(t, w.auth, aSecret)
		list, err := w.auth.APITokens(scoped)
		if err != nil || len(list) != 1 || list[0].ID != onA.ID {
			t.Fatalf("the token for app a lists %v (%v); want only itself", list, err)
		}
		wantKind(t, "token for a revokes the token for b", w.auth.RevokeAPIToken(scoped, onB.ID), fault.ErrNotFound)
		wantKind(t, "token for a revokes an unscoped token", w.auth.RevokeAPIToken(scoped, everywhere.ID), fault.ErrNotFound)
		if list, err := w.auth.APITokens(w.alice); err != nil || len(list) != 3 {
			t.Fatalf("alice's session lists %d tokens (%v); want all 3", len(list), err)
		}
		for _, tok := range list {
			if tok.RevokedAt != nil {
				t.Fatalf("token %q was revoked", tok.Name)
			}
		}
	})
}

// TestRemovedUserLosesCredentials: the credentials of a user removed from
// the database (by an operator) are refused as unauthenticated, not as a
// server failure.
func TestRemovedUserLosesCredentials(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.SQLite)
	w := newWorld(t, d)
	_, secret, err := w.auth.CreateAPIToken(w.bob, "ci", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := withToken(t, w.auth, secret)
	bob := auth.FromContext(ctx).User.ID
	if _, err := d.Bun().NewDelete().TableExpr("users").Where("id = ?", bob).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err = w.auth.Refresh(ctx)
	wantKind(t, "refreshing a removed user's token", err, fault.ErrUnauthenticated)
	_, err = w.auth.Refresh(w.bob)
	wantKind(t, "refreshing a removed user's session", err, fault.ErrUnauthenticated)
}
