package graph

import (
	"context"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestAccessAPI walks the access-control API end to end in process: users,
// roles and members, the app secret, passwords, and API tokens.
func TestAccessAPI(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{})
	admin := api.admin(t)
	api.createApp(t, admin, "orders")
	olga := api.createUser(t, admin, "olga")
	api.createUser(t, admin, "ed")

	var users struct{ Users []struct{ Username string } }
	api.must(t, admin, `{ users { username } }`, nil, &users)
	if len(users.Users) != 3 {
		t.Fatalf("users = %+v", users)
	}
	if r := api.do(t, olga, `{ users { username } }`, nil, nil); r.code() != CodeForbidden {
		t.Fatalf("a non-admin lists users: %+v", r.Errors)
	}

	// Roles: the admin makes olga OWNER; she manages the app from then on.
	if r := api.setRole(t, admin, "orders", "olga", "OWNER"); len(r.Errors) > 0 {
		t.Fatal(r.Errors)
	}
	if r := api.setRole(t, olga, "orders", "ed", "EDITOR"); len(r.Errors) > 0 {
		t.Fatal(r.Errors)
	}
	if r := api.setRole(t, olga, "orders", "nobody", "EDITOR"); r.code() != CodeBadInput || r.Errors[0].field() != "username" {
		t.Fatalf("unknown user: %+v", r.Errors)
	}
	var app struct {
		Apps []struct {
			MyRole  string
			Members []struct {
				Username, Role string
				Admin          bool
			}
		}
	}
	api.must(t, olga, `{ apps { myRole members { username role admin } } }`, nil, &app)
	if len(app.Apps) != 1 || app.Apps[0].MyRole != "OWNER" || len(app.Apps[0].Members) != 3 {
		t.Fatalf("olga's view: %+v", app)
	}
	// The members say who is an administrator (listed or not, they may do everything).
	for _, m := range app.Apps[0].Members {
		if m.Admin != (m.Username == "admin") {
			t.Fatalf("member %s: admin = %v", m.Username, m.Admin)
		}
	}
	if r := api.setRole(t, admin, "orders", "admin", nil); len(r.Errors) > 0 {
		t.Fatalf("the admin leaves the app: %+v", r.Errors)
	}
	if r := api.setRole(t, olga, "orders", "olga", "VIEWER"); r.code() != CodeConflict {
		t.Fatalf("the last owner steps down: %+v", r.Errors)
	}

	// The app secret: rotated by an owner, shown once, and it works.
	var rotated struct{ RotateAppSecret struct{ Secret string } }
	api.must(t, olga, `mutation { rotateAppSecret(app: "orders") { secret } }`, nil, &rotated)
	if _, err := api.apps.VerifySecret(context.Background(), "orders", rotated.RotateAppSecret.Secret); err != nil {
		t.Fatalf("the new secret: %v", err)
	}

	// Passwords.
	if r := api.do(t, olga, `mutation { changePassword(oldPassword: "wrong", newPassword: "password-2") }`, nil, nil); r.code() != CodeBadInput || r.Errors[0].field() != "oldPassword" {
		t.Fatalf("wrong old password: %+v", r.Errors)
	}
	if r := api.do(t, olga, `mutation { changePassword(oldPassword: "password-1", newPassword: "short") }`, nil, nil); r.code() != CodeBadInput || r.Errors[0].field() != "newPassword" {
		t.Fatalf("short new password: %+v", r.Errors)
	}
	api.must(t, olga, `mutation { changePassword(oldPassword: "password-1", newPassword: "password-2") }`, nil, nil)
	api.login(t, "olga", "password-2")

	// API tokens: created narrowed, listed without their secret, revoked.
	var created struct {
		CreateApiToken struct {
			Token struct {
				ID, Name string
				App      struct{ Name string }
				Role     string
				User     struct{ Username string }
			}
			Secret string
		}
	}
	api.must(t, olga, `mutation { createApiToken(name: "ci", app: "orders", role: EDITOR) { token { id name app { name } role user { username } } secret } }`, nil, &created)
	tok := created.CreateApiToken
	if !strings.HasPrefix(tok.Secret, "jwt_") || tok.Token.App.Name != "orders" || tok.Token.Role != "EDITOR" || tok.Token.User.Username != "olga" {
		t.Fatalf("created token: %+v", tok)
	}
	api.createJob(t, tok.Secret, "orders", "by-token")
	if r := api.do(t, tok.Secret, `mutation { setAppRole(app: "orders", username: "ed", role: OWNER) { name } }`, nil, nil); r.code() != CodeForbidden {
		t.Fatalf("an EDITOR token manages members: %+v", r.Errors)
	}
	var list struct {
		APITokens []struct{ ID, Name string } `json:"apiTokens"`
	}
	api.must(t, olga, `{ apiTokens { id name } }`, nil, &list)
	if len(list.APITokens) != 1 || list.APITokens[0].ID != tok.Token.ID {
		t.Fatalf("olga's tokens: %+v", list)
	}
	api.must(t, admin, `mutation($id: ID!) { revokeApiToken(id: $id) }`, map[string]any{"id": tok.Token.ID}, nil)
	if r := api.do(t, tok.Secret, `{ apps { name } }`, nil, nil); r.code() != CodeUnauthenticated {
		t.Fatalf("revoked token: %+v", r.Errors)
	}
}
