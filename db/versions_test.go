package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// Every change to what servers keep in memory moves its scope's counter,
// in the same transaction, and nothing else does: a job's next fire
// advancing (every pass), a new session, a token's last use.
func TestChangeVersionsMoveWithTheRows(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		read := func() map[string]int64 {
			t.Helper()
			v, err := d.ChangeVersionList(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		expect := func(step string, before map[string]int64, moved ...string) {
			t.Helper()
			after := read()
			for _, scope := range []string{db.VersionAuth, db.VersionApps, db.VersionJobs} {
				want := false
				for _, m := range moved {
					want = want || m == scope
				}
				if got := after[scope] != before[scope]; got != want {
					t.Errorf("%s: %s moved %v (%d → %d); want %v", step, scope, got, before[scope], after[scope], want)
				}
			}
		}
		app := newApp(t, d)
		next := db.Now().Add(time.Hour)
		j := newJob(t, d, app.ID, "v", &next)
		u := &db.User{Username: "u", PasswordHash: "x"}
		if err := d.UserCreate(ctx, u); err != nil {
			t.Fatal(err)
		}

		v := read()
		later := next.Add(time.Hour)
		if _, err := d.JobAdvanceMany(ctx, []db.JobAdvance{{ID: j.ID, Old: next, New: &later}}); err != nil {
			t.Fatal(err)
		}
		if err := d.JobSetNextIfUnset(ctx, j.ID, later); err != nil {
			t.Fatal(err)
		}
		expect("advancing a job's next fire", v)

		v = read()
		if err := d.JobSetEnabled(ctx, j.ID, false, nil); err != nil {
			t.Fatal(err)
		}
		expect("disabling a job", v, db.VersionJobs)

		v = read()
		sess := &db.Session{TokenHash: "h", UserID: u.ID, ExpiresAt: later}
		if err := d.SessionCreate(ctx, sess); err != nil {
			t.Fatal(err)
		}
		expect("a new session", v)
		v = read()
		if err := d.SessionDelete(ctx, "h"); err != nil {
			t.Fatal(err)
		}
		expect("ending a session", v, db.VersionAuth)

		v = read()
		tok := &db.APIToken{Name: "t", TokenHash: "th", UserID: u.ID}
		if err := d.APITokenCreate(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if err := d.APITokenTouch(ctx, tok.ID, db.Now()); err != nil {
			t.Fatal(err)
		}
		expect("a new token, used", v)
		v = read()
		if err := d.APITokenRevoke(ctx, tok.ID, db.Now()); err != nil {
			t.Fatal(err)
		}
		expect("revoking a token", v, db.VersionAuth)

		v = read()
		if err := d.UserSetPassword(ctx, u.ID, "y"); err != nil {
			t.Fatal(err)
		}
		expect("a new password", v, db.VersionAuth)

		v = read()
		if err := d.AppSetSecret(ctx, app.ID, "s2"); err != nil {
			t.Fatal(err)
		}
		expect("a new app secret", v, db.VersionApps)

		v = read()
		if err := d.JobDelete(ctx, j.ID); err != nil {
			t.Fatal(err)
		}
		expect("deleting a job", v, db.VersionJobs)
	})
}
