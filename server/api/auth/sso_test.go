package auth_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// checker stands for the identity provider's verdict on a single sign-on
// session (package sso checks with a real provider; e2e/sso_test.go).
type checker struct {
	calls int
	err   error
}

func (c *checker) Check(_ context.Context, _ *db.Session, u *db.User) (*db.User, error) {
	c.calls++
	return u, c.err
}

// TestPasswordLoginsOff: with password logins turned off, login is
// FORBIDDEN and a password session made before is refused, while a single
// sign-on session is checked (and refused when the provider says so) and
// API tokens keep working.
func TestPasswordLoginsOff(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		log := slog.New(slog.DiscardHandler)
		on := auth.New(auth.Config{}, d, log)
		if _, err := on.EnsureAdmin(ctx, "admin-password"); err != nil {
			t.Fatal(err)
		}
		before, _, _, err := on.Login(ctx, auth.AdminUsername, "admin-password")
		if err != nil {
			t.Fatal(err)
		}
		admin := withToken(t, on, before)
		_, tokenSecret, err := on.CreateAPIToken(admin, "deploy", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		subject := "https://idp.example.com#ada"
		ada := &db.User{Username: "ada@example.com", SSOSubject: &subject}
		if err := d.UserCreate(ctx, ada); err != nil {
			t.Fatal(err)
		}

		off := auth.New(auth.Config{NoPasswords: true}, d, log)
		sso := &checker{}
		off.UseSSO(sso)
		if off.PasswordsAllowed() {
			t.Error("PasswordsAllowed with NoPasswords")
		}
		if _, _, _, err := off.Login(ctx, auth.AdminUsername, "admin-password"); !errors.Is(err, fault.ErrForbidden) {
			t.Errorf("password login with passwords off: %v; want FORBIDDEN", err)
		}
		if _, err := off.Authenticate(ctx, before); !errors.Is(err, fault.ErrForbidden) {
			t.Errorf("a password session with passwords off: %v; want FORBIDDEN", err)
		}
		if p, err := off.Authenticate(ctx, tokenSecret); err != nil || p.User.Username != auth.AdminUsername {
			t.Errorf("an API token with passwords off: %v", err)
		}
		token, expires, err := off.StartSession(ctx, ada.ID, "sealed-refresh", time.Now().Add(30*24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if time.Until(expires) > auth.SessionTTL {
			t.Errorf("a single sign-on session lasts until %s, past SessionTTL", expires)
		}
		p, err := off.Authenticate(ctx, token)
		if err != nil || p.User.ID != ada.ID || sso.calls != 1 {
			t.Fatalf("single sign-on session: %v, %d checks", err, sso.calls)
		}
		if err := off.ChangePassword(auth.WithPrincipal(ctx, p), "", "new-password-1"); !errors.Is(err, fault.ErrForbidden) {
			t.Errorf("a single sign-on user changing a password: %v; want FORBIDDEN", err)
		}
		sso.err = fault.Unauthenticated("your single sign-on ended")
		if _, err := off.Authenticate(ctx, token); !errors.Is(err, fault.ErrUnauthenticated) {
			t.Errorf("a session the provider refused: %v; want UNAUTHENTICATED", err)
		}
	})
}
